package engine

import (
	"context"
	"fmt"
	"sync"
	"time"
	"unsafe"
)

// Contexts with deadlines on the virtual clock.
//
// context.WithTimeout and context.WithDeadline start a real timer; under control they are
// WithTimeout and WithDeadline here, whose contexts (deadlineCtx) expire on the virtual clock.
// A deadlineCtx is done when its deadline passes, when its cancel function is called, or when
// its parent is done. Contexts derived from it by the context package (context.WithCancel,
// WithValue, AfterFunc...) work as usual: the context package attaches them through the
// AfterFunc method, so they are canceled synchronously with it, as children of a context
// package's own context are.
//
// How the parent's cancellation reaches the context depends on what can cancel the parent:
//
//   - Nothing (parent.Done() is nil: Background, TODO, WithoutCancel): Done is a channel the
//     engine made (chanMake) and closes (chanCloseInternal) itself.
//   - A deadlineCtx of this execution, perhaps through context.WithValue (the parent's Done is
//     that deadlineCtx's): the same, and the parent cancels the context directly, inside the
//     engine.
//   - Anything else (a context of the context package that can be canceled, such as
//     context.WithCancel(ctx) or T.Context()): the engine cannot see that parent being
//     canceled, since that happens in uninstrumented code. The context is then built on a
//     real child of the parent, made with context.WithCancelCause(parent), which the context
//     package cancels synchronously with the parent; Done is that child's channel, which the
//     engine does not know, so a goroutine waiting on it is re-evaluated at every decision
//     (pointPoll). The deadline and the cancel function cancel that child.
//
// Differences from the context package, all small:
//
//   - In the last case above, a context made with context.WithCancel from the deadlineCtx
//     reports Err() == context.Canceled rather than DeadlineExceeded when the deadline passes
//     (its context.Cause is DeadlineExceeded, or the cause given to WithDeadlineCause), since
//     the engine can only cancel the real child with Canceled.
//   - AfterFunc callbacks registered with the method (not context.AfterFunc) run synchronously,
//     on the goroutine that cancels the context, and in the last case above only when the
//     deadline or the cancel function (not the parent) ends the context.
//   - A deadline later than the parent's keeps the parent's, as Go does, but the context is
//     still a deadlineCtx (Go returns a context.WithCancel context).
//   - A cancel function called by a goroutine the engine does not control closes Done for
//     real, which goroutines already waiting on it under control do not see.
//   - String differs.
//
// context.Cause works: the cause is kept in a real cancelCtx that Value hands to the context
// package.
//
// context.AfterFunc(ctx, f) is ContextAfterFunc: the context package would run f in a goroutine
// of its own, which the engine does not control (a test waiting for f would wait for nothing
// the engine can see); instead the engine watches ctx.Done() at every decision, as it does a
// channel it cannot observe, and starts f in a controlled goroutine once it is closed.

// ctxWatch is a context.AfterFunc registration: f runs in a new controlled goroutine once ctx
// is done, unless stopped first.
type ctxWatch struct {
	ctx              context.Context
	f                func()
	pos              Pos
	started, stopped bool
}

// ContextAfterFunc is context.AfterFunc(ctx, f): once ctx is done, f runs in a new controlled
// goroutine (started at the first decision after ctx is done, where Go starts it when ctx is
// canceled); stop reports whether it kept f from being started, as context.AfterFunc's does.
func ContextAfterFunc(ctx context.Context, f func(), pos Pos) (stop func() bool) {
	e, g := current(pos)
	if g == nil {
		return context.AfterFunc(ctx, f)
	}
	w := &ctxWatch{ctx: ctx, f: f, pos: pos}
	e.watches = append(e.watches, w)
	return func() bool {
		if w.started || w.stopped {
			return false
		}
		w.stopped = true
		return true
	}
}

// pollWatches starts the callbacks of the context.AfterFunc registrations whose context is
// done, and forgets those and the stopped ones.
func (e *Exec) pollWatches() {
	kept := e.watches[:0]
	for _, w := range e.watches {
		if w.stopped {
			continue
		}
		select {
		case <-w.ctx.Done():
			w.started = true
			e.spawn(nil, w.f, w.pos, true)
		default:
			kept = append(kept, w)
		}
	}
	clear(e.watches[len(kept):])
	e.watches = kept
}

