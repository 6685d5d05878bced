// Package lockorder implements money transfers between accounts that lock
// the two accounts in an inconsistent order.
//
// Transfer locks the source account and then the destination account. Two
// transfers in opposite directions between the same pair of accounts can
// deadlock: transfer A→B locks A, transfer B→A locks B, and then each
// waits forever for the lock the other one holds. The deadlock needs both
// transfers to take their first lock before either takes its second; the
// fix is to always lock the accounts in one global order (for example by ID).
package lockorder

import (
	"errors"
	"sync"
)

// ErrInsufficientFunds is returned by Transfer when the source account
// does not hold enough money.
var ErrInsufficientFunds = errors.New("insufficient funds")

// Account is a bank account that is safe for concurrent use.
type Account struct {
	mu      sync.Mutex
	id      string
	balance int
}

// NewAccount returns an account with the given ID and balance.
func NewAccount(id string, balance int) *Account {
	return &Account{id: id, balance: balance}
}

// Balance returns the current balance.
func (a *Account) Balance() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.balance
}

// Transfer moves amount from one account to another atomically.
func Transfer(from, to *Account, amount int) error {
	from.mu.Lock()
	defer from.mu.Unlock()
	// BUG: locks are taken in argument order, so an opposite transfer
	// holding to.mu and waiting for from.mu deadlocks with this one.
	to.mu.Lock()
	defer to.mu.Unlock()

	if from.balance < amount {
		return ErrInsufficientFunds
	}
	from.balance -= amount
	to.balance += amount
	return nil
}
