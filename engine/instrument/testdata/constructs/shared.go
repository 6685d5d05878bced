// Package constructs holds one small test per construct family the instrumenter rewrites.
// Each test prints a transcript (lines starting with "> ") that does not depend on the
// schedule: the instrumented test must print the same transcript as the original.
package constructs

import (
	"fmt"
	"sync"
)

// Counter is a package variable: shared memory.
var Counter int

// Names is a package map.
var Names = map[string]int{}

// Guarded embeds a mutex: Lock and Unlock are promoted.
type Guarded struct {
	sync.Mutex
	N int
}

// PGuarded embeds a pointer to a mutex.
type PGuarded struct {
	*sync.Mutex
	N int
}

// Account guards its balance with a read-write mutex.
type Account struct {
	mu  sync.RWMutex
	bal int
}

// Deposit adds n.
func (a *Account) Deposit(n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.bal += n
}

// Balance returns the balance.
func (a *Account) Balance() int {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.bal
}

// Pair is a value type with a value method.
type Pair struct{ A, B int }

// Report sends p's fields on c.
func (p Pair) Report(c chan<- string) { c <- fmt.Sprint("pair ", p.A, " ", p.B) }

// Node is a linked node.
type Node struct {
	Val  int
	Next *Node
}

// Report sends n's value on c.
func (n *Node) Report(c chan<- string) { c <- fmt.Sprint("node ", n.Val) }

// Reporter is implemented by Pair and *Node.
type Reporter interface{ Report(c chan<- string) }

// SumTo sends the sum of xs on c.
func SumTo(c chan<- string, xs ...int) {
	s := 0
	for _, x := range xs {
		s += x
	}
	c <- fmt.Sprint("sum ", s)
}

// ShowTo sends v on c.
func ShowTo[T any](c chan<- string, v T) { c <- fmt.Sprintf("show %T %v", v, v) }

// Box is a generic container with a mutex.
type Box[T any] struct {
	mu sync.Mutex
	v  T
}

// Set stores v.
func (b *Box[T]) Set(v T) {
	b.mu.Lock()
	b.v = v
	b.mu.Unlock()
}

// Get returns the value.
func (b *Box[T]) Get() T {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.v
}

// Incr adds one to Counter under mu.
func Incr(mu *sync.Mutex) {
	mu.Lock()
	Counter++
	mu.Unlock()
}
