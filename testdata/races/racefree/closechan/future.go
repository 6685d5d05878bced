// Package closechan is a one-shot future: the result is published by
// closing a channel.
//
// Set writes the value and then closes f.done; Get receives from f.done,
// which returns because the channel is closed, and then reads the value.
// The close of a channel happens before a receive that returns because
// the channel is closed, so every Get is ordered after Set by the close
// alone.
package closechan

// Future holds a value that is set once and read by any number of
// goroutines.
type Future struct {
	done  chan struct{}
	value string
}

// NewFuture returns a future whose value is not yet set.
func NewFuture() *Future {
	return &Future{done: make(chan struct{})}
}

// Set sets the value. It must be called once.
func (f *Future) Set(value string) {
	f.value = value
	close(f.done)
}

// Get waits until the value is set and returns it.
func (f *Future) Get() string {
	<-f.done
	return f.value
}
