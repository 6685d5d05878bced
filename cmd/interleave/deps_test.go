package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// semModule's tests use a semaphore from a module that is not instrumented: its channel
// operations are real, so a goroutine the engine paused can hold the semaphore while another
// blocks on it outside the engine's control.
var semModule = map[string]string{
	"sem/go.mod": "module example.com/sem\n\ngo 1.22\n",
	"sem/sem.go": `package sem

// Sem is a counting semaphore.
type Sem struct{ slots chan struct{} }

func New(n int) *Sem { return &Sem{slots: make(chan struct{}, n)} }

func (s *Sem) Acquire() { s.slots <- struct{}{} }
func (s *Sem) Release() { <-s.slots }
`,
	"m_test.go": `package m

import (
	"errors"
	"sync"
	"testing"

	"example.com/sem"
)

func TestSemaphore(t *testing.T) {
	s := sem.New(1)
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Acquire()
			defer s.Release()
			mu.Lock()
			n++
			mu.Unlock()
		}()
	}
	wg.Wait()
}

func TestGoPanic(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done() }()
	go panic(errors.New("boom"))
	wg.Wait()
}
`,
}

// A test that blocks inside a module that is not instrumented is abandoned as soon as nothing
// can release it (not after the whole watchdog limit), with the module and the flag that
// fixes it named; the bug another test found still gives exit status 1; with the flag, the
// test explores. go panic(v) is a panic, not a deadlock.
func TestUninstrumentedDependency(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := writeModule(t, semModule)
	mod := "module example.com/m\n\ngo 1.22\n\nrequire example.com/sem v0.0.0\n\nreplace example.com/sem => ./sem\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := interleaveIn(t, dir, nil, "test", "-minimize", "0", "-points", "sync", "-strategy", "dfs", ".")
	if code != 1 {
		t.Errorf("exit %d, want 1 (TestGoPanic's bug)", code)
	}
	for _, want := range []string{
		"in example.com/sem.(*Sem).Acquire (",
		"module example.com/sem is not instrumented, and interleave test -instrument example.com/sem would control it",
		"did not reach a scheduling point for 1s",
		"--- BUG: TestGoPanic",
		"panic",
		"boom",
	} {
		if !strings.Contains(out+errOut, want) {
			t.Errorf("the output does not say %q\nstdout:\n%s\nstderr:\n%s", want, out, errOut)
		}
	}

	code, out, errOut = interleaveIn(t, dir, nil, "test", "-json", "-minimize", "0", "-instrument", "example.com/sem", "-run", "^TestSemaphore$", ".")
	if e := finalEvent(t, out, "TestSemaphore"); code != 0 || e.Action != "pass" {
		t.Errorf("-instrument example.com/sem: exit %d, %s\nstdout:\n%s\nstderr:\n%s", code, e.Action, out, errOut)
	}
}
