package random

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/interleave-dev/interleave/engine/bounded"
)

// ConfigFile is the name of the configuration file of a package's stress tests, in the
// package's directory. §4.1: "Each test has to define the random distribution type and
// parameters in a configuration file, that best models the expected customer usage."
//
// It is strict JSON (unknown fields are errors):
//
//	{
//	  "hang": "30s",
//	  "tests": {
//	    "TestTransfer": {
//	      "combine": true,
//	      "hang": "5s",
//	      "inputs": {
//	        "workers": {"kind": "uniform", "min": 1, "max": 8},
//	        "load":    {"kind": "gaussian", "mean": 10, "sd": 2},
//	        "delay":   {"kind": "exponential", "min": "1ms", "max": "50ms"},
//	        "size":    {"kind": "weighted", "intervals": [{"min": 1, "max": 10, "p": 0.9}, {"min": 100, "max": 1000, "p": 0.1}]}
//	      }
//	    }
//	  }
//	}
//
// The top-level "hang" is the default hang limit of every test, a test's own "hang" its
// limit (§3.3 i: a test iteration that does not return within it is reported as hung);
// "combine" says whether the test may take part in combined runs (§3.4); "fresh": true says
// that the test cannot run repeatedly in one process (it registers a name once per process,
// say), so that each of its iterations runs in a new process. "inputs" holds the
// test's distributions by name, each with a "kind" and exactly the parameters of that kind
// (see Spec). Parameters (min, max, mean, sd, an interval's min and max) are JSON numbers or
// Go duration strings such as "1ms" (nanoseconds); an interval's "p" is a number.
const ConfigFile = "interleave-stress.json"

// Config is a configuration file of stress tests (see ConfigFile).
type Config struct {
	Path  string        // the file it was read from
	Hang  time.Duration // the default hang limit of the tests; 0 when not set
	Tests map[string]TestConfig
}

// TestConfig is the configuration of one test.
type TestConfig struct {
	Combine *bool         // whether the test may take part in combined runs; nil when not set
	Hang    time.Duration // the test's hang limit; 0 when not set (then Config.Hang applies)
	Fresh   bool          // each iteration runs in a new process
	Inputs  map[string]Spec
}

// LoadConfig reads the ConfigFile of directory dir (a regular file of at most
// bounded.Config's size). It returns (nil, nil) if there is none.
func LoadConfig(dir string) (*Config, error) {
	path := filepath.Join(dir, ConfigFile)
	data, err := bounded.Config.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return ParseConfig(path, data)
}

