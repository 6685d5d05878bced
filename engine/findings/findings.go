// Package findings reads and writes the findings documents of the results store: for each
// test, what its last run found — the data races with both accesses, and the bugs with their
// schedule files — in the form editors and the command line read them (docs/results-store.md).
//
// A findings document is .interleave/findings/<package>.<test>-<hash>.json at the module root
// (the package's import path and the test's name with every character outside [A-Za-z0-9._-]
// replaced by "_", and a hash of both: Name). Each run of a test replaces its document, so
// the store always holds what the latest run of each test found.
package findings

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/interleave-dev/interleave/engine/bounded"
	"github.com/interleave-dev/interleave/engine/schedule"
)

// FormatName is the value of the "format" field of every findings document.
const FormatName = "interleave-findings"

// Version is the format version this package writes and reads.
const Version = 1

// StoreDir is the results store's directory at a module root, and SchedulesDir the
// directory of its schedule files (docs/results-store.md).
const (
	StoreDir     = ".interleave"
	SchedulesDir = StoreDir + "/schedules"
)

// Dir is the findings directory of the results store at a module root.
const Dir = StoreDir + "/findings"

// File is the findings document of one test's last run.
type File struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Test    Test   `json:"test"`
	// Time is when the run ended.
	Time time.Time `json:"time"`
	// Strategy and Params are the exploration's strategy, Seed its seed and Budget the
	// schedules the run was given (0: none).
	Strategy string            `json:"strategy,omitempty"`
	Params   map[string]string `json:"params,omitempty"`
	Seed     uint64            `json:"seed,omitempty"`
	Budget   int               `json:"budget,omitempty"`
	// Build identifies the code explored (store.BuildID: the instrumented sources, the other
	// modules' versions, the runtime), the same on every machine that builds the same code.
	Build string `json:"build,omitempty"`
	// Part is the part of a partitioned exploration the document covers ("2/4", "1/2,2/2";
	// parts of one merged document are joined by ";"), empty for the whole exploration.
	Part string `json:"part,omitempty"`
	// Points is the scheduling-points mode ("all", "sync", "racy"); RacyPoints the
	// positions that were scheduling points in mode "racy".
	Points     string   `json:"points"`
	RacyPoints []string `json:"racyPoints,omitempty"`
	// Schedules is the number of schedules explored; DetectionSchedules the number run by
	// the race-detection phase of mode "racy" before them.
	Schedules          int `json:"schedules"`
	DetectionSchedules int `json:"detectionSchedules,omitempty"`
	// Races are the data races found, each pair of source locations once.
	Races []Race `json:"races"`
	// Bugs are the bugs found (the first one, unless the run went on after it).
	Bugs []Bug `json:"bugs,omitempty"`
	// Files are the content hashes (Hash) of the source files the document's positions
	// name, by file relative to the module root (slash-separated), read when the document
	// was written: a reader whose file hashes differently knows the positions may be stale.
	Files map[string]string `json:"files,omitempty"`

	// Path is where the document was read from or written to; not part of it.
	Path string `json:"-"`
}

// Test identifies the test, as schedule files do.
type Test = schedule.Test

// Race is a data race: two accesses to the same memory, at least one a write, not ordered
// by any synchronization.
type Race struct {
	// A came first in the schedule that showed the race first; B is the access that met it.
	A Access `json:"a"`
	B Access `json:"b"`
	// FirstSchedule is the number of the first explored schedule that showed the race (0:
	// only the race-detection phase did), and Schedules how many schedules showed it,
	// detection phase included.
	FirstSchedule int `json:"firstSchedule"`
	Schedules     int `json:"schedules"`
}

// Access is one side of a race.
type Access struct {
	// Pos is "file:line:col" with file relative to the module root (slash-separated), as
	// File, Line and Col say separately.
	Pos  string `json:"pos"`
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
	// Op is "read" or "write".
	Op string `json:"op"`
	// Goroutine is the goroutine's id in the schedule (0 is the test body), and Created
	// the position of the go statement that started it (empty for the test body).
	Goroutine int    `json:"goroutine"`
	Created   string `json:"created,omitempty"`
	// Stack is the goroutine's stack at the access, innermost frame first (empty when it
	// could not be recovered).
	Stack []Frame `json:"stack,omitempty"`
}

// Frame is a stack frame, as schedule files have them; File is absolute.
type Frame = schedule.Frame

// Bug is a bug found, with the schedule file that reproduces it.
type Bug struct {
	Kind     string `json:"kind"`
	Message  string `json:"message"`
	Pos      string `json:"pos"`
	Schedule string `json:"schedule,omitempty"`
}

// Key identifies the race's pair of source locations, in either order.
func (r *Race) Key() string {
	a, b := r.A.Pos, r.B.Pos
	if b < a {
		a, b = b, a
	}
	return a + " " + b
}

