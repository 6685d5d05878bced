// Package store reads the results stores (.interleave/, docs/results-store.md) of the Go
// modules of a workspace for the language server: the findings documents, the
// instrumentation documents and the schedule files, keeping what it read until a document
// changes on disk. A document that cannot be read is skipped and reported once (per version
// of the file), never instead of the others. It knows nothing of the Language Server
// Protocol.
package store

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/interleave-dev/interleave/engine/bounded"
	"github.com/interleave-dev/interleave/engine/findings"
	"github.com/interleave-dev/interleave/engine/schedule"
)

// SchedulesDir is the schedule files' directory at a module root.
const SchedulesDir = findings.SchedulesDir

// Module is a Go module of the workspace.
type Module struct {
	// Root is the module's directory (the one with go.mod), Path its module path.
	Root, Path string
}

// FindModule walks up from dir to the nearest go.mod and returns its module; ok is false when
// there is none.
func FindModule(dir string) (m Module, ok bool) {
	for {
		if path, found := modulePath(filepath.Join(dir, "go.mod")); found {
			return Module{Root: dir, Path: path}, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return Module{}, false
		}
		dir = parent
	}
}

// modulePath reads the module path of a go.mod file; found is false when it cannot be read,
// or is not a regular file of at most bounded.Source's size (a FIFO would block the walk).
func modulePath(gomod string) (path string, found bool) {
	f, _, err := bounded.Source.Open(gomod, true)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, bounded.Source.Max))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			rest, _, _ = strings.Cut(rest, "//")
			return strings.Trim(strings.TrimSpace(rest), `"`), true
		}
	}
	return "", true
}

// MaxDirs bounds the directories Modules searches below a folder, so that a workspace opened
// on a home directory or the file system's root does not stall the server.
const MaxDirs = 20000

