// The order the tests start in: longest first, by what they took in the module's last runs.

package test

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/report"
	"github.com/interleave-dev/interleave/engine/store"
)

// pastRuns is how many of the newest run summaries pastDurations reads.
const pastRuns = 10

// startOrder is the order in which runJobs starts the jobs: the tests without a known
// duration first, in their order, then the others longest first (Graham's LPT rule), by
// past, what each test's exploration took in an earlier run (pastDurations). With several
// worker processes, a long test that starts last keeps one of them busy after the others
// finished: gammazero/workerpool's TestDoConcurrentStop, 4.4s of its package's 11s of
// explorations, is its nineteenth test of twenty, and the run took 7.6s on two workers where
// 5.6s could do. The output stays in the tests' order. A test never seen starts first, as
// it would if its duration were the longest: nothing is known of it.
func startOrder(jobs []*testJob, past map[string]time.Duration) []*testJob {
	order := slices.Clone(jobs)
	known := func(j *testJob) (time.Duration, bool) {
		d, ok := past[j.pkg.ImportPath+" "+j.test]
		return d, ok
	}
	sort.SliceStable(order, func(a, b int) bool {
		da, ka := known(order[a])
		db, kb := known(order[b])
		if ka != kb {
			return !ka
		}
		return da > db
	})
	return order
}

// pastDurations reads what the explorations of the tests took in the newest run summaries
// of the results store of the module at dir (.interleave/runs): for each package and test
// ("pkg test"), its newest duration. Summaries that cannot be read are skipped: the order is
// an optimization, and without them the tests start in their order.
func pastDurations(dir string) map[string]time.Duration {
	past := map[string]time.Duration{}
	if dir == "" {
		return past
	}
	root, _, ok := store.FindModule(dir)
	if !ok {
		root = dir
	}
	runsDir := filepath.Join(root, store.Dir, "runs") // where saveRun writes
	entries, err := os.ReadDir(runsDir)
	if err != nil {
		return past
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			names = append(names, e.Name())
		}
	}
	// The names are the runs' times: the newest sort last.
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	for _, name := range names[:min(len(names), pastRuns)] {
		doc, err := report.LoadSummary(filepath.Join(runsDir, name))
		if err != nil {
			continue
		}
		for _, o := range doc.Tests {
			key := o.Package + " " + o.Test
			if _, ok := past[key]; ok || o.Interrupted || o.Result == nil {
				continue
			}
			past[key] = time.Duration(o.Result.Elapsed * float64(time.Second))
		}
	}
	return past
}
