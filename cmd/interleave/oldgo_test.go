package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// oldModule is a module written for a Go before 1.22: a loop variable shared by its
// iterations, panic(nil) recovering as nil, a helper test file that uses testing only in a
// signature, and files with build constraints as gofmt writes them since Go 1.17 (a
// //go:build line and the // +build line that says the same) and as before (// +build only).
var oldModule = map[string]string{
	"both.go": `//go:build !appengine
// +build !appengine

package m

func Both() bool { return true }
`,
	"legacy.go": `// +build !appengine,!nacl

package m

func Legacy() bool { return true }
`,
	"loop.go": `package m

// Pointers returns the address of the loop variable at each iteration: one variable before
// Go 1.22, three since.
func Pointers() []*int {
	var ps []*int
	for i := 0; i < 3; i++ {
		ps = append(ps, &i)
	}
	return ps
}
`,
	"util_test.go": `package m

import "testing"

func check(t testing.TB, ok bool, msg string) {
	t.Helper()
	if !ok {
		t.Fatal(msg)
	}
}
`,
	"m_test.go": `package m

import (
	"sync"
	"testing"
)

func TestLoopVariable(t *testing.T) {
	ps := Pointers()
	check(t, *ps[0] == 3, "the loop variable is not shared: the module's language version was not kept")
}

func TestConstrained(t *testing.T) {
	check(t, Both() && Legacy(), "a constrained file left out")
}

func TestPanicNil(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		panic(nil)
	}()
	wg.Wait()
}
`,
}

// A module whose go line is older than the engine's builds as go test builds it: each file at
// its module's language version, the runtime's behaviour that of its version (panic(nil)
// crashes with a nil value), helper test files and files with build constraints of either
// form compile (go vet, which go test runs, checks that a file's +build lines agree with its
// //go:build line) — and no file of it is changed.
func TestOldGoLines(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	if runtime.GOOS == "windows" {
		t.Skip("uses /dev/fd")
	}
	for _, goLine := range []string{"", "1.16", "1.20", "1.21"} {
		t.Run("go "+goLine, func(t *testing.T) {
			dir := writeModule(t, oldModule)
			mod := "module example.com/m\n"
			if goLine != "" {
				mod += "\ngo " + goLine + "\n"
			}
			if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := interleaveIn(t, dir, nil, "test", "-json", "-minimize", "0", ".")
			if code != 1 {
				t.Fatalf("exit %d, want 1 (TestPanicNil's bug)\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			for _, name := range []string{"TestLoopVariable", "TestConstrained"} {
				if e := finalEvent(t, out, name); e.Action != "pass" {
					t.Errorf("%s: %+v\n%s", name, e, out)
				}
			}
			e := finalEvent(t, out, "TestPanicNil")
			if e.Bug == nil || e.Bug.Kind != "panic" || !strings.Contains(e.Bug.Message, "nil") || !strings.HasPrefix(e.Bug.Position, "m_test.go:") {
				t.Errorf("TestPanicNil: %+v, want a panic with a nil value (panic(nil) before 1.21, a PanicNilError since) in m_test.go\n%s", e.Bug, out)
			}
			b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
			if err != nil || string(b) != mod {
				t.Errorf("go.mod changed: %q (%v)", b, err)
			}
		})
	}
}

// An instrumented dependency (-instrument) whose go line predates generics compiles: its
// rewritten files call the engine's generic functions.
func TestOldDependencyInstrumented(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	if runtime.GOOS == "windows" {
		t.Skip("uses /dev/fd")
	}
	dir := writeModule(t, map[string]string{
		"dep/go.mod": "module example.com/dep\n\ngo 1.16\n",
		"dep/dep.go": `package dep

import "sync"

// Counter's Inc reads and writes in two critical sections: a lost update.
type Counter struct {
	mu sync.Mutex
	n  int
}

func (c *Counter) Inc() {
	c.mu.Lock()
	v := c.n
	c.mu.Unlock()
	c.mu.Lock()
	c.n = v + 1
	c.mu.Unlock()
}

func (c *Counter) N() int { c.mu.Lock(); defer c.mu.Unlock(); return c.n }
`,
		"m_test.go": `package m

import (
	"sync"
	"testing"

	"example.com/dep"
)

func TestInc(t *testing.T) {
	var c dep.Counter
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); c.Inc() }()
	}
	wg.Wait()
	if c.N() != 2 {
		t.Fatalf("n = %d", c.N())
	}
}
`,
	})
	mod := "module example.com/m\n\ngo 1.22\n\nrequire example.com/dep v0.0.0\n\nreplace example.com/dep => ./dep\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := interleaveIn(t, dir, nil, "test", "-json", "-minimize", "0", "-instrument", "example.com/dep", ".")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the dependency's lost update)\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if e := finalEvent(t, out, "TestInc"); e.Bug == nil || e.Bug.Kind != "fail" {
		t.Fatalf("TestInc: %+v\n%s", e.Bug, out)
	}
}
