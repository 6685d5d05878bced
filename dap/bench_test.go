package dap_test

import (
	"fmt"
	"path/filepath"
	"sort"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/interleave-dev/interleave/dap"
)

// BenchmarkStepLatency measures, on a schedule of about 10,000 steps (testdata/long), the
// median latency of what a developer waits for: a next (request to stopped event), a step
// back at step 1,000 (the execution is replaced by one that re-executes 999 steps) and at the
// end of the schedule, and a full variables fetch at a new stop (threads, the top frame of every goroutine, its
// Scheduler and Locals scopes: Delve halts the process and reads it). Run it with
// -benchtime=1x: one iteration takes samples of each.
func BenchmarkStepLatency(b *testing.B) {
	dir := copyModule(b, filepath.Join("testdata", "long"))
	c := driver{b, session(b, dap.Config{})}
	c.Timeout = 5 * time.Minute
	if err := c.Start(map[string]any{"type": "interleave", "request": "launch", "mode": "explore", "program": dir, "test": "TestLong", "schedules": 1}, nil); err != nil {
		b.Fatal(err)
	}
	st := c.stopped()
	if st.Body.Reason != "exception" {
		b.Fatalf("stopped %+v", st.Body)
	}
	var total int
	fmt.Sscanf(c.stepOf(st.Body.ThreadId), "%d of %d", new(int), &total)
	if total < 2000 {
		b.Fatalf("the schedule has %d steps, want a long one", total)
	}
	timed := func(f func()) float64 {
		start := time.Now()
		f()
		return float64(time.Since(start).Microseconds()) / 1000
	}
	var next, back, backEnd, vars []float64
	for n := 0; n < 10; n++ {
		// At the end of the schedule, going back re-executes all of it.
		backEnd = append(backEnd, timed(func() {
			c.call("stepBack", map[string]any{"threadId": st.Body.ThreadId})
			st = c.stopped()
		}))
		c.call("next", map[string]any{"threadId": st.Body.ThreadId})
		st = c.stopped()
	}
	for i := 0; i < b.N; i++ {
		c.call("restart", nil)
		st = c.stopped()
		for n := 0; n < 1000; n++ {
			next = append(next, timed(func() {
				c.call("next", map[string]any{"threadId": st.Body.ThreadId})
				st = c.stopped()
			}))
		}
		if got := c.stepOf(st.Body.ThreadId); got != fmt.Sprintf("1001 of %d", total) {
			b.Fatalf("after 1000 next: step %s", got)
		}
		for n := 0; n < 20; n++ {
			back = append(back, timed(func() {
				c.call("stepBack", map[string]any{"threadId": st.Body.ThreadId})
				st = c.stopped()
			}))
			c.call("next", map[string]any{"threadId": st.Body.ThreadId})
			st = c.stopped()
			vars = append(vars, timed(func() {
				for _, th := range c.threads() {
					fs := c.stack(th.Id)
					if len(fs) == 0 {
						continue
					}
					for _, sc := range c.call("scopes", map[string]any{"frameId": fs[0].Id}).(*godap.ScopesResponse).Body.Scopes {
						if len(c.variables(sc.VariablesReference)) == 0 {
							b.Fatalf("scope %s of %s is empty", sc.Name, th.Name)
						}
					}
				}
			}))
		}
	}
	b.ReportMetric(median(next), "ms/next")
	b.ReportMetric(median(back), "ms/stepBack@1000")
	b.ReportMetric(median(backEnd), "ms/stepBack@end")
	b.ReportMetric(median(vars), "ms/variables")
	b.ReportMetric(float64(total), "steps")
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}
