// Package circular_buffer_bad is SCTBench benchmark 7,
// CS.circular_buffer_bad.
//
// The original passes N=7 values through a 10-slot log buffer: under one
// mutex a sender inserts its loop index when the send flag is set and hands
// the turn to the receiver, which removes an element when the receive flag
// is set and asserts it equals its own loop index. The two loops only stay
// in step if the threads alternate; when the receiver spins through an
// iteration without its turn, the value it later removes no longer matches
// its index and the assertion fails. Three threads: main, sender, receiver.
package circular_buffer_bad

import (
	"fmt"
	"sync"
)

const (
	bufferMax = 10
	n         = 7
	errValue  = -1
)

type logBuffer struct {
	m             sync.Mutex
	buffer        [bufferMax]int
	first, next   int
	bufferSize    int
	send, receive bool
}

func (b *logBuffer) removeLogElement() int {
	if b.next > 0 && b.first < b.bufferSize {
		b.first++
		return b.buffer[b.first-1]
	}
	return errValue
}

func (b *logBuffer) insertLogElement(v int) int {
	if b.next < b.bufferSize && b.bufferSize > 0 {
		b.buffer[b.next] = v
		b.next = (b.next + 1) % b.bufferSize
		return v
	}
	return errValue
}

func (b *logBuffer) sender() {
	for i := 0; i < n; i++ {
		b.m.Lock()
		if b.send {
			b.insertLogElement(i)
			b.send = false
			b.receive = true
		}
		b.m.Unlock()
	}
}

func (b *logBuffer) receiver() error {
	for i := 0; i < n; i++ {
		b.m.Lock()
		if b.receive {
			if got := b.removeLogElement(); got != i {
				b.m.Unlock()
				return fmt.Errorf("iteration %d removed %d", i, got)
			}
			b.receive = false
			b.send = true
		}
		b.m.Unlock()
	}
	return nil
}

// Run starts the sender and the receiver, joins them and returns the
// receiver's assertion failure.
func Run() error {
	b := &logBuffer{bufferSize: 10, send: true}
	var wg sync.WaitGroup
	var err error
	wg.Add(2)
	go func() { defer wg.Done(); b.sender() }()
	go func() { defer wg.Done(); err = b.receiver() }()
	wg.Wait()
	return err
}
