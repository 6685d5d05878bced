package findings

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// A MismatchError is a refusal to merge documents of runs that differ in what they explored.
type MismatchError struct {
	Test  Test
	Field string // "build", "strategy", ...
	A, B  string // the two values
	PathA string // the documents
	PathB string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("%s (%s): the runs differ in %s: %q in %s, %q in %s; merging them would mix two explorations (merge -force merges them anyway)",
		e.Test.Name, e.Test.Package, e.Field, e.A, e.PathA, e.B, e.PathB)
}

// Merge combines the documents of one test from the parts of an exploration — the worker
// processes of interleave test -p, the shards of -shard, CI jobs — into the document of
// their union: schedules summed, races deduplicated by their pair of locations with the
// schedules that showed them added, bugs (one per kind, message and position, with the
// first document's schedule) and racy points joined, the parts named.
//
// The documents must come from the same test, code and exploration (build, strategy and its
// parameters, seed, budget, scheduling points); otherwise Merge returns a *MismatchError,
// unless force is set. The first document's path names it in errors.
func Merge(docs []*File, force bool) (*File, error) {
	if len(docs) == 0 {
		return nil, fmt.Errorf("merge findings: no documents")
	}
	first := docs[0]
	out := &File{
		Format: FormatName, Version: Version, Test: first.Test, Time: first.Time,
		Strategy: first.Strategy, Params: maps.Clone(first.Params), Seed: first.Seed,
		Budget: first.Budget, Build: first.Build, Points: first.Points,
		Files: map[string]string{},
	}
	raceIndex := map[string]int{}
	racy := map[string]bool{}
	var parts []string
	for _, d := range docs {
		if d.Test != first.Test {
			return nil, fmt.Errorf("merge findings: %s is of %s (%s), %s of %s (%s)", first.Path, first.Test.Name, first.Test.Package, d.Path, d.Test.Name, d.Test.Package)
		}
		if !force {
			for _, c := range []struct{ field, a, b string }{
				{"build", first.Build, d.Build},
				{"strategy", first.Strategy, d.Strategy},
				{"strategy parameters", formatParams(first.Params), formatParams(d.Params)},
				{"seed", strconv.FormatUint(first.Seed, 10), strconv.FormatUint(d.Seed, 10)},
				{"schedule budget", strconv.Itoa(first.Budget), strconv.Itoa(d.Budget)},
				{"scheduling points", first.Points, d.Points},
			} {
				if c.a != c.b {
					return nil, &MismatchError{Test: first.Test, Field: c.field, A: c.a, B: c.b, PathA: first.Path, PathB: d.Path}
				}
			}
			for file, h := range d.Files {
				if other, ok := out.Files[file]; ok && other != h {
					return nil, &MismatchError{Test: first.Test, Field: "the source of " + file, A: other, B: h, PathA: first.Path, PathB: d.Path}
				}
			}
		}
		if d.Time.After(out.Time) {
			out.Time = d.Time
		}
		out.Schedules += d.Schedules
		// Every part ran the same race-detection phase (the same seed): it is one phase.
		out.DetectionSchedules = max(out.DetectionSchedules, d.DetectionSchedules)
		for _, p := range d.RacyPoints {
			racy[p] = true
		}
		for _, r := range d.Races {
			k := r.Key()
			if i, ok := raceIndex[k]; ok {
				m := &out.Races[i]
				m.Schedules += r.Schedules
				if r.FirstSchedule < m.FirstSchedule {
					m.FirstSchedule = r.FirstSchedule
				}
				continue
			}
			raceIndex[k] = len(out.Races)
			out.Races = append(out.Races, r)
		}
		for _, b := range d.Bugs {
			// The same bug found by two parts is one, with the first part's schedule.
			if !slices.ContainsFunc(out.Bugs, func(x Bug) bool { return x.Kind == b.Kind && x.Message == b.Message && x.Pos == b.Pos }) {
				out.Bugs = append(out.Bugs, b)
			}
		}
		for file, h := range d.Files {
			if _, ok := out.Files[file]; !ok {
				out.Files[file] = h
			}
		}
		parts = append(parts, strings.Split(d.Part, ";")...)
	}
	out.RacyPoints = slices.Sorted(maps.Keys(racy))
	sort.SliceStable(out.Races, func(i, j int) bool { return out.Races[i].Key() < out.Races[j].Key() })
	out.Part = UnionOfParts(parts)
	if out.Races == nil {
		out.Races = []Race{}
	}
	if len(out.Files) == 0 {
		out.Files = nil
	}
	return out, nil
}

func formatParams(p map[string]string) string {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(p)) {
		kv = append(kv, k+"="+p[k])
	}
	return strings.Join(kv, ",")
}

// UnionOfParts names the union of parts ("i/n" levels joined by ","): the parts that
// together make their parent (every i of an n under the same levels) are replaced by it,
// repeatedly; "" — the whole exploration — absorbs everything. What remains is joined by
// ";", sorted.
func UnionOfParts(parts []string) string {
	set := map[string]bool{}
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return ""
		}
		set[p] = true
	}
	for changed := true; changed; {
		changed = false
		// Group the parts by their parent and their last level's count.
		groups := map[string][]string{}
		for p := range set {
			parent, last := "", p
			if i := strings.LastIndexByte(p, ','); i >= 0 {
				parent, last = p[:i], p[i+1:]
			}
			_, n, ok := strings.Cut(last, "/")
			if !ok {
				continue
			}
			groups[parent+"\x00"+n] = append(groups[parent+"\x00"+n], p)
		}
		for key, members := range groups {
			parent, n, _ := strings.Cut(key, "\x00")
			count, err := strconv.Atoi(n)
			if err != nil || len(members) != count {
				continue
			}
			for _, m := range members {
				delete(set, m)
			}
			if parent == "" {
				return ""
			}
			set[parent] = true
			changed = true
			break
		}
	}
	return strings.Join(slices.Sorted(maps.Keys(set)), ";")
}
