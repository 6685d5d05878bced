package explore

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// LockstepRound is a round of a lockstep search (strategy.Lockstep) on the wire: in a
// "lockstep" event, this process's outcomes of the round; on the lockstep file
// (INTERLEAVE_LOCKSTEP), one JSON line per round from the interleave command with every
// process's, or the reason to stop (End) when another process ended.
type LockstepRound struct {
	Round    int                      `json:"Round"`
	Outcomes []strategy.PeriodOutcome `json:"Outcomes"`
	End      string                   `json:"End,omitempty"`
}

// lockstepExchanger exchanges the rounds of a lockstep search through the interleave
// command: out on the event stream, in on the lockstep file.
type lockstepExchanger struct {
	events *events
	in     *bufio.Reader
	name   string // the lockstep file, for errors
}

func openLockstep(path string, ev *events) (*lockstepExchanger, error) {
	if ev == nil {
		return nil, errors.New("INTERLEAVE_LOCKSTEP without an event stream (INTERLEAVE_EVENTS)")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("INTERLEAVE_LOCKSTEP: %w", err)
	}
	return &lockstepExchanger{events: ev, in: bufio.NewReaderSize(f, 1<<16), name: path}, nil
}

// Exchange implements strategy.Exchanger.
func (x *lockstepExchanger) Exchange(round int, mine []strategy.PeriodOutcome) ([]strategy.PeriodOutcome, string, error) {
	x.events.write(&Event{Event: "lockstep", Lockstep: &LockstepRound{Round: round, Outcomes: mine}})
	line, err := x.in.ReadBytes('\n')
	if err != nil {
		if errors.Is(err, io.EOF) && len(line) == 0 {
			// The interleave command went away without a word: stop as if interrupted.
			return nil, "canceled", nil
		}
		return nil, "", fmt.Errorf("read %s: %w", x.name, err)
	}
	var r LockstepRound
	if err := json.Unmarshal(line, &r); err != nil {
		return nil, "", fmt.Errorf("%s: round %d: %w", x.name, round, err)
	}
	switch {
	case r.End != "":
		return nil, r.End, nil
	case r.Round != round:
		return nil, "", fmt.Errorf("%s: round %d came for round %d", x.name, r.Round, round)
	}
	return r.Outcomes, "", nil
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
