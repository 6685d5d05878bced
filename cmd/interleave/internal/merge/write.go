package merge

// Writing the merged store: everything is written into a directory beside the destination
// store, then renamed into place, so that a merge that fails leaves the destination as it was.

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/report"
	"github.com/interleave-dev/interleave/engine/bounded"
	"github.com/interleave-dev/interleave/engine/findings"
)

// stagedHook, when set (by tests), is called after each step of the merge's writing into its
// temporary directory; an error it returns fails the merge there.
var stagedHook func(step string) error

// gitignore keeps the store out of version control, as interleave test's stores
// (store.ScheduleDir); in the temporary directory it keeps that out too.
const gitignore = "# Interleave's results store: schedules and runs of this machine.\n*\n"

// mergeStores merges the stores, read and checked, into the store of the module at root.
// The merged documents are written into a temporary directory beside that store and then
// renamed into it: a merge that fails leaves the store as it was.
func mergeStores(stores []*input, root string, force bool) (*mergeStats, error) {
	st := &mergeStats{}
	out := filepath.Join(root, findings.StoreDir)
	// Findings, by test; a document met twice (the same content in two stores) counts once.
	byTest := map[findings.Test][]*findings.File{}
	var tests []findings.Test
	var problems []string
	seenDoc := map[[32]byte]bool{}
	for _, in := range stores {
		for _, d := range in.findings {
			if seenDoc[d.hash] {
				continue
			}
			seenDoc[d.hash] = true
			if _, ok := byTest[d.v.Test]; !ok {
				tests = append(tests, d.v.Test)
			}
			byTest[d.v.Test] = append(byTest[d.v.Test], d.v)
		}
	}
	merged := map[findings.Test]*findings.File{}
	for _, t := range tests {
		m, err := findings.Merge(byTest[t], force)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		merged[t] = m
	}
	// The latest run of each store.
	runs, runProblems := latestRuns(stores, force)
	problems = append(problems, runProblems...)
	if len(problems) > 0 {
		return nil, fmt.Errorf("nothing was merged:\n\t%s", strings.Join(problems, "\n\t"))
	}
	if st, err := os.Lstat(out); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory (%s): nothing was merged", out, bounded.Kind(st.Mode()))
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	tmp, err := os.MkdirTemp(root, findings.StoreDir+".merge-*")
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, ".gitignore"), []byte(gitignore), 0o644); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	staged := func(step string) error {
		if stagedHook != nil {
			return stagedHook(step)
		}
		return nil
	}
	// Schedule files, once per content; the documents name the copies.
	var schedules []namedData
	for _, in := range stores {
		for name, data := range in.schedules {
			schedules = append(schedules, namedData{filepath.Join(in.dir, "schedules", name), data})
		}
	}
	slices.SortFunc(schedules, func(a, b namedData) int { return strings.Compare(a.path, b.path) })
	copied, err := stage(schedules, filepath.Join(out, "schedules"), filepath.Join(tmp, "schedules"), st)
	if err != nil {
		return nil, err
	}
	if err := staged("schedules"); err != nil {
		return nil, err
	}
	// A bug's schedule was made its file in its store (readStore): now its copy.
	rename := func(p *string) {
		if c, ok := copied[*p]; ok {
			*p = c
		}
	}
	findingsDir := filepath.Join(tmp, "findings")
	for _, t := range tests {
		m := merged[t]
		for i := range m.Bugs {
			rename(&m.Bugs[i].Schedule)
		}
		// Two stores' bugs that name the same schedule, now one file, are one bug.
		m.Bugs = slices.CompactFunc(m.Bugs, func(a, b findings.Bug) bool { return a == b })
		if err := m.SaveIn(findingsDir); err != nil {
			return nil, err
		}
		m.Path = filepath.Join(out, "findings", filepath.Base(m.Path))
		st.tests++
		st.races += len(m.Races)
		st.bugs += len(m.Bugs)
		for _, r := range m.Races {
			n := 0
			for _, d := range byTest[t] {
				if slices.ContainsFunc(d.Races, func(x findings.Race) bool { return x.Key() == r.Key() }) {
					n++
				}
			}
			if n > 1 {
				st.sharedRaces++
			}
		}
	}
	if err := staged("findings"); err != nil {
		return nil, err
	}
	// Run summaries: every one copied, its paths those of the merged store, and the latest
	// ones merged. The merged findings of each test, by package and name (a document's test
	// also names its module and build).
	byName := map[[2]string]*findings.File{}
	for t, m := range merged {
		byName[[2]string{t.Package, t.Name}] = m
	}
	retarget := func(sum *report.Summary) {
		for _, o := range sum.Tests {
			e := o.Result
			if e == nil {
				continue
			}
			e.Findings = ""
			if m := byName[[2]string{e.Package, e.Test}]; m != nil {
				e.Findings, e.Races = m.Path, len(m.Races)
			}
			if e.Bug != nil {
				rename(&e.Bug.Schedule)
			}
		}
	}
	var summaries []namedData
	for _, in := range stores {
		for _, d := range in.runs {
			retarget(d.v)
			b, err := json.MarshalIndent(d.v, "", "\t")
			if err != nil {
				return nil, fmt.Errorf("merge: %w", err)
			}
			summaries = append(summaries, namedData{filepath.Join(in.dir, "runs", d.name), append(b, '\n')})
		}
	}
	var scratch mergeStats
	if _, err := stage(summaries, filepath.Join(out, "runs"), filepath.Join(tmp, "runs"), &scratch); err != nil {
		return nil, err
	}
	if len(runs) > 0 {
		// The runs' tests were retargeted above, and so their bugs' schedules in the merged
		// run (rename keeps a copy's path as it is).
		sum := mergeRuns(runs)
		retarget(sum)
		st.summary = sum
		if len(runs) > 1 {
			for {
				// Named by its time: not over a summary the store has.
				name := sum.Time.Format("20060102T150405.000") + ".json"
				if _, err := os.Lstat(filepath.Join(out, "runs", name)); errors.Is(err, fs.ErrNotExist) {
					if _, err := os.Lstat(filepath.Join(tmp, "runs", name)); errors.Is(err, fs.ErrNotExist) {
						break
					}
				}
				sum.Time = sum.Time.Add(time.Millisecond)
			}
			if err := os.MkdirAll(filepath.Join(tmp, "runs"), 0o755); err != nil {
				return nil, fmt.Errorf("merge: %w", err)
			}
			if _, err := sum.Save(filepath.Join(tmp, "runs")); err != nil {
				return nil, err
			}
			st.runs = 1
		}
	}
	if err := staged("runs"); err != nil {
		return nil, err
	}
	if err := install(tmp, out); err != nil {
		return nil, err
	}
	return st, nil
}

