// Package runs reads and writes the run summaries of the results store (.interleave/runs,
// docs/results-store.md): one document per run of explorations, what was run and what each
// test came to. The interleave command writes one per run of interleave test or merge, the
// debug adapter one per exploration started from the editor, and the editor's Testing view
// reads them.
//
// Like every package compiled into test binaries, it uses the standard library only.
package runs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/interleave-dev/interleave/engine/bounded"
	"github.com/interleave-dev/interleave/engine/explore"
	"github.com/interleave-dev/interleave/engine/store"
)

// Outcome is what one test's run came to.
type Outcome struct {
	Package string
	Test    string
	Result  *explore.Event
	Err     string
	// Interrupted is set when a signal stopped the run before the test was explored to
	// its end (or at all): Err says so, Result has what was explored before.
	Interrupted bool `json:",omitempty"`
	// Status is what the test's run came to (pass, bug, cut, abandoned, skipped,
	// interrupted, error), and Reason, for a test that was not explored as asked, why.
	Status string `json:",omitempty"`
	Reason string `json:",omitempty"`
}

// Summary is a run's summary in .interleave/runs (docs/results-store.md).
type Summary struct {
	Version   int
	Time      time.Time
	Origin    string `json:",omitempty"`
	Part      string `json:",omitempty"` // the shard explored (-shard), "" for all
	Packages  []string
	Run       string
	Strategy  string
	Params    map[string]string
	Schedules int
	Seed      uint64
	// Interrupted is the signal that interrupted the run ("interrupt", "terminated"): its
	// results are incomplete (Outcome.Interrupted says which tests'). "" for a run that went
	// to its end.
	Interrupted string `json:",omitempty"`
	Tests       []Outcome
}

// Dir returns the runs directory of the results store of the module containing dir,
// creating the store if needed.
func Dir(dir string) (string, error) {
	sched, err := store.ScheduleDir(dir)
	if err != nil {
		return "", err
	}
	runs := filepath.Join(filepath.Dir(sched), "runs")
	if err := os.MkdirAll(runs, 0o755); err != nil {
		return "", fmt.Errorf("save run: %w", err)
	}
	return runs, nil
}

// Save writes the summary into the runs directory under a new name made of its time (with
// a suffix -2, -3 … when a run of the same millisecond has it), whole or not at all: an
// editor watching the directory reads it when it appears, and two runs never replace each
// other's summary.
func (doc *Summary) Save(runs string) (string, error) {
	b, err := json.MarshalIndent(doc, "", "\t")
	if err != nil {
		return "", err
	}
	path, err := store.CreateUnique(runs, doc.Time.Format("20060102T150405.000"), ".json", append(b, '\n'), nil)
	if err != nil {
		return "", fmt.Errorf("save run: %w", err)
	}
	return path, nil
}

// LoadSummary reads the run summary at path.
func LoadSummary(path string) (*Summary, error) {
	b, err := bounded.Summary.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return DecodeSummary(b, path)
}

// DecodeSummary reads a run summary; path names it in errors.
func DecodeSummary(data []byte, path string) (*Summary, error) {
	r := new(Summary)
	if err := json.Unmarshal(data, r); err != nil || r.Version != 1 {
		return nil, fmt.Errorf("run summary %s: not a run summary of version 1 (%v)", path, err)
	}
	return r, nil
}
