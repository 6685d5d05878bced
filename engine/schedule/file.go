package schedule

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A schedule file looks like this (the steps, usually the bulk of it, take one line each):
//
//	{
//	  "format": "interleave-schedule",
//	  "version": 1,
//	  "test": {"module": "example.com/bank", "package": "example.com/bank", "name": "TestTransfer", "build": "5f2c..."},
//	  "strategy": {"name": "pct", "params": {"depth": "3", "seed": "42"}},
//	  "execution": 17,
//	  "points": "racy", "racyPoints": ["bank.go:12:3", "bank.go:19:2"],
//	  "result": {"steps": 41, "goroutines": 3, "preemptions": 2, "fingerprint": "9f1c00e3a1b2c3d4"},
//	  "bug": {
//	    "kind": "deadlock",
//	    "message": "all goroutines are blocked: ...",
//	    "step": 41, "g": 0, "pos": "bank.go:42",
//	    "goroutines": [
//	      {"id": 0, "parent": -1, "status": "blocked", "op": "lock", "pos": "bank.go:42",
//	       "stack": [{"func": "bank.TestTransfer", "file": "/src/bank/bank_test.go", "line": 30}]},
//	      ...
//	    ]
//	  },
//	  "steps": [
//	    {"step":1,"g":0,"op":"go","pos":"bank.go:20"},
//	    {"choice":1,"n":2,"g":1,"op":"select","pos":"bank.go:61"},
//	    ...
//	  ]
//	}
//
// A goroutine step has "g" (and an optional "step", its 1-based number among the goroutine
// steps, checked when present); a data choice has "choice" (the alternative taken), "n" (the
// number of alternatives) and "g" (the goroutine that chose). "op" and "pos" are informative.
// "points" and "racyPoints" say which memory accesses were scheduling points (absent: all).
// Fields this version does not know are ignored.

// FormatName is the value of the "format" field of every schedule file.
const FormatName = "interleave-schedule"

// Version is the format version this package writes and reads.
const Version = 1

// File is a schedule file: one execution's decisions, what was tested, the strategy that
// chose them and the bug they expose.
type File struct {
	// Test is what was tested.
	Test Test
	// Strategy is the strategy that produced the schedule, with the parameters of the
	// execution (a randomized strategy's include its seed).
	Strategy Strategy
	// Execution is the number of the execution within its exploration, from 1 (0: unknown).
	Execution int
	// Points is the scheduling-points mode the execution ran with ("all", "sync", "racy";
	// empty means "all"), and RacyPoints the positions of the accesses that were scheduling
	// points in mode "racy". A replay must use the same points to make the same decisions.
	Points     string
	RacyPoints []string
	// Result summarizes the execution.
	Result Summary
	// Bug is what went wrong, nil if the execution passed.
	Bug *Bug
	// Steps are the decisions, in order.
	Steps []Step
	// Path is where the file was loaded from or saved to. It is not part of the document.
	Path string
}

// Test identifies what was tested.
type Test struct {
	Module  string `json:"module,omitempty"`
	Package string `json:"package"`
	// Name is the test's name, with subtests ("TestA/sub").
	Name string `json:"name"`
	// Build identifies the test binary (a hash of it, or a build ID), so that a file recorded
	// with another version of the code can be detected. Empty when unknown.
	Build string `json:"build,omitempty"`
}

// String describes the test as messages name it: "TestA in package p".
func (t Test) String() string {
	if t.Package == "" {
		return t.Name
	}
	return fmt.Sprintf("%s in package %s", t.Name, t.Package)
}

// Strategy names a strategy and its parameters.
type Strategy struct {
	Name   string            `json:"name"`
	Params map[string]string `json:"params,omitempty"`
}

// Summary summarizes an execution.
type Summary struct {
	Steps       int
	Goroutines  int
	Preemptions int
	// Fingerprint identifies the execution's happens-before order (0: unknown). Two
	// executions that differ only in the order of independent operations share it.
	Fingerprint uint64
}

