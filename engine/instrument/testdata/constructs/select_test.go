package constructs

import "testing"

func TestSelectForms(t *testing.T) {
	ch := make(chan int, 1)
	select {
	case ch <- 1:
		say("sent")
	}
	select {
	case v := <-ch:
		say("got %d", v)
	}
	select {
	case v, ok := <-ch:
		say("unexpected %d %v", v, ok)
	default:
		say("default")
	}
	ch <- 2
	var v int
	var ok bool
	select {
	case v, ok = <-ch:
		say("assigned %d %v", v, ok)
	}
	ch <- 3
	select {
	case v = <-ch:
		say("assigned %d", v)
	}
	ch <- 4
	select {
	case <-ch:
		say("discarded")
	}
	close(ch)
	select {
	case v, ok := <-ch:
		say("closed %d %v", v, ok)
	}
	var nilc chan int
	select {
	case nilc <- 1:
		say("unexpected")
	case <-nilc:
		say("unexpected")
	default:
		say("nil channels never ready")
	}
	select {
	default:
		say("only default")
	}
}

func TestSelectLoop(t *testing.T) {
	a, b, quit := make(chan int), make(chan string), make(chan bool)
	go func() {
		for i := range 3 {
			a <- i
			b <- "s"
		}
		close(quit)
	}()
	n := 0
loop:
	for {
		select {
		case v := <-a:
			n += v
			if v == 1 {
				continue loop
			}
			say("a %d", v)
		case s := <-b:
			say("b %s", s)
		case <-quit:
			break loop
		}
	}
	say("n %d", n)
}

func TestSelectEvalOrder(t *testing.T) {
	chs := []chan int{make(chan int, 1), make(chan int, 1)}
	pick := func(i int) chan int { say("pick %d", i); return chs[i] }
	val := func(v int) int { say("val %d", v); return v }
	chs[1] <- 0
	select {
	case pick(0) <- val(5):
		say("sent on 0")
	default:
		say("default")
	}
	say("got %d", <-chs[0])
	select {
	case pick(1) <- val(6):
		say("sent on 1")
	case <-pick(0):
		say("unexpected")
	default:
		say("default after evaluating all")
	}
	if r := returns(); r > 0 {
		say("returns %d", r)
	}
}

func returns() int {
	ch := make(chan int, 1)
	ch <- 42
	for {
		select {
		case v := <-ch:
			return v
		}
	}
}
