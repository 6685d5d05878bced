package dap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"sync"

	"github.com/interleave-dev/interleave/engine/instrument"
)

// process is the running test binary: started plainly, or under Delve, which can then read
// its variables while it is paused.
type process interface {
	// exited is closed when the process has ended; exitErr then says how.
	exited() <-chan struct{}
	exitErr() error
	// kill ends the process (and, under Delve, detaches).
	kill()
	// run lets the process run if a debugger halted it: before every control command.
	run()
	// pid is the process id.
	pid() int
	// debugger returns what reads variables, or nil with the reason there is none.
	debugger() (variableReader, error)
}

// variableReader reads a paused goroutine's variables.
type variableReader interface {
	// locals returns the arguments and local variables of a frame of the goroutine with
	// runtime id goid.
	locals(goid int64, frame frameRef) ([]value, error)
	// evaluate evaluates expr in a frame.
	evaluate(goid int64, frame frameRef, expr string) (value, error)
}

// frameRef identifies a user frame by its function and line, and which of the frames with
// both it is from the top (recursion): the adapter shows user frames only, and Delve finds
// the frame among all of them.
type frameRef struct {
	Func string
	File string
	Line int
	Nth  int
}

// execProcess is a test process started without a debugger.
type execProcess struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
	why  error // why there is no debugger
}

func startExec(bin string, args []string, dir string, env []string, stdout, stderr io.Writer, why error) (*execProcess, error) {
	// A process group of its own, killed by the kernel if the adapter dies (Linux).
	cmd := instrument.Command(context.Background(), bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the test binary: %w", err)
	}
	p := &execProcess{cmd: cmd, done: make(chan struct{}), why: why}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func (p *execProcess) run() {}

func (p *execProcess) exited() <-chan struct{} { return p.done }
func (p *execProcess) exitErr() error          { return p.err }
func (p *execProcess) pid() int                { return p.cmd.Process.Pid }

func (p *execProcess) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	// The whole process group (tree on Windows): the test binary and anything it started.
	instrument.KillTree(p.cmd)
	<-p.done
}

func (p *execProcess) debugger() (variableReader, error) {
	if p.why != nil {
		return nil, p.why
	}
	return nil, errors.New("the test process runs without a debugger")
}

// runArgs are the test binary's arguments that run one test, once, without a time limit (a
// debugging session lasts as long as the developer wants).
func runArgs(test string) []string {
	return []string{"-test.run", "^" + regexp.QuoteMeta(test) + "$", "-test.count=1", "-test.timeout=0"}
}

// tail keeps the last lines written to it, for the message of a process that crashed.
type tail struct {
	mu   sync.Mutex
	buf  []byte
	next io.Writer
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 8192 {
		t.buf = t.buf[len(t.buf)-8192:]
	}
	t.mu.Unlock()
	if t.next != nil {
		t.next.Write(p)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimRight(string(t.buf), "\n"), "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return strings.Join(lines, "\n")
}
