package schedule

// Reading a schedule file: decoding and validating every field, with the line of a bad step.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/interleave-dev/interleave/engine/bounded"
)

// Load reads the schedule file at path: a regular file of at most bounded.Schedule's size.
func Load(path string) (*File, error) {
	data, err := bounded.Schedule.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load schedule %s: %w", path, err)
	}
	f, err := decode(data, path)
	if err != nil {
		return nil, err
	}
	f.Path = path
	return f, nil
}

// Decode reads a schedule file from r, at most bounded.Schedule's size of it. Bad input
// gives an *Error that says what is wrong and where; Decode never panics.
func Decode(r io.Reader) (*File, error) {
	data, err := bounded.Schedule.ReadAll(r, "schedule")
	if err != nil {
		return nil, err // "read schedule: ..."
	}
	return decode(data, "")
}

// The document as decoded: pointers tell missing fields from zero values.
type (
	wireHeader struct {
		Format  json.RawMessage `json:"format"`
		Version json.RawMessage `json:"version"`
	}
	wireFile struct {
		Test       *Test             `json:"test"`
		Instrument []string          `json:"instrument"`
		BuildFlags []string          `json:"buildFlags"`
		Strategy   *Strategy         `json:"strategy"`
		Execution  int               `json:"execution"`
		Points     string            `json:"points"`
		Racy       []string          `json:"racyPoints"`
		DataSeed   string            `json:"dataSeed"`
		Delays     int               `json:"sleepDelays"`
		FairSteps  int               `json:"fairSteps"`
		DelayMax   string            `json:"sleepDelayMax"`
		Result     *wireResult       `json:"result"`
		Bug        *wireBug          `json:"bug"`
		Steps      *[]wireStep       `json:"steps"`
		Source     map[string]Anchor `json:"source"`
	}
	wireResult struct {
		Steps       int    `json:"steps"`
		Goroutines  int    `json:"goroutines"`
		Preemptions int    `json:"preemptions"`
		Fingerprint string `json:"fingerprint,omitempty"`
	}
	wireBug struct {
		Kind       string      `json:"kind"`
		Message    string      `json:"message"`
		Step       int         `json:"step"`
		G          *int32      `json:"g"`
		Pos        string      `json:"pos,omitempty"`
		Delayed    string      `json:"delayed,omitempty"`
		Logs       []string    `json:"logs,omitempty"`
		Goroutines []Goroutine `json:"goroutines,omitempty"`
	}
	wireStep struct {
		Step   *int   `json:"step,omitempty"`
		Choice *int32 `json:"choice,omitempty"`
		N      *int32 `json:"n,omitempty"`
		G      *int32 `json:"g,omitempty"`
		Op     string `json:"op,omitempty"`
		Pos    string `json:"pos,omitempty"`
	}
)

