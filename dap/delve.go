package dap

import (
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/go-delve/delve/pkg/proc"
	"github.com/go-delve/delve/pkg/proc/native"
	"github.com/go-delve/delve/service/api"
)

// Delve is used as a library: the test binary is launched under its native backend (ptrace;
// no dlv binary), and runs freely while the control protocol drives it. When the client asks
// for variables, the adapter halts the process and reads the paused goroutine's frame (the
// goroutine is parked at its scheduling point, its user frames below the engine's); the
// process stays halted until the adapter sends the next command. The test process is waiting
// for that command anyway, so halting it changes nothing it does.

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

// halt stops the running process. Called with mu held. A stop request that reaches Delve
// just as a Continue starts is forgotten (Continue clears it), so the request is repeated
// until the process stops.
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
	defer p.stopping.Store(false)
	for i := 0; ; i++ {
		if err := p.grp.RequestManualStop(); err != nil {
			return fmt.Errorf("halt: %w", err)
		}
		select {
		case err := <-p.resumed:
			p.resumed = nil
			select {
			case <-p.done:
				return errors.New("the test process has exited")
			default:
			}
			return err
		case <-time.After(20 * time.Millisecond):
			if i == 250 {
				return errors.New("halt: the test process does not stop")
			}
		}
	}
}

// run lets a halted process run again; the control protocol needs it running.
func (p *delveProcess) run() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.resumed == nil && !p.killed {
		select {
		case <-p.done:
		default:
			p.resume()
		}
	}
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

// paused runs f with the process halted. The process stays halted until the adapter sends
// the test process its next command (run), so that reading several scopes at one stop halts
// it once.
func (p *delveProcess) paused(f func(t *proc.Target) error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.killed {
		return errors.New("the test process is gone")
	}
	if err := p.halt(); err != nil {
		return err
	}
	return f(p.grp.Selected)
}

// loadConfig bounds what is read of a variable at once: one level below it; deeper values
// are read when the client opens them, by evaluating their expression in the same frame (the
// process stays halted meanwhile).
var loadConfig = proc.LoadConfig{FollowPointers: true, MaxVariableRecurse: 1, MaxStringLen: 256, MaxArrayValues: 64, MaxStructFields: -1}

// scope finds the frame fr of goroutine goid: the Nth frame from the top with fr's function
// and line.
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
	nth := 0
	for i, f := range frames {
		if f.Call.Fn == nil {
			continue
		}
		name := strings.Replace(f.Call.Fn.Name, ".__ilTest", ".Test", 1)
		if name == fr.Func && f.Call.Line == fr.Line {
			if nth == fr.Nth {
				return proc.ConvertEvalScope(t, goid, i, 0)
			}
			nth++
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
			val := p.convert(goid, fr, api.ConvertVar(v), v.Name)
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
		out = p.convert(goid, fr, api.ConvertVar(v), expr)
		return nil
	})
	return out, err
}

// convert turns a variable read by Delve into a value. Children that were read with it are
// converted; a value whose children were not read gets them by evaluating its expression.
func (p *delveProcess) convert(goid int64, fr frameRef, v *api.Variable, evalName string) value {
	val := value{Name: v.Name, Type: userTypeName(v.Type), Value: shorten(v.SinglelineString(), 200), EvaluateName: evalName}
	if v.Unreadable != "" {
		val.Value = "(unreadable: " + v.Unreadable + ")"
		return val
	}
	children := v.Children
	if v.Kind == reflect.Pointer && len(children) == 1 {
		// A pointer's child is the value it points to: show that value's fields.
		if c := children[0]; len(c.Children) > 0 || c.Len > 0 {
			children = c.Children
			evalName = "(*" + evalName + ")"
			v = &c
		} else if c.Kind == reflect.Struct && c.OnlyAddr {
			children = nil
		}
	}
	switch v.Kind {
	case reflect.String, reflect.Func, reflect.Chan, reflect.UnsafePointer, reflect.Invalid:
		return val
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return val
	}
	if len(children) == 0 {
		if v.Len == 0 && v.Kind != reflect.Struct && v.Kind != reflect.Pointer && v.Kind != reflect.Interface {
			return val
		}
		if v.Kind == reflect.Pointer && v.Children != nil && len(v.Children) == 1 && v.Children[0].Addr == 0 {
			return val // nil
		}
		expr := evalName
		val.Children = func() ([]value, error) {
			// Not read yet: read the value itself, one more level down.
			got, err := p.evaluate(goid, fr, expr)
			if err != nil {
				return nil, err
			}
			if got.Children == nil {
				return nil, nil
			}
			return got.Children()
		}
		return val
	}
	kids := append([]api.Variable(nil), children...)
	isMap := v.Kind == reflect.Map
	val.Children = func() ([]value, error) {
		var out []value
		for i := range kids {
			c := &kids[i]
			name := c.Name
			switch {
			case isMap:
				// Maps alternate keys and values.
				if i%2 == 1 || i+1 >= len(kids) {
					continue
				}
				k := kids[i].SinglelineString()
				cv := p.convert(goid, fr, &kids[i+1], fmt.Sprintf("%s[%s]", evalName, k))
				cv.Name = "[" + k + "]"
				out = append(out, cv)
				continue
			case name == "":
				name = fmt.Sprintf("[%d]", i)
			}
			cv := p.convert(goid, fr, c, childEvalName(evalName, name))
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

// userTypeName shows the engine's per-schedule test handle (what the body of a test written
// against package explore receives; an instrumented test's t is its own *testing.T) by the
// name of the testing type it stands for.
func userTypeName(t string) string {
	return engineTestType.ReplaceAllString(t, "testing.$1")
}

var engineTestType = regexp.MustCompile(`github\.com/interleave-dev/interleave/engine(?:/harness)?\.(TB?)\b`)
