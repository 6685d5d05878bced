package engine

import (
	"bytes"
	"runtime"
	"strings"
	"sync"
)

// Stack is runtime.Stack as the program under test would see it. With all set, the traceback
// of every goroutine leaves out what running under the engine adds to a test process: the
// explorer (the goroutine of the test function, which runs the executions), the goroutines it
// starts for itself (the watchdog, the interrupt handler), the strategies' (PERIOD's
// generator), and controlled goroutines that do not exist in Go: those of other executions,
// and those whose function has returned (the engine hands control on before the real
// goroutine ends). A controlled goroutine's traceback starts at the program's function, as
// Go's of a goroutine blocked in the runtime does. What goroutine-leak checkers
// (go.uber.org/goleak, a test's own runtime.Stack) read is then the test's goroutines only, as
// under go test. A goroutine waiting in a subtest's Run or Parallel has testing.(*T).Run or
// testing.(*T).Parallel on top, as in Go, where goleak recognizes the testing package's own
// goroutines by it. The calling goroutine's own traceback (all unset) is runtime.Stack's, with
// the engine's frames left out the same way (this function's own, on top).
func Stack(buf []byte, all bool) int {
	if !all {
		n := runtime.Stack(buf, false)
		if e := active.Load(); e != nil && e.caller() != nil && n < len(buf) {
			// Not truncated: the frames left out shorten it. withoutEngineFrames joins the
			// frames it keeps into a new slice before the copy writes over buf.
			return copy(buf, withoutEngineFrames(buf[:n], nil))
		}
		return n
	}
	return copy(buf, programStacks(AllStacks(), active.Load() != nil))
}

// abandonedIDs holds the ids (in tracebacks) of the controlled goroutines of abandoned
// executions (runner.abandon): they stay, blocked, and are no goroutines of the program's.
var abandonedIDs sync.Map

// noteAbandoned records, from a traceback of every goroutine taken when an execution is
// abandoned, the ids of the controlled goroutines: the abandoned execution's (and those of
// earlier abandoned ones).
func noteAbandoned(full []byte) {
	for _, b := range bytes.Split(full, []byte("\n\n")) {
		if hasFrame(b, "(*Exec).run") {
			abandonedIDs.Store(goroutineID(b), true)
		}
	}
}

// programStacks filters a traceback of every goroutine (runtime.Stack with all set) as Stack
// says; executing says an execution is in progress.
func programStacks(full []byte, executing bool) []byte {
	blocks := bytes.Split(bytes.TrimRight(full, "\n"), []byte("\n\n"))
	explorers := map[string]bool{}
	var runner *testRunner
	for _, b := range blocks {
		if runner == nil && !hasFrame(b, "(*Exec).run") && bytes.Contains(b, []byte("\n"+enginePkg)) {
			// The test process's test goroutine, exploring (Explore) or running one
			// execution (Run: a saved schedule's replay).
			runner = testRunnerOf(b)
		}
		// An exploration's goroutine that is not running an execution's first goroutine.
		loop := hasFrame(b, "(*exploration).loop") && !hasFrame(b, "(*Exec).run")
		if hasFrame(b, "Explore") || hasFrame(b, "(*runner).run") || loop {
			explorers[goroutineID(b)] = true
		}
	}
	var out []byte
	for _, b := range blocks {
		if !programGoroutine(b, explorers, executing) {
			continue
		}
		if len(out) > 0 {
			out = append(out, "\n\n"...)
		}
		if hasFrame(b, "(*Exec).run") {
			b = withoutEngineFrames(b, runner)
		}
		out = append(out, b...)
	}
	if len(out) > 0 {
		out = append(out, '\n')
	}
	return out
}

// programGoroutine reports whether the goroutine of traceback block b is one the program under
// test has in Go (see Stack).
func programGoroutine(b []byte, explorers map[string]bool, executing bool) bool {
	if explorers[goroutineID(b)] || hasFrame(b, "watchdog") || bytes.Contains(b, []byte("\n"+strategyPkg)) {
		// The explorer's, or a strategy's (PERIOD's generator of schedules, a coroutine).
		return false
	}
	if hasFrame(b, "(*Exec).run") {
		// A controlled goroutine: one of the execution in progress whose function has not
		// returned (the engine's deferred call in run is then on its stack).
		if _, abandoned := abandonedIDs.Load(goroutineID(b)); abandoned {
			return false
		}
		return executing && !hasFrame(b, "(*Exec).run.func1")
	}
	// Started by the explorer for itself (the interrupt handler), or by the program.
	return !explorers[creatorID(b)]
}