// Bug is the bug an execution exposed.
type Bug struct {
	Kind    string
	Message string
	// Step is the goroutine step during which the bug happened.
	Step int
	// G is the goroutine that failed (-1: none).
	G   int32
	Pos string
	// Logs are the test's log lines.
	Logs []string
	// Goroutines are the states and stacks of every goroutine when the bug happened.
	Goroutines []Goroutine
}

// Goroutine is the state of one goroutine when a bug happened.
type Goroutine struct {
	ID     int32  `json:"id"`
	Parent int32  `json:"parent"`
	Status string `json:"status,omitempty"`
	// Op and Pos are the operation the goroutine was about to execute.
	Op  string `json:"op,omitempty"`
	Pos string `json:"pos,omitempty"`
	// Created is the position of the go statement that started it.
	Created string  `json:"created,omitempty"`
	Stack   []Frame `json:"stack,omitempty"`
}

// Frame is a stack frame.
type Frame struct {
	Func string `json:"func"`
	File string `json:"file"`
	Line int    `json:"line"`
}

// The kinds of errors of this package, for errors.Is. Every error of Decode, Load, Encode and
// Check is an *Error that wraps one of them.
var (
	ErrSyntax      = errors.New("invalid JSON")
	ErrTruncated   = errors.New("truncated schedule file")
	ErrNotSchedule = errors.New("not a schedule file")
	ErrVersion     = errors.New("unsupported format version")
	ErrMissing     = errors.New("missing required field")
	ErrInvalid     = errors.New("invalid value")
	ErrOtherTest   = errors.New("schedule recorded for another test")
	ErrOtherBuild  = errors.New("schedule recorded by another build")
)

// Error is a problem with a schedule file.
type Error struct {
	// Path is the file's path, empty when it is unknown (Decode).
	Path string
	// Line and Column locate the problem in the document (1-based; 0 when not applicable).
	Line, Column int
	// Kind is one of the Err* values of this package.
	Kind error
	msg  string
}

// Error returns the message, which names the file and, when it can, the line.
func (e *Error) Error() string { return e.msg }

// Unwrap returns e.Kind.
func (e *Error) Unwrap() error { return e.Kind }

// fileName is how messages name the file.
func fileName(path string) string {
	if path == "" {
		return "schedule file"
	}
	return "schedule file " + path
}

// errorf makes an error "schedule file PATH: line L, column C: msg".
func errorf(path string, kind error, line, col int, format string, args ...any) *Error {
	var b strings.Builder
	b.WriteString(fileName(path))
	b.WriteString(": ")
	switch {
	case line > 0 && col > 0:
		fmt.Fprintf(&b, "line %d, column %d: ", line, col)
	case line > 0:
		fmt.Fprintf(&b, "line %d: ", line)
	}
	fmt.Fprintf(&b, format, args...)
	return &Error{Path: path, Line: line, Column: col, Kind: kind, msg: b.String()}
}

// position converts a byte offset of data to a 1-based line and column.
func position(data []byte, off int) (line, col int) {
	if off < 0 {
		off = 0
	}
	if off > len(data) {
		off = len(data)
	}
	before := data[:off]
	line = 1 + bytes.Count(before, []byte{'\n'})
	col = off - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// Load reads the schedule file at path.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
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

// Decode reads a schedule file from r. Bad input gives an *Error that says what is wrong
// and where; Decode never panics.
func Decode(r io.Reader) (*File, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read schedule: %w", err)
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
		Test      *Test       `json:"test"`
		Strategy  *Strategy   `json:"strategy"`
		Execution int         `json:"execution"`
		Points    string      `json:"points"`
		Racy      []string    `json:"racyPoints"`
		Result    *wireResult `json:"result"`
		Bug       *wireBug    `json:"bug"`
		Steps     *[]wireStep `json:"steps"`
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
	if version != Version {
		return nil, &Error{Path: path, Kind: ErrVersion,
			msg: fmt.Sprintf("%s has format version %d; this interleave reads version %d", name, version, Version)}
	}

	var w wireFile
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, jsonError(data, path, err)
	}
	f := &File{Execution: w.Execution, Points: w.Points, RacyPoints: w.Racy}
	switch f.Points {
	case "", "all", "sync", "racy":
	default:
		return nil, errorf(path, ErrInvalid, 0, 0, "points %q is not one of all, sync, racy", f.Points)
	}
	if w.Test == nil {
		return nil, errorf(path, ErrMissing, 0, 0, "missing required field \"test\"")
	}
	f.Test = *w.Test
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
			Logs: w.Bug.Logs, Goroutines: w.Bug.Goroutines}
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