func decode(data []byte, path string) (*File, error) {
	name := fileName(path)
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &Error{Path: path, Kind: ErrTruncated, msg: name + " is empty"}
	}
	// First only the header: a newer version may not decode as this one.
	var h wireHeader
	if err := json.Unmarshal(data, &h); err != nil {
		return nil, jsonError(data, path, err)
	}
	var format string
	if h.Format == nil || json.Unmarshal(h.Format, &format) != nil || format != FormatName {
		return nil, &Error{Path: path, Kind: ErrNotSchedule,
			msg: fmt.Sprintf("%s is not an interleave schedule: it has no \"format\": %q field", name, FormatName)}
	}
	if h.Version == nil || string(h.Version) == "null" {
		return nil, errorf(path, ErrMissing, 0, 0, "missing required field \"version\"")
	}
	var version int
	if err := json.Unmarshal(h.Version, &version); err != nil {
		return nil, errorf(path, ErrInvalid, 0, 0, "format version %s is not an integer", h.Version)
	}
	if version < OldestVersion || version > Version {
		return nil, &Error{Path: path, Kind: ErrVersion,
			msg: fmt.Sprintf("%s has format version %d; this interleave reads versions %d to %d", name, version, OldestVersion, Version)}
	}

	var w wireFile
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, jsonError(data, path, err)
	}
	f := &File{Execution: w.Execution, Points: w.Points, RacyPoints: w.Racy, FairSteps: w.FairSteps}
	if version >= 2 && len(w.Source) > 0 {
		f.Source = w.Source
	}
	if w.DataSeed != "" {
		seed, err := strconv.ParseUint(w.DataSeed, 10, 64)
		if err != nil {
			return nil, errorf(path, ErrInvalid, 0, 0, "dataSeed %q is not an unsigned integer", w.DataSeed)
		}
		f.DataSeed = seed
	}
	if w.FairSteps < -1 {
		return nil, errorf(path, ErrInvalid, 0, 0, "fairSteps %d: want a number of steps, or -1 for none", w.FairSteps)
	}
	if w.Delays < 0 {
		return nil, errorf(path, ErrInvalid, 0, 0, "sleepDelays %d is negative", w.Delays)
	}
	if w.Delays > 0 {
		d, err := time.ParseDuration(w.DelayMax)
		if err != nil || d <= 0 {
			return nil, errorf(path, ErrInvalid, 0, 0, "sleepDelayMax %q is not a positive duration", w.DelayMax)
		}
		f.SleepDelays, f.SleepDelayMax = w.Delays, d
	}
	switch f.Points {
	case "", "all", "sync", "racy":
	default:
		return nil, errorf(path, ErrInvalid, 0, 0, "points %q is not one of all, sync, racy", f.Points)
	}
	if w.Test == nil {
		return nil, errorf(path, ErrMissing, 0, 0, "missing required field \"test\"")
	}
	f.Test = *w.Test
	f.Instrument, f.BuildFlags = w.Instrument, w.BuildFlags
	if w.Strategy != nil {
		f.Strategy = *w.Strategy
		if len(f.Strategy.Params) == 0 {
			f.Strategy.Params = nil
		}
	}
	if w.Result != nil {
		f.Result = Summary{Steps: w.Result.Steps, Goroutines: w.Result.Goroutines, Preemptions: w.Result.Preemptions}
		if w.Result.Fingerprint != "" {
			fp, err := strconv.ParseUint(w.Result.Fingerprint, 16, 64)
			if err != nil {
				return nil, errorf(path, ErrInvalid, 0, 0, "result.fingerprint %q is not a 64-bit hexadecimal number", w.Result.Fingerprint)
			}
			f.Result.Fingerprint = fp
		}
	}
	if w.Steps == nil {
		return nil, errorf(path, ErrMissing, 0, 0, "missing required field \"steps\"")
	}
	var lines []int // the line of each step, computed on the first error
	lineOf := func(i int) int {
		if lines == nil {
			lines = stepLines(data)
		}
		if i < len(lines) {
			return lines[i]
		}
		return 0
	}
	f.Steps = make([]Step, 0, len(*w.Steps))
	run := 0
	for i, ws := range *w.Steps {
		var s Step
		if ws.Choice == nil {
			run++
		}
		where := stepName(ws.Choice != nil, run)
		switch {
		case ws.G == nil:
			return nil, errorf(path, ErrMissing, lineOf(i), 0, "%s: missing required field \"g\"", where)
		case ws.Choice == nil && ws.N != nil:
			return nil, errorf(path, ErrMissing, lineOf(i), 0, "%s: has \"n\" but no \"choice\": a data choice needs both, a goroutine step neither", where)
		case ws.Choice != nil && ws.N == nil:
			return nil, errorf(path, ErrMissing, lineOf(i), 0, "%s: missing required field \"n\"", where)
		case ws.Choice != nil && ws.Step != nil:
			return nil, errorf(path, ErrInvalid, lineOf(i), 0, "%s: a data choice has no \"step\" number (it is not a step)", where)
		case ws.Step != nil && *ws.Step != run:
			return nil, errorf(path, ErrInvalid, lineOf(i), 0, "step %d is numbered %d: steps are numbered 1, 2, ... in order", run, *ws.Step)
		}
		s.G = *ws.G
		s.Op, s.Pos = ws.Op, ws.Pos
		if ws.Choice != nil {
			s.Kind, s.Value, s.N = Choice, *ws.Choice, *ws.N
		}
		if err := checkStep(s); err != nil {
			return nil, errorf(path, ErrInvalid, lineOf(i), 0, "%s: %v", where, err)
		}
		f.Steps = append(f.Steps, s)
	}
	if w.Bug != nil {
		b := &Bug{Kind: w.Bug.Kind, Message: w.Bug.Message, Step: w.Bug.Step, G: -1, Pos: w.Bug.Pos,
			Delayed: w.Bug.Delayed, Logs: w.Bug.Logs, Goroutines: w.Bug.Goroutines}
		if w.Bug.G != nil {
			b.G = *w.Bug.G
		}
		if len(b.Logs) == 0 {
			b.Logs = nil
		}
		if len(b.Goroutines) == 0 {
			b.Goroutines = nil
		}
		for i := range b.Goroutines {
			if len(b.Goroutines[i].Stack) == 0 {
				b.Goroutines[i].Stack = nil
			}
		}
		f.Bug = b
	}
	if err := f.check(); err != nil {
		return nil, errorf(path, err.kind, 0, 0, "%s", err.msg)
	}
	return f, nil
}

