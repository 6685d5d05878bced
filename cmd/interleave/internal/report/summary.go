package report

import "github.com/interleave-dev/interleave/engine/runs"

// Summary is a run's summary in .interleave/runs (docs/results-store.md); package runs
// reads and writes it, for the debug adapter too.
type Summary = runs.Summary

// LoadSummary reads the run summary at path.
func LoadSummary(path string) (*Summary, error) { return runs.LoadSummary(path) }

// DecodeSummary reads a run summary; path names it in errors.
func DecodeSummary(data []byte, path string) (*Summary, error) { return runs.DecodeSummary(data, path) }
