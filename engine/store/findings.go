package store

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/findings"
	"github.com/interleave-dev/interleave/engine/schedule"
)

// Findings is the findings document of an exploration of the test info in the module at root:
// the races of rep, its first bug with the schedule saved at bugPath ("" when none was
// saved), the schedules it ran, and the hashes of the files they name. The test process
// writes it at the end of an exploration, whether the interleave command or the debug
// adapter started it; the caller adds how the test was explored (Params, Seed, Budget, Part,
// Points, RacyPoints, DetectionSchedules).
func Findings(root string, info schedule.Test, rep *engine.Report, bugPath string) *findings.File {
	f := &findings.File{
		Test:      info,
		Time:      time.Now().UTC(),
		Strategy:  rep.Strategy,
		Build:     BuildID(),
		Schedules: rep.Schedules,
	}
	for _, r := range rep.Races {
		f.Races = append(f.Races, findings.Race{
			A: findingAccess(root, r.A), B: findingAccess(root, r.B),
			FirstSchedule: r.Schedule, Schedules: r.Schedules,
		})
	}
	if b := rep.First; b != nil && b.Bug != nil {
		f.Bugs = append(f.Bugs, findings.Bug{Kind: string(b.Bug.Kind), Message: b.Bug.Message, Pos: engine.RelativePos(root, b.Bug.Pos), Schedule: bugPath})
	}
	f.Files = findings.HashFiles(root, namedFiles(f))
	return f
}

// namedFiles lists the module's files that the document's positions name.
func namedFiles(f *findings.File) []string {
	var files []string
	add := func(pos string) {
		if file, _, _, ok := findings.ParsePos(pos); ok && !filepath.IsAbs(file) {
			files = append(files, file)
		}
	}
	for _, r := range f.Races {
		add(r.A.Pos)
		add(r.B.Pos)
		add(r.A.Created)
		add(r.B.Created)
	}
	for _, b := range f.Bugs {
		add(b.Pos)
	}
	return files
}

func findingAccess(root string, a engine.RaceAccess) findings.Access {
	pos := engine.RelativePos(root, a.Pos)
	file, line, col, _ := findings.ParsePos(pos)
	out := findings.Access{Pos: pos, File: file, Line: line, Col: col, Op: a.Op(), Goroutine: int(a.G), Created: engine.RelativePos(root, a.Created)}
	for _, fr := range a.Stack {
		// The instrumenter renamed TestXxx to __ilTestXxx (see FormatFailure).
		fn := strings.Replace(fr.Func, ".__ilTest", ".Test", 1)
		out.Stack = append(out.Stack, findings.Frame{Func: fn, File: fr.File, Line: fr.Line})
	}
	return out
}
