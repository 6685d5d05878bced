package constructs

import (
	"fmt"
	"testing"
)

func TestGoArgs(t *testing.T) {
	x := 1
	done := make(chan string)
	read := func() int { return x } // x is captured: shared
	go func(v int) { done <- fmt.Sprint("arg ", v) }(x)
	x = 2
	say("%s", <-done)
	go func() { done <- fmt.Sprint("captured ", x) }()
	say("%s", <-done)
	say("after %d %d", x, read())

	Counter = 5
	go func(v int) { done <- fmt.Sprint("pkg arg ", v) }(Counter + 1)
	Counter = 7
	say("%s", <-done)
}

func TestGoMethods(t *testing.T) {
	done := make(chan string)
	p := Pair{1, 2}
	q := &p // p is address-taken: shared
	go p.Report(done)
	p.A = 10
	say("%s", <-done)

	f := p.Report // a method value binds a copy of p
	q.B = 20
	go f(done)
	say("%s", <-done)

	n := &Node{Val: 1}
	go n.Report(done)
	n = &Node{Val: 2}
	say("%s", <-done)

	var r Reporter = p
	go r.Report(done)
	r = n
	say("%s", <-done)
	go r.Report(done)
	say("%s", <-done)

	fs := []func(chan<- string){Pair{3, 4}.Report, n.Report}
	i := 0
	go fs[i](done)
	i = 1
	say("%s %d", <-done, i)
	go (fs[i])(done)
	say("%s", <-done)
}

func TestGoVariadicGeneric(t *testing.T) {
	done := make(chan string)
	x := 4
	xs := []int{1, 2, 3}
	go SumTo(done, 1, 2, x)
	x = 100
	say("%s", <-done)
	go SumTo(done, xs...)
	say("%s", <-done)
	go SumTo(done)
	say("%s", <-done)
	go ShowTo[int](done, x)
	say("%s", <-done)
	go ShowTo(done, "s")
	say("%s", <-done)
	go ShowTo(done, 1.5)
	say("%s", <-done)
	show := ShowTo[Pair]
	go show(done, Pair{5, 6})
	say("%s", <-done)
	b := &Box[string]{}
	go func() { b.Set("boxed"); done <- "set" }()
	say("%s %s", <-done, b.Get())
}

func TestGoLoop(t *testing.T) {
	done := make(chan int)
	for i := 0; i < 3; i++ {
		go func() { done <- i * i }()
	}
	sum := 0
	for range 3 {
		sum += <-done
	}
	say("loop sum %d", sum)
	for _, v := range []int{10, 20} {
		go func(w int) { done <- w + v }(v)
	}
	say("range sum %d", <-done+<-done)
}
