package constructs

import (
	"testing"
)

func TestPanics(t *testing.T) {
	var p *Pair
	ran := false
	f := func() int { ran = true; return 1 }
	keep := func() *Pair { return p } // p is captured: shared
	_ = keep
	try("nil pointer write", func() {
		p.A = f()
	})
	say("f ran before the panic: %v", ran)
	try("nil pointer read", func() {
		say("%d", p.B)
	})
	try("nil pointer op-assign", func() {
		p.B += 2
	})
	var n *Node
	try("nil pointer deref", func() {
		v := *n
		say("%v", v)
	})
	s := []int{1, 2, 3}
	i := 5
	ran = false
	try("index out of range write", func() {
		s[i] = f()
	})
	say("f ran before the panic: %v", ran)
	try("index out of range read", func() {
		say("%d", s[i])
	})
	try("slice out of range", func() {
		say("%v", s[1:i])
	})
	var m map[string]int
	ran = false
	try("nil map write", func() {
		m["a"] = f()
	})
	say("f ran before the panic: %v", ran)
	try("nil map increment", func() {
		m["a"]++
	})
	try("nil map read and delete", func() {
		say("%d %d", m["a"], len(m))
		delete(m, "a")
		clear(m)
	})
	ch := make(chan int, 1)
	close(ch)
	try("send on closed channel", func() {
		ch <- 1
	})
	try("close of closed channel", func() {
		close(ch)
	})
	var nilch chan int
	try("close of nil channel", func() {
		close(nilch)
	})
	try("select of cases on closed channel", func() {
		other := make(chan int)
		select {
		case <-other:
		case ch <- 2:
		case other <- 1:
		}
	})
	ran = false
	try("nil pointer op-assign with a call", func() {
		p.B += f()
	})
	say("f ran before the panic: %v", ran)
	calls := ""
	g := func(s string, v int) int { calls += s; return v }
	try("index out of range with calls", func() {
		s[g("i", 7)] = g("v", 1)
	})
	say("calls %s", calls)
	try("select send on closed channel", func() {
		select {
		case ch <- 2:
		default:
		}
	})
	try("custom panic", func() {
		panic(Pair{1, 2})
	})
	zero := 0
	try("divide by zero", func() {
		Counter = 1
		say("%d", Counter/zero)
	})
	done := make(chan string)
	go func() {
		defer func() { done <- "recovered in goroutine: " + recover().(error).Error() }()
		var q *Node
		q.Next = &Node{}
	}()
	say("%s", <-done)
	try("type assertion", func() {
		var x any = "s"
		say("%d", x.(int))
	})
}
