package lockorder

import (
	"sync"
	"testing"
)

// TestOppositeTransfers runs two transfers in opposite directions between
// the same two accounts and checks that no money is created or lost.
func TestOppositeTransfers(t *testing.T) {
	alice := NewAccount("alice", 100)
	bob := NewAccount("bob", 100)

	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		if err := Transfer(alice, bob, 30); err != nil {
			t.Errorf("alice→bob: %v", err)
		}
	}()
	go func() {
		defer wg.Done()
		if err := Transfer(bob, alice, 50); err != nil {
			t.Errorf("bob→alice: %v", err)
		}
	}()
	wg.Wait()

	if a, b := alice.Balance(), bob.Balance(); a != 120 || b != 80 {
		t.Errorf("balances = %d, %d; want 120, 80", a, b)
	}
}
