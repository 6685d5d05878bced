// Package diagnose turns what the results stores of a workspace hold into what an editor
// shows on the source: a diagnostic on each racy access, bug and construct left
// uninstrumented, with related information, hover text and code actions. Its ranges follow
// the unsaved edits of open files (Doc) and say when a finding comes from a run before its
// file changed. It speaks go.lsp.dev/protocol's types but knows nothing of JSON-RPC: the
// language server (package lsp) calls it from its handlers.
package diagnose

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/interleave-dev/interleave/engine/findings"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/lsp/store"
)

// Source is the value of every diagnostic's source field.
const Source = "interleave"

// RaceDocs is where a race diagnostic's code links: the page on data races (docs/races.md).
const RaceDocs = "https://github.com/interleave-dev/interleave/blob/main/docs/races.md#data-races"

// Codes of the diagnostics: "race", a bug's kind ("deadlock", "leak", "panic", "fail", ...),
// and CodeNotInstrumented.
const (
	CodeRace            = "race"
	CodeNotInstrumented = "not-instrumented"
)

// The commands the diagnostics' hovers, code actions and code lenses carry, which the client
// runs (the VS Code extension implements them). Their arguments are, in order, the module
// directory, the package directory and the test's name, then the schedule file (replay) or
// an object of options for interleave test (explore: {"points": "all"}, {"races": "fail"}).
const (
	CommandExplore  = "interleave.explore"
	CommandReplay   = "interleave.replay"
	CommandTimeline = "interleave.showTimeline"
)

// Pos is a position as the store has it: an absolute file, a 1-based line and a 1-based
// byte column (0: the whole line).
type Pos struct {
	File      string
	Line, Col int
}