// strategyPkg prefixes the functions of the strategies' package.
const strategyPkg = "github.com/interleave-dev/interleave/engine/strategy."

// hasFrame reports whether traceback block b has a frame of the engine's function fn.
func hasFrame(b []byte, fn string) bool {
	return bytes.Contains(b, []byte("\n"+enginePkg+fn+"("))
}

// goroutineID returns the id in the header line of traceback block b ("goroutine 7 [...]:").
func goroutineID(b []byte) string {
	rest, ok := bytes.CutPrefix(b, []byte("goroutine "))
	if !ok {
		return ""
	}
	if i := bytes.IndexByte(rest, ' '); i >= 0 {
		return string(rest[:i])
	}
	return ""
}

// creatorID returns the id of the goroutine that started the goroutine of traceback block b
// ("created by f in goroutine 7"), or "".
func creatorID(b []byte) string {
	i := bytes.LastIndex(b, []byte("\ncreated by "))
	if i < 0 {
		return ""
	}
	line := b[i+1:]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	_, id, ok := bytes.Cut(line, []byte(" in goroutine "))
	if !ok {
		return ""
	}
	return string(id)
}

// harnessDir is the directory of the harness's sources as tracebacks name them, with a
// trailing slash ("" if unknown).
var harnessDir = func() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	return file[:strings.LastIndexByte(file, '/')+1] + "harness/"
}()

// inHarness reports whether a traceback's file line ("\t/dir/file.go:12 +0x1f") is in one of
// the harness's sources (not its tests): the harness's closures inlined into the program's
// functions take their caller's name (m.F.RunOf.func2), and only their file says whose they
// are.
func inHarness(fileLine []byte) bool {
	file := bytes.TrimSpace(fileLine)
	if i := bytes.LastIndex(file, []byte(".go:")); i >= 0 {
		file = file[:i+len(".go")] // not at the first colon: C:/dir/file.go:12 on Windows
	}
	return harnessDir != "" && bytes.HasPrefix(file, []byte(harnessDir)) && !bytes.HasSuffix(file, []byte("_test.go"))
}

// testRunner is the bottom of a test's goroutine under go test: its testing.tRunner frame, and
// the "created by testing.(*T).Run" lines that end its traceback.
type testRunner struct {
	frame, created [][]byte
}

// testRunnerOf returns the bottom of the test goroutine of traceback block b (the test
// process's own, which runs the exploration), nil when b is no test's goroutine.
func testRunnerOf(b []byte) *testRunner {
	lines := bytes.Split(b, []byte("\n"))
	r := new(testRunner)
	for i, l := range lines {
		switch {
		case bytes.HasPrefix(l, []byte("testing.tRunner(")) && i+1 < len(lines):
			r.frame = [][]byte{[]byte("testing.tRunner(...)"), lines[i+1]}
		case bytes.HasPrefix(l, []byte("created by testing.(*T).Run ")):
			r.created = lines[i:]
		}
	}
	if r.frame == nil || r.created == nil {
		return nil
	}
	return r
}

// closureOwner returns the function a closure's name fn belongs to ("m.F.func2" and "m.F.func2.1"
// are closures of "m.F" and "m.F.func2"), nil when fn names no closure.
func closureOwner(fn []byte) []byte {
	i := bytes.LastIndexByte(fn, '.')
	if i <= 0 {
		return nil
	}
	last := bytes.TrimPrefix(fn[i+1:], []byte("func"))
	if len(last) == 0 {
		return nil
	}
	for _, c := range last {
		if c < '0' || c > '9' {
			return nil
		}
	}
	return fn[:i]
}

