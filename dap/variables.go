package dap

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/google/go-dap"

	"github.com/interleave-dev/interleave/engine/control"
	"github.com/interleave-dev/interleave/engine/schedule"
)

// Each frame has two scopes: "Scheduler", the engine's view of the goroutine (the step of the
// schedule, the strategy, the pending operation and state, the locks it holds, the channels
// it waits on with their buffered values and waiters), and "Locals", the frame's real Go
// variables, read by Delve from the paused test process.

// value is a variable of a scope, with its children computed on demand.
type value struct {
	Name, Value, Type string
	EvaluateName      string
	Children          func() ([]value, error)
}

// ref registers the children of a value for a later variables request.
func (s *Session) ref(f func() ([]value, error)) int {
	if f == nil {
		return 0
	}
	s.dbg.refs = append(s.dbg.refs, f)
	return len(s.dbg.refs)
}

func (s *Session) onScopesRequest(req *dap.ScopesRequest) {
	id := req.Arguments.FrameId
	if id <= 0 || id > len(s.dbg.frames) {
		s.sendError(&req.Request, fmt.Errorf("unknown frame %d", id))
		return
	}
	h := s.dbg.frames[id-1]
	t := s.currentTarget()
	scopes := []dap.Scope{{Name: "Scheduler", PresentationHint: "registers", VariablesReference: s.ref(func() ([]value, error) { return s.schedulerScope(h.g), nil })}}
	locals := dap.Scope{Name: "Locals", PresentationHint: "locals"}
	locals.VariablesReference = s.ref(func() ([]value, error) {
		if t == nil {
			return nil, errors.New("no test process")
		}
		return s.locals(t, h)
	})
	scopes = append(scopes, locals)
	s.send(&dap.ScopesResponse{Response: s.response(&req.Request), Body: dap.ScopesResponseBody{Scopes: scopes}})
}

// locals reads the frame's variables through Delve.
func (s *Session) locals(t *target, h frameHandle) ([]value, error) {
	st := s.dbg.state
	switch {
	case t.vars == nil:
		return []value{{Name: "(unavailable)", Value: "no debugger: " + t.novars.Error()}}, nil
	case st.Ended:
		return []value{{Name: "(unavailable)", Value: "the execution has ended and its goroutines are gone: step back to see variables"}}, nil
	case h.index < 0 || h.g.Goid == 0:
		return []value{{Name: "(unavailable)", Value: "the goroutine has not started"}}, nil
	}
	return t.vars.locals(h.g.Goid, h.ref)
}

func (s *Session) onVariablesRequest(req *dap.VariablesRequest) {
	ref := req.Arguments.VariablesReference
	if ref <= 0 || ref > len(s.dbg.refs) {
		s.sendError(&req.Request, fmt.Errorf("unknown variables reference %d", ref))
		return
	}
	vals, err := s.dbg.refs[ref-1]()
	if err != nil {
		s.sendError(&req.Request, err)
		return
	}
	vars := make([]dap.Variable, 0, len(vals))
	for _, v := range vals {
		vars = append(vars, dap.Variable{Name: v.Name, Value: v.Value, Type: v.Type, EvaluateName: v.EvaluateName, VariablesReference: s.ref(v.Children)})
	}
	s.send(&dap.VariablesResponse{Response: s.response(&req.Request), Body: dap.VariablesResponseBody{Variables: vars}})
}

func (s *Session) onEvaluateRequest(req *dap.EvaluateRequest) {
	t, st, err := s.paused()
	if err != nil {
		s.sendError(&req.Request, err)
		return
	}
	id := req.Arguments.FrameId
	var h frameHandle
	if id > 0 && id <= len(s.dbg.frames) {
		h = s.dbg.frames[id-1]
	} else {
		// No frame: the goroutine that runs next, its innermost frame.
		g := goroutineOf(st, st.Next)
		if g == nil || len(g.Frames) == 0 {
			s.sendError(&req.Request, errors.New("evaluate: no frame"))
			return
		}
		f := g.Frames[0]
		h = frameHandle{g: g, ref: frameRef{Func: f.Func, File: f.File, Line: f.Line}}
	}
	switch {
	case t.vars == nil:
		s.sendError(&req.Request, fmt.Errorf("evaluate: no debugger: %v", t.novars))
		return
	case st.Ended:
		s.sendError(&req.Request, errors.New("evaluate: the execution has ended: step back to see variables"))
		return
	case h.index < 0 || h.g.Goid == 0:
		s.sendError(&req.Request, errors.New("evaluate: the goroutine has not started"))
		return
	}
	v, err := t.vars.evaluate(h.g.Goid, h.ref, req.Arguments.Expression)
	if err != nil {
		s.sendError(&req.Request, fmt.Errorf("evaluate %s: %w", req.Arguments.Expression, err))
		return
	}
	s.send(&dap.EvaluateResponse{Response: s.response(&req.Request), Body: dap.EvaluateResponseBody{Result: v.Value, Type: v.Type, VariablesReference: s.ref(v.Children)}})
}

