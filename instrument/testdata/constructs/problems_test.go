package constructs

import (
	"sync"
	"testing"
)

// TestProblems holds constructs the rewriter leaves as they are, each reported as a problem at
// its line (marked "problem:"); they still compile and behave as the original.
func TestProblems(t *testing.T) {
	a := 1
	get := func() int { return a }
	a, b := 2, 3 // problem: assignment to shared variable a in :=
	say("redeclared %d %d", get(), b)

	m := map[int]int{}
	key := func() int { return 1 }
	m[key()] += 5 // problem: compound assignment to m[key()]
	say("map %v", m)

	s := []int{1, 2}
	s[key()] *= 3 // problem: compound assignment to s[key()]
	say("slice %v", s)

	x, y := 1, 2
	swap := func() { x, y = y, x }
	swap()
	s[key()], x = 7, 8 // problem: its left side has calls
	var flag bool
	mark := func() { flag = !flag }
	mark()
	flag, y = x == 8, 9
	for x, y = 0, 1; x < 3; x, y = y, x+y { // problem: init or post statement
	}
	say("tuple %v %d %d %v", s, x, y, flag)

	var wg sync.WaitGroup
	wg.Add(1)
	go wg.Done()
	wg.Wait()

	done := make(chan bool)
	go func(ok bool) { done <- ok }(x == 1)
	say("untyped arg %v", <-done)
	ch := make(chan int, 1)
	go close(ch)
	go print() // problem: go statement calling a builtin
	_, open := <-ch
	say("closed %v", !open)

	names := map[string]int{"k": 1}
	var k string
	keep := func() string { return k }
	for k = range names { // problem: assignment by range to a shared variable
	}
	c2 := make(chan string, 1)
	c2 <- "v"
	select {
	case k = <-c2: // problem: assignment by a select case to a shared variable
	}
	say("range and select %s", keep())

	var mu sync.Mutex
	(*sync.Mutex).Lock(&mu)
	mu.Unlock()
	ro := make(<-chan int) // problem: make of a directional channel type
	say("directional %v", ro != nil)
	var send chan<- int = ch
	say("send-only len %d", len(send)) // problem: len of a send-only channel
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
