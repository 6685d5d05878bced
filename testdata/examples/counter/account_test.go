package counter

import (
	"sync"
	"testing"
)

// TestConcurrentWithdraw makes two withdrawals of 80 from an account
// holding 100: exactly one of them may succeed.
func TestConcurrentWithdraw(t *testing.T) {
	acct := NewAccount(100)
	var wg sync.WaitGroup
	results := make([]bool, 2)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = acct.Withdraw(80)
		}()
	}
	wg.Wait()

	succeeded := 0
	for _, ok := range results {
		if ok {
			succeeded++
		}
	}
	if succeeded != 1 {
		t.Errorf("%d withdrawals succeeded, want 1", succeeded)
	}
	if b := acct.Balance(); b != 20 {
		t.Errorf("balance = %d, want 20", b)
	}
}
