package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/store"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// Serve serves a debugging session of the test body over the control connection at addr
// (INTERLEAVE_DEBUG, set by interleave dap; see dial).
func Serve(t *testing.T, body func(*engine.T), addr string) {
	t.Helper()
	conn, err := dial(addr)
	if err != nil {
		t.Fatalf("interleave: debug session: connect to the adapter at %s: %v", addr, err)
	}
	defer conn.Close()
	s := &session{
		t: t, body: body, info: store.TestInfo(t.Name()), enc: json.NewEncoder(conn),
		cmds: make(chan Command, 16),
	}
	go s.read(conn)
	s.reply(&Reply{Kind: "hello", Test: &s.info})
	s.serve()
}

// session is the test process's side of a debugging session.
type session struct {
	t    *testing.T
	body func(*engine.T)
	info schedule.Test

	wmu sync.Mutex
	enc *json.Encoder

	cmds     chan Command // closed when the connection ends
	pauseReq atomic.Bool
	cmu      sync.Mutex
	cancel   context.CancelFunc // the exploration in progress

	strat    *debugStrategy
	steps    []schedule.Step // of the last run
	dataSeed uint64          // of the last run
}

// read decodes commands. "cancel" and "pause" act at once (an exploration or a running
// execution does not read commands); the others are queued.
func (s *session) read(conn io.Reader) {
	defer close(s.cmds)
	dec := json.NewDecoder(bufio.NewReader(conn))
	for {
		var c Command
		if err := dec.Decode(&c); err != nil {
			return
		}
		switch c.Cmd {
		case "cancel":
			s.cmu.Lock()
			if s.cancel != nil {
				s.cancel()
			}
			s.cmu.Unlock()
		case "pause":
			s.pauseReq.Store(true)
		default:
			s.cmds <- c
		}
	}
}

func (s *session) reply(r *Reply) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := s.enc.Encode(r); err != nil {
		fmt.Fprintf(os.Stderr, "interleave: debug session: %v\n", err)
	}
}

func (s *session) errorf(format string, args ...any) {
	s.reply(&Reply{Kind: "error", Error: fmt.Sprintf(format, args...)})
}

// serve runs the session's commands until quit or the end of the connection.
func (s *session) serve() {
	var last *State // the state of the last execution when it ended
	for c := range s.cmds {
		switch c.Cmd {
		case "explore":
			s.explore(c)
		case "run":
			for {
				st, restart, quit := s.run(c)
				if quit {
					return
				}
				if restart == nil {
					last = st
					s.reply(&Reply{Kind: "ended", State: st})
					break
				}
				c = *restart
			}
		case "step", "continue":
			if last == nil {
				s.errorf("%s: no execution", c.Cmd)
				continue
			}
			st := *last
			st.Trace, st.TraceFrom = nil, 0
			s.reply(&Reply{Kind: "ended", State: &st})
		case "quit":
			return
		default:
			s.errorf("unknown command %q", c.Cmd)
		}
	}
}

