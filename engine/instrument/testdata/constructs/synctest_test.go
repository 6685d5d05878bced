package constructs

import (
	"testing"
	"testing/synctest"
	"time"
)

func TestSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
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
}