// String is "file:line:col", or "file:line" without a column.
func (p Pos) String() string {
	if p.Col > 0 {
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// short is "file.go:12", as messages name positions.
func (p Pos) short() string { return fmt.Sprintf("%s:%d", filepath.Base(p.File), p.Line) }

// Item is one thing to show at a position of a file.
type Item struct {
	Code     string
	Pos      Pos
	Expr     bool   // the range is the operand at Pos, not the line
	Hash     string // the content hash of Pos.File when the store wrote the item ("" unknown)
	Severity protocol.DiagnosticSeverity
	// Message returns the diagnostic's message; operand is the source of the expression at
	// Pos ("" when not found).
	Message func(operand string) string
	Related []Related
	// Hover returns the Markdown shown on the item.
	Hover func(operand string) string
	// Actions are the code actions offered on the item.
	Actions []protocol.Command
}

// Related is a related position of an item.
type Related struct {
	Pos     Pos
	Expr    bool
	Hash    string
	Message string
}

// Build returns the items of the snapshots by absolute file. schedules loads a bug's
// schedule file when the snapshot does not hold it (nil: not loaded).
func Build(snaps []*store.Snapshot, schedules func(path string) *schedule.File) map[string][]*Item {
	out := make(map[string][]*Item)
	add := func(it *Item) { out[it.Pos.File] = append(out[it.Pos.File], it) }
	for _, snap := range snaps {
		buildRaces(snap, add)
		for _, f := range snap.Findings {
			for _, b := range f.Bugs {
				sched := snap.Schedule(b.Schedule)
				if sched == nil && schedules != nil && b.Schedule != "" {
					sched = schedules(b.Schedule)
				}
				if it := bugItem(snap.Module, f, b, sched); it != nil {
					add(it)
				}
			}
		}
		for _, d := range snap.Instrument {
			for _, p := range d.Problems {
				msg := "not instrumented: " + p.Message + " — the scheduler does not control this operation"
				add(&Item{
					Code: CodeNotInstrumented, Pos: Pos{abs(snap.Module.Root, p.File), p.Line, p.Col},
					Hash: d.Files[p.File], Severity: protocol.DiagnosticSeverityInformation,
					Message: func(string) string { return msg },
					Hover: func(string) string {
						return "**Not instrumented** (package " + mdCode(d.Package) + ")\n\n" + mdText(p.Message) +
							"\n\nThe rewriter left this construct as it was: executions are not controlled (or observed by the race detector) here."
					},
				})
			}
		}
	}
	for _, items := range out {
		sort.SliceStable(items, func(i, j int) bool {
			a, b := items[i].Pos, items[j].Pos
			if a.Line != b.Line {
				return a.Line < b.Line
			}
			return a.Col < b.Col
		})
	}
	return out
}

// abs joins a module-relative, slash-separated file to the module root.
func abs(root, file string) string {
	if filepath.IsAbs(file) {
		return filepath.Clean(file)
	}
	return filepath.Join(root, filepath.FromSlash(file))
}

// posOf parses a store position ("file:line:col" relative to the module root).
func posOf(root, pos string) (Pos, bool) {
	file, line, col, ok := findings.ParsePos(pos)
	if !ok || file == "" || line < 1 {
		return Pos{}, false
	}
	return Pos{abs(root, file), line, col}, true
}

// pkgDir is the directory of package pkg of module m.
func pkgDir(m store.Module, pkg string) string {
	if pkg == m.Path {
		return m.Root
	}
	if rel, ok := strings.CutPrefix(pkg, m.Path+"/"); ok {
		return filepath.Join(m.Root, filepath.FromSlash(rel))
	}
	return m.Root
}

// testRun is one test's view of a race.
type testRun struct {
	f    *findings.File
	race findings.Race
}

// buildRaces makes one item per end of each race, with the tests that showed it.
func buildRaces(snap *store.Snapshot, add func(*Item)) {
	byKey := make(map[string][]testRun)
	var keys []string
	for _, f := range snap.Findings {
		for _, r := range f.Races {
			k := r.Key()
			if _, ok := byKey[k]; !ok {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], testRun{f, r})
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		runs := byKey[k]
		sort.SliceStable(runs, func(i, j int) bool { return runs[i].race.Schedules > runs[j].race.Schedules })
		first := runs[0]
		a, b := first.race.A, first.race.B
		for _, end := range [][2]findings.Access{{a, b}, {b, a}} {
			if it := raceItem(snap.Module, runs, end[0], end[1]); it != nil {
				add(it)
			}
			if a.Pos == b.Pos {
				break // both accesses at one place: one diagnostic
			}
		}
	}
}

func raceItem(m store.Module, runs []testRun, this, other findings.Access) *Item {
	pos, ok := posOf(m.Root, this.Pos)
	if !ok {
		return nil
	}
	otherPos, _ := posOf(m.Root, other.Pos)
	f := runs[0].f
	seen := seenIn(runs)
	started := func(a findings.Access) string {
		if a.Goroutine == 0 || a.Created == "" {
			return fmt.Sprintf("G%d (the test)", a.Goroutine)
		}
		p, _ := posOf(m.Root, a.Created)
		return fmt.Sprintf("G%d (started at %s)", a.Goroutine, p.short())
	}
	it := &Item{
		Code: CodeRace, Pos: pos, Expr: true, Hash: f.Files[this.File],
		Severity: protocol.DiagnosticSeverityWarning,
	}
	it.Message = func(operand string) string {
		what := this.Op
		if operand != "" {
			what += " of " + operand
		}
		otherG := started(other)
		if other.Created == this.Created && other.Goroutine != 0 {
			otherG = fmt.Sprintf("G%d", other.Goroutine)
		}
		where := ""
		if otherPos.File != "" && (otherPos.File != pos.File || otherPos.Line != pos.Line) {
			where = " at " + otherPos.short()
		}
		return fmt.Sprintf("data race: %s by %s and %s by %s%s — seen in %s", what, started(this), other.Op, otherG, where, seen)
	}
	if otherPos.File != "" {
		it.Related = append(it.Related, Related{Pos: otherPos, Expr: true, Hash: f.Files[other.File],
			Message: fmt.Sprintf("the other access: %s by G%d", other.Op, other.Goroutine)})
	}
	for _, a := range []findings.Access{this, other} {
		if p, ok := posOf(m.Root, a.Created); ok {
			file, _, _, _ := findings.ParsePos(a.Created)
			it.Related = append(it.Related, Related{Pos: p, Hash: f.Files[file],
				Message: fmt.Sprintf("G%d (the %s) was started here", a.Goroutine, a.Op)})
		}
	}
	it.Hover = func(operand string) string { return raceHover(m, runs, this, other, operand, seen) }
	for _, r := range runs {
		suffix := ""
		if len(runs) > 1 {
			suffix = " (" + r.f.Test.Name + ")"
		}
		args := []any{m.Root, pkgDir(m, r.f.Test.Package), r.f.Test.Name}
		it.Actions = append(it.Actions,
			protocol.Command{Title: "Replay the schedule that showed this" + suffix, Command: CommandExplore,
				Arguments: append(args[:3:3], map[string]string{"races": "fail", "points": "all"})},
			protocol.Command{Title: "Explore this test with every access as a scheduling point" + suffix, Command: CommandExplore,
				Arguments: append(args[:3:3], map[string]string{"points": "all"})},
			protocol.Command{Title: "Show the race in the timeline" + suffix, Command: CommandTimeline,
				Arguments: append(args[:3:3], map[string]any{"findings": r.f.Path, "race": r.race.Key(), "firstSchedule": r.race.FirstSchedule})},
		)
	}
	return it
}

// seenIn says how often the runs showed the race: "412 of 10,100 schedules of TestA".
func seenIn(runs []testRun) string {
	var parts []string
	for i, r := range runs {
		unit := " schedules"
		if i > 0 {
			unit = ""
		}
		parts = append(parts, fmt.Sprintf("%s of %s%s of %s", thousands(r.race.Schedules), thousands(r.f.Schedules+r.f.DetectionSchedules), unit, r.f.Test.Name))
	}
	return strings.Join(parts, ", ")
}

// thousands formats n with commas: 10,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// oneLine puts a bug's message on one line: "all goroutines are blocked:" and the goroutines
// below it become "all goroutines are blocked: G0 wg.wait at a.go:28:2, G1 lock at b.go:46:2";
// a long message is cut.
func oneLine(msg string) string {
	var parts []string
	for _, l := range strings.Split(strings.TrimSpace(msg), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	out := parts[0]
	if len(parts) > 1 {
		sep := "; "
		if strings.HasSuffix(out, ":") {
			sep = " "
		}
		out += sep + strings.Join(parts[1:], ", ")
	}
	if r := []rune(out); len(r) > 300 {
		out = string(r[:299]) + "…"
	}
	return out
}

// bugItem is the error of a bug, with the goroutines of its schedule as related
// information.
func bugItem(m store.Module, f *findings.File, b findings.Bug, sched *schedule.File) *Item {
	pos, ok := posOf(m.Root, b.Pos)
	var gs []schedule.Goroutine
	if sched != nil && sched.Bug != nil {
		gs = sched.Bug.Goroutines
	}
	if !ok {
		// A bug without a position of its own (a deadlock): the first blocked goroutine's.
		for _, g := range gs {
			if p, ok2 := posOf(m.Root, g.Pos); ok2 && g.Status == "blocked" {
				pos, ok = p, true
				break
			}
		}
	}
	if !ok {
		return nil
	}
	file, _, _, _ := findings.ParsePos(b.Pos)
	first := oneLine(b.Message)
	schedName := ""
	if b.Schedule != "" {
		schedName = filepath.Base(b.Schedule)
	}
	it := &Item{
		Code: b.Kind, Pos: pos, Hash: f.Files[file], Severity: protocol.DiagnosticSeverityError,
	}
	it.Message = func(string) string {
		msg := fmt.Sprintf("%s in %s: %s", b.Kind, f.Test.Name, first)
		if schedName != "" {
			msg += " (schedule " + schedName + ")"
		}
		return msg
	}
	for _, g := range gs {
		if g.Status != "blocked" {
			continue
		}
		if p, ok := posOf(m.Root, g.Pos); ok {
			what := "pending operation"
			if g.Op != "" {
				what = g.Op
			}
			it.Related = append(it.Related, Related{Pos: p, Message: fmt.Sprintf("G%d is blocked: %s", g.ID, what)})
		}
		if b.Kind == "leak" && g.ID != 0 {
			if p, ok := posOf(m.Root, g.Created); ok {
				it.Related = append(it.Related, Related{Pos: p, Message: fmt.Sprintf("G%d was started here", g.ID)})
			}
		}
	}
	it.Hover = func(string) string { return bugHover(m, f, b, sched) }
	args := []any{m.Root, pkgDir(m, f.Test.Package), f.Test.Name}
	if b.Schedule != "" {
		it.Actions = append(it.Actions, protocol.Command{Title: "Replay the schedule that showed this", Command: CommandReplay,
			Arguments: append(args[:3:3], b.Schedule)})
	}
	it.Actions = append(it.Actions, protocol.Command{Title: "Explore this test with every access as a scheduling point", Command: CommandExplore,
		Arguments: append(args[:3:3], map[string]string{"points": "all"})})
	if b.Schedule != "" {
		it.Actions = append(it.Actions, protocol.Command{Title: "Show the " + b.Kind + " in the timeline", Command: CommandTimeline,
			Arguments: append(args[:3:3], map[string]any{"schedule": b.Schedule})})
	}
	return it
}
