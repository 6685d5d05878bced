package report

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/atomicfile"
	"github.com/interleave-dev/interleave/engine/bounded"
)

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

// Save writes the summary into the runs directory, named by its time.
func (doc *Summary) Save(runs string) (string, error) {
	b, err := json.MarshalIndent(doc, "", "\t")
	if err != nil {
		return "", err
	}
	// Written whole or not at all: an editor watching the directory reads it when it appears.
	path := filepath.Join(runs, doc.Time.Format("20060102T150405.000")+".json")
	if err := atomicfile.Write(path, append(b, '\n')); err != nil {
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