// Modules returns the modules of a workspace folder: the module that contains the folder (it
// may be a subdirectory of one) and every module below it, nested ones included. Hidden
// directories, vendor and node_modules are not searched, nor more than MaxDirs directories.
func Modules(folder string) []Module {
	var out []Module
	seen := make(map[string]bool)
	if m, ok := FindModule(folder); ok {
		out = append(out, m)
		seen[m.Root] = true
	}
	dirs := 0
	filepath.WalkDir(folder, func(path string, d fs.DirEntry, err error) error {
		if dirs >= MaxDirs {
			return fs.SkipAll
		}
		if err != nil {
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			dirs++
			name := d.Name()
			if path != folder && (strings.HasPrefix(name, ".") || name == "vendor" || name == "node_modules") {
				return fs.SkipDir
			}
			return nil
		}
		if d.Name() != "go.mod" {
			return nil
		}
		root := filepath.Dir(path)
		if seen[root] {
			return nil
		}
		if mp, ok := modulePath(path); ok {
			seen[root] = true
			out = append(out, Module{Root: root, Path: mp})
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Root < out[j].Root })
	return out
}

// stamp identifies a version of a file on disk.
type stamp struct {
	mod  time.Time
	size int64
}

func stampOf(info fs.FileInfo) stamp { return stamp{info.ModTime(), info.Size()} }

// Store is what one module's results store holds. It is safe for concurrent use.
type Store struct {
	Module Module

	mu         sync.Mutex
	findings   map[string]*findings.File            // by path
	instrument map[string]*findings.Instrumentation // by path
	schedules  map[string]*schedule.File            // by path
	stamps     map[string]stamp                     // of every document read or skipped
	failed     map[string]bool                      // documents skipped at their current stamp
	gen        int                                  // incremented by every change
	dirStamps  map[string]dirStamp                  // of the store's directories at the last Refresh
}

// dirStamp identifies a version of a directory: its entries change its modification time,
// and a directory removed and made again is another file.
type dirStamp struct {
	exists bool
	mod    time.Time
	info   fs.FileInfo
}

func (a dirStamp) same(b dirStamp) bool {
	if a.exists != b.exists {
		return false
	}
	if !a.exists {
		return true
	}
	return a.mod.Equal(b.mod) && os.SameFile(a.info, b.info)
}

// dirList is the store's directory and those of its documents.
func (s *Store) dirList() []string {
	out := []string{filepath.Join(s.Module.Root, findings.StoreDir)}
	for _, d := range s.dirs() {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

func (s *Store) readDirStamps() map[string]dirStamp {
	out := make(map[string]dirStamp)
	for _, d := range s.dirList() {
		if info, err := os.Stat(d); err == nil && info.IsDir() {
			out[d] = dirStamp{exists: true, mod: info.ModTime(), info: info}
		} else {
			out[d] = dirStamp{}
		}
	}
	return out
}

// DirsChanged reports whether the store's directories changed since the last Refresh: a
// document created, renamed into place or deleted, a directory made or removed (the whole
// store deleted and made again). It costs a stat per directory, so a server can ask often; a
// document rewritten in place changes no directory, and a client's watcher reports it.
func (s *Store) DirsChanged() bool {
	now := s.readDirStamps()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dirStamps == nil {
		return true
	}
	for d, st := range now {
		if !st.same(s.dirStamps[d]) {
			return true
		}
	}
	return false
}

// IsDir reports whether path is the store's directory or one of its documents' directories
// (a watched directory that was created or deleted: Refresh reads what it holds).
func (s *Store) IsDir(path string) bool {
	for _, d := range s.dirList() {
		if path == d {
			return true
		}
	}
	return false
}

// New returns the (not yet read) store of a module.
func New(m Module) *Store {
	return &Store{
		Module:     m,
		findings:   make(map[string]*findings.File),
		instrument: make(map[string]*findings.Instrumentation),
		schedules:  make(map[string]*schedule.File),
		stamps:     make(map[string]stamp),
		failed:     make(map[string]bool),
	}
}

// kind of a document, by its directory.
type kind int

const (
	kindNone kind = iota
	kindFindings
	kindInstrument
	kindSchedule
)

func (s *Store) dirs() map[kind]string {
	return map[kind]string{
		kindFindings:   filepath.Join(s.Module.Root, filepath.FromSlash(findings.Dir)),
		kindInstrument: filepath.Join(s.Module.Root, filepath.FromSlash(findings.InstrumentDir)),
		kindSchedule:   filepath.Join(s.Module.Root, filepath.FromSlash(SchedulesDir)),
	}
}

// kindOf says which kind of document path is, kindNone if it is none of this store's.
func (s *Store) kindOf(path string) kind {
	if !strings.HasSuffix(path, ".json") || strings.HasPrefix(filepath.Base(path), ".") {
		return kindNone
	}
	dir := filepath.Dir(path)
	for k, d := range s.dirs() {
		if dir == d {
			if k == kindSchedule && strings.HasSuffix(path, ".found.json") {
				return kindNone // the schedule as found, beside its minimized one
			}
			return k
		}
	}
	return kindNone
}

// Owns reports whether path is a document of this store.
func (s *Store) Owns(path string) bool { return s.kindOf(path) != kindNone }

// Refresh reads the documents that appeared or changed since the last call and forgets the
// ones removed. It returns whether anything changed and the errors of the documents it
// skipped that it did not report before.
func (s *Store) Refresh() (changed bool, errs []error) {
	dirStamps := s.readDirStamps()
	present := make(map[string]stamp)
	for _, dir := range s.dirs() {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			if e.IsDir() || s.kindOf(path) == kindNone {
				continue
			}
			info, err := e.Info()
			if err != nil {
				continue
			}
			present[path] = stampOf(info)
		}
	}
	s.mu.Lock()
	s.dirStamps = dirStamps
	var stale []string
	for path := range s.stamps {
		if _, ok := present[path]; !ok {
			stale = append(stale, path)
		}
	}
	var load []string
	for path, st := range present {
		if old, ok := s.stamps[path]; !ok || old != st {
			load = append(load, path)
		}
	}
	s.mu.Unlock()
	for _, path := range stale {
		if s.forget(path) {
			changed = true
		}
	}
	sort.Strings(load)
	for _, path := range load {
		c, err := s.load(path)
		changed = changed || c
		if err != nil {
			errs = append(errs, err)
		}
	}
	return changed, errs
}

// Update re-reads one document (a watched file that was created, changed or deleted). It
// returns whether the store changed and the document's error, if it is newly skipped.
func (s *Store) Update(path string) (changed bool, err error) {
	if s.kindOf(path) == kindNone {
		return false, nil
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return s.forget(path), nil
	}
	return s.load(path)
}

func (s *Store) forget(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, had := s.stamps[path]
	delete(s.stamps, path)
	delete(s.failed, path)
	_, f := s.findings[path]
	_, i := s.instrument[path]
	_, sc := s.schedules[path]
	delete(s.findings, path)
	delete(s.instrument, path)
	delete(s.schedules, path)
	if f || i || sc {
		s.gen++
	}
	return had && (f || i || sc)
}

// load reads the document at path, replacing what the store had from it. A path that is not
// a regular file (a FIFO, a device, a directory) or is larger than its kind's limit is
// skipped and reported as a corrupt document is.
func (s *Store) load(path string) (changed bool, err error) {
	k := s.kindOf(path)
	limit := bounded.Document
	if k == kindSchedule {
		limit = bounded.Schedule
	}
	info, statErr := os.Stat(path)
	data, readErr := limit.ReadFile(path)
	var refused *bounded.Error
	if statErr != nil || (readErr != nil && !errors.As(readErr, &refused)) {
		return s.forget(path), nil // removed meanwhile
	}
	st := stampOf(info)
	var (
		f   *findings.File
		in  *findings.Instrumentation
		sc  *schedule.File
		bad = readErr
	)
	switch {
	case bad != nil:
	case k == kindFindings:
		f, bad = findings.Decode(data, path)
	case k == kindInstrument:
		in, bad = findings.DecodeInstrumentation(data, path)
	case k == kindSchedule:
		sc, bad = schedule.Decode(bytes.NewReader(data))
		if sc != nil {
			// What the server shows of a schedule is its test, bug and summary: the steps,
			// its bulk, are not kept.
			sc.Path, sc.Steps = path, nil
		}
		if bad != nil {
			bad = fmt.Errorf("schedule %s: %w", path, bad)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stamps[path] = st
	_, hadF := s.findings[path]
	_, hadI := s.instrument[path]
	_, hadS := s.schedules[path]
	delete(s.findings, path)
	delete(s.instrument, path)
	delete(s.schedules, path)
	if bad != nil {
		// Named once per version of the file; the other documents still show.
		first := !s.failed[path]
		s.failed[path] = true
		changed = hadF || hadI || hadS
		if changed {
			s.gen++
		}
		if first {
			return changed, bad
		}
		return changed, nil
	}
	delete(s.failed, path)
	switch {
	case f != nil:
		s.findings[path] = f
	case in != nil:
		s.instrument[path] = in
	case sc != nil:
		s.schedules[path] = sc
	}
	s.gen++
	return true, nil
}

// Snapshot is what a store held at one moment. Its documents must not be modified.
type Snapshot struct {
	Module     Module
	Findings   []*findings.File
	Instrument []*findings.Instrumentation
	// Schedules are the schedule files by path, without their steps.
	Schedules map[string]*schedule.File
	// Gen changes whenever the store does.
	Gen int
}

// Snapshot returns what the store holds now, documents sorted by path.
func (s *Store) Snapshot() *Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := &Snapshot{Module: s.Module, Schedules: make(map[string]*schedule.File, len(s.schedules)), Gen: s.gen}
	for _, f := range s.findings {
		snap.Findings = append(snap.Findings, f)
	}
	for _, d := range s.instrument {
		snap.Instrument = append(snap.Instrument, d)
	}
	for p, f := range s.schedules {
		snap.Schedules[p] = f
	}
	sort.Slice(snap.Findings, func(i, j int) bool { return snap.Findings[i].Path < snap.Findings[j].Path })
	sort.Slice(snap.Instrument, func(i, j int) bool { return snap.Instrument[i].Path < snap.Instrument[j].Path })
	return snap
}

// Schedule returns the schedule file at path if the store holds it (a findings document may
// name a schedule outside the store's directory, which the caller reads itself).
func (snap *Snapshot) Schedule(path string) *schedule.File {
	return snap.Schedules[filepath.Clean(path)]
}

// LatestSchedule returns the newest schedule file of a test (by the time in its name, then
// its path), nil when the store holds none.
func (snap *Snapshot) LatestSchedule(pkg, test string) *schedule.File {
	var best *schedule.File
	for _, f := range snap.Schedules {
		if f.Test.Package != pkg || f.Test.Name != test || f.Bug == nil {
			continue
		}
		if best == nil || filepath.Base(f.Path) > filepath.Base(best.Path) {
			best = f
		}
	}
	return best
}
