package strategy

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
)

func periodCollect(gen func([]int, int, periodPrefix, func(periodSchedule) bool), k []int, p int, pfx periodPrefix) []string {
	var out []string
	gen(k, p, pfx, func(s periodSchedule) bool {
		out = append(out, s.String())
		return true
	})
	return out
}

// words returns every interleaving of the threads of k (thread t k[t] times).
func periodWords(k []int) [][]int {
	var out [][]int
	left := slices.Clone(k)
	var w []int
	total := 0
	for _, n := range k {
		total += n
	}
	var rec func()
	rec = func() {
		if len(w) == total {
			out = append(out, slices.Clone(w))
			return
		}
		for t := range left {
			if left[t] > 0 {
				left[t]--
				w = append(w, t)
				rec()
				w = w[:len(w)-1]
				left[t]++
			}
		}
	}
	rec()
	return out
}

// runs turns an interleaving into its serialized schedule: one period per maximal run.
func periodRuns(w []int) []periodSlot {
	var out []periodSlot
	for _, t := range w {
		if n := len(out); n > 0 && out[n-1].t == t {
			out[n-1].n++
		} else {
			out = append(out, periodSlot{t, 1})
		}
	}
	return out
}

// periodBruteSerial is the serialized schedule space by brute force: every interleaving is exactly
// one serialized schedule, with as many periods as it has runs. The order is the one the
// generator documents: patterns lexicographically, then counts lexicographically decreasing.
func periodBruteSerial(k []int, p int) [][]periodSlot {
	var out [][]periodSlot
	for _, w := range periodWords(k) {
		if r := periodRuns(w); len(r) == p {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b []periodSlot) int {
		for i := range a {
			if a[i].t != b[i].t {
				return a[i].t - b[i].t
			}
		}
		for i := range a {
			if a[i].n != b[i].n {
				return b[i].n - a[i].n
			}
		}
		return 0
	})
	return out
}

func periodSerialStrings(ss [][]periodSlot) []string {
	var out []string
	for _, s := range ss {
		ps := make(periodSchedule, len(s))
		for i := range s {
			ps[i] = []periodSlot{s[i]}
		}
		out = append(out, ps.String())
	}
	return out
}

// TestPeriodPaperExample is §3.2.1's illustration: the 4-period schedules of the slice with 3
// key points in t0, 2 in t1 and 1 in t2. The first pattern is [t0][t1][t0][t2], the next
// [t0][t1][t2][t0], and the first pattern gives exactly two schedules, t0's remaining key
// point going to its first or its third period.
func TestPeriodPaperExample(t *testing.T) {
	got := periodCollect(genSerial, []int{3, 2, 1}, 4, emptyPrefix)
	want := []string{"[t0×2][t1×2][t0][t2]", "[t0][t1×2][t0×2][t2]"}
	if len(got) < 3 || !slices.Equal(got[:2], want) || !strings.HasPrefix(got[2], "[t0") {
		t.Fatalf("first schedules %v, want %v then pattern [t0][t1][t2][t0]", got[:min(3, len(got))], want)
	}
	var patterns []string
	for _, s := range got {
		var b strings.Builder
		for _, per := range strings.Split(strings.TrimPrefix(s, "["), "[") {
			b.WriteString("[" + strings.SplitN(strings.TrimSuffix(per, "]"), "×", 2)[0] + "]")
		}
		if p := b.String(); len(patterns) == 0 || patterns[len(patterns)-1] != p {
			patterns = append(patterns, p)
		}
	}
	if patterns[0] != "[t0][t1][t0][t2]" || patterns[1] != "[t0][t1][t2][t0]" {
		t.Errorf("patterns start %v, want [t0][t1][t0][t2] then [t0][t1][t2][t0]", patterns[:2])
	}
	t.Logf("slice (3,2,1), 4 periods: %d schedules in %d patterns; first %v", len(got), len(patterns), got[:4])
}

// TestPeriodSerialGenerator checks the generator against the brute-force space, order
// included, and that every interleaving is one serialized schedule: the counts over p sum to
// the multinomial coefficient.
func TestPeriodSerialGenerator(t *testing.T) {
	tests := []struct {
		k     []int
		total int // |k|! / Π k[t]!
	}{
		{[]int{1, 1}, 2}, // s0 of §2.2: [t0][t1] and [t1][t0]
		{[]int{3, 2, 1}, 60},
		{[]int{2, 2}, 6},
		{[]int{1, 1, 1}, 6},
		{[]int{2, 2, 2}, 90},
		{[]int{4, 1, 2}, 105},
		{[]int{3, 0, 2}, 10}, // a thread with no key point is in no period
	}
	for _, tt := range tests {
		sum := 0
		var counts []string
		for p := 1; p <= 8; p++ {
			got := periodCollect(genSerial, tt.k, p, emptyPrefix)
			want := periodSerialStrings(periodBruteSerial(tt.k, p))
			if !slices.Equal(got, want) {
				t.Errorf("slice %v, %d periods:\n got %v\nwant %v", tt.k, p, got, want)
			}
			sum += len(got)
			counts = append(counts, fmt.Sprint(len(got)))
		}
		if sum != tt.total {
			t.Errorf("slice %v: %d schedules in all, want %d", tt.k, sum, tt.total)
		}
		t.Logf("slice %v: serialized schedules for p = 1..8: %s", tt.k, strings.Join(counts, " "))
	}
}

