package constructs

import (
	"fmt"
	"testing"
)

// Pipe is a named channel type.
type Pipe chan string

func TestChanOps(t *testing.T) {
	ch := make(chan int, 3)
	ch <- 1
	ch <- 2
	say("len %d cap %d", len(ch), cap(ch))
	v := <-ch
	say("recv %d", v)
	w, ok := <-ch
	say("comma-ok %d %v", w, ok)
	ch <- 3
	close(ch)
	w, ok = <-ch
	say("after close %d %v", w, ok)
	w, ok = <-ch
	say("drained %d %v", w, ok)
	say("closed recv %d", <-ch)

	var send chan<- int
	var recv <-chan int
	c2 := make(chan int, 2)
	send, recv = c2, c2
	send <- 7
	say("directional %d len %d cap %d", <-recv, len(recv), cap(send))

	p := make(Pipe, 1)
	p <- "named"
	say("%s", <-p)

	cc := make(chan chan int, 1)
	cc <- c2
	(<-cc) <- 8
	say("chan of chan %d", <-c2)

	var x int
	c2 <- 9
	x = <-c2
	say("assign recv %d", x)
	c2 <- 1
	c2 <- 2
	say("sum %d", <-c2+<-c2)
	var arr [2]chan int
	arr[1] = make(chan int, 1)
	arr[1] <- 5
	say("array elem chan %d", <-arr[1])
}

func TestChanUnbuffered(t *testing.T) {
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v * 2
		}
		close(pong)
	}()
	for i := 1; i <= 3; i++ {
		ping <- i
		say("pong %d", <-pong)
	}
	close(ping)
	_, ok := <-pong
	say("pong closed %v", !ok)
}

func TestChanRange(t *testing.T) {
	ch := make(chan int, 5)
	for i := range 5 {
		ch <- i
	}
	close(ch)
	for v := range ch {
		if v == 3 {
			break
		}
		say("range %d", v)
	}
	for range ch {
		say("rest")
	}
	ch2 := make(chan string, 2)
	ch2 <- "a"
	ch2 <- "b"
	close(ch2)
	var last string
	for last = range ch2 {
		say("assigned %s", last)
	}
	say("last %s", last)
	results := make(chan string)
	go func() {
		defer close(results)
		for i := range 3 {
			results <- fmt.Sprint("item ", i)
		}
	}()
	n := 0
	for r := range results {
		n++
		say("%s", r)
	}
	say("items %d", n)
}
