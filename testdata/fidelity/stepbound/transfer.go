// Package stepbound is issue 15's item 7: goroutines that wait on each other in a cycle are
// deadlocked the moment the cycle closes, even while an unrelated goroutine keeps running (a
// heartbeat here); the report is that deadlock, not a livelock at the step bound.
package stepbound

import (
	"sync"
	"sync/atomic"
)

// Account is a locked balance.
type Account struct {
	mu      sync.Mutex
	ID      int
	Balance int
}

// TransferUnordered locks from, then to (the bug: opposite transfers deadlock).
func TransferUnordered(from, to *Account, amount int) {
	from.mu.Lock()
	defer from.mu.Unlock()
	to.mu.Lock()
	defer to.mu.Unlock()
	from.Balance -= amount
	to.Balance += amount
}

// Transfer locks the account with the lower ID first (the fix).
func Transfer(from, to *Account, amount int) {
	first, second := from, to
	if second.ID < first.ID {
		first, second = second, first
	}
	first.mu.Lock()
	defer first.mu.Unlock()
	second.mu.Lock()
	defer second.mu.Unlock()
	from.Balance -= amount
	to.Balance += amount
}

// WithHeartbeat runs opposite transfers while a heartbeat goroutine polls until they are
// done, and returns the number of beats.
func WithHeartbeat(transfer func(from, to *Account, amount int)) int64 {
	a, b := &Account{ID: 1, Balance: 100}, &Account{ID: 2, Balance: 100}
	stop := make(chan struct{})
	beaten := make(chan struct{})
	var beats atomic.Int64
	go func() {
		defer close(beaten)
		for {
			select {
			case <-stop:
				return
			default:
				beats.Add(1)
			}
		}
	}()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		transfer(a, b, 10)
	}()
	go func() {
		defer wg.Done()
		transfer(b, a, 20)
	}()
	wg.Wait()
	close(stop)
	<-beaten
	return beats.Load()
}
