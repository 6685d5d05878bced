// Package counter implements a bank account whose Withdraw method has a
// check-then-act race.
//
// Withdraw reads the balance under the lock, releases the lock, and then
// subtracts the amount under the lock again. Every access is synchronized,
// so the race detector stays silent, but the check and the update are not
// one atomic step: if two withdrawals both check the balance before either
// subtracts (check, check, subtract, subtract), both succeed and the
// account is overdrawn.
package counter

import "sync"

// Account is a bank account that is safe for concurrent use (or meant to be).
type Account struct {
	mu      sync.Mutex
	balance int
}

// NewAccount returns an account holding the given balance.
func NewAccount(balance int) *Account {
	return &Account{balance: balance}
}

// Balance returns the current balance.
func (a *Account) Balance() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.balance
}

// Withdraw takes amount out of the account and reports whether it did.
// It refuses to withdraw more than the balance.
func (a *Account) Withdraw(amount int) bool {
	if a.Balance() < amount {
		return false
	}
	// BUG: another withdrawal may run between the check above and the
	// update below.
	a.mu.Lock()
	a.balance -= amount
	a.mu.Unlock()
	return true
}