type checkError struct {
	kind error
	msg  string
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

// jsonError describes an error of encoding/json with its place in data.
func jsonError(data []byte, path string, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		if strings.Contains(syn.Error(), "unexpected end of JSON input") {
			line, col := position(data, len(data))
			return &Error{Path: path, Line: line, Column: col, Kind: ErrTruncated,
				msg: fmt.Sprintf("%s is truncated: the JSON document ends early (line %d, column %d)", fileName(path), line, col)}
		}
		line, col := position(data, int(syn.Offset)-1)
		return errorf(path, ErrSyntax, line, col, "invalid JSON: %v", syn)
	case errors.As(err, &typ):
		line, col := position(data, int(typ.Offset)-1)
		if typ.Field == "" {
			return &Error{Path: path, Line: line, Column: col, Kind: ErrNotSchedule,
				msg: fmt.Sprintf("%s is not an interleave schedule: the document is a JSON %s, not an object", fileName(path), typ.Value)}
		}
		return errorf(path, ErrInvalid, line, col, "field %s: a JSON %s cannot be a %v", typ.Field, typ.Value, typ.Type)
	}
	return errorf(path, ErrInvalid, 0, 0, "%v", err)
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

// Encode writes f as a schedule file. It refuses a file that Decode would reject.
func (f *File) Encode(w io.Writer) error {
	if err := f.check(); err != nil {
		return fmt.Errorf("encode schedule: %w", &Error{Kind: err.kind, msg: err.msg})
	}
	var b bytes.Buffer
	b.WriteString("{\n")
	fmt.Fprintf(&b, "  \"format\": %s,\n", marshal(FormatName))
	fmt.Fprintf(&b, "  \"version\": %d,\n", Version)
	fmt.Fprintf(&b, "  \"test\": %s,\n", marshal(f.Test))
	if f.Strategy.Name != "" || len(f.Strategy.Params) > 0 {
		fmt.Fprintf(&b, "  \"strategy\": %s,\n", marshal(f.Strategy))
	}
	if f.Execution > 0 {
		fmt.Fprintf(&b, "  \"execution\": %d,\n", f.Execution)
	}
	if f.Points != "" {
		fmt.Fprintf(&b, "  \"points\": %s,\n", marshal(f.Points))
	}
	if len(f.RacyPoints) > 0 {
		fmt.Fprintf(&b, "  \"racyPoints\": %s,\n", marshal(f.RacyPoints))
	}
	res := wireResult{Steps: f.Result.Steps, Goroutines: f.Result.Goroutines, Preemptions: f.Result.Preemptions}
	if f.Result.Fingerprint != 0 {
		res.Fingerprint = fmt.Sprintf("%016x", f.Result.Fingerprint)
	}
	fmt.Fprintf(&b, "  \"result\": %s,\n", marshal(res))
	if bug := f.Bug; bug != nil {
		b.WriteString("  \"bug\": {\n")
		fmt.Fprintf(&b, "    \"kind\": %s,\n", marshal(bug.Kind))
		fmt.Fprintf(&b, "    \"message\": %s,\n", marshal(bug.Message))
		fmt.Fprintf(&b, "    \"step\": %d,\n", bug.Step)
		fmt.Fprintf(&b, "    \"g\": %d,\n", bug.G)
		fmt.Fprintf(&b, "    \"pos\": %s", marshal(bug.Pos))
		if len(bug.Logs) > 0 {
			b.WriteString(",\n    \"logs\": [")
			for i, l := range bug.Logs {
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, "\n      %s", marshal(l))
			}
			b.WriteString("\n    ]")
		}
		if len(bug.Goroutines) > 0 {
			b.WriteString(",\n    \"goroutines\": [")
			for i, g := range bug.Goroutines {
				if i > 0 {
					b.WriteByte(',')
				}
				stack := g.Stack
				g.Stack = nil
				head := marshal(g)
				if len(stack) == 0 {
					fmt.Fprintf(&b, "\n      %s", head)
					continue
				}
				// The goroutine's fields on one line, then one line per frame.
				fmt.Fprintf(&b, "\n      %s,\n       \"stack\": [", head[:len(head)-1])
				for j, fr := range stack {
					if j > 0 {
						b.WriteByte(',')
					}
					fmt.Fprintf(&b, "\n         %s", marshal(fr))
				}
				b.WriteString("\n       ]}")
			}
			b.WriteString("\n    ]")
		}
		b.WriteString("\n  },\n")
	}
	b.WriteString("  \"steps\": [")
	run := 0
	for i, s := range f.Steps {
		if i > 0 {
			b.WriteByte(',')
		}
		ws := wireStep{G: &s.G, Op: s.Op, Pos: s.Pos}
		if s.Kind == Choice {
			ws.Choice, ws.N = &s.Value, &s.N
		} else {
			run++
			n := run
			ws.Step = &n
		}
		fmt.Fprintf(&b, "\n    %s", marshal(ws))
	}
	if len(f.Steps) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("]\n}\n")
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("encode schedule: %w", err)
	}
	return nil
}

