package merge

// Reading the stores to merge, trusting nothing in them: a store comes from another machine
// (a CI job's artifact), and whatever it holds ends up in the merged store that CI uploads.

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/report"
	"github.com/interleave-dev/interleave/engine/bounded"
	"github.com/interleave-dev/interleave/engine/findings"
	"github.com/interleave-dev/interleave/engine/schedule"
)

// input is one store to merge, every document of it read and checked.
type input struct {
	dir       string
	schedules map[string][]byte // by file name
	findings  []*doc[*findings.File]
	runs      []*doc[*report.Summary] // by name, the latest last
	// hash is of every document's name and content: two stores with the same hash are one.
	hash [32]byte
}

// doc is a document of a store with the hash of its content.
type doc[T any] struct {
	name string
	v    T
	hash [32]byte
}

// readStore reads every document of the store dir: findings/, runs/ and schedules/, each
// .json file a regular file (not a symbolic link, a device, a FIFO or a directory) that decodes
// as what its directory holds. It returns the store, or what is wrong with it, every document
// named by its path.
func readStore(dir string) (*input, []string) {
	in := &input{dir: dir, schedules: map[string][]byte{}}
	var problems []string
	h := sha256.New()
	for _, sub := range []string{"findings", "runs", "schedules"} {
		names, err := docNames(filepath.Join(dir, sub))
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		for _, name := range names {
			p := filepath.Join(dir, sub, name)
			data, err := readRegular(p, limitOf(sub))
			if err != nil {
				problems = append(problems, err.Error())
				continue
			}
			sum := sha256.Sum256(data)
			fmt.Fprintf(h, "%s/%s %x\n", sub, name, sum)
			switch sub {
			case "schedules":
				if _, err := schedule.Decode(bytes.NewReader(data)); err != nil {
					problems = append(problems, fmt.Sprintf("%s: %v", p, err))
					continue
				}
				in.schedules[name] = data
			case "findings":
				f, err := findings.Decode(data, p)
				if err != nil {
					problems = append(problems, err.Error())
					continue
				}
				in.findings = append(in.findings, &doc[*findings.File]{name, f, sum})
			case "runs":
				r, err := report.DecodeSummary(data, p)
				if err != nil {
					problems = append(problems, err.Error())
					continue
				}
				in.runs = append(in.runs, &doc[*report.Summary]{name, r, sum})
			}
		}
	}
	// The schedules the documents name must be the store's own: a bug's schedule is found by
	// its file name among them, and is then named by its copy in the merged store. A path
	// to anything else (/etc/passwd) is refused.
	for _, d := range in.findings {
		for i := range d.v.Bugs {
			if err := in.ownSchedule(&d.v.Bugs[i].Schedule); err != nil {
				problems = append(problems, fmt.Sprintf("findings %s: bug %d: %v", d.v.Path, i+1, err))
			}
		}
	}
	for _, d := range in.runs {
		for _, o := range d.v.Tests {
			if o.Result == nil || o.Result.Bug == nil {
				continue
			}
			if err := in.ownSchedule(&o.Result.Bug.Schedule); err != nil {
				problems = append(problems, fmt.Sprintf("run summary %s: %s (%s): %v", filepath.Join(dir, "runs", d.name), o.Test, o.Package, err))
			}
		}
	}
	if len(problems) > 0 {
		return nil, problems
	}
	copy(in.hash[:], h.Sum(nil))
	return in, nil
}

// ownSchedule checks that *path, a bug's schedule in a document of the store, is one of the
// store's schedule files, by its file name, and makes it that file's path in the store
// (which mergeStores then replaces with its copy's). An empty path (a schedule that could
// not be saved) stays empty.
func (in *input) ownSchedule(path *string) error {
	if *path == "" {
		return nil
	}
	name := filepath.Base(*path)
	if _, ok := in.schedules[name]; !ok || !strings.HasSuffix(name, ".json") {
		return fmt.Errorf("its schedule %q is not a schedule file of the store (%s): refused", *path, filepath.Join(in.dir, "schedules"))
	}
	*path = filepath.Join(in.dir, "schedules", name)
	return nil
}

// docNames lists the .json files of the store's directory dir, sorted; none when it does not
// exist. dir itself must be a directory, not a symbolic link to one.
func docNames(dir string) ([]string, error) {
	st, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	case !st.IsDir():
		return nil, fmt.Errorf("%s: not a directory (%s): refused", dir, bounded.Kind(st.Mode()))
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// readRegular reads the file at path, which must be a regular file of at most the limit of
// its kind: not a symbolic link (a shard's schedules/env.json -> /proc/self/environ would
// copy the merging job's environment into the merged store), a device, a FIFO, a directory
// or a file larger than interleave ever writes (bounded's limits).
func readRegular(path string, limit bounded.Limit) ([]byte, error) {
	data, err := limit.ReadFileNoFollow(path)
	if err != nil {
		return nil, fmt.Errorf("%w: refused", err)
	}
	return data, nil
}

// limitOf is the limit of the documents of a store's subdirectory.
func limitOf(sub string) bounded.Limit {
	switch sub {
	case "schedules":
		return bounded.Schedule
	case "runs":
		return bounded.Summary
	}
	return bounded.Document
}
