package constructs

import (
	"testing"
	"testing/synctest"
	"time"
)

func TestSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		say("the bubble starts at %v", start)
		ch := make(chan int)
		go func() { ch <- 1 }()
		synctest.Wait()
		select {
		case v := <-ch:
			say("received %d after Wait", v)
		default:
			say("the sender was not blocked")
		}
		time.Sleep(time.Minute)
		say("slept %v", time.Since(start))
	})
	// Outside the bubble the time is the test's own again: later than anything the bubble saw.
	say("after the bubble, later than its start: %v", time.Now().After(time.Date(2000, 1, 1, 0, 1, 0, 0, time.UTC)))
}