// periodBruteParallel is the parallel scheduler's space by its definition (§3.2.2): every
// combination of 1..min(p, n) threads in order, the brute-force serialized schedules of the
// chosen threads, the neglected threads added to the last period; duplicates dropped.
func periodBruteParallel(k []int, p int) []string {
	n := len(k)
	seen := map[string]bool{}
	var out []string
	for size := 1; size <= min(p, n); size++ {
		var combs [][]int
		var rec func(from int, c []int)
		rec = func(from int, c []int) {
			if len(c) == size {
				combs = append(combs, slices.Clone(c))
				return
			}
			for i := from; i < n; i++ {
				rec(i+1, append(c, i))
			}
		}
		rec(0, nil)
		for _, c := range combs {
			sub := make([]int, n)
			for _, t := range c {
				sub[t] = k[t]
			}
			for _, ser := range periodBruteSerial(sub, p) {
				s := make(periodSchedule, p)
				for i := 0; i < p-1; i++ {
					s[i] = []periodSlot{ser[i]}
				}
				for t := 0; t < n; t++ {
					if t == ser[p-1].t {
						s[p-1] = append(s[p-1], ser[p-1])
					} else if !slices.Contains(c, t) {
						s[p-1] = append(s[p-1], periodSlot{t, k[t]})
					}
				}
				if key := s.String(); !seen[key] {
					seen[key] = true
					out = append(out, key)
				}
			}
		}
	}
	return out
}

// TestPeriodParallelGenerator checks the parallel generator against its definition, and
// that it needs far fewer schedules than the serialized one for many threads (§4.2).
func TestPeriodParallelGenerator(t *testing.T) {
	tests := []struct {
		k []int
		p int
	}{
		{[]int{1, 1}, 1}, {[]int{1, 1}, 2},
		{[]int{3, 2, 1}, 2}, {[]int{3, 2, 1}, 3}, {[]int{3, 2, 1}, 4},
		{[]int{2, 2, 2, 2}, 3},
		{[]int{2, 2, 2, 2, 2, 2, 2, 2, 2, 3}, 3}, // reorder_10's slice
	}
	for _, tt := range tests {
		got := periodCollect(genParallel, tt.k, tt.p, emptyPrefix)
		want := periodBruteParallel(tt.k, tt.p)
		if !slices.Equal(got, want) {
			t.Errorf("slice %v, %d periods:\n got %v\nwant %v", tt.k, tt.p, got, want)
		}
		t.Logf("slice %v, %d periods: %d parallel schedules, %d serialized", tt.k, tt.p, len(got), len(periodCollect(genSerial, tt.k, tt.p, emptyPrefix)))
	}
	if got := periodCollect(genParallel, []int{1, 1, 1}, 1, emptyPrefix); !slices.Equal(got, []string{"[t0 t1 t2]"}) {
		t.Errorf("1 period: %v, want the one schedule [t0 t1 t2]", got)
	}
}

// TestPeriodPrefix checks prefixes: generation under a prefix is the filter of the whole
// space, getPrefix follows §3.4's example, and common is satisfied by both prefixes.
func TestPeriodPrefix(t *testing.T) {
	pfxs := []periodPrefix{
		emptyPrefix,
		{pat: 1},
		{lit: []periodSlot{{0, 2}}, pat: 1},
		{lit: []periodSlot{{0, 1}, {1, 2}}, pat: 0},
		{lit: []periodSlot{{0, 1}, {1, 1}, {0, 1}}, pat: 2},
		{lit: []periodSlot{{2, 1}}, pat: -1},
	}
	for _, gen := range []struct {
		name string
		f    func([]int, int, periodPrefix, func(periodSchedule) bool)
	}{{"serial", genSerial}, {"parallel", genParallel}} {
		for _, pfx := range pfxs {
			for p := 1; p <= 5; p++ {
				var want []string
				gen.f([]int{3, 2, 1}, p, emptyPrefix, func(s periodSchedule) bool {
					if pfx.satisfies(s) {
						want = append(want, s.String())
					}
					return true
				})
				if got := periodCollect(gen.f, []int{3, 2, 1}, p, pfx); !slices.Equal(got, want) {
					t.Errorf("%s, prefix %v, %d periods:\n got %v\nwant %v", gen.name, pfx, p, got, want)
				}
			}
		}
	}
	// §3.4: [t0×4][t1][t0×3] after [t0×5][t1][t0×2]: the fifth key point differs, the prefix
	// is {[t0×4]}[t1].
	cur := periodSchedule{{{0, 4}}, {{1, 1}}, {{0, 3}}}
	prev := periodSchedule{{{0, 5}}, {{1, 1}}, {{0, 2}}}
	if got := getPrefix(cur, prev).String(); got != "{[t0×4]}[t1]" {
		t.Errorf("getPrefix = %s, want {[t0×4]}[t1]", got)
	}
	if got := getPrefix(cur, nil).String(); got != "{}[t0]" {
		t.Errorf("getPrefix after the empty schedule = %s, want {}[t0]", got)
	}
	for _, a := range pfxs {
		for _, b := range pfxs {
			c := a.common(b)
			for p := 1; p <= 5; p++ {
				genSerial([]int{3, 2, 1}, p, emptyPrefix, func(s periodSchedule) bool {
					if (a.satisfies(s) || b.satisfies(s)) && !c.satisfies(s) {
						t.Errorf("common(%v, %v) = %v is not satisfied by %v", a, b, c, s)
					}
					return true
				})
			}
		}
	}
}

