package explore

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// LockstepRound is a message of a lockstep search (strategy.Lockstep) on the wire. From a test
// process, in a "lockstep" event: its outcomes of a round and how many of the round's
// executions it ran, or (Cut) the announcement that one of its executions found new racy
// points. From the interleave command, one JSON line each on the lockstep file
// (INTERLEAVE_LOCKSTEP): a round's outcomes of every process with the executions they ran
// together, an announcement passed on, or the reason to stop (End) when another process ended.
type LockstepRound struct {
	Round    int                      `json:"Round"`
	Outcomes []strategy.PeriodOutcome `json:"Outcomes,omitempty"`
	Executed int                      `json:"Executed,omitempty"`
	// Cut, in an announcement, is the execution of the round that found new racy points,
	// counted from 1.
	Cut int    `json:"Cut,omitempty"`
	End string `json:"End,omitempty"`
}

// lockstepExchanger exchanges the rounds of a lockstep search through the interleave
// command: out on the event stream, in on the lockstep file, which a goroutine reads as it
// comes, so that announcements are seen between executions.
type lockstepExchanger struct {
	events *events
	name   string // the lockstep file, for errors
	rounds chan lockstepIn

	mu  sync.Mutex
	cut map[int]int // per round, the first execution announced
}

// lockstepIn is a message from the interleave command, or what ended its reading.
type lockstepIn struct {
	r   LockstepRound
	err error
}

func openLockstep(path string, ev *events) (*lockstepExchanger, error) {
	if ev == nil {
		return nil, errors.New("INTERLEAVE_LOCKSTEP without an event stream (INTERLEAVE_EVENTS)")
	}
	f, err := OpenStream(path, os.O_RDONLY)
	if err != nil {
		return nil, fmt.Errorf("INTERLEAVE_LOCKSTEP: %w", err)
	}
	x := &lockstepExchanger{events: ev, name: path, rounds: make(chan lockstepIn, 1), cut: map[int]int{}}
	go x.read(bufio.NewReaderSize(f, 1<<16))
	return x, nil
}

// read reads the lockstep file: announcements are noted, the rest goes to Exchange.
func (x *lockstepExchanger) read(in *bufio.Reader) {
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			if errors.Is(err, io.EOF) && len(line) == 0 {
				// The interleave command went away without a word: stop as if interrupted.
				x.rounds <- lockstepIn{r: LockstepRound{End: "canceled"}}
			} else {
				x.rounds <- lockstepIn{err: fmt.Errorf("read %s: %w", x.name, err)}
			}
			return
		}
		var r LockstepRound
		if err := json.Unmarshal(line, &r); err != nil {
			x.rounds <- lockstepIn{err: fmt.Errorf("%s: %w", x.name, err)}
			return
		}
		if r.Cut > 0 && r.End == "" {
			x.mu.Lock()
			if c, ok := x.cut[r.Round]; !ok || r.Cut-1 < c {
				x.cut[r.Round] = r.Cut - 1
			}
			x.mu.Unlock()
			continue
		}
		x.rounds <- lockstepIn{r: r}
		if r.End != "" {
			return
		}
	}
}

// Exchange implements strategy.Exchanger.
func (x *lockstepExchanger) Exchange(round int, mine []strategy.PeriodOutcome, executed int) ([]strategy.PeriodOutcome, int, string, error) {
	x.events.write(&Event{Event: "lockstep", Lockstep: &LockstepRound{Round: round, Outcomes: mine, Executed: executed}})
	in := <-x.rounds
	switch {
	case in.err != nil:
		return nil, 0, "", in.err
	case in.r.End != "":
		return nil, 0, in.r.End, nil
	case in.r.Round != round:
		return nil, 0, "", fmt.Errorf("%s: round %d came for round %d", x.name, in.r.Round, round)
	}
	x.mu.Lock()
	delete(x.cut, round)
	x.mu.Unlock()
	return in.r.Outcomes, in.r.Executed, "", nil
}

// Announce implements strategy.Exchanger.
func (x *lockstepExchanger) Announce(round, seq int) {
	x.events.write(&Event{Event: "lockstep", Lockstep: &LockstepRound{Round: round, Cut: seq + 1}})
}

// Announced implements strategy.Exchanger.
func (x *lockstepExchanger) Announced(round int) int {
	x.mu.Lock()
	defer x.mu.Unlock()
	if c, ok := x.cut[round]; ok {
		return c
	}
	return -1
}

// lockstep makes s explore in step with the other parts of o.part, whose innermost level
// divides the search (the outer ones, shards, split the test list, and must be whole).
func lockstep(s engine.Strategy, o *options) error {
	levels := o.part.Levels
	inner := levels[len(levels)-1]
	for _, l := range levels[:len(levels)-1] {
		if l.Count > 1 {
			return fmt.Errorf("part %s: a lockstep search divides one level, the workers of one machine", o.part)
		}
	}
	x, err := openLockstep(o.lockstep, o.events)
	if err != nil {
		return err
	}
	return strategy.Lockstep(s, inner.Index, inner.Count, o.config.Schedules, x)
}
