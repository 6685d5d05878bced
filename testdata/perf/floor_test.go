package perf

import (
	"flag"
	"iter"
	"math/rand/v2"
	"testing"
)

// The floors: what running a program the way interleave test runs it costs with nothing else
// done — no strategy, no race detection, no shadow state, only the switches. perfbench runs
// them natively with the goroutines and steps an exploration of the test it compares had
// (-floor.goroutines, -floor.steps, from interleave test -json's MaxGoroutines and MaxSteps),
// so that each row shows how much of interleave test's time is the engine's and how much the
// floor of its design. Without the flags they skip.
var (
	floorGoroutines = flag.Int("floor.goroutines", 0, "goroutines of a floor test, the body's included")
	floorSteps      = flag.Int("floor.steps", 0, "scheduling steps of a floor test")
)

// floorShape returns the flags' shape: the goroutines the body starts, and how many steps
// each takes (every one of them ends after its steps); the body takes one step per go
// statement.
func floorShape(t *testing.T) (children int, steps []int) {
	if *floorGoroutines < 2 || *floorSteps < *floorGoroutines {
		t.Skip("a floor: run it with -floor.goroutines ≥ 2 and -floor.steps ≥ that (perfbench does)")
	}
	children = *floorGoroutines - 1
	rest := *floorSteps - children
	steps = make([]int, children)
	for i := range steps {
		steps[i] = rest / children
		if i < rest%children {
			steps[i]++
		}
	}
	return children, steps
}

// handoffs is the floor of the engine's design: every goroutine of the program runs on a
// goroutine of its own, and a step hands control to the goroutine a seeded random walk picks
// (among those started and not ended) by a token on its channel of capacity one, the one
// that handed it then waiting for a token on its own — the engine's switch (Exec.switchTo).
type handoffs struct {
	wake []chan struct{}
	live []int // the goroutines started and not ended; 0 is the body
	at   []int // at[g]: g's index in the list that holds it (live, or contendFloor's)
	rng  *rand.Rand
	done chan struct{}
}

// newHandoffs returns the handoffs of n goroutines, none started.
func newHandoffs(n int) *handoffs {
	h := &handoffs{
		wake: make([]chan struct{}, n),
		at:   make([]int, n),
		rng:  rand.New(rand.NewPCG(1, 2)),
		done: make(chan struct{}),
	}
	for g := range h.wake {
		h.wake[g] = make(chan struct{}, 1)
	}
	return h
}

// step is a scheduling point of goroutine g: the walk picks who runs next, and g waits for its
// turn if it is not g.
func (h *handoffs) step(g int) {
	next := h.live[h.rng.IntN(len(h.live))]
	if next == g {
		return
	}
	h.wake[next] <- struct{}{}
	<-h.wake[g]
}

// add puts g at the end of list, and remove takes it out, in constant time (at).
func (h *handoffs) add(list *[]int, g int) {
	h.at[g] = len(*list)
	*list = append(*list, g)
}

func (h *handoffs) remove(list *[]int, g int) {
	i, last := h.at[g], len(*list)-1
	(*list)[i] = (*list)[last]
	h.at[(*list)[i]] = i
	*list = (*list)[:last]
}

// exit ends goroutine g and hands control to the goroutine picked next; the last to end closes
// done.
func (h *handoffs) exit(g int) {
	h.remove(&h.live, g)
	if len(h.live) == 0 {
		close(h.done)
		return
	}
	h.wake[h.live[h.rng.IntN(len(h.live))]] <- struct{}{}
}

// TestHandoffFloor starts the goroutines one step of the body each, every one of them taking
// its steps, as the engine runs them.
func TestHandoffFloor(t *testing.T) {
	children, steps := floorShape(t)
	h := newHandoffs(children + 1)
	h.add(&h.live, 0)
	for g := 1; g <= children; g++ {
		h.add(&h.live, g)
		go func() {
			<-h.wake[g]
			for range steps[g-1] {
				h.step(g)
			}
			h.exit(g)
		}()
		h.step(0)
	}
	h.exit(0)
	<-h.done
}