// periodFixed runs one given schedule through PERIOD's periodical executor.
type periodFixed struct {
	*Period
	sch    periodSchedule
	counts []int
}

func (f *periodFixed) Begin() bool {
	f.cur, f.job = f.sch, &periodJob{counts: f.counts}
	f.period, f.lastW, f.spun = 0, engine.NoGoroutine, engine.NoGoroutine
	f.executedKP, f.assign, f.yieldedIn = nil, nil, nil
	f.start()
	return true
}

func (f *periodFixed) End(*engine.Result) {}

// TestPeriodExecutor checks that executions follow their schedules (§3.3): key points run in
// their periods, extra key points in their thread's last period, threads outside the
// schedule in the last period, and a thread blocked in its period runs late.
func TestPeriodExecutor(t *testing.T) {
	straight := func(k ...int) func(*engine.T) {
		return func(*engine.T) {
			vars := make([]int, len(k))
			var fs []func()
			for i, n := range k {
				fs = append(fs, func() {
					for j := range n {
						engine.Write(unsafe.Pointer(&vars[i]), fmt.Sprintf("%d.%d", i, j))
					}
				})
			}
			engine.GoAll(fs, "go")
		}
	}
	blocked := func(*engine.T) {
		var mu sync.Mutex
		var x int
		engine.GoAll([]func(){
			func() {
				engine.Lock(&mu, "0.lock")
				engine.Write(unsafe.Pointer(&x), "0.w")
				engine.Unlock(&mu, "0.unlock")
			},
			func() {
				engine.Lock(&mu, "1.lock")
				engine.Write(unsafe.Pointer(&x), "1.w")
				engine.Unlock(&mu, "1.unlock")
			},
		}, "go")
	}
	tests := []struct {
		name   string
		body   func(*engine.T)
		sch    periodSchedule
		counts []int
		want   string
	}{
		{"paper example", straight(3, 2, 1), periodSchedule{{{0, 2}}, {{1, 2}}, {{0, 1}}, {{2, 1}}}, []int{3, 2, 1},
			"go 0.0 0.1 1.0 1.1 0.2 2.0"},
		{"second allocation", straight(3, 2, 1), periodSchedule{{{0, 1}}, {{1, 2}}, {{0, 2}}, {{2, 1}}}, []int{3, 2, 1},
			"go 0.0 1.0 1.1 0.1 0.2 2.0"},
		{"extra key points in the thread's last period", straight(3, 2, 1), periodSchedule{{{1, 1}}, {{0, 1}}, {{2, 1}}}, []int{1, 1, 1},
			"go 1.0 1.1 0.0 0.1 0.2 2.0"},
		{"threads outside the schedule in the last period", straight(2, 2, 2), periodSchedule{{{2, 1}}, {{0, 1}}, {{2, 1}, {1, 2}}}, []int{1, 0, 2},
			"go 2.0 0.0 0.1 1.0 1.1 2.1"},
		{"blocked in its period", blocked, periodSchedule{{{0, 1}}, {{1, 1}}, {{0, 2}}}, []int{3, 3},
			// t1's lock waits for t0, which unlocks in period 2; t1 then runs late.
			"go 0.lock 0.w 0.unlock 1.lock 1.w 1.unlock"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := NewPeriod(PeriodParallel, 4)
			res := engine.Run(tt.body, &periodFixed{Period: p, sch: tt.sch, counts: tt.counts}, engine.Config{})
			if res.Bug != nil {
				t.Fatalf("bug: %v", res.Bug)
			}
			var got []string
			for _, st := range res.Schedule {
				if st.Kind == schedule.Run && st.Pos != "" {
					got = append(got, st.Pos)
				}
			}
			if g := strings.Join(got, " "); g != tt.want {
				t.Errorf("%v: steps %q, want %q", tt.sch, g, tt.want)
			}
		})
	}
}
