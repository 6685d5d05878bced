// The relay of a lockstep search (PERIOD under -p): the test's worker processes explore one
// search in step (strategy.Lockstep), and at the end of each round every one of them sends its
// executions' outcomes here, on its event stream, and waits for everyone's, on its lockstep file.

package test

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"github.com/interleave-dev/interleave/engine/explore"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// lockstepHub relays the rounds of one test's lockstep search between its worker processes.
type lockstepHub struct {
	mu     sync.Mutex
	out    []*os.File // each part's lockstep file, this end (nil once closed)
	rounds map[int]*lockstepGather
	ended  bool
}

// lockstepGather is a round's outcomes, gathered until every part has given its own.
type lockstepGather struct {
	from     []bool
	given    int
	outcomes []strategy.PeriodOutcome
	executed int
}

// newLockstepHub makes the lockstep files of parts worker processes: the hub and, per part,
// the read end its process gets (the caller closes those once the processes started).
func newLockstepHub(parts int) (*lockstepHub, []*os.File, error) {
	h := &lockstepHub{rounds: map[int]*lockstepGather{}}
	var ins []*os.File
	for range parts {
		r, w, err := os.Pipe()
		if err != nil {
			h.close()
			for _, f := range ins {
				f.Close()
			}
			return nil, nil, fmt.Errorf("lockstep files: %w", err)
		}
		h.out, ins = append(h.out, w), append(ins, r)
	}
	return h, ins, nil
}

// round takes part's outcomes of a round, and sends everyone's to every part once all gave
// theirs. A part that gives a round twice, or a round without outcomes, breaks the search:
// every part is told to stop.
func (h *lockstepHub) round(part int, r *explore.LockstepRound) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ended {
		return nil
	}
	if r == nil || r.Round < 0 {
		h.endLocked("canceled")
		return fmt.Errorf("worker %d sent a lockstep event without a round", part+1)
	}
	if r.Cut > 0 {
		// An execution found new racy points: every part hears of it at once, so that
		// none starts an execution of the round after it.
		h.sendLocked(explore.LockstepRound{Round: r.Round, Cut: r.Cut})
		return nil
	}
	g := h.rounds[r.Round]
	if g == nil {
		g = &lockstepGather{from: make([]bool, len(h.out))}
		h.rounds[r.Round] = g
	}
	if g.from[part] {
		h.endLocked("canceled")
		return fmt.Errorf("worker %d sent round %d twice", part+1, r.Round)
	}
	g.from[part] = true
	g.given++
	g.outcomes = append(g.outcomes, r.Outcomes...)
	g.executed += r.Executed
	if g.given < len(h.out) {
		return nil
	}
	delete(h.rounds, r.Round)
	h.sendLocked(explore.LockstepRound{Round: r.Round, Outcomes: g.outcomes, Executed: g.executed})
	return nil
}

// sendLocked writes m to every part. A part that already ended does not read: its write
// fails, and is of no matter.
func (h *lockstepHub) sendLocked(m explore.LockstepRound) {
	line, _ := json.Marshal(m) // plain data: cannot fail
	line = append(line, '\n')
	for _, w := range h.out {
		if w != nil {
			w.Write(line)
		}
	}
}

// end tells every part to stop, once: a part ended, and the others would wait for it at
// their next round's end. They stop with the time budget when that is why it ended, and
// otherwise as interrupted (the first bug of a test stops its other workers so too).
func (h *lockstepHub) end(stopped string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ended {
		return
	}
	if stopped != "time" {
		stopped = "canceled"
	}
	h.endLocked(stopped)
}

func (h *lockstepHub) endLocked(reason string) {
	h.ended = true
	h.sendLocked(explore.LockstepRound{Round: -1, End: reason})
	h.close()
}

func (h *lockstepHub) close() {
	for i, w := range h.out {
		if w != nil {
			w.Close()
			h.out[i] = nil
		}
	}
}