// ParseConfig parses data, the content of the configuration file at path. Its errors start
// with path and name the field, as "x/interleave-stress.json: tests.TestTransfer.inputs.size:
// probabilities sum to 0.95, want 1"; those at one place of the text (syntax, a value of the
// wrong type, an unknown field) also give its line and column, as
// "x/interleave-stress.json:3:14: invalid character ...".
func ParseConfig(path string, data []byte) (*Config, error) {
	p := &parser{path: path, data: data}
	// Syntax first, with encoding/json's messages and offsets; then the tree with offsets.
	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, p.syntaxError(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	root, err := readNode(dec, data)
	if err != nil {
		return nil, p.syntaxError(err)
	}
	return p.config(root)
}

// Input returns the distribution name of test, and whether there is one. c may be nil.
func (c *Config) Input(test, name string) (Spec, bool) {
	if c == nil {
		return Spec{}, false
	}
	s, ok := c.Tests[test].Inputs[name]
	return s.clone(), ok
}

// Test returns the configuration of test: the zero TestConfig if c is nil or has none.
func (c *Config) Test(test string) TestConfig {
	if c == nil {
		return TestConfig{}
	}
	return c.Tests[test]
}

// A node is a JSON value with the byte offset of its first byte.
type node struct {
	off     int
	kind    string // "an object", "an array", "a string", "a number", "a bool", "null"
	members []member
	elems   []*node
	str     string
	num     json.Number
}

// A member is a field of a JSON object.
type member struct {
	key string
	off int // of the key
	val *node
}

// readNode reads the next value of dec, which reads data.
func readNode(dec *json.Decoder, data []byte) (*node, error) {
	n := &node{off: nextToken(data, dec.InputOffset())}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n.kind = "an object"
			for dec.More() {
				off := nextToken(data, dec.InputOffset())
				key, err := dec.Token()
				if err != nil {
					return nil, err
				}
				val, err := readNode(dec, data)
				if err != nil {
					return nil, err
				}
				n.members = append(n.members, member{key: key.(string), off: off, val: val})
			}
		case '[':
			n.kind = "an array"
			for dec.More() {
				val, err := readNode(dec, data)
				if err != nil {
					return nil, err
				}
				n.elems = append(n.elems, val)
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
	case string:
		n.kind, n.str = "a string", t
	case json.Number:
		n.kind, n.num = "a number", t
	case bool:
		n.kind = "a bool"
	case nil:
		n.kind = "null"
	}
	return n, nil
}

// nextToken returns the offset of the token that follows offset off of the valid JSON data:
// the decoder leaves separators and space before it.
func nextToken(data []byte, off int64) int {
	i := int(off)
	for i < len(data) && strings.IndexByte(" \t\r\n:,", data[i]) >= 0 {
		i++
	}
	return i
}

// parser turns the nodes of a configuration file into a Config.
type parser struct {
	path string
	data []byte
}

// at returns an error at offset off, for the field (a path such as tests.TestA.hang).
func (p *parser) at(off int, field, format string, args ...any) error {
	line, col := position(p.data, off)
	return fmt.Errorf("%s:%d:%d: %s%w", p.path, line, col, prefix(field), fmt.Errorf(format, args...))
}

// prefix returns "field: ", or "" for the top level.
func prefix(field string) string {
	if field == "" {
		return ""
	}
	return field + ": "
}

// errorf returns an error of field, not at one place of the text.
func (p *parser) errorf(field, format string, args ...any) error {
	return fmt.Errorf("%s: %s%w", p.path, prefix(field), fmt.Errorf(format, args...))
}

// syntaxError places an error of encoding/json.
func (p *parser) syntaxError(err error) error {
	var syn *json.SyntaxError
	if !errors.As(err, &syn) {
		return fmt.Errorf("%s: %w", p.path, err)
	}
	off := int(syn.Offset) - 1 // the offset counts the offending byte
	if off < 0 || strings.Contains(syn.Error(), "unexpected end") {
		off = len(p.data)
	}
	line, col := position(p.data, off)
	return fmt.Errorf("%s:%d:%d: %w", p.path, line, col, err)
}

// position converts a byte offset of data to a 1-based line and column (in bytes).
func position(data []byte, off int) (line, col int) {
	off = max(0, min(off, len(data)))
	before := data[:off]
	line = 1 + bytes.Count(before, []byte{'\n'})
	col = off - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// fields returns the members of the object n (the value of field) by key, checking that n is
// an object, that every key is one of allowed, and that none repeats.
func (p *parser) fields(n *node, field string, allowed ...string) (map[string]member, error) {
	if n.kind != "an object" {
		return nil, p.at(n.off, field, "got %s, want an object", n.kind)
	}
	m := make(map[string]member, len(n.members))
	for _, mem := range n.members {
		f := join(field, mem.key)
		if !contains(allowed, mem.key) {
			return nil, p.at(mem.off, f, "unknown field, want %s", list(allowed, "or"))
		}
		if _, dup := m[mem.key]; dup {
			return nil, p.at(mem.off, f, "repeated field")
		}
		m[mem.key] = mem
	}
	return m, nil
}

// config reads the top-level object.
func (p *parser) config(root *node) (*Config, error) {
	fields, err := p.fields(root, "", "hang", "tests")
	if err != nil {
		return nil, err
	}
	c := &Config{Path: p.path, Tests: make(map[string]TestConfig)}
	if mem, ok := fields["hang"]; ok {
		if c.Hang, err = p.hang(mem.val, "hang"); err != nil {
			return nil, err
		}
	}
	mem, ok := fields["tests"]
	if !ok {
		return c, nil
	}
	if mem.val.kind != "an object" {
		return nil, p.at(mem.val.off, "tests", "got %s, want an object of tests by name", mem.val.kind)
	}
	for _, t := range mem.val.members {
		field := join("tests", t.key)
		if _, dup := c.Tests[t.key]; dup {
			return nil, p.at(t.off, field, "repeated test")
		}
		if !isTestName(t.key) {
			return nil, p.at(t.off, field, "%q is not the name of a Go test: want Test followed by nothing or by a name that does not start with a lower-case letter, as TestTransfer", t.key)
		}
		tc, err := p.test(t.val, field)
		if err != nil {
			return nil, err
		}
		c.Tests[t.key] = tc
	}
	return c, nil
}

// test reads the configuration of a test.
func (p *parser) test(n *node, field string) (TestConfig, error) {
	var tc TestConfig
	fields, err := p.fields(n, field, "combine", "hang", "fresh", "inputs")
	if err != nil {
		return tc, err
	}
	if mem, ok := fields["fresh"]; ok {
		if mem.val.kind != "a bool" {
			return tc, p.at(mem.val.off, join(field, "fresh"), "got %s, want true or false", mem.val.kind)
		}
		tc.Fresh = p.data[mem.val.off] == 't'
	}
	if mem, ok := fields["combine"]; ok {
		if mem.val.kind != "a bool" {
			return tc, p.at(mem.val.off, join(field, "combine"), "got %s, want true or false", mem.val.kind)
		}
		b := p.data[mem.val.off] == 't'
		tc.Combine = &b
	}
	if mem, ok := fields["hang"]; ok {
		if tc.Hang, err = p.hang(mem.val, join(field, "hang")); err != nil {
			return tc, err
		}
	}
	tc.Inputs = make(map[string]Spec)
	mem, ok := fields["inputs"]
	if !ok {
		return tc, nil
	}
	inputs := join(field, "inputs")
	if mem.val.kind != "an object" {
		return tc, p.at(mem.val.off, inputs, "got %s, want an object of distributions by name", mem.val.kind)
	}
	for _, in := range mem.val.members {
		f := join(inputs, in.key)
		if _, dup := tc.Inputs[in.key]; dup {
			return tc, p.at(in.off, f, "repeated input")
		}
		if in.key == "" {
			return tc, p.at(in.off, f, "an input needs a name")
		}
		s, err := p.spec(in.val, f)
		if err != nil {
			return tc, err
		}
		tc.Inputs[in.key] = s
	}
	return tc, nil
}

// hang reads a hang limit: a positive duration string.
func (p *parser) hang(n *node, field string) (time.Duration, error) {
	if n.kind != "a string" {
		return 0, p.at(n.off, field, "got %s, want a duration string such as \"30s\"", n.kind)
	}
	d, err := time.ParseDuration(n.str)
	if err != nil {
		return 0, p.at(n.off, field, "%w, want a duration such as \"30s\"", err)
	}
	if d <= 0 {
		return 0, p.at(n.off, field, "%s is not a positive duration", n.str)
	}
	return d, nil
}

// specFields are the fields of a distribution.
var specFields = []string{"kind", "min", "max", "mean", "sd", "intervals"}

// kindFields are the parameters of each kind.
var kindFields = map[Kind][]string{
	KindUniform:     {"min", "max"},
	KindExponential: {"min", "max"},
	KindGaussian:    {"mean", "sd"},
	KindWeighted:    {"intervals"},
}

// spec reads a distribution.
func (p *parser) spec(n *node, field string) (Spec, error) {
	var s Spec
	fields, err := p.fields(n, field, specFields...)
	if err != nil {
		return s, err
	}
	kind, ok := fields["kind"]
	if !ok {
		return s, p.errorf(field, "missing kind: want %s", wantKinds)
	}
	if kind.val.kind != "a string" {
		return s, p.at(kind.val.off, join(field, "kind"), "got %s, want a string: %s", kind.val.kind, wantKinds)
	}
	s.Kind = Kind(kind.val.str)
	want, ok := kindFields[s.Kind]
	if !ok {
		return s, p.at(kind.val.off, join(field, "kind"), "unknown kind %q, want %s", kind.val.str, wantKinds)
	}
	for _, mem := range n.members { // in the order of the text
		if mem.key != "kind" && !contains(want, mem.key) {
			return s, p.at(mem.off, join(field, mem.key), "%s has no %s (it takes %s)", s.Kind.noun(), mem.key, list(want, "and"))
		}
	}
	for _, name := range want {
		if _, ok := fields[name]; !ok {
			return s, p.errorf(field, "missing %s (%s takes %s)", name, s.Kind.noun(), list(want, "and"))
		}
	}
	for _, name := range want {
		v := fields[name].val
		f := join(field, name)
		switch name {
		case "min":
			s.Min, err = p.param(v, f)
		case "max":
			s.Max, err = p.param(v, f)
		case "mean":
			s.Mean, err = p.param(v, f)
		case "sd":
			s.SD, err = p.param(v, f)
		case "intervals":
			s.Intervals, err = p.intervals(v, f)
		}
		if err != nil {
			return s, err
		}
	}
	if err := s.Validate(); err != nil {
		return s, p.errorf(field, "%w", err)
	}
	return s, nil
}

// intervals reads the intervals of a weighted distribution.
func (p *parser) intervals(n *node, field string) ([]Interval, error) {
	if n.kind != "an array" {
		return nil, p.at(n.off, field, "got %s, want an array of {\"min\", \"max\", \"p\"}", n.kind)
	}
	ivs := make([]Interval, len(n.elems))
	for i, e := range n.elems {
		f := fmt.Sprintf("%s[%d]", field, i)
		fields, err := p.fields(e, f, "min", "max", "p")
		if err != nil {
			return nil, err
		}
		for _, name := range []string{"min", "max", "p"} {
			if _, ok := fields[name]; !ok {
				return nil, p.errorf(f, "missing %s (an interval takes min, max and p)", name)
			}
		}
		iv := &ivs[i]
		if iv.Min, err = p.param(fields["min"].val, f+".min"); err != nil {
			return nil, err
		}
		if iv.Max, err = p.param(fields["max"].val, f+".max"); err != nil {
			return nil, err
		}
		pn := fields["p"].val
		if pn.kind != "a number" {
			return nil, p.at(pn.off, f+".p", "got %s, want a number in [0, 1]", pn.kind)
		}
		if iv.P, err = p.number(pn, f+".p"); err != nil {
			return nil, err
		}
	}
	return ivs, nil
}

// param reads a parameter: a number, or a duration string in nanoseconds.
func (p *parser) param(n *node, field string) (float64, error) {
	switch n.kind {
	case "a number":
		return p.number(n, field)
	case "a string":
		d, err := time.ParseDuration(n.str)
		if err != nil {
			return 0, p.at(n.off, field, "%w, want a number or a duration such as \"1ms\"", err)
		}
		return float64(d), nil
	}
	return 0, p.at(n.off, field, "got %s, want a number or a duration string such as \"1ms\"", n.kind)
}

// number reads a number node.
func (p *parser) number(n *node, field string) (float64, error) {
	x, err := strconv.ParseFloat(string(n.num), 64)
	if err != nil {
		return 0, p.at(n.off, field, "number %s is out of the range of float64", n.num)
	}
	return x, nil
}

// isTestName reports whether name is the name of a Go test function, as the go command
// takes them: Test, then nothing or an identifier that does not start with a lower-case
// letter.
func isTestName(name string) bool {
	rest, ok := strings.CutPrefix(name, "Test")
	if !ok {
		return false
	}
	if r, _ := utf8.DecodeRuneInString(rest); unicode.IsLower(r) {
		return false
	}
	for _, r := range rest {
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// join appends key to the field path, quoting it unless it is a plain name.
func join(path, key string) string {
	plain := key != ""
	for _, r := range key {
		if r != '_' && r != '-' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			plain = false
		}
	}
	if !plain {
		key = strconv.Quote(key)
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// contains reports whether list holds s.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// list joins names as "a, b or c", with the conjunction and or or.
func list(names []string, conj string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + conj + " " + names[len(names)-1]
}
