package dap

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"

	"github.com/interleave-dev/interleave/dap/dapext"
	"github.com/interleave-dev/interleave/engine/control"
	"github.com/interleave-dev/interleave/engine/schedule"
)

// record keeps the decisions a reply of the test process reports: the current execution's
// trace, and the longest trace seen since the plan last changed (what the timeline shows; an
// execution that re-runs a prefix of the plan makes the same decisions, so what a later one
// showed beyond that prefix still holds).
func (s *Session) record(st *control.State) {
	if st.TraceFrom > len(s.dbg.trace) {
		return
	}
	s.dbg.trace = append(s.dbg.trace[:st.TraceFrom], st.Trace...)
	if st.TraceFrom > len(s.dbg.seen) {
		return
	}
	for j, d := range st.Trace {
		i := st.TraceFrom + j
		var info control.StepInfo
		if j < len(st.Info) {
			info = st.Info[j]
		}
		if i < len(s.dbg.seen) && s.dbg.seen[i] == d {
			if info.Obj != 0 || info.Enabled != nil {
				s.dbg.seenInfo[i] = info // (an exploration's replies say nothing of it)
			}
			continue
		}
		if i < len(s.dbg.seen) {
			// Another decision: what was seen from here on is another execution's.
			s.dbg.seen, s.dbg.seenInfo = s.dbg.seen[:i], s.dbg.seenInfo[:i]
		}
		s.dbg.seen, s.dbg.seenInfo = append(s.dbg.seen, d), append(s.dbg.seenInfo, info)
	}
}

// onTimelineRequest returns the steps of the paused execution's schedule (dapext.TimelineBody).
// The steps the executions have not shown yet are learnt by running the schedule to its end
// once, without telling the client, then pausing again where the execution was.
func (s *Session) onTimelineRequest(req *dapext.TimelineRequest) {
	t, st, err := s.paused()
	if err != nil {
		s.sendError(&req.Request, err)
		return
	}
	plan := s.dbg.plan
	if !st.Following {
		plan = s.dbg.trace
	}
	back := false
	if st.Following && !st.Ended && runSteps(s.dbg.seen) < runSteps(plan) {
		c := t.runCommand(s.dbg.origin)
		c.Steps, c.ExceptionAt, c.Stop = s.dbg.plan, -1, runSteps(s.dbg.plan)
		s.running.Store(true)
		r, err := s.call(t, c)
		s.running.Store(false)
		if err != nil {
			s.sendError(&req.Request, fmt.Errorf("%s: run the schedule to its end: %w", dapext.TimelineCommand, err))
			return
		}
		if r.State != nil {
			s.record(r.State)
		}
		back = true
	}
	body := dapext.TimelineBody{Step: st.Step, Following: st.Following, Steps: []dapext.TimelineStep{}}
	if o := s.dbg.origin; o != nil {
		body.Schedule = o.Path
	}
	names := newSourceNames(s, t)
	known := 0
	for i, d := range s.dbg.seen {
		if d.Kind != schedule.Run {
			continue
		}
		info := s.dbg.seenInfo[i]
		body.Steps = append(body.Steps, dapext.TimelineStep{G: int(d.G), Op: d.Op, Pos: d.Pos, Name: names.at(d.Pos), Obj: info.Obj, Enabled: info.Enabled})
		known++
	}
	// Steps of the plan no execution has shown (the run to the end failed to reach them).
	for _, d := range plan {
		if d.Kind != schedule.Run {
			continue
		}
		if known > 0 {
			known--
			continue
		}
		body.Steps = append(body.Steps, dapext.TimelineStep{G: int(d.G), Op: d.Op, Pos: d.Pos, Name: names.at(d.Pos)})
	}
	if back {
		// The client's frames and variables were of the execution replaced: it is told the
		// execution stopped again, where it was.
		reason := s.dbg.stopped
		if reason == "" {
			reason = "goto"
		}
		s.rerun(t, st, st.Step, reason)
	}
	s.send(&dapext.TimelineResponse{Response: s.response(&req.Request), Body: body})
}

