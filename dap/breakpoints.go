package dap

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/go-dap"

	"github.com/interleave-dev/interleave/engine/control"
)

// Breakpoints are on lines: the execution stops when a goroutine is about to execute a
// scheduling point on a breakpoint's line. A breakpoint is verified when its line has a
// scheduling point in the instrumented build. Exception breakpoints are filters on the kinds
// of bugs.

// bugKinds are the exception filters, one per kind of bug the engine reports.
var bugKinds = []struct{ kind, label string }{
	{"panic", "Panics"},
	{"deadlock", "Deadlocks"},
	{"leak", "Goroutine leaks"},
	{"race", "Data races"},
	{"fail", "Failed tests (t.Error, t.Fatal)"},
	{"livelock", "Livelocks (step bound exceeded)"},
}

func exceptionFilters() []dap.ExceptionBreakpointsFilter {
	var out []dap.ExceptionBreakpointsFilter
	for _, k := range bugKinds {
		out = append(out, dap.ExceptionBreakpointsFilter{Filter: k.kind, Label: k.label, Default: true})
	}
	return out
}

func (s *Session) onSetBreakpointsRequest(req *dap.SetBreakpointsRequest) {
	path := req.Arguments.Source.Path
	if path == "" {
		s.sendError(&req.Request, fmt.Errorf("setBreakpoints: the source has no path"))
		return
	}
	path = filepath.Clean(path)
	t := s.currentTarget()
	if s.dbg.breakpoints == nil {
		s.dbg.breakpoints = make(map[string][]int)
	}
	var lines []int
	var bps []dap.Breakpoint
	reqLines := req.Arguments.Lines
	if len(req.Arguments.Breakpoints) > 0 {
		reqLines = nil
		for _, b := range req.Arguments.Breakpoints {
			reqLines = append(reqLines, b.Line)
		}
	}
	for i, line := range reqLines {
		bp := dap.Breakpoint{Id: i + 1, Line: line, Source: &dap.Source{Name: filepath.Base(path), Path: path}}
		switch {
		case t == nil:
			bp.Message = "no test process"
		case t.points[path][line]:
			bp.Verified = true
			lines = append(lines, line)
		default:
			bp.Message = "no scheduling point on this line"
		}
		bps = append(bps, bp)
	}
	if len(lines) == 0 {
		delete(s.dbg.breakpoints, path)
	} else {
		s.dbg.breakpoints[path] = lines
	}
	s.send(&dap.SetBreakpointsResponse{Response: s.response(&req.Request), Body: dap.SetBreakpointsResponseBody{Breakpoints: bps}})
}

// breakpointList returns the verified breakpoints as the test process matches them:
// "file:line" with file relative to the module root, as in operation positions.
func (s *Session) breakpointList(t *target) []string {
	var out []string
	for file, lines := range s.dbg.breakpoints {
		rel := file
		if r, err := filepath.Rel(t.moduleDir, file); err == nil && !strings.HasPrefix(r, "..") {
			rel = filepath.ToSlash(r)
		}
		for _, l := range lines {
			out = append(out, fmt.Sprintf("%s:%d", rel, l))
		}
	}
	sort.Strings(out)
	return out
}

func (s *Session) onSetExceptionBreakpointsRequest(req *dap.SetExceptionBreakpointsRequest) {
	filters := make(map[string]bool)
	known := make(map[string]bool)
	for _, k := range bugKinds {
		known[k.kind] = true
	}
	for _, f := range req.Arguments.Filters {
		if !known[f] {
			s.sendError(&req.Request, fmt.Errorf("unknown exception filter %q", f))
			return
		}
		filters[f] = true
	}
	s.dbg.filters = filters
	s.send(&dap.SetExceptionBreakpointsResponse{Response: s.response(&req.Request)})
}

// bugDescription is the bug's message as the editor shows the paused execution. A goroutine
// the message names (the blocked ones of a deadlock or leak: "\tG1 lock at bank.go:46:2") is
// named where the bug leaves it, as the Debug Console, interleave test and the Problems panel
// say, without the column; where it already waits on that operation, at the line its top
// stack frame highlights (the Call Stack's). While the schedule has not reached the bug yet,
// the step at which it does is said on the first line, and the goroutine that runs the steps
// before it, still elsewhere, is named at its Call Stack line on a last line of its own: the
// text never places a goroutine at a line the bug does not leave it at.
func bugDescription(bug *control.Bug, st *control.State) string {
	lines := strings.Split(bug.Message, "\n")
	named := map[int]string{} // the line said of each goroutine
	for i, l := range lines[1:] {
		var id int
		if _, err := fmt.Sscanf(strings.TrimSpace(l), "G%d", &id); err != nil {
			continue
		}
		at := strings.LastIndex(l, " at ")
		if at < 0 {
			continue
		}
		pos := strings.TrimSpace(l[at+len(" at "):])
		where := shortPos(lineOf(pos))
		if g := goroutineOf(st, id); g != nil && len(g.Frames) > 0 && g.Pos == pos {
			where = fmt.Sprintf("%s:%d", filepath.Base(g.Frames[0].File), g.Frames[0].Line)
		}
		lines[i+1] = l[:at] + " at " + where
		named[id] = where
	}
	if st != nil && !st.Ended {
		first := strings.TrimSuffix(lines[0], ":")
		note := fmt.Sprintf(" (the schedule reaches this at step %d)", bug.Step)
		if first != lines[0] {
			lines[0] = first + note + ":"
		} else {
			lines[0] += note
		}
		if g := goroutineOf(st, st.Next); g != nil && len(g.Frames) > 0 && g.Op != "" {
			here := fmt.Sprintf("%s:%d", filepath.Base(g.Frames[0].File), g.Frames[0].Line)
			if w, ok := named[g.ID]; !ok || w != here {
				lines = append(lines, fmt.Sprintf("\tG%d runs step %d first: %s at %s", g.ID, st.Step+1, g.Op, here))
			}
		}
	}
	return strings.Join(lines, "\n")
}

// filterOn reports whether the execution stops on a bug of this kind.
func (s *Session) filterOn(kind string) bool {
	return s.dbg.filters == nil || s.dbg.filters[kind]
}

func (s *Session) onExceptionInfoRequest(req *dap.ExceptionInfoRequest) {
	bug := s.currentBug()
	if bug == nil {
		s.sendError(&req.Request, fmt.Errorf("no bug at this point of the execution"))
		return
	}
	var stack strings.Builder
	if st := s.dbg.state; st != nil {
		if g := goroutineOf(st, bug.G); g != nil {
			for _, f := range g.Frames {
				fmt.Fprintf(&stack, "%s\n\t%s:%d\n", f.Func, f.File, f.Line)
			}
		}
	}
	desc := bugDescription(bug, s.dbg.state)
	s.send(&dap.ExceptionInfoResponse{Response: s.response(&req.Request), Body: dap.ExceptionInfoResponseBody{
		ExceptionId: bug.Kind, Description: desc, BreakMode: "always",
		Details: &dap.ExceptionDetails{Message: bug.Message, TypeName: bug.Kind, FullTypeName: fmt.Sprintf("%s in G%d at %s", bug.Kind, bug.G, bug.Pos), StackTrace: stack.String()},
	}})
}
