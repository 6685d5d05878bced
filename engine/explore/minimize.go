package explore

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine/minimize"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/srcmap"
	"github.com/interleave-dev/interleave/engine/store"
)

// minimizeSchedule shrinks the schedule at path to fewer preemptions, within opts.Time, and
// replaces the file with the result; the schedule as found is kept beside it. It returns the
// preemptions before and after.
func minimizeSchedule(body func(*T), f *schedule.File, path string, opts minimize.Options) (before, after int, err error) {
	res, err := minimize.Minimize(body, f, opts)
	if err != nil {
		return 0, 0, err
	}
	if res.After >= res.Before {
		return res.Before, res.Before, nil
	}
	// The schedule as found is copied beside it, never over another file, and the minimized
	// one then replaces it in place: its name is never free for another writer to take.
	orig := strings.TrimSuffix(path, ".json") + ".found.json"
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	if err := store.WriteNew(orig, data); err != nil {
		return 0, 0, fmt.Errorf("keep the schedule as found: %w", err)
	}
	res.File.Source = nil // the positions of this execution, in the source as it is
	srcmap.Annotate(res.File, opts.Root)
	if err := res.File.Save(path); err != nil {
		return 0, 0, err
	}
	return res.Before, res.After, nil
}

// minimizeFile minimizes the schedule file at path (interleave minimize) into out.
func minimizeFile(t testing.TB, body func(*T), o options, info schedule.Test, path, out string) {
	t.Helper()
	e := resultEvent(t.Name(), info, &Report{Strategy: "minimize"})
	f, err := schedule.Load(path)
	if err == nil {
		relativeBug(f, o.config.Root)
		err = f.Check(info)
		if errors.Is(err, schedule.ErrOtherBuild) && !o.strict {
			e.Notice = fmt.Sprintf("%v; minimizing it anyway (its replays stop at the first divergence)", err)
			err = nil
		}
	}
	var res *minimize.Result
	if err == nil {
		// Its positions as they are in the source now, which the minimized one records.
		f, _ = srcmap.Relocate(f, o.config.Root)
		res, err = minimize.Minimize(body, f, minimize.Options{Time: o.minimize, Root: o.config.Root})
	}
	if err == nil {
		// The minimized schedule was executed by this build.
		res.File.Test.Build = info.Build
		res.File.Source = nil
		srcmap.Annotate(res.File, o.config.Root)
		err = res.File.Save(out)
	}
	if err != nil {
		e.Stopped, e.Error = "error", err.Error()
		o.events.write(e)
		t.Fatalf("interleave: minimize %s: %v", path, err)
	}
	e.Bug = &EventBug{Kind: string(res.Bug.Kind), Message: res.Bug.Message, Position: res.Bug.Pos, Schedule: out,
		Preemptions: res.After, FoundPreemptions: res.Before, Step: res.Bug.Step}
	e.Schedules = res.Executions
	o.events.write(e)
}