// schedulerScope is the engine's view of goroutine g.
func (s *Session) schedulerScope(g *control.Goroutine) []value {
	st := s.dbg.state
	total := "?"
	if st.Following || st.Ended {
		n := 0
		for _, d := range s.dbg.plan {
			if d.Kind == schedule.Run {
				n++
			}
		}
		if st.Ended {
			n = st.Step
		}
		total = fmt.Sprint(n)
	}
	// The step is the one the execution is paused before, numbered from 1 as the timeline
	// numbers its marks (dapext.StepEventBody.Current): "3 of 10" after 2 steps have run.
	out := []value{{Name: "step", Value: fmt.Sprintf("%d of %s", currentStep(st), total)}}
	if st.Ended {
		out[0].Value = fmt.Sprintf("ended after %d steps", st.Step)
	}
	if !st.Following && !st.Ended {
		out[0].Value += " (left the schedule: manual scheduling or a divergence; then no preemption)"
	}
	if o := s.dbg.origin; o != nil {
		strat := o.Strategy.Name
		var ps []string
		for _, k := range sortedKeys(o.Strategy.Params) {
			ps = append(ps, k+"="+o.Strategy.Params[k])
		}
		if len(ps) > 0 {
			strat += " (" + strings.Join(ps, ", ") + ")"
		}
		out = append(out, value{Name: "strategy", Value: strat})
		// The seed the launch gave; the schedule's own seed (derived from it for this
		// execution) only when it differs.
		t := s.currentTarget()
		execSeed, hasSeed := o.Strategy.Params["seed"]
		if t != nil && t.args.Mode == "explore" {
			given := strconv.FormatUint(t.args.Seed, 10)
			out = append(out, value{Name: "seed", Value: given})
			if hasSeed && execSeed != given {
				out = append(out, value{Name: "execution seed", Value: execSeed})
			}
		} else if hasSeed {
			out = append(out, value{Name: "seed", Value: execSeed})
		}
		if o.Path != "" {
			out = append(out, value{Name: "schedule", Value: o.Path})
		}
	}
	out = append(out, value{Name: "goroutine", Value: fmt.Sprintf("G%d", g.ID)}, value{Name: "state", Value: g.Status})
	if g.Status != "done" && g.Op != "" {
		out = append(out, value{Name: "pending", Value: g.Op + " at " + g.Pos})
	}
	if !st.Ended {
		out = append(out, value{Name: "runs next", Value: fmt.Sprint(st.Next == g.ID)})
	}
	if g.Created != "" {
		out = append(out, value{Name: "created", Value: fmt.Sprintf("by G%d at %s", g.Parent, g.Created)})
	}
	holds := append([]string(nil), g.Holds...)
	if len(holds) == 0 {
		out = append(out, value{Name: "holds", Value: "no lock"})
	} else {
		out = append(out, value{Name: "holds", Value: fmt.Sprintf("%d lock(s)", len(holds)), Children: func() ([]value, error) {
			var vs []value
			for i, h := range holds {
				vs = append(vs, value{Name: fmt.Sprintf("[%d]", i), Value: h})
			}
			return vs, nil
		}})
	}
	waits := append([]control.Chan(nil), g.Waits...)
	out = append(out, value{Name: "waits on", Value: fmt.Sprintf("%d channel(s)", len(waits)), Children: func() ([]value, error) {
		var vs []value
		for _, c := range waits {
			c := c
			dir := "receive from"
			if c.Send {
				dir = "send to"
			}
			vs = append(vs, value{Name: "chan " + c.Addr, Value: fmt.Sprintf("%s; %d of %d buffered", dir, c.Len, c.Cap), Children: func() ([]value, error) {
				return chanValues(c), nil
			}})
		}
		return vs, nil
	}})
	if len(g.Clock) > 0 {
		out = append(out, value{Name: "vector clock", Value: fmt.Sprint(g.Clock)})
	}
	return out
}

func chanValues(c control.Chan) []value {
	ids := func(gs []int) string {
		var p []string
		for _, g := range gs {
			p = append(p, fmt.Sprintf("G%d", g))
		}
		sort.Strings(p)
		return "[" + strings.Join(p, " ") + "]"
	}
	vs := []value{
		{Name: "cap", Value: fmt.Sprint(c.Cap)},
		{Name: "len", Value: fmt.Sprint(c.Len)},
		{Name: "closed", Value: fmt.Sprint(c.Closed)},
		{Name: "buffered", Value: "[" + strings.Join(c.Values, ", ") + "]"},
		{Name: "senders", Value: ids(c.Senders)},
		{Name: "receivers", Value: ids(c.Receivers)},
	}
	return vs
}
