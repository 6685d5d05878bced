// Package account_bad is SCTBench benchmark 3, CS.account_bad.
//
// The original keeps a bank balance behind one mutex. One thread deposits y,
// one withdraws z, and a third checks the balance once it sees both done.
// Its check expects (x-y)-z, but the deposit adds y, so the assertion fails
// whenever the checker runs after both the deposit and the withdrawal; if it
// runs first, it checks nothing. Four threads: main, checker, depositor,
// withdrawer.
//
// Simplified: the original main returns without joining its threads; here
// the caller waits for them so that the check is always reported.
package account_bad

import (
	"fmt"
	"sync"
)

type account struct {
	mu                        sync.Mutex
	x, y, z, balance          int
	depositDone, withdrawDone bool
}

func (a *account) deposit() {
	a.mu.Lock()
	a.balance = a.balance + a.y
	a.depositDone = true
	a.mu.Unlock()
}

func (a *account) withdraw() {
	a.mu.Lock()
	a.balance = a.balance - a.z
	a.withdrawDone = true
	a.mu.Unlock()
}

func (a *account) checkResult() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.depositDone && a.withdrawDone && a.balance != (a.x-a.y)-a.z {
		return fmt.Errorf("balance %d, want %d", a.balance, (a.x-a.y)-a.z)
	}
	return nil
}

// Run starts the checker, the depositor and the withdrawer, waits for them and
// returns the checker's assertion failure, if any.
func Run() error {
	a := &account{x: 1, y: 2, z: 4}
	a.balance = a.x
	var wg sync.WaitGroup
	var err error
	wg.Add(3)
	go func() { defer wg.Done(); err = a.checkResult() }()
	go func() { defer wg.Done(); a.deposit() }()
	go func() { defer wg.Done(); a.withdraw() }()
	wg.Wait()
	return err
}