// withoutEngineFrames returns the traceback block of a controlled goroutine without the
// engine's frames above the program's (where it waits at a scheduling point) and below them
// (run, which calls the goroutine's function), so that the function on top of the stack is the
// program's, as in Go's traceback of a goroutine blocked in the runtime. The header and the
// "created by" lines are kept. A goroutine that runs a test's or a subtest's function ends, as
// under go test, with testing.tRunner, "created by testing.(*T).Run": runner's frames, those
// of the test process's own test goroutine (nil: left as they are). Leak checkers recognize
// the testing package's goroutines by them (grpc's leakcheck skips every goroutine with
// testing.tRunner on its stack).
func withoutEngineFrames(b []byte, runner *testRunner) []byte {
	lines := bytes.Split(b, []byte("\n"))
	// A frame is its function's line and the indented file line after it; "created by" and
	// what follows end the block, and a line of its own ("...additional frames elided...")
	// is a frame of one line.
	var frames [][][]byte
	var tail [][]byte
	for i := 1; i < len(lines); i++ {
		if bytes.HasPrefix(lines[i], []byte("created by ")) {
			tail = lines[i:]
			break
		}
		if i+1 < len(lines) && bytes.HasPrefix(lines[i+1], []byte("\t")) {
			frames = append(frames, lines[i:i+2])
			i++
			continue
		}
		frames = append(frames, lines[i:i+1])
	}
	engine := func(f [][]byte) bool {
		// A function of the engine's, or one inlined from its sources into the program's
		// (the harness's closures take their caller's name: m.F.RunOf.func2).
		return bytes.HasPrefix(f[0], []byte(enginePkg)) || bytes.HasPrefix(f[0], []byte(harnessPkg)) ||
			len(f) == 2 && inHarness(f[1])
	}
	var testing [][]byte // a testing.(*T) method the goroutine waits in (subtest.go)
	for len(frames) > 0 && engine(frames[0]) {
		for _, m := range []string{"Run", "Parallel"} {
			if bytes.HasPrefix(frames[0][0], []byte(enginePkg+"(*T)."+m+"(")) {
				testing = [][]byte{[]byte("testing.(*T)." + m + "(...)")}
				if len(frames[0]) == 2 {
					testing = append(testing, frames[0][1])
				}
			}
		}
		frames = frames[1:]
	}
	if testing != nil {
		frames = append([][][]byte{testing}, frames...)
	}
	body := false // the goroutine runs a test's or a subtest's function
	for len(frames) > 0 && engine(frames[len(frames)-1]) {
		fn := frames[len(frames)-1][0]
		body = body || bytes.HasPrefix(fn, []byte(enginePkg+"(*runner).prepare.func1(")) || bytes.HasPrefix(fn, []byte(enginePkg+"(*T).Run.func1("))
		frames = frames[:len(frames)-1]
	}
	if len(frames) == 0 {
		// An AfterFunc callback picked but not started: nothing of the program's yet.
		return b
	}
	for _, f := range frames {
		// The instrumenter renamed TestXxx to __ilTestXxx (it runs it from a TestXxx of its
		// own): the program's name for it.
		f[0] = bytes.Replace(f[0], []byte(".__ilTest"), []byte(".Test"), 1)
	}
	switch {
	case body && runner != nil && len(tail) > 0:
		// Go runs a test's function in testing.tRunner, on a goroutine testing.(*T).Run
		// started: a subtest's in its parent's goroutine ("in goroutine N" is right, the
		// parent is the goroutine that called Run), the test's own as the test process's
		// test goroutine was.
		frames = append(frames, runner.frame)
		created := runner.created
		if bytes.HasPrefix(tail[0], []byte("created by "+enginePkg+"(*Exec).spawn ")) {
			_, in, _ := bytes.Cut(tail[0], []byte(" in goroutine "))
			created = append([][]byte{append([]byte("created by testing.(*T).Run in goroutine "), in...)}, created[1:]...)
		}
		tail = created
	case len(tail) > 0 && bytes.HasPrefix(tail[0], []byte("created by "+enginePkg+"(*Exec).spawn ")):
		// Every controlled goroutine is started by the engine's spawn, on its parent's
		// goroutine ("in goroutine N" is right). Go names the function with the go statement:
		// the one whose closure the goroutine runs (the rewritten go statement's, or the
		// program's function literal), and the closure's line, which is the go statement's
		// unless the goroutine runs a function literal.
		bottom := frames[len(frames)-1]
		fn := bottom[0]
		if i := bytes.LastIndexByte(fn, '('); i > 0 {
			fn = fn[:i]
		}
		if creator := closureOwner(fn); creator != nil {
			_, in, _ := bytes.Cut(tail[0], []byte(" in goroutine "))
			tail = append([][]byte{append([]byte("created by "+string(creator)+" in goroutine "), in...)}, tail[1:]...)
			if len(tail) > 1 && len(bottom) == 2 {
				tail[1] = bottom[1]
			}
		}
	}
	out := [][]byte{lines[0]}
	for _, f := range frames {
		out = append(out, f...)
	}
	return bytes.Join(append(out, tail...), []byte("\n"))
}
