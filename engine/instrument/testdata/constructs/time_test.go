package constructs

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"
)

func TestSleepOrder(t *testing.T) {
	order := make(chan string, 3)
	var wg sync.WaitGroup
	for _, d := range []int{60, 1, 30} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(d) * time.Millisecond)
			order <- "slept " + time.Duration(d*int(time.Millisecond)).String()
		}()
	}
	wg.Wait()
	close(order)
	for s := range order {
		say("%s", s)
	}
}

func TestTimers(t *testing.T) {
	ch := make(chan int)
	go func() {
		time.Sleep(time.Millisecond)
		ch <- 1
	}()
	select {
	case v := <-ch:
		say("value before timeout %d", v)
	case <-time.After(time.Minute):
		say("timeout")
	}
	select {
	case <-ch:
		say("unexpected")
	case <-time.After(time.Millisecond):
		say("timed out")
	}

	tm := time.NewTimer(time.Hour)
	say("stop %v", tm.Stop())
	say("stop again %v", tm.Stop())
	tm.Reset(time.Millisecond)
	<-tm.C
	say("timer fired")

	fired := make(chan string)
	af := time.AfterFunc(time.Millisecond, func() { fired <- "afterfunc" })
	say("%s", <-fired)
	say("afterfunc stop %v", af.Stop())
	af2 := time.AfterFunc(time.Hour, func() { fired <- "never" })
	say("afterfunc stop %v", af2.Stop())

	tk := time.NewTicker(time.Millisecond)
	for i := range 3 {
		<-tk.C
		say("tick %d", i)
	}
	tk.Stop()
	tk.Reset(time.Millisecond)
	<-tk.C
	tk.Stop()
	say("ticker done")

	start := time.Now()
	time.Sleep(2 * time.Millisecond)
	say("since >= 2ms %v", time.Since(start) >= 2*time.Millisecond)
}

func TestContextTimeout(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Millisecond)
	defer cancel()
	work := make(chan bool)
	select {
	case <-ctx.Done():
		say("ctx %v", ctx.Err())
	case <-work:
		say("unexpected")
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), time.Hour)
	cancel2()
	<-ctx2.Done()
	say("ctx2 %v", ctx2.Err())
	ctx3, cancel3 := context.WithDeadline(context.Background(), time.Now().Add(time.Millisecond))
	defer cancel3()
	<-ctx3.Done()
	say("ctx3 %v", ctx3.Err())
}

func TestGosched(t *testing.T) {
	var mu sync.Mutex
	done := false
	finished := make(chan bool)
	go func() {
		mu.Lock()
		done = true
		mu.Unlock()
		finished <- true
	}()
	for {
		mu.Lock()
		d := done
		mu.Unlock()
		if d {
			break
		}
		runtime.Gosched()
	}
	<-finished
	say("spun until done")
}
