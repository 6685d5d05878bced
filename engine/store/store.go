// Package store is the results store: the .interleave directory at a module's root where
// explorations save the schedule file of each bug (schedules/), a findings document per test
// (findings/, see package findings) and run summaries (runs/). It finds the module of a
// directory, names and writes schedule files, and identifies the running test and its build,
// for the test process (which writes the store) and for the tools that read it.
//
// Like every package compiled into test binaries, it uses the standard library only.
package store

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/interleave-dev/interleave/engine/bounded"
	"github.com/interleave-dev/interleave/engine/findings"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/srcmap"
)

// Dir is the results store's directory at a module's root (DESIGN.md "Results store"); its
// layout is named in package findings, which the language server reads it by.
const Dir = findings.StoreDir

// FindModule walks up from dir to the nearest go.mod and returns its directory and module
// path; ok is false when there is none. A go.mod that is not a regular file of at most
// bounded.Source's size (a FIFO, which would block the walk) is passed over.
func FindModule(dir string) (root, module string, ok bool) {
	for {
		if f, _, err := bounded.Source.Open(filepath.Join(dir, "go.mod"), true); err == nil {
			defer f.Close()
			sc := bufio.NewScanner(io.LimitReader(f, bounded.Source.Max))
			for sc.Scan() {
				line := strings.TrimSpace(sc.Text())
				if rest, ok := strings.CutPrefix(line, "module"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
					return dir, strings.Trim(strings.TrimSpace(rest), `"`), true
				}
			}
			return dir, "", true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", false
		}
		dir = parent
	}
}

// ModuleRoot returns the root directory of module mod (a schedule file's module): the first
// directory of that module found walking up from each of dirs in turn.
func ModuleRoot(mod string, dirs ...string) (string, error) {
	for _, dir := range dirs {
		for d := dir; ; {
			root, m, ok := FindModule(d)
			if !ok {
				break
			}
			if m == mod {
				return root, nil
			}
			if d = filepath.Dir(root); d == root {
				break
			}
		}
	}
	return "", fmt.Errorf("module %s not found above %s", mod, strings.Join(dirs, " or "))
}

var (
	buildOnce sync.Once
	buildHash string
)

// BuildID identifies the code of the running test binary. The interleave command and the
// debug adapter give it in INTERLEAVE_BUILD: a hash of the module-relative sources of the
// instrumented packages, the versions of the other modules and the runtime (see package
// instrument), so that a copy of the module elsewhere, or a rebuild of the same code, has the
// same identity. A test binary run by go test (a test calling explore.Test) is identified by
// a hash of its own contents.
func BuildID() string {
	if id := os.Getenv("INTERLEAVE_BUILD"); id != "" {
		return id
	}
	buildOnce.Do(func() {
		exe, err := os.Executable()
		if err != nil {
			return
		}
		f, err := os.Open(exe)
		if err != nil {
			return
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return
		}
		buildHash = hex.EncodeToString(h.Sum(nil))[:16]
	})
	return buildHash
}

// ScheduleDir returns the schedule directory of the module containing dir, creating the
// store (with a .gitignore that keeps it out of version control) if needed.
func ScheduleDir(dir string) (string, error) {
	root, _, ok := FindModule(dir)
	if !ok {
		root = dir
	}
	store := filepath.Join(root, Dir)
	schedules := filepath.Join(root, filepath.FromSlash(findings.SchedulesDir))
	if err := os.MkdirAll(schedules, 0o755); err != nil {
		return "", fmt.Errorf("create results store: %w", err)
	}
	ignore := filepath.Join(store, ".gitignore")
	if _, err := os.Stat(ignore); os.IsNotExist(err) {
		if err := os.WriteFile(ignore, []byte("# Interleave's results store: schedules and runs of this machine.\n*\n"), 0o644); err != nil {
			return "", fmt.Errorf("create results store: %w", err)
		}
	}
	return schedules, nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// now is the clock of schedule file names; tests fix it.
var now = time.Now

// SaveSchedule writes f into dir (the module's schedule directory when dir is empty) under a
// new name made of the test, the bug's kind and the time (with a suffix -2, -3 … when that
// name is taken), and returns its path. Unless f has them, it anchors f's positions in the
// source of the working directory's module (srcmap.Annotate). It never replaces a schedule file, and the file
// appears whole or not at all.
func SaveSchedule(dir string, f *schedule.File) (string, error) {
	if f == nil {
		return "", fmt.Errorf("save schedule: no schedule was recorded")
	}
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("save schedule: %w", err)
		}
		if dir, err = ScheduleDir(wd); err != nil {
			return "", fmt.Errorf("save schedule: %w", err)
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("save schedule: %w", err)
	}
	kind := "pass"
	if f.Bug != nil {
		kind = f.Bug.Kind
	}
	if root, err := WorkingModule(); err == nil {
		// Recorded from the source as it is now: its positions are anchored in it, so that
		// the schedule replays after edits elsewhere (package srcmap).
		srcmap.Annotate(f, root)
	}
	var b bytes.Buffer
	if err := f.Encode(&b); err != nil {
		return "", fmt.Errorf("save schedule: %w", err)
	}
	stem := fmt.Sprintf("%s-%s-%s", unsafeName.ReplaceAllString(f.Test.Name, "_"), unsafeName.ReplaceAllString(kind, "_"), now().UTC().Format("20060102T150405.000"))
	// A name whose schedule as found (….found.json, minimization's) is still there is taken.
	found := func(path string) bool {
		_, err := os.Lstat(strings.TrimSuffix(path, ".json") + ".found.json")
		return err == nil
	}
	path, err := CreateUnique(dir, stem, ".json", b.Bytes(), found)
	if err != nil {
		return "", fmt.Errorf("save schedule: %w", err)
	}
	f.Path = path
	return path, nil
}

// TestInfo identifies the running test for schedule files: the module and package from the
// working directory (go test runs a test in its package's directory), and the build identity
// from the test binary.
func TestInfo(name string) schedule.Test {
	info := schedule.Test{Name: name}
	dir, err := os.Getwd()
	if err != nil {
		return info
	}
	if root, module, ok := FindModule(dir); ok {
		info.Module = module
		rel, err := filepath.Rel(root, dir)
		if err == nil {
			info.Package = strings.TrimSuffix(module+"/"+filepath.ToSlash(rel), "/.")
		}
	}
	info.Build = BuildID()
	return info
}

// WorkingModule returns the root of the module of the working directory.
func WorkingModule() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	root, _, ok := FindModule(wd)
	if !ok {
		return "", fmt.Errorf("no go.mod in %s or above", wd)
	}
	return root, nil
}

// FindingsPath is where the findings document of the test info describes is written: in the
// store of the working directory's module.
func FindingsPath(info schedule.Test) (string, bool) {
	root, err := WorkingModule()
	if err != nil {
		return "", false
	}
	return findings.Path(root, info.Package, info.Name), true
}