// sourceNames finds the names of operations' objects in the source, parsing each file once.
type sourceNames struct {
	s     *Session
	t     *target
	fset  *token.FileSet
	files map[string]*ast.File
}

func newSourceNames(s *Session, t *target) *sourceNames {
	if s.dbg.names == nil {
		s.dbg.names = make(map[string]string)
	}
	return &sourceNames{s: s, t: t, fset: token.NewFileSet(), files: make(map[string]*ast.File)}
}

// maxSourceFile bounds the size of a file read to name an operation's object.
const maxSourceFile = 4 << 20

// at returns the name of the object of the operation at pos ("" when the source does not
// say), cached for the session.
func (n *sourceNames) at(pos string) string {
	if pos == "" {
		return ""
	}
	if name, ok := n.s.dbg.names[pos]; ok {
		return name
	}
	name := ""
	if file, line, col := n.t.absPos(pos); file != "" && line > 0 && col > 0 {
		if f := n.parse(file); f != nil {
			tf := n.fset.File(f.Pos())
			if line <= tf.LineCount() {
				if off := int(tf.LineStart(line)) - tf.Base() + col - 1; off >= 0 && off < tf.Size() {
					name = objectName(f, tf.Pos(off))
				}
			}
		}
	}
	n.s.dbg.names[pos] = name
	return name
}

// parse parses file once (nil when it cannot be read or parsed).
func (n *sourceNames) parse(file string) *ast.File {
	if f, ok := n.files[file]; ok {
		return f
	}
	var f *ast.File
	if fi, err := os.Stat(file); err == nil && fi.Mode().IsRegular() && fi.Size() <= maxSourceFile {
		if src, err := os.ReadFile(file); err == nil {
			// A file with errors still gives the nodes it could parse.
			f, _ = parser.ParseFile(n.fset, file, src, parser.SkipObjectResolution)
		} else {
			n.s.log.Printf("timeline: %v", err)
		}
	}
	n.files[file] = f
	return f
}

// maxName bounds the length of a name shown on the timeline.
const maxName = 40

// objectName names the object of the operation that starts at p, as the source spells it:
// the receiver of a method call (from.mu in from.mu.Lock()), the pointer argument of a
// function (n in atomic.AddInt64(&n, 1)), the channel of a send, receive or range, the
// variable read or written. "" when p starts no such operation (or is no send's arrow).
func objectName(f *ast.File, p token.Pos) string {
	var path []ast.Node // the nodes that start at p, outermost first
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil || p < n.Pos() || p >= n.End() {
			return false
		}
		// A send's position is its arrow's.
		if s, ok := n.(*ast.SendStmt); n.Pos() == p || ok && s.Arrow == p {
			path = append(path, n)
		}
		return true
	})
	var x ast.Expr
	for _, n := range path {
		switch n := n.(type) {
		case *ast.SendStmt:
			x = n.Chan
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				x = n.X
			}
		case *ast.RangeStmt:
			x = n.X
		case *ast.DeferStmt:
			x = callObject(n.Call)
		case *ast.CallExpr:
			x = callObject(n)
		case *ast.GoStmt:
			return ""
		case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr, *ast.StarExpr:
			x = n.(ast.Expr)
		}
		if x != nil {
			break
		}
	}
	if x == nil {
		return ""
	}
	name := types.ExprString(x)
	if len(name) > maxName {
		name = name[:maxName-1] + "…"
	}
	return name
}

// callObject is the object a call acts on: its first argument when that is &v, else the
// receiver of a method call.
func callObject(c *ast.CallExpr) ast.Expr {
	if len(c.Args) > 0 {
		if u, ok := c.Args[0].(*ast.UnaryExpr); ok && u.Op == token.AND {
			return u.X
		}
	}
	if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
		return sel.X
	}
	return nil
}