// deadlineCtx is a context whose deadline is on the virtual clock.
type deadlineCtx struct {
	parent   context.Context
	deadline time.Time
	hasTimer bool  // false: the parent's deadline is earlier, and is the one reported
	cause    error // the deadline's cause (nil: DeadlineExceeded)
	vt       vtimer

	// inner is a real context.WithCancelCause: it holds the cause, for context.Cause, and in
	// the real mode it is the child of parent whose Done is ours (see above).
	inner       context.Context
	innerCancel context.CancelCauseFunc
	real        bool
	done        chan struct{} // made by the engine; nil in the real mode

	mu         sync.Mutex
	err        error
	afters     []*ctxAfter
	stopParent func() bool // detaches the context from its deadlineCtx parent
}

// ctxAfter is a function to call when a deadlineCtx is done: a deadlineCtx child to cancel, or
// a function registered with AfterFunc.
type ctxAfter struct {
	child *deadlineCtx
	f     func()
}

// ctxKey is the key with which Value finds the nearest deadlineCtx.
type ctxKey struct{}

// WithTimeout is context.WithTimeout(parent, d) on the virtual clock.
func WithTimeout(parent context.Context, d time.Duration, pos Pos) (context.Context, context.CancelFunc) {
	e, g := current(pos)
	if g == nil {
		return context.WithTimeout(parent, d)
	}
	return withDeadline(e, g, parent, e.clock.Now().Add(d), nil, pos)
}

// WithTimeoutCause is context.WithTimeoutCause(parent, d, cause) on the virtual clock.
func WithTimeoutCause(parent context.Context, d time.Duration, cause error, pos Pos) (context.Context, context.CancelFunc) {
	e, g := current(pos)
	if g == nil {
		return context.WithTimeoutCause(parent, d, cause)
	}
	return withDeadline(e, g, parent, e.clock.Now().Add(d), cause, pos)
}

// WithDeadline is context.WithDeadline(parent, deadline) on the virtual clock: the context
// expires when the virtual time reaches deadline.
func WithDeadline(parent context.Context, deadline time.Time, pos Pos) (context.Context, context.CancelFunc) {
	e, g := current(pos)
	if g == nil {
		return context.WithDeadline(parent, deadline)
	}
	return withDeadline(e, g, parent, deadline, nil, pos)
}

// WithDeadlineCause is context.WithDeadlineCause(parent, deadline, cause) on the virtual clock.
func WithDeadlineCause(parent context.Context, deadline time.Time, cause error, pos Pos) (context.Context, context.CancelFunc) {
	e, g := current(pos)
	if g == nil {
		return context.WithDeadlineCause(parent, deadline, cause)
	}
	return withDeadline(e, g, parent, deadline, cause, pos)
}

// withDeadline makes a deadlineCtx. Making it is a scheduling point: whether the parent is
// done already depends on the other goroutines.
func withDeadline(e *Exec, g *goroutine, parent context.Context, d time.Time, cause error, pos Pos) (context.Context, context.CancelFunc) {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	p, _ := parent.Value(ctxKey{}).(*deadlineCtx)
	var obj uintptr
	if p != nil {
		obj = uintptr(unsafe.Pointer(p))
	}
	e.point(g, OpContext, obj, pos)

	c := &deadlineCtx{parent: parent, deadline: d, hasTimer: true, cause: cause}
	c.vt = vtimer{index: -1, fire: fireDeadline, data: c, site: pos}
	if cur, ok := parent.Deadline(); ok && cur.Before(d) {
		c.hasTimer = false
	}
	done := parent.Done()
	if done != nil && (p == nil || p.real || p.Done() != done) {
		c.real = true
		c.inner, c.innerCancel = context.WithCancelCause(parent)
	} else {
		c.inner, c.innerCancel = context.WithCancelCause(context.Background())
		c.done = chanMake[struct{}](e, 0)
		if done != nil {
			if c.stopParent = p.register(&ctxAfter{child: c}); c.stopParent == nil {
				c.cancel(e, p.Err(), context.Cause(p)) // the parent is done already
			}
		}
	}
	if c.hasTimer && c.Err() == nil {
		if dur := d.Sub(e.clock.Now()); dur <= 0 {
			c.cancel(e, context.DeadlineExceeded, c.deadlineCause())
		} else {
			e.clock.start(&c.vt, dur)
		}
	}
	return c, func() { c.cancelAt(pos) }
}