// explore explores the body until the first bug, streaming progress.
func (s *session) explore(c Command) {
	name := c.Strategy
	if name == "" {
		name = strategy.Default
	}
	seed := c.Seed
	if seed == 0 {
		seed = 1
	}
	strat, err := strategy.New(name, c.Params, seed)
	if err != nil {
		s.errorf("explore: %v", err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.cmu.Lock()
	s.cancel = cancel
	s.cmu.Unlock()
	defer func() {
		s.cmu.Lock()
		s.cancel = nil
		s.cmu.Unlock()
	}()
	seen := make(map[uint64]bool)
	start := time.Now()
	last := start
	var file *schedule.File
	cfg, err := c.config(s.t.Name())
	if err != nil {
		s.errorf("explore: %v", err)
		return
	}
	cfg.Strategy, cfg.Schedules, cfg.Time, cfg.Context = strat, c.Schedules, c.Time, ctx
	cfg.OnExecution = func(n int, r *engine.Result) {
		seen[r.Fingerprint] = true
		if r.Bug != nil && file == nil {
			file = engine.NewScheduleFile(r, s.info, strat, n)
		}
		if now := time.Now(); now.Sub(last) >= 200*time.Millisecond {
			last = now
			s.reply(&Reply{Kind: "progress", Progress: &Progress{Schedules: n, Interleavings: len(seen), Elapsed: now.Sub(start).Seconds()}})
		}
	}
	rep := engine.Explore(s.body, cfg)
	x := &Explored{
		Progress: Progress{Schedules: rep.Schedules, Interleavings: rep.Interleavings, Elapsed: rep.Elapsed.Seconds()},
		Stopped:  rep.Stopped, Exhausted: rep.Exhausted, Strategy: name,
	}
	for _, r := range rep.Races {
		x.Races = append(x.Races, r.String())
	}
	if rep.Err != nil {
		x.Error = rep.Err.Error()
	}
	if rep.Stopped == "limitation" && len(rep.Limitations) > 0 {
		x.Error = rep.Limitations[len(rep.Limitations)-1].Message
	}
	r := &Reply{Kind: "explored", Explored: x}
	if rep.First != nil && file != nil {
		x.Bug = bugOf(rep.First.Bug)
		path, err := store.SaveSchedule(c.Save, file)
		if err != nil {
			x.Error = err.Error()
		}
		file.Path = path
		x.File = file
	}
	// The findings document, as an exploration the interleave command runs writes it: the
	// language server shows the races and the bug of an exploration started from the editor.
	if root, err := store.WorkingModule(); err != nil {
		x.Notice = fmt.Sprintf("the findings of this exploration were not written: %v", err)
	} else {
		bugPath := ""
		if x.File != nil {
			bugPath = x.File.Path
		}
		f := store.Findings(root, s.info, rep, bugPath)
		f.Params, f.Seed, f.Budget, f.Points = c.Params, seed, c.Schedules, cfg.Points.String()
		if cfg.Points == engine.PointsRacy {
			f.RacyPoints = rep.RacyPoints
		}
		if err := f.Save(root); err != nil {
			x.Notice = fmt.Sprintf("the findings of this exploration were not written: %v", err)
		} else {
			x.Findings = f.Path
		}
	}
	s.reply(r)
}

func bugOf(b *engine.Bug) *Bug {
	if b == nil {
		return nil
	}
	return &Bug{Kind: string(b.Kind), Message: b.Message, Pos: b.Pos, Step: b.Step, G: int(b.G), Logs: b.Logs}
}

// errRestart ends an execution that the adapter replaced by another (a step back, a restart).
var errRestart = errors.New("debug session: execution replaced")

// run runs one execution as c says. It returns the final state, or the command that
// replaced the execution, or quit.
func (s *session) run(c Command) (st *State, restart *Command, quit bool) {
	// A pause that arrived after the previous execution's last step is stale.
	s.pauseReq.Store(false)
	if c.SameSteps {
		c.Steps, c.DataSeed = s.steps, s.dataSeed
	}
	s.steps, s.dataSeed = c.Steps, c.DataSeed
	d := &debugStrategy{s: s, plan: c.Steps, following: true, exceptionAt: c.ExceptionAt, dataSeed: c.DataSeed}
	if c.Then != "" {
		name, params, err := strategy.Parse(c.Then)
		if err == nil {
			d.then, err = strategy.New(name, params, max(c.Seed, 1))
		}
		if err != nil {
			return &State{Ended: true, Reason: "end", Next: -1, Err: fmt.Sprintf("then: %v", err)}, nil, false
		}
	}
	d.setBreakpoints(c.Breakpoints)
	if c.Stop >= 0 {
		d.mode, d.stopAt = "step", c.Stop
	} else {
		d.mode, d.from = "continue", -1
	}
	s.strat = d
	cfg, err := c.config(s.t.Name())
	if err != nil {
		return &State{Ended: true, Reason: "end", Next: -1, Err: err.Error()}, nil, false
	}
	if cfg.MaxSteps == 0 {
		cfg.MaxSteps = max(engine.DefaultMaxSteps, 2*len(c.Steps))
	}
	// A paused execution makes no progress for as long as the developer looks at it.
	cfg.Watchdog = 365 * 24 * time.Hour
	r := engine.Run(s.body, d, cfg)
	switch {
	case d.quit:
		return nil, nil, true
	case d.restart != nil:
		return nil, d.restart, false
	}
	st = &State{Step: r.Steps, Ended: true, Reason: "end", Next: -1, Following: d.following, Diverged: d.diverged, TraceFrom: d.reported}
	if d.reported <= len(r.Schedule) {
		st.Trace = r.Schedule[d.reported:]
		if len(d.info) == len(r.Schedule) {
			st.Info = d.info[d.reported:]
		}
	}
	if r.Err != nil {
		st.Err = r.Err.Error()
	}
	if r.Limitation != nil {
		st.Err = r.Limitation.Message
	}
	st.Bug = bugOf(r.Bug)
	for _, x := range r.Races {
		st.Races = append(st.Races, x.String())
	}
	if r.Bug != nil {
		for _, g := range r.Bug.Goroutines {
			st.Goroutines = append(st.Goroutines, Goroutine{
				ID: int(g.ID), Parent: int(g.Parent), Created: g.Created, Status: g.Status,
				Op: g.Pending.Kind.String(), Pos: g.Pending.Pos, Frames: userFrames(g.Stack),
			})
		}
	} else {
		for i := 0; i < r.Goroutines; i++ {
			st.Goroutines = append(st.Goroutines, Goroutine{ID: i, Parent: -1, Status: "done"})
		}
	}
	if !d.following && r.Err == nil && r.Limitation == nil {
		// The execution left the schedule it was given (manual scheduling): keep it.
		f := engine.NewScheduleFile(r, s.info, d, 1)
		f.Points, f.RacyPoints = c.Points, c.RacyPoints
		if path, err := store.SaveSchedule(c.Save, f); err == nil {
			st.Saved = path
		} else {
			st.Err = err.Error()
		}
	}
	return st, nil, false
}
