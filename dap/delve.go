package dap

import (
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/go-delve/delve/pkg/proc"
	"github.com/go-delve/delve/pkg/proc/native"
	"github.com/go-delve/delve/service/api"
)

// Delve is used as a library: the test binary is launched under its native backend (ptrace;
// no dlv binary), and runs freely while the control protocol drives it. When the client asks
// for variables, the adapter halts the process, reads the paused goroutine's frame (the
// goroutine is parked at its scheduling point, its user frames below the engine's), and lets
// the process run again: the test process itself is waiting for the adapter's next command,
// so halting it changes nothing it does.

// delveProcess is a test process under Delve.
type delveProcess struct {
	grp *proc.TargetGroup

	mu        sync.Mutex    // serializes halting, reading and resuming
	stopping  atomic.Bool   // a halt was requested
	resumed   chan error    // the result of the Continue in progress; nil while halted
	done      chan struct{} // closed when the process has exited
	exitError error
	killed    bool
}

// launchMu serializes launches: Delve's native backend starts the process with the
// adapter's own environment, which is set for the duration of the launch.
var launchMu sync.Mutex

// startDelve launches bin under Delve with env and lets it run.
func startDelve(bin string, args []string, dir string, env []string, stdout, stderr io.Writer) (process, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	launchMu.Lock()
	restore := setEnviron(env)
	grp, err := native.Launch(append([]string{bin}, args...), dir, 0, nil, "", "", proc.OutputRedirect{File: outW}, proc.OutputRedirect{File: errW})
	restore()
	launchMu.Unlock()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("launch under Delve: %w", err)
	}
	go io.Copy(stdout, outR)
	go io.Copy(stderr, errR)
	p := &delveProcess{grp: grp, done: make(chan struct{})}
	p.resume()
	return p, nil
}

// setEnviron replaces the process environment by env and returns what restores it.
func setEnviron(env []string) func() {
	old := os.Environ()
	os.Clearenv()
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			os.Setenv(k, v)
		}
	}
	return func() {
		os.Clearenv()
		for _, kv := range old {
			if k, v, ok := strings.Cut(kv, "="); ok {
				os.Setenv(k, v)
			}
		}
	}
}

// resume lets the process run. Called with mu held (or before anyone else can call).
func (p *delveProcess) resume() {
	ch := make(chan error, 1)
	p.resumed = ch
	go func() {
		for {
			err := p.grp.Continue()
			var exited proc.ErrProcessExited
			if errors.As(err, &exited) {
				p.exitError = fmt.Errorf("exit status %d", exited.Status)
				close(p.done)
				ch <- err
				return
			}
			if err != nil || p.stopping.Load() {
				ch <- err
				return
			}
			// Stopped for a reason of its own (a signal Delve handled): go on.
		}
	}()
}

// halt stops the running process. Called with mu held.
func (p *delveProcess) halt() error {
	if p.resumed == nil {
		return nil
	}
	select {
	case <-p.done:
		return errors.New("the test process has exited")
	default:
	}
	p.stopping.Store(true)
	if err := p.grp.RequestManualStop(); err != nil {
		p.stopping.Store(false)
		return fmt.Errorf("halt: %w", err)
	}
	err := <-p.resumed
	p.stopping.Store(false)
	p.resumed = nil
	select {
	case <-p.done:
		return errors.New("the test process has exited")
	default:
	}
	return err
}

func (p *delveProcess) exited() <-chan struct{} { return p.done }
func (p *delveProcess) exitErr() error          { return p.exitError }
func (p *delveProcess) pid() int                { return p.grp.Selected.Pid() }

func (p *delveProcess) debugger() (variableReader, error) { return p, nil }

// kill ends the process and detaches.
func (p *delveProcess) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.killed {
		return
	}
	p.killed = true
	select {
	case <-p.done:
		p.grp.Detach(true)
		return
	default:
	}
	if err := p.halt(); err != nil {
		p.grp.Detach(true)
		return
	}
	p.grp.Detach(true)
	select {
	case <-p.done:
	default:
		close(p.done)
	}
}

// paused runs f with the process halted.
func (p *delveProcess) paused(f func(t *proc.Target) error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.killed {
		return errors.New("the test process is gone")
	}
	if err := p.halt(); err != nil {
		return err
	}
	defer p.resume()
	return f(p.grp.Selected)
}

// loadConfig bounds what is read of a variable.
var loadConfig = proc.LoadConfig{FollowPointers: true, MaxVariableRecurse: 2, MaxStringLen: 256, MaxArrayValues: 64, MaxStructFields: -1}