func fireDeadline(e *Exec, vt *vtimer) {
	c := vt.data.(*deadlineCtx)
	c.cancel(e, context.DeadlineExceeded, c.deadlineCause())
}

func (c *deadlineCtx) deadlineCause() error {
	if c.cause != nil {
		return c.cause
	}
	return context.DeadlineExceeded
}

// cancelAt is the context's cancel function, called at pos (where the context was made: the
// call of the function value itself is not rewritten). It is a scheduling point.
func (c *deadlineCtx) cancelAt(pos Pos) {
	e, g := current(pos)
	if g == nil {
		c.cancel(nil, context.Canceled, context.Canceled)
		return
	}
	e.point(g, OpContext, uintptr(unsafe.Pointer(c)), pos)
	c.cancel(e, context.Canceled, context.Canceled)
}

// cancel ends the context with err, unless it has ended already. e is nil when the caller is
// not under the engine's control: Done is then only closed for real.
func (c *deadlineCtx) cancel(e *Exec, err, cause error) {
	c.mu.Lock()
	if c.err != nil || (c.real && c.inner.Err() != nil) {
		c.mu.Unlock()
		return
	}
	c.err = err
	afters := c.afters
	c.afters = nil
	stop := c.stopParent
	c.stopParent = nil
	c.mu.Unlock()

	c.innerCancel(cause) // the cause; in the real mode, closes Done and cancels real children
	if e != nil {
		e.clock.stop(&c.vt)
		if !c.real {
			chanCloseInternal(e, c.done)
		}
	} else if !c.real {
		closeQuiet(c.done)
	}
	if stop != nil {
		stop()
	}
	for _, a := range afters {
		if a.child != nil {
			a.child.cancel(e, err, context.Cause(c))
		} else {
			a.f()
		}
	}
}

// register adds a to the functions called when c is done, and returns the function that
// removes it (reporting whether it was still there). It returns nil when c is done already.
func (c *deadlineCtx) register(a *ctxAfter) (stop func() bool) {
	c.mu.Lock()
	if c.err != nil || (c.real && c.inner.Err() != nil) {
		c.mu.Unlock()
		return nil
	}
	c.afters = append(c.afters, a)
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, x := range c.afters {
			if x == a {
				c.afters = append(c.afters[:i], c.afters[i+1:]...)
				return true
			}
		}
		return false
	}
}

// Deadline returns the virtual deadline (the parent's when it is earlier).
func (c *deadlineCtx) Deadline() (time.Time, bool) {
	if !c.hasTimer {
		return c.parent.Deadline()
	}
	return c.deadline, true
}

// Done returns a channel closed when the context is done.
func (c *deadlineCtx) Done() <-chan struct{} {
	if c.real {
		return c.inner.Done()
	}
	return c.done
}

// Err returns nil while the context is not done, then context.DeadlineExceeded if the
// deadline passed, context.Canceled if the cancel function was called, or the parent's error
// if the parent ended first.
func (c *deadlineCtx) Err() error {
	if e := active.Load(); e != nil && e.caller() != nil {
		e.clockReadAt = e.steps // asking whether the deadline passed looks at the time (clock.go)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil && c.real {
		return c.inner.Err()
	}
	return c.err
}

// Value returns the parent's value for key. The context package's own key gets the real
// context that holds the cause, so that context.Cause works.
func (c *deadlineCtx) Value(key any) any {
	if _, ok := key.(ctxKey); ok {
		return c
	}
	if c.real {
		return c.inner.Value(key) // inner's parent is c.parent
	}
	if v := c.inner.Value(key); v != nil {
		return v
	}
	return c.parent.Value(key)
}

// AfterFunc arranges to call f once the context is done, and returns a function that
// prevents the call, reporting whether it did. The context package uses it to attach the
// contexts derived from this one, which are thus canceled synchronously with it. f is called
// synchronously, by whatever ends the context (at once if it has ended).
func (c *deadlineCtx) AfterFunc(f func()) (stop func() bool) {
	if stop := c.register(&ctxAfter{f: f}); stop != nil {
		return stop
	}
	f()
	return func() bool { return false }
}

// String describes the context as context.WithDeadline does.
func (c *deadlineCtx) String() string {
	d, _ := c.Deadline()
	return fmt.Sprintf("%v.WithDeadline(%v [virtual])", c.parent, d)
}