// marshal is json.Marshal without HTML escaping (positions and messages stay readable), on
// values that cannot fail to marshal.
func marshal(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("schedule: marshal %T: %v", v, err)) // unreachable: plain data
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Save writes f to path, atomically: the file is replaced only once it is complete. It sets
// f.Path.
func (f *File) Save(path string) error {
	var b bytes.Buffer
	if err := f.Encode(&b); err != nil {
		return fmt.Errorf("save schedule %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("save schedule %s: %w", path, err)
	}
	_, err = tmp.Write(b.Bytes())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save schedule %s: %w", path, err)
	}
	f.Path = path
	return nil
}

// Check reports whether f was recorded for target: the same test in the same package (and
// module), by the same build when both builds are known. The error wraps ErrOtherTest or
// ErrOtherBuild; a caller may choose to replay a file of another build anyway, at the risk of
// a divergence. Empty fields of target are not compared.
func (f *File) Check(target Test) error {
	name := fileName(f.Path)
	mismatch := func(kind error, format string, args ...any) error {
		return &Error{Path: f.Path, Kind: kind, msg: name + " " + fmt.Sprintf(format, args...)}
	}
	switch {
	case target.Package != "" && f.Test.Package != target.Package:
		return mismatch(ErrOtherTest, "is for test %s in package %s, not %s in package %s", f.Test.Name, f.Test.Package, target.Name, target.Package)
	case target.Name != "" && f.Test.Name != target.Name:
		return mismatch(ErrOtherTest, "is for test %s in package %s, not %s", f.Test.Name, f.Test.Package, target.Name)
	case target.Module != "" && f.Test.Module != "" && f.Test.Module != target.Module:
		return mismatch(ErrOtherTest, "is for module %s, not %s", f.Test.Module, target.Module)
	case target.Build != "" && f.Test.Build != "" && f.Test.Build != target.Build:
		return mismatch(ErrOtherBuild, "was recorded by build %s, not by this build (%s): the code under test may have changed, and a replay may diverge", f.Test.Build, target.Build)
	}
	return nil
}

// RunSteps returns the number of goroutine steps of the schedule (data choices are not steps).
func (f *File) RunSteps() int {
	n := 0
	for _, s := range f.Steps {
		if s.Kind == Run {
			n++
		}
	}
	return n
}