// ParsePos splits "file:line:col" (or "file:line"); ok is false if pos has no line.
func ParsePos(pos string) (file string, line, col int, ok bool) {
	rest := pos
	var nums []int
	for range 2 {
		i := strings.LastIndexByte(rest, ':')
		if i < 0 {
			break
		}
		n, err := strconv.Atoi(rest[i+1:])
		if err != nil {
			break
		}
		nums = append([]int{n}, nums...)
		rest = rest[:i]
	}
	switch len(nums) {
	case 1:
		return rest, nums[0], 0, true
	case 2:
		return rest, nums[0], nums[1], true
	}
	return pos, 0, 0, false
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// FileStem is a file name (without extension) for an artifact of one thing named s, such as a
// package's import path: s with every run of characters outside [A-Za-z0-9._-] written "_",
// so that it stays readable, then "-" and the first 8 hex digits of the SHA-256 of s exactly,
// so that two names that flatten alike (packages a/b and a_b) never share a file.
func FileStem(s string) string {
	sum := sha256.Sum256([]byte(s))
	return unsafeName.ReplaceAllString(s, "_") + "-" + hex.EncodeToString(sum[:4])
}

// Name is the document's file name for a test: the package and the test, made safe for a
// file name, and a hash of both, so that tests whose names flatten alike (packages a/b and
// a_b) never share a document.
func Name(pkg, test string) string {
	sum := sha256.Sum256([]byte(pkg + "\x00" + test))
	return legacyStem(pkg, test) + "-" + hex.EncodeToString(sum[:4]) + ".json"
}

// legacyName is the file name earlier versions gave a test's document, which two tests could
// share; it is still read, and removed when the test's document is written again.
func legacyName(pkg, test string) string { return legacyStem(pkg, test) + ".json" }

func legacyStem(pkg, test string) string {
	return unsafeName.ReplaceAllString(pkg, "_") + "." + unsafeName.ReplaceAllString(test, "_")
}

// Path is the document of a test in the store of the module root.
func Path(root, pkg, test string) string {
	return filepath.Join(root, filepath.FromSlash(Dir), Name(pkg, test))
}

// Save writes f into the findings directory of the module root, replacing the test's
// previous document, and sets f.Path. The write is atomic: a reader never sees half a file.
func (f *File) Save(root string) error {
	if err := f.SaveIn(filepath.Join(root, filepath.FromSlash(Dir))); err != nil {
		return err
	}
	// A document this test had under the earlier name is replaced by this one (one of
	// another test that flattens alike stays).
	legacy := filepath.Join(filepath.Dir(f.Path), legacyName(f.Test.Package, f.Test.Name))
	if old, err := Load(legacy); err == nil && old.Test.Package == f.Test.Package && old.Test.Name == f.Test.Name {
		os.Remove(legacy)
	}
	return nil
}

// SaveIn writes f into the findings directory dir (of a store, or of one part of a run),
// replacing the test's document there, and sets f.Path. The write is atomic.
func (f *File) SaveIn(dir string) error {
	f.Format, f.Version = FormatName, Version
	if f.Races == nil {
		f.Races = []Race{}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save findings: %w", err)
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("save findings: %w", err)
	}
	path := filepath.Join(dir, Name(f.Test.Package, f.Test.Name))
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("save findings: %w", err)
	}
	_, err = tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save findings %s: %w", path, err)
	}
	f.Path = path
	return nil
}

// ErrFormat is wrapped by the errors of documents that are not findings of this version.
var ErrFormat = errors.New("not a findings document of a version this interleave reads")

// Decode reads a findings document; path names it in errors.
func Decode(data []byte, path string) (*File, error) {
	var head struct {
		Format  string `json:"format"`
		Version *int   `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("findings %s: %w", path, err)
	}
	switch {
	case head.Format != FormatName:
		return nil, fmt.Errorf("findings %s: format %q, want %q: %w", path, head.Format, FormatName, ErrFormat)
	case head.Version == nil || *head.Version != Version:
		v := "none"
		if head.Version != nil {
			v = strconv.Itoa(*head.Version)
		}
		return nil, fmt.Errorf("findings %s: version %s, this interleave reads version %d: %w", path, v, Version, ErrFormat)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	f := new(File)
	if err := dec.Decode(f); err != nil {
		return nil, fmt.Errorf("findings %s: %w", path, err)
	}
	for i, r := range f.Races {
		for _, a := range []Access{r.A, r.B} {
			if a.Pos == "" || (a.Op != "read" && a.Op != "write") {
				return nil, fmt.Errorf("findings %s: race %d: an access without a position or with op %q", path, i+1, a.Op)
			}
		}
	}
	f.Path = path
	return f, nil
}

// Load reads the findings document at path: a regular file of at most bounded.Document's
// size.
func Load(path string) (*File, error) {
	data, err := bounded.Document.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("findings: %w", err)
	}
	return Decode(data, path)
}

// LoadAll reads every findings document of the module root, sorted by package and test.
// Documents that cannot be read (corrupt, or of another version) are returned as errors
// beside the others, never instead of them.
func LoadAll(root string) ([]*File, []error) {
	paths, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(Dir), "*.json"))
	if err != nil {
		return nil, []error{err}
	}
	var out []*File
	var errs []error
	for _, p := range paths {
		f, err := Load(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Test.Package != out[j].Test.Package {
			return out[i].Test.Package < out[j].Test.Package
		}
		return out[i].Test.Name < out[j].Test.Name
	})
	return out, errs
}
