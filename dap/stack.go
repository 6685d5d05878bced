package dap

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/google/go-dap"
	"github.com/interleave-dev/interleave/engine/control"
)

// Threads are goroutines: thread id = goroutine id + 1 (DAP clients treat 0 as "no thread").
// A goroutine's stack is its user frames at its scheduling point, taken by the test process
// from a traceback; the engine's, the runtime's and the testing package's frames are hidden.
// Rewritten files carry //line directives, so every frame is in the developer's own file.

// frameHandle is what a stackTrace frame id stands for.
type frameHandle struct {
	g     *control.Goroutine
	index int // in g.Frames; -1 for a frame made from the pending operation alone
	ref   frameRef
}

func (s *Session) onThreadsRequest(req *dap.ThreadsRequest) {
	var threads []dap.Thread
	if st := s.dbg.state; st != nil && s.currentTarget() != nil {
		for i := range st.Goroutines {
			g := &st.Goroutines[i]
			// Goroutines that are done are gone, except at the end of an execution with a bug:
			// then the failing goroutine (a panic) shows where it failed.
			if g.Status == "done" && !(st.Ended && (g.ID == 0 || len(g.Frames) > 0)) {
				continue
			}
			threads = append(threads, dap.Thread{Id: g.ID + 1, Name: s.threadName(g)})
		}
	}
	if len(threads) == 0 {
		// Before the first stop (building, exploring) the client still needs a thread.
		threads = []dap.Thread{{Id: 1, Name: "G0 (the test)"}}
	}
	s.send(&dap.ThreadsResponse{Response: s.response(&req.Request), Body: dap.ThreadsResponseBody{Threads: threads}})
}

// threadName names a goroutine by what tells it apart, short enough for a Call Stack in a
// sidebar of ordinary width: its id first, its pending operation and where, its state, and
// whether it runs next — "G1 lock bank.go:46 [blocked] ← next". Its function and creation site
// are its stack's frames, one click away; they made the name too long to read.
func (s *Session) threadName(g *control.Goroutine) string {
	var b strings.Builder
	fmt.Fprintf(&b, "G%d", g.ID)
	if g.Op != "" && g.Status != "done" {
		fmt.Fprintf(&b, " %s %s", g.Op, shortPos(lineOf(g.Pos)))
	}
	fmt.Fprintf(&b, " [%s]", g.Status)
	if st := s.dbg.state; st != nil && !st.Ended && st.Next == g.ID {
		b.WriteString(" ← next")
	}
	return b.String()
}

func (s *Session) onStackTraceRequest(req *dap.StackTraceRequest) {
	t, st, err := s.paused()
	if err != nil {
		s.sendError(&req.Request, err)
		return
	}
	g := goroutineOf(st, req.Arguments.ThreadId-1)
	if g == nil {
		s.sendError(&req.Request, fmt.Errorf("no goroutine G%d", req.Arguments.ThreadId-1))
		return
	}
	var frames []dap.StackFrame
	add := func(h frameHandle, name, file string, line, col int) {
		s.dbg.frames = append(s.dbg.frames, h)
		f := dap.StackFrame{Id: len(s.dbg.frames), Name: name, Line: line, Column: col}
		if file != "" {
			f.Source = &dap.Source{Name: filepath.Base(file), Path: file}
		}
		frames = append(frames, f)
	}
	pfile, pline, pcol := t.absPos(g.Pos)
	for i, f := range g.Frames {
		nth := 0
		for _, e := range g.Frames[:i] {
			if e.Func == f.Func && e.Line == f.Line {
				nth++
			}
		}
		col := 0
		if i == 0 && f.File == pfile && f.Line == pline {
			col = pcol
		}
		add(frameHandle{g: g, index: i, ref: frameRef{Func: f.Func, File: f.File, Line: f.Line, Nth: nth}}, shortFunc(f.Func), f.File, f.Line, col)
	}
	if len(frames) == 0 && g.Pos != "" {
		add(frameHandle{g: g, index: -1}, g.Op, pfile, pline, pcol)
	}
	total := len(frames)
	if start := req.Arguments.StartFrame; start > 0 {
		if start > len(frames) {
			start = len(frames)
		}
		frames = frames[start:]
	}
	if lv := req.Arguments.Levels; lv > 0 && lv < len(frames) {
		frames = frames[:lv]
	}
	s.send(&dap.StackTraceResponse{Response: s.response(&req.Request), Body: dap.StackTraceResponseBody{StackFrames: frames, TotalFrames: total}})
}

// absPos turns an operation's position ("bank.go:42:2", relative to the module root) into an
// absolute file, a line and a column.
func (t *target) absPos(pos string) (file string, line, col int) {
	parts := strings.Split(pos, ":")
	if len(parts) < 3 {
		return "", 0, 0
	}
	file = strings.Join(parts[:len(parts)-2], ":")
	line, _ = strconv.Atoi(parts[len(parts)-2])
	col, _ = strconv.Atoi(parts[len(parts)-1])
	if !filepath.IsAbs(file) {
		file = filepath.Join(t.moduleDir, filepath.FromSlash(file))
	}
	return file, line, col
}

// shortFunc drops the package path of a function name: "example.com/bank.Transfer" →
// "bank.Transfer".
func shortFunc(fn string) string {
	if i := strings.LastIndexByte(fn, '/'); i >= 0 {
		fn = fn[i+1:]
	}
	return fn
}

// shortPos keeps the base name of a position's file.
func shortPos(pos string) string {
	if i := strings.LastIndexByte(pos, '/'); i >= 0 {
		return pos[i+1:]
	}
	return pos
}
