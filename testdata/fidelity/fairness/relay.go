// Package fairness is issue 15's item 1: two goroutines that hand a value back and forth must
// not keep a third, enabled goroutine from ever running. Without a fairness rule across
// goroutines, a strategy that prefers the two (PCT's priorities) runs them until the step
// bound and reports a livelock, hiding the leak that follows once the third goroutine runs.
package fairness

// relay echoes every value it receives on in back on out until stop is closed.
func relay(in <-chan int, out chan<- int, stop <-chan struct{}) {
	for {
		select {
		case v := <-in:
			out <- v
		case <-stop:
			return
		}
	}
}

// pingUntil sends values through the relay until stop is closed and returns the number of
// round trips.
func pingUntil(ping chan<- int, pong <-chan int, stop <-chan struct{}) int {
	n := 0
	for {
		select {
		case ping <- n:
			<-pong
			n++
		case <-stop:
			return n
		}
	}
}

// Session runs a relay, a worker that ends the session and reports a result, and the pinger
// that waits for the end. It returns the worker's result if it was ready when the session
// ended. With an unbuffered result channel the worker is left blocked forever when the
// pinger does not take the result (a leak); with a buffer of one it never is.
func Session(resultBuffer int) (int, bool) {
	ping, pong := make(chan int), make(chan int)
	stop := make(chan struct{})
	result := make(chan int, resultBuffer)
	go relay(ping, pong, stop)
	go func() {
		close(stop)
		result <- 42
	}()
	pingUntil(ping, pong, stop)
	select {
	case r := <-result:
		return r, true
	default:
		return 0, false
	}
}
