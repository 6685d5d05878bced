package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine"
)

// ctxDone reports whether ctx.Done() is closed, without blocking.
func ctxDone(ctx context.Context, pos string) bool {
	_, ok := tmPoll(ctx.Done(), pos)
	return ok
}

// ctxCheck checks ctx's Err and Cause.
func ctxCheck(t *engine.T, name string, ctx context.Context, err, cause error) {
	if got := ctx.Err(); got != err {
		t.Errorf("%s: Err() = %v, want %v", name, got, err)
	}
	if got := context.Cause(ctx); got != cause {
		t.Errorf("%s: Cause = %v, want %v", name, got, cause)
	}
}

func TestContextDeadline(t *testing.T) {
	errSlow := errors.New("slow")
	tests := []struct {
		name string
		body func(t *engine.T)
	}{
		{"timeout expires", func(t *engine.T) {
			ctx, cancel := engine.WithTimeout(context.Background(), 5*time.Second, "c.go:1")
			defer cancel()
			if d, ok := ctx.Deadline(); !ok || !near(d, at(5*time.Second)) {
				t.Errorf("Deadline() = %v, %v", d, ok)
			}
			ctxCheck(t, "before", ctx, nil, nil)
			if ctxDone(ctx, "c.go:2") {
				t.Errorf("done before the deadline")
			}
			engine.Recv(ctx.Done(), "c.go:3")
			if now := engine.Now(); !near(now, at(5*time.Second)) {
				t.Errorf("done at %v", now)
			}
			ctxCheck(t, "after", ctx, context.DeadlineExceeded, context.DeadlineExceeded)
			cancel() // no effect now
			ctxCheck(t, "after cancel", ctx, context.DeadlineExceeded, context.DeadlineExceeded)
		}},
		{"cancel before the deadline", func(t *engine.T) {
			ctx, cancel := engine.WithTimeout(context.Background(), 5*time.Second, "c.go:1")
			engine.Sleep(time.Second, "c.go:2")
			cancel()
			if !ctxDone(ctx, "c.go:3") {
				t.Errorf("not done after cancel")
			}
			ctxCheck(t, "canceled", ctx, context.Canceled, context.Canceled)
			engine.Sleep(time.Hour, "c.go:4")
			ctxCheck(t, "past the deadline", ctx, context.Canceled, context.Canceled)
		}},
		{"deadline", func(t *engine.T) {
			ctx, cancel := engine.WithDeadline(context.Background(), at(3*time.Second), "c.go:1")
			defer cancel()
			if d, ok := ctx.Deadline(); !ok || !near(d, at(3*time.Second)) {
				t.Errorf("Deadline() = %v, %v", d, ok)
			}
			engine.Recv(ctx.Done(), "c.go:2")
			if !near(engine.Now(), at(3*time.Second)) {
				t.Errorf("done at %v", engine.Now())
			}
		}},
		{"deadline passed already", func(t *engine.T) {
			engine.Sleep(time.Second, "c.go:1")
			ctx, cancel := engine.WithDeadline(context.Background(), engine.Epoch, "c.go:2")
			defer cancel()
			if !ctxDone(ctx, "c.go:3") {
				t.Errorf("not done")
			}
			ctxCheck(t, "past", ctx, context.DeadlineExceeded, context.DeadlineExceeded)
		}},
		{"later deadline keeps the parent's", func(t *engine.T) {
			parent, cancel := engine.WithTimeout(context.Background(), time.Hour, "c.go:1")
			defer cancel()
			child, cancel2 := engine.WithTimeout(parent, 2*time.Hour, "c.go:2")
			defer cancel2()
			if d, ok := child.Deadline(); !ok || !near(d, at(time.Hour)) {
				t.Errorf("child Deadline() = %v, %v; want the parent's", d, ok)
			}
			short, cancel3 := engine.WithTimeout(parent, time.Minute, "c.go:3")
			defer cancel3()
			if d, _ := short.Deadline(); !near(d, at(time.Minute)) {
				t.Errorf("earlier child Deadline() = %v", d)
			}
			engine.Recv(child.Done(), "c.go:4")
			if !near(engine.Now(), at(time.Hour)) {
				t.Errorf("child done at %v", engine.Now())
			}
			ctxCheck(t, "child", child, context.DeadlineExceeded, context.DeadlineExceeded)
			ctxCheck(t, "short", short, context.DeadlineExceeded, context.DeadlineExceeded)
		}},
		{"cause", func(t *engine.T) {
			ctx, cancel := engine.WithTimeoutCause(context.Background(), time.Second, errSlow, "c.go:1")
			defer cancel()
			engine.Recv(ctx.Done(), "c.go:2")
			ctxCheck(t, "expired", ctx, context.DeadlineExceeded, errSlow)
			ctx2, cancel2 := engine.WithDeadlineCause(context.Background(), at(time.Hour), errSlow, "c.go:3")
			cancel2()
			ctxCheck(t, "canceled", ctx2, context.Canceled, context.Canceled)
		}},
		{"value", func(t *engine.T) {
			type key struct{}
			parent := context.WithValue(context.Background(), key{}, "v")
			ctx, cancel := engine.WithTimeout(parent, time.Second, "c.go:1")
			defer cancel()
			child := context.WithValue(ctx, key{}, "w")
			if ctx.Value(key{}) != "v" || child.Value(key{}) != "w" {
				t.Errorf("values %v, %v", ctx.Value(key{}), child.Value(key{}))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tmAll(t, tt.body) })
	}
}

func TestContextPropagation(t *testing.T) {
	tests := []struct {
		name string
		body func(t *engine.T)
	}{
		{"parent deadlineCtx canceled", func(t *engine.T) {
			parent, cancel := engine.WithTimeout(context.Background(), time.Hour, "p.go:1")
			child, cancel2 := engine.WithTimeout(parent, time.Minute, "p.go:2")
			defer cancel2()
			grand, cancel3 := engine.WithTimeout(context.WithValue(child, struct{}{}, 1), time.Minute, "p.go:3")
			defer cancel3()
			cancel()
			ctxCheck(t, "child", child, context.Canceled, context.Canceled)
			ctxCheck(t, "grandchild", grand, context.Canceled, context.Canceled)
			if !ctxDone(grand, "p.go:4") {
				t.Errorf("grandchild not done")
			}
		}},
		{"parent deadline passes", func(t *engine.T) {
			parent, cancel := engine.WithTimeout(context.Background(), time.Minute, "p.go:1")
			defer cancel()
			child, cancel2 := engine.WithTimeout(parent, time.Minute, "p.go:2")
			defer cancel2()
			engine.Recv(child.Done(), "p.go:3")
			ctxCheck(t, "parent", parent, context.DeadlineExceeded, context.DeadlineExceeded)
			ctxCheck(t, "child", child, context.DeadlineExceeded, context.DeadlineExceeded)
		}},
		{"parent done already", func(t *engine.T) {
			parent, cancel := engine.WithTimeout(context.Background(), time.Minute, "p.go:1")
			cancel()
			child, cancel2 := engine.WithTimeout(parent, time.Hour, "p.go:2")
			defer cancel2()
			ctxCheck(t, "child", child, context.Canceled, context.Canceled)
		}},
		{"child cancel detaches", func(t *engine.T) {
			parent, cancel := engine.WithTimeout(context.Background(), time.Minute, "p.go:1")
			defer cancel()
			child, cancel2 := engine.WithTimeout(parent, time.Second, "p.go:2")
			cancel2()
			ctxCheck(t, "child", child, context.Canceled, context.Canceled)
			ctxCheck(t, "parent", parent, nil, nil)
			engine.Recv(parent.Done(), "p.go:3")
			ctxCheck(t, "child after the parent's deadline", child, context.Canceled, context.Canceled)
		}},
		{"context.WithCancel child at the deadline", func(t *engine.T) {
			ctx, cancel := engine.WithTimeout(context.Background(), time.Second, "p.go:1")
			defer cancel()
			child, cancelChild := context.WithCancel(ctx)
			defer cancelChild()
			grand, cancelGrand := context.WithCancel(child)
			defer cancelGrand()
			engine.Recv(ctx.Done(), "p.go:2")
			// Synchronously: no goroutine of the context package is involved.
			ctxCheck(t, "child", child, context.DeadlineExceeded, context.DeadlineExceeded)
			ctxCheck(t, "grandchild", grand, context.DeadlineExceeded, context.DeadlineExceeded)
			if !ctxDone(grand, "p.go:3") {
				t.Errorf("grandchild not done")
			}
		}},
		{"context.WithCancel child canceled alone", func(t *engine.T) {
			ctx, cancel := engine.WithTimeout(context.Background(), time.Second, "p.go:1")
			defer cancel()
			child, cancelChild := context.WithCancel(ctx)
			cancelChild()
			ctxCheck(t, "child", child, context.Canceled, context.Canceled)
			ctxCheck(t, "ctx", ctx, nil, nil)
		}},
		{"real parent canceled", func(t *engine.T) {
			// The parent belongs to the context package: its cancellation reaches the child
			// synchronously, and wakes a goroutine already waiting on the child.
			parent, cancel := context.WithCancelCause(context.Background())
			errStop := errors.New("stop")
			child, cancel2 := engine.WithTimeout(parent, time.Hour, "p.go:1")
			defer cancel2()
			woke := engine.MakeChan[time.Time](1, "p.go:2")
			engine.Go(func() {
				engine.Recv(child.Done(), "p.go:3")
				engine.Send(woke, engine.Now(), "p.go:4")
			}, "p.go:0")
			engine.Sleep(time.Minute, "p.go:5")
			cancel(errStop)
			ctxCheck(t, "child", child, context.Canceled, errStop)
			if v := engine.Recv(woke, "p.go:6"); !near(v, at(time.Minute)) {
				t.Errorf("waiter woke at %v", v)
			}
		}},
		{"real parent, own deadline", func(t *engine.T) {
			parent, cancel := context.WithCancel(t.Context())
			defer cancel()
			child, cancel2 := engine.WithTimeout(parent, time.Second, "p.go:1")
			defer cancel2()
			grand, cancel3 := engine.WithTimeout(child, time.Hour, "p.go:2")
			defer cancel3()
			engine.Recv(grand.Done(), "p.go:3")
			if !near(engine.Now(), at(time.Second)) {
				t.Errorf("done at %v", engine.Now())
			}
			ctxCheck(t, "child", child, context.DeadlineExceeded, context.DeadlineExceeded)
			ctxCheck(t, "parent", parent, nil, nil)
			// grand is a child of child in the context package's sense: it gets Canceled with the
			// cause DeadlineExceeded (see the differences listed in context.go).
			if grand.Err() == nil || context.Cause(grand) != context.DeadlineExceeded {
				t.Errorf("grandchild: %v, %v", grand.Err(), context.Cause(grand))
			}
		}},
		{"real parent, cancel", func(t *engine.T) {
			parent, cancel := context.WithCancel(context.Background())
			defer cancel()
			child, cancel2 := engine.WithTimeout(parent, time.Second, "p.go:1")
			cancel2()
			ctxCheck(t, "child", child, context.Canceled, context.Canceled)
			ctxCheck(t, "parent", parent, nil, nil)
			if !ctxDone(child, "p.go:2") {
				t.Errorf("not done")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tmAll(t, tt.body) })
	}
}

func TestContextRace(t *testing.T) {
	// A worker waits for work or for the context's end; the test body cancels, or the
	// deadline ends the wait. Every outcome is consistent whatever the schedule, and both the
	// work and the cancellation are seen in some schedules.
	var worked, canceled, expired int
	tmExplore(t, func(t *engine.T) {
		ctx, cancel := engine.WithTimeout(context.Background(), time.Second, "w.go:1")
		work := engine.MakeChan[int](0, "w.go:2")
		res := engine.MakeChan[error](1, "w.go:3")
		engine.Go(func() {
			// (The test strategies take the first ready case of a select.)
			d, w := engine.RecvCase(ctx.Done()), engine.RecvCase(work)
			switch engine.Select("w.go:4", false, d, w) {
			case 0:
				engine.Send(res, ctx.Err(), "w.go:6")
			case 1:
				engine.Send(res, nil, "w.go:5")
			}
		}, "w.go:0")
		engine.Go(func() {
			// The sender gives up once the context is done: the worker may have left
			// without the work (a test body that unblocked it with a select's default
			// could run before the sender, not yet started, reached its send).
			engine.Select("w.go:7", false, engine.SendCase(work, 1), engine.RecvCase(ctx.Done()))
		}, "w.go:0")
		engine.Go(func() { cancel() }, "w.go:0")
		switch err := engine.Recv(res, "w.go:8"); err {
		case nil:
			worked++
		case context.Canceled:
			canceled++
		case context.DeadlineExceeded:
			expired++
		default:
			t.Errorf("err = %v", err)
		}
	}, 300)
	if worked == 0 || canceled == 0 {
		t.Errorf("%d worked, %d canceled, %d expired: want work and cancellation", worked, canceled, expired)
	}
	if expired != 0 {
		t.Errorf("%d expired, but the deadline can never pass while a goroutine is enabled", expired)
	}
}

func TestContextOutsideExecution(t *testing.T) {
	ctx, cancel := engine.WithTimeout(context.Background(), time.Hour, "o.go:1")
	d, ok := ctx.Deadline()
	if !ok || d.Before(engine.Epoch.AddDate(10, 0, 0)) {
		t.Errorf("Deadline() = %v, %v; want a real deadline", d, ok)
	}
	cancel()
	if ctx.Err() != context.Canceled {
		t.Errorf("Err() = %v", ctx.Err())
	}
}

// TestContextAfterFunc: context.AfterFunc's callback runs in a controlled goroutine once its
// context is done (canceled, or past its deadline on the virtual clock), so that a test that
// waits for it sees it, and its interleavings with the rest are explored: a check that
// assumes the callback ran right after cancel fails in some schedule. stop keeps the callback
// from starting only before it has.
func TestContextAfterFunc(t *testing.T) {
	t.Run("a test waiting for the callback", func(t *testing.T) {
		for _, deadline := range []bool{false, true} {
			rep := engine.Explore(func(et *engine.T) {
				var ctx context.Context
				var cancel context.CancelFunc
				if deadline {
					ctx, cancel = engine.WithTimeout(context.Background(), time.Millisecond, "f.go:1")
				} else {
					ctx, cancel = context.WithCancel(context.Background())
				}
				defer cancel()
				done := engine.MakeChan[struct{}](0, "f.go:2")
				stop := engine.ContextAfterFunc(ctx, func() { engine.Close(done, "f.go:3") }, "f.go:4")
				if !deadline {
					engine.Go(cancel, "f.go:5")
				}
				timeout := engine.After(time.Hour, "f.go:6")
				if engine.Select("f.go:7", false, engine.RecvCase(done), engine.RecvCase(timeout)) != 0 {
					et.Errorf("the callback did not run")
				}
				if stop() {
					et.Errorf("stop after the callback started reported that it stopped it")
				}
			}, engine.Config{Strategy: randomStrategy(1), Schedules: 200})
			if rep.First != nil {
				t.Fatalf("deadline %v: bug %v\n%v", deadline, rep.First.Bug, rep.First.Bug.Logs)
			}
		}
	})
	t.Run("an order assumed", func(t *testing.T) {
		rep := engine.Explore(func(et *engine.T) {
			ctx, cancel := context.WithCancel(context.Background())
			var ran int32
			engine.ContextAfterFunc(ctx, func() { engine.AtomicStoreInt32(&ran, 1, "f.go:8") }, "f.go:9")
			cancel()
			engine.Gosched("f.go:10")
			if engine.AtomicLoadInt32(&ran, "f.go:11") == 0 {
				et.Errorf("the callback has not run yet")
			}
		}, engine.Config{Strategy: randomStrategy(1), Schedules: 200})
		if rep.First == nil || !strings.Contains(rep.First.Bug.Message, "has not run yet") {
			t.Fatalf("the schedule where the callback runs late was not found: %+v", rep)
		}
	})
	t.Run("stopped before", func(t *testing.T) {
		rep := engine.Explore(func(et *engine.T) {
			ctx, cancel := context.WithCancel(context.Background())
			stop := engine.ContextAfterFunc(ctx, func() { et.Errorf("the stopped callback ran") }, "f.go:12")
			if !stop() {
				et.Errorf("stop before the context was done did not stop the callback")
			}
			if stop() {
				et.Errorf("a second stop reported that it stopped the callback")
			}
			cancel()
			for range 5 {
				engine.Gosched("f.go:13")
			}
		}, engine.Config{Strategy: randomStrategy(1), Schedules: 50})
		if rep.First != nil {
			t.Fatalf("bug %v\n%v", rep.First.Bug, rep.First.Bug.Logs)
		}
	})
}