// TestCoroutineFloor is the floor of a design that would switch by the standard library's
// cheapest means, coroutines (iter.Pull, which the runtime switches to directly, not through
// its run queues): a scheduler resumes the goroutine a seeded random walk picks, which runs
// to its next step and switches back — two switches a step — and the body starts the
// goroutines as coroutines, one step each.
func TestCoroutineFloor(t *testing.T) {
	children, steps := floorShape(t)
	rng := rand.New(rand.NewPCG(1, 2))
	resume := make([]func() (struct{}, bool), 0, children+1)
	stops := make([]func(), 0, children+1)
	live := make([]int, 0, children+1)
	start := func(run func(step func() bool)) {
		next, stop := iter.Pull(func(yield func(struct{}) bool) {
			run(func() bool { return yield(struct{}{}) })
		})
		live = append(live, len(resume))
		resume, stops = append(resume, next), append(stops, stop)
	}
	start(func(step func() bool) {
		for g := range children {
			start(func(step func() bool) {
				for range steps[g] {
					if !step() {
						return
					}
				}
			})
			if !step() {
				return
			}
		}
	})
	for len(live) > 0 {
		i := rng.IntN(len(live))
		if _, ok := resume[live[i]](); !ok {
			live[i] = live[len(live)-1]
			live = live[:len(live)-1]
		}
	}
	for _, stop := range stops {
		stop()
	}
}

// contendFloor is the handoff floor of contend's own shape: the goroutines a random walk can
// pick are those the engine's can — a goroutine that waits for the mutex cannot run while it
// is held, and every waiter can once it is unlocked — so that as many goroutines are alive at
// once, and the walk picks among as many, as under interleave test (about half of them wait
// for the mutex at a time). Only the switches and that bookkeeping are done, the waiters
// enabled and disabled together in constant time (the engine does it a word of its enabled
// set at a time).
type contendFloor struct {
	handoffs
	runnable []int // the goroutines the walk may pick but the waiters; at[g] is g's index
	waiting  []int // the goroutines at their Lock; at[g] is g's index
	held     bool
	steps    int // the steps taken
}

// pick draws the goroutine that runs next: a runnable one, or a waiter while the mutex is free.
func (f *contendFloor) pick() int {
	n := len(f.runnable)
	if !f.held {
		n += len(f.waiting)
	}
	if i := f.rng.IntN(n); i < len(f.runnable) {
		return f.runnable[i]
	} else {
		return f.waiting[i-len(f.runnable)]
	}
}

// step is a scheduling point of goroutine g, which waits until it is picked.
func (f *contendFloor) step(g int) {
	f.steps++
	if next := f.pick(); next != g {
		f.wake[next] <- struct{}{}
		<-f.wake[g]
	}
}

// lock is g's step at its Lock: g waits among the waiters, who can be picked only while the
// mutex is free, and takes the mutex when it is picked.
func (f *contendFloor) lock(g int) {
	f.remove(&f.runnable, g)
	f.add(&f.waiting, g)
	f.step(g)
	f.remove(&f.waiting, g)
	f.add(&f.runnable, g)
	f.held = true
}

// exit ends goroutine g and hands control to the goroutine picked next; the last child to end
// makes the body runnable (its WaitGroup.Wait).
func (f *contendFloor) exit(g int, last bool) {
	f.remove(&f.runnable, g)
	if last {
		f.add(&f.runnable, 0)
	}
	if len(f.runnable) == 0 && (f.held || len(f.waiting) == 0) {
		close(f.done)
		return
	}
	f.wake[f.pick()] <- struct{}{}
}

// TestContendFloor is contend under the handoff floor: the body starts the goroutines, one
// step each, and waits for them; each takes a step at its Lock (where it waits while the mutex
// is held), one before unlocking and one before its Done — the steps interleave test makes of
// contend. It fails when that is not the number of steps the exploration took: the floor is
// no longer contend's.
func TestContendFloor(t *testing.T) {
	children, _ := floorShape(t)
	f := &contendFloor{handoffs: *newHandoffs(children + 1)}
	f.add(&f.runnable, 0)
	ended := 0
	for g := 1; g <= children; g++ {
		f.add(&f.runnable, g)
		go func() {
			<-f.wake[g]
			f.lock(g)
			f.step(g)
			f.held = false
			f.step(g)
			ended++
			f.exit(g, ended == children)
		}()
		f.step(0)
	}
	if ended < children {
		// The body's Wait: not runnable until the last goroutine ends.
		f.remove(&f.runnable, 0)
		f.step(0)
	}
	f.exit(0, false)
	<-f.done
	// The exploration's steps include two or three of the body's that the floor leaves out
	// (its WaitGroup.Add among them).
	if diff := *floorSteps - f.steps; diff < 0 || diff > 3 {
		t.Fatalf("the floor took %d steps, the exploration %d: contend's shape has changed", f.steps, *floorSteps)
	}
}