// scope finds the frame fr of goroutine goid: the frame with fr's function and line, counting
// only the frames the adapter shows.
func scope(t *proc.Target, goid int64, fr frameRef) (*proc.EvalScope, error) {
	g, err := proc.FindGoroutine(t, goid)
	if err != nil {
		return nil, fmt.Errorf("goroutine %d: %w", goid, err)
	}
	if g == nil {
		return nil, fmt.Errorf("goroutine %d not found", goid)
	}
	frames, err := proc.GoroutineStacktrace(t, g, 128, 0)
	if err != nil {
		return nil, fmt.Errorf("stack of goroutine %d: %w", goid, err)
	}
	for i, f := range frames {
		if f.Call.Fn == nil {
			continue
		}
		name := strings.Replace(f.Call.Fn.Name, ".__ilTest", ".Test", 1)
		if name == fr.Func && f.Call.Line == fr.Line {
			return proc.ConvertEvalScope(t, goid, i, 0)
		}
	}
	return nil, fmt.Errorf("frame %s at line %d not found in goroutine %d", fr.Func, fr.Line, goid)
}

func (p *delveProcess) locals(goid int64, fr frameRef) ([]value, error) {
	var out []value
	err := p.paused(func(t *proc.Target) error {
		sc, err := scope(t, goid, fr)
		if err != nil {
			return err
		}
		args, err := sc.FunctionArguments(loadConfig)
		if err != nil {
			return fmt.Errorf("arguments: %w", err)
		}
		locals, err := sc.LocalVariables(loadConfig)
		if err != nil {
			return fmt.Errorf("locals: %w", err)
		}
		for _, v := range append(args, locals...) {
			if strings.HasPrefix(v.Name, "~") || strings.HasPrefix(v.Name, "__il") {
				continue // results without names, the instrumenter's temporaries
			}
			val := convert(api.ConvertVar(v), v.Name)
			if v.Flags&proc.VariableShadowed != 0 {
				val.Name = "(" + v.Name + ")" // as Delve shows a variable an inner one shadows
			}
			out = append(out, val)
		}
		return nil
	})
	return out, err
}

func (p *delveProcess) evaluate(goid int64, fr frameRef, expr string) (value, error) {
	var out value
	err := p.paused(func(t *proc.Target) error {
		sc, err := scope(t, goid, fr)
		if err != nil {
			return err
		}
		v, err := sc.EvalExpression(expr, loadConfig)
		if err != nil {
			return err
		}
		out = convert(api.ConvertVar(v), expr)
		return nil
	})
	return out, err
}

// reset has nothing to forget: values are read whole, children included.
func (p *delveProcess) reset() {}

// convert turns a variable read by Delve into a value whose children were read with it.
func convert(v *api.Variable, evalName string) value {
	val := value{Name: v.Name, Type: v.Type, Value: shorten(v.SinglelineString(), 200), EvaluateName: evalName}
	if v.Unreadable != "" {
		val.Value = "(unreadable: " + v.Unreadable + ")"
		return val
	}
	children := v.Children
	if v.Kind == reflect.Pointer && len(children) == 1 {
		// A pointer's child is the value it points to: show that value's fields.
		if len(children[0].Children) > 0 {
			children = children[0].Children
			evalName = "(*" + evalName + ")"
		}
	}
	if len(children) == 0 || v.Kind == reflect.String {
		return val
	}
	kids := make([]api.Variable, len(children))
	copy(kids, children)
	isMap := v.Kind == reflect.Map
	val.Children = func() ([]value, error) {
		var out []value
		for i := range kids {
			c := &kids[i]
			name := c.Name
			switch {
			case isMap:
				// Maps alternate keys and values.
				if i%2 == 1 {
					continue
				}
				if i+1 < len(kids) {
					k := kids[i].SinglelineString()
					cv := convert(&kids[i+1], fmt.Sprintf("%s[%s]", evalName, k))
					cv.Name = "[" + k + "]"
					out = append(out, cv)
				}
				continue
			case name == "":
				name = fmt.Sprintf("[%d]", i)
			}
			cv := convert(c, childEvalName(evalName, name))
			cv.Name = name
			out = append(out, cv)
		}
		return out, nil
	}
	return val
}

func childEvalName(parent, name string) string {
	if strings.HasPrefix(name, "[") {
		return parent + name
	}
	return parent + "." + name
}

// shorten keeps a one-line value readable; its children show the rest.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
