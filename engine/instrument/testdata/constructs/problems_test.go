package constructs

import (
	"sync"
	"testing"
)

// TestProblems holds constructs the rewriter leaves as they are, each reported as a problem at
// its line (marked "problem:"); they still compile and behave as the original.
func TestProblems(t *testing.T) {
	x := 1
	var wg sync.WaitGroup
	wg.Add(1)
	go wg.Done()
	wg.Wait()

	done := make(chan bool)
	go func(ok bool) { done <- ok }(x == 1)
	say("untyped arg %v", <-done)
	ch := make(chan int, 1)
	go close(ch)
	go print()
	gone := map[int]bool{1: true}
	go delete(gone, 1) // problem: the memory access of go delete
	_, open := <-ch
	say("closed %v", !open)

	var mu sync.Mutex
	(*sync.Mutex).Lock(&mu)
	mu.Unlock()
	ro := make(<-chan int) // problem: make of a directional channel type
	say("directional %v", ro != nil)
	var send chan<- int = ch
	say("send-only len %d", len(send)) // problem: len of a send-only channel
	sl := []int{1, 2}
	mm := map[int]int{}
	mm[len( // problem: compound assignment to a location that spans lines
		sl)] += 1
	say("spans lines %v %d", mm, rangeGeneric(sl))
	c3 := make(chan int, 1)
	c3 <- 1
	select {
	case v, ok := <-c3:
		say("spans %d %v", v, ok)
	case c3 <- func() int { // problem: select case spans lines
		return 2
	}():
	}
}

// rangeGeneric ranges over a value of a type parameter: the types of its iteration values
// are not known.
func rangeGeneric[S ~[]int](s S) int {
	var v int
	get := func() int { return v }
	for _, v = range s { // problem: assignment by range to a shared variable
	}
	return get()
}