// namedData is a document to copy: where it was read, and its content.
type namedData struct {
	path string
	data []byte
}

// stage writes the documents into tmp, the temporary directory that becomes dst, skipping
// those whose content dst has already (under any name), and returns where each document
// (by the path it was read from) is once installed in dst.
func stage(docs []namedData, dst, tmp string, st *mergeStats) (map[string]string, error) {
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	have := map[[32]byte]string{}
	names, _ := docNames(dst)
	for _, n := range names {
		if b, err := readRegular(filepath.Join(dst, n), limitOf(filepath.Base(dst))); err == nil {
			have[sha256.Sum256(b)] = filepath.Join(dst, n)
		}
	}
	taken := func(name string) bool {
		for _, d := range []string{dst, tmp} {
			if _, err := os.Lstat(filepath.Join(d, name)); !errors.Is(err, fs.ErrNotExist) {
				return true
			}
		}
		return false
	}
	where := map[string]string{}
	for _, d := range docs {
		sum := sha256.Sum256(d.data)
		if at, ok := have[sum]; ok {
			where[d.path] = at
			st.duplicates++
			continue
		}
		base := filepath.Base(d.path)
		name := base
		for n := 2; taken(name); n++ {
			name = fmt.Sprintf("%s-%d.json", strings.TrimSuffix(base, ".json"), n)
		}
		if err := os.WriteFile(filepath.Join(tmp, name), d.data, 0o644); err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		have[sum] = filepath.Join(dst, name)
		where[d.path] = filepath.Join(dst, name)
		st.schedules++
	}
	return where, nil
}

// install moves the merged store written in tmp to dst: by one rename when dst does not
// exist, or file by file (schedules first, then run summaries and findings, which name
// them), each rename replacing nothing but a test's findings document.
func install(tmp, dst string) error {
	if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(tmp, dst); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		return nil
	}
	for _, sub := range []string{"schedules", "runs", "findings"} {
		entries, err := os.ReadDir(filepath.Join(tmp, sub))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		if err := os.MkdirAll(filepath.Join(dst, sub), 0o755); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		for _, e := range entries {
			if err := os.Rename(filepath.Join(tmp, sub, e.Name()), filepath.Join(dst, sub, e.Name())); err != nil {
				return fmt.Errorf("merge: %w", err)
			}
		}
	}
	if _, err := os.Lstat(filepath.Join(dst, ".gitignore")); errors.Is(err, fs.ErrNotExist) {
		os.Rename(filepath.Join(tmp, ".gitignore"), filepath.Join(dst, ".gitignore"))
	}
	return nil
}