func stepName(choice bool, run int) string {
	if choice {
		return fmt.Sprintf("data choice after step %d", run)
	}
	return fmt.Sprintf("step %d", run)
}

// checkStep checks the ranges of a step's numbers.
func checkStep(s Step) error {
	switch s.Kind {
	case Run:
		if s.G < 0 {
			return fmt.Errorf("negative goroutine %d", s.G)
		}
	case Choice:
		if s.G < 0 {
			return fmt.Errorf("negative goroutine %d", s.G)
		}
		if s.N < 2 {
			return fmt.Errorf("a data choice has at least 2 alternatives, not n = %d", s.N)
		}
		if s.Value < 0 || s.Value >= s.N {
			return fmt.Errorf("choice %d is out of range: n = %d alternatives, numbered from 0", s.Value, s.N)
		}
	default:
		return fmt.Errorf("unknown kind of step %d", s.Kind)
	}
	return nil
}

// check checks the fields of f that both Decode and Encode require.
func (f *File) check() *checkError {
	missing := func(field string) *checkError {
		return &checkError{ErrMissing, fmt.Sprintf("missing required field %q", field)}
	}
	invalid := func(format string, args ...any) *checkError {
		return &checkError{ErrInvalid, fmt.Sprintf(format, args...)}
	}
	switch {
	case f.Test.Package == "":
		return missing("test.package")
	case f.Test.Name == "":
		return missing("test.name")
	case f.Execution < 0:
		return invalid("execution %d is negative", f.Execution)
	case f.Result.Steps < 0 || f.Result.Goroutines < 0 || f.Result.Preemptions < 0:
		return invalid("result has a negative count: %+v", f.Result)
	}
	run := 0
	for _, s := range f.Steps {
		if s.Kind == Run {
			run++
		}
		if err := checkStep(s); err != nil {
			return invalid("%s: %v", stepName(s.Kind == Choice, run), err)
		}
	}
	if b := f.Bug; b != nil {
		switch {
		case b.Kind == "":
			return missing("bug.kind")
		case b.Step < 0 || b.Step > run:
			return invalid("bug.step %d is outside the schedule's %d steps", b.Step, run)
		case b.G < -1:
			return invalid("bug.g %d is not a goroutine", b.G)
		}
		for i, g := range b.Goroutines {
			switch {
			case g.ID < 0:
				return invalid("bug.goroutines[%d].id %d is negative", i, g.ID)
			case g.Parent < -1:
				return invalid("bug.goroutines[%d].parent %d is not a goroutine", i, g.Parent)
			}
		}
	}
	return nil
}

// stepLines returns the line on which each entry of the document's top-level "steps" array
// starts. It is only called once data is known to be valid JSON.
func stepLines(data []byte) []int {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var lines []int
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return lines
		}
		if key, _ := t.(string); key != "steps" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return lines
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return lines
		}
		lines = lines[:0] // the last "steps" key counts, as for json.Unmarshal
		for dec.More() {
			off := int(dec.InputOffset())
			for off < len(data) && strings.IndexByte(" \t\r\n,", data[off]) >= 0 {
				off++
			}
			line, _ := position(data, off)
			lines = append(lines, line)
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return lines
			}
		}
		if _, err := dec.Token(); err != nil {
			return lines
		}
	}
	return lines
}
