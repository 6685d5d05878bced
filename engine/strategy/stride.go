package strategy

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/interleave-dev/interleave/engine"
)

// Defaults of Stride.
const (
	// DefaultStrideSMax is the fixed maximum stride: 2, "the smallest possible smax that
	// results in coarser scheduling than the original randomized scheduling" (seed 000, §V-A).
	DefaultStrideSMax = 2
	// DefaultStrideLearn is the number of executions with smax = 1 that learn the goroutines'
	// lengths before the length-based variant uses them: the paper's first 100 runs of 10,000
	// (§V-A).
	DefaultStrideLearn = 100
)

// Stride is randomized stride scheduling (seed 000, Abdelrasoul, "Promoting secondary orders
// of event pairs in randomized scheduling using a randomized stride", §IV): at every
// selection it picks one of the enabled goroutines uniformly at random, as Random does, and a
// stride s uniform in [1, smax]; "the thread that is selected for execution at that point
// will be executed exclusively until s events have been encountered or until the thread
// becomes blocked or completes execution". Then the next selection is made, which may pick the
// same goroutine again. With smax = 1 it is the original randomized scheduling (Random).
//
// Events are counted as the paper's experiment counts them (§V-A): "the only events that were
// counted were those that implied potential … communication between threads … and that
// happened while other threads were enabled". An event is a scheduling point of the engine
// (the engine's visible operations are the paper's events, §II-A; a yield gets no special
// treatment, as in Random, and counts like any other event, so a goroutine in a busy-wait
// loop holds on for at most its stride); it counts
// when at least one other goroutine is enabled at the moment it is picked. The same count
// measures a goroutine's length and consumes its stride. Our choice, where the paper is
// silent: a goroutine that is the only enabled one is not selected (there is nothing to
// choose) and starts no stride; a goroutine already in its stride keeps it, without consuming
// it, while it runs alone. A selection happens at the first point with a choice after that.
// This keeps the paper's statement that smax = 1 "becomes identical to the original
// randomized scheduling algorithm" exact: with smax = 1 every point with a choice is a
// selection, and the strategy draws its random numbers as Random does (the trivial draw
// among one enabled goroutine included, and no draw of a stride that can only be 1), so
// that it makes Random's decisions from the same seed.
//
// smax is either fixed (SMax), or per goroutine from its length L as ⌈L/r⌉, where the ratio
// r = L/smax makes the least likely ordering edge a_L → b_1 covered with probability P in one
// execution (§IV; StrideRatio computes r by the paper's Monte Carlo estimate). As in the
// paper's experiment (§V-A), the first Learn executions run with smax = 1 (Random) and
// record, for every goroutine, the largest number of its events counted in one execution;
// those maxima are its length L from then on. Goroutines are identified across executions by
// their ids (creation order). A goroutine without a learned length (not created in the
// learning executions, or never running alongside another) gets smax = 1. The paper's two
// length-based variants are P = 1 − 0.01^(1/9900) ≈ 4.65·10⁻⁴, the least likely edge
// covered in at least one of 9,900 executions with confidence 0.99, and P = √that ≈ 0.0216,
// any two independent such edges in one execution with the same confidence (see
// StrideTargetProbability; the stride_test table gives the ratios).
//
// Data choices are uniform random. Each execution has its own seed, as Random's; Params
// reports it with the variant's parameters and, once learned, the lengths in effect, so that
// NewStrideParams(Params) runs the execution again as its first one.
type Stride struct {
	seeds
	smax  int     // fixed maximum stride; 0 in the length-based variant
	p     float64 // target probability of the length-based variant
	ratio float64 // L/smax for p
	learn int     // executions that learn the lengths

	execs   int
	learned bool  // lengths are in effect
	lengths []int // L per goroutine id, in effect once learned
	seen    []int // largest counted events per goroutine over the learning executions

	// The current execution.
	holder engine.GID // the goroutine of the current stride
	left   int        // events left in its stride
	count  []int      // counted events of every goroutine
	// starting is the goroutine whose start the previous decision picked while another was
	// enabled (its pending operation was engine.OpStart): its event is the first operation
	// the start's step executed, counted at the next decision if there was one
	// (Decision.Opened); NoGoroutine when there is none.
	starting engine.GID
}

// StrideConfig configures NewStride. With neither SMax nor P set, SMax is
// DefaultStrideSMax.
type StrideConfig struct {
	// SMax is the fixed maximum stride, ≥ 1.
	SMax int
	// P, in (0, 0.5), selects the length-based variant: the target probability of covering
	// the least likely ordering edge in one execution.
	P float64
	// Learn is the number of learning executions of the length-based variant (0 means
	// DefaultStrideLearn). Ignored when Lengths is set.
	Learn int
	// Lengths, when set, are the goroutines' lengths (by id) of the length-based variant,
	// used from the first execution on instead of learning them.
	Lengths []int
	// Seed is the initial seed of the list of per-execution seeds.
	Seed uint64
}

// NewStride returns randomized stride scheduling configured by c.
func NewStride(c StrideConfig) (*Stride, error) {
	s := &Stride{seeds: newSeeds(c.Seed), learn: DefaultStrideLearn}
	switch {
	case c.SMax < 0:
		return nil, fmt.Errorf("stride: parameter smax must be ≥ 1, got %d", c.SMax)
	case c.SMax > 0 && c.P != 0:
		return nil, fmt.Errorf("stride: parameters smax (fixed maximum stride) and p (length-based maximum stride) exclude each other")
	case c.P == 0 && (c.Lengths != nil || c.Learn != 0):
		return nil, fmt.Errorf("stride: parameters learn and lengths need p (the length-based variant)")
	case c.Learn < 0:
		return nil, fmt.Errorf("stride: parameter learn must be ≥ 1, got %d", c.Learn)
	}
	for i, l := range c.Lengths {
		if l < 0 {
			return nil, fmt.Errorf("stride: length %d of G%d must be ≥ 0", l, i)
		}
	}
	if c.P == 0 {
		s.smax = DefaultStrideSMax
		if c.SMax > 0 {
			s.smax = c.SMax
		}
		return s, nil
	}
	r, err := StrideRatio(c.P)
	if err != nil {
		return nil, err
	}
	s.p, s.ratio = c.P, r
	if c.Learn > 0 {
		s.learn = c.Learn
	}
	if c.Lengths != nil {
		s.lengths = append([]int(nil), c.Lengths...)
		s.learned = true
	}
	return s, nil
}

// NewStrideParams returns the stride strategy that params describe: the parameters Params
// reports, which strategy.New accepts for "stride" (smax; or p, learn and lengths; and seed,
// the seed of the first execution), with seed as the initial seed of the later executions.
func NewStrideParams(params map[string]string, seed uint64) (*Stride, error) {
	c := StrideConfig{Seed: seed}
	for _, k := range []string{"smax", "learn"} {
		v, ok := params[k]
		if !ok {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("stride: parameter %s must be an integer, got %q", k, v)
		}
		if n < 1 {
			return nil, fmt.Errorf("stride: parameter %s must be ≥ 1, got %d", k, n)
		}
		if k == "smax" {
			c.SMax = n
		} else {
			c.Learn = n
		}
	}
	if v, ok := params["p"]; ok {
		p, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(p > 0 && p < 0.5) {
			return nil, fmt.Errorf("stride: parameter p must be a probability in (0, 0.5), got %q", v)
		}
		c.P = p
	}
	if v, ok := params["lengths"]; ok {
		c.Lengths = []int{}
		if v = strings.TrimSpace(v); v != "" {
			for i, f := range strings.Split(v, ",") {
				n, err := strconv.Atoi(strings.TrimSpace(f))
				if err != nil || n < 0 {
					return nil, fmt.Errorf("stride: parameter lengths must list lengths ≥ 0 separated by commas, got %q at G%d", f, i)
				}
				c.Lengths = append(c.Lengths, n)
			}
		}
	}
	s, err := NewStride(c)
	if err != nil {
		return nil, err
	}
	if v, ok := params["seed"]; ok {
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("stride: parameter seed must be an unsigned integer, got %q", v)
		}
		s.first, s.hasFirst = n, true
	}
	return s, nil
}

// StrideTargetProbability returns the per-execution probability p with which an ordering
// edge must be covered for it to be covered at least once in runs executions with the given
// confidence: 1 − (1 − confidence)^(1/runs). With edges > 1 it is the probability of each of
// that many independent edges that must all be covered in the same execution, the paper's
// third variant (§V-A): p^edges is the single-edge probability. runs and edges are ≥ 1.
func StrideTargetProbability(confidence float64, runs, edges int) float64 {
	one := -math.Expm1(math.Log1p(-confidence) / float64(runs))
	return math.Pow(one, 1/float64(edges))
}

// Name implements engine.Strategy.
func (s *Stride) Name() string { return "stride" }

// Params implements engine.Strategy: smax, or p and learn (and the lengths once learned),
// and the seed of the current execution.
func (s *Stride) Params() map[string]string {
	m := map[string]string{"seed": strconv.FormatUint(s.seeds.cur, 10)}
	if s.smax > 0 {
		m["smax"] = strconv.Itoa(s.smax)
		return m
	}
	m["p"] = strconv.FormatFloat(s.p, 'g', -1, 64)
	m["learn"] = strconv.Itoa(s.learn)
	if s.learned {
		ls := make([]string, len(s.lengths))
		for i, l := range s.lengths {
			ls[i] = strconv.Itoa(l)
		}
		m["lengths"] = strings.Join(ls, ",")
	}
	return m
}

// Seed returns the seed of the current execution.
func (s *Stride) Seed() uint64 { return s.seeds.cur }

// Ratio returns L/smax of the length-based variant (0 for a fixed smax).
func (s *Stride) Ratio() float64 { return s.ratio }

// Lengths returns the goroutines' lengths in effect (nil for a fixed smax, and while they
// are being learned).
func (s *Stride) Lengths() []int {
	if !s.learned {
		return nil
	}
	return s.lengths
}

// SMax returns the maximum stride of goroutine g in the current execution.
func (s *Stride) SMax(g engine.GID) int {
	switch {
	case s.smax > 0:
		return s.smax
	case !s.learned || g < 0 || int(g) >= len(s.lengths):
		return 1
	}
	return StrideSMax(s.lengths[g], s.ratio)
}

// Current returns the goroutine of the current stride and the number of its events left
// (0 when no stride is under way).
func (s *Stride) Current() (engine.GID, int) { return s.holder, s.left }

// warmUp implements warmer (Portfolio.SetExecutionsLeft): the learning executions left, in the
// length-based variant.
func (s *Stride) warmUp() int {
	if s.smax > 0 || s.learned {
		return 0
	}
	return max(s.learn-s.execs, 0)
}

// Begin implements engine.Strategy: after the learning executions, the learned lengths come
// into effect. It always returns true.
func (s *Stride) Begin() bool {
	if s.smax == 0 && !s.learned && s.execs >= s.learn {
		s.lengths, s.learned = s.seen, true
	}
	s.execs++
	s.next()
	s.holder, s.left, s.starting = engine.NoGoroutine, 0, engine.NoGoroutine
	s.count = s.count[:0]
	return true
}

// Pick implements engine.Strategy.
func (s *Stride) Pick(d *engine.Decision) engine.GID {
	n := d.NumEnabled()
	if s.left == 0 || !d.IsEnabled(s.holder) {
		// A selection: the stride is over, or its goroutine blocked or ended (§IV).
		s.holder, s.left = d.EnabledAt(s.rng.IntN(n)), 0
		if n > 1 {
			s.left = 1
			if m := s.SMax(s.holder); m > 1 {
				s.left += s.rng.IntN(m)
			}
		}
	}
	if s.starting >= 0 {
		if d.Opened().Kind != engine.OpNone {
			s.counted(s.starting)
		}
		s.starting = engine.NoGoroutine
	}
	if n > 1 {
		// The event counts: another goroutine is enabled (§V-A).
		s.left--
		if d.Pending(s.holder).Kind == engine.OpStart {
			s.starting = s.holder
		} else {
			s.counted(s.holder)
		}
	}
	return s.holder
}

// counted counts an event of g: one that implied potential communication with another
// goroutine (§V-A), which a goroutine's start is not unless its step went on through its
// first operation; a start whose goroutine blocked at that operation (or returned before
// any) executed no event of the goroutine, and its length does not count it.
func (s *Stride) counted(g engine.GID) {
	for int(g) >= len(s.count) {
		s.count = append(s.count, 0)
	}
	s.count[g]++
}

// Choose implements engine.Strategy: a uniform random alternative.
func (s *Stride) Choose(c *engine.Choice) int { return s.rng.IntN(c.N) }

// End implements engine.Strategy: a learning execution records its goroutines' lengths.
func (s *Stride) End(*engine.Result) {
	if s.starting >= 0 {
		// The execution ended at the start's step: its first operation is taken as executed.
		s.counted(s.starting)
		s.starting = engine.NoGoroutine
	}
	if s.smax > 0 || s.learned {
		return
	}
	for g, c := range s.count {
		if g >= len(s.seen) {
			s.seen = append(s.seen, 0)
		}
		s.seen[g] = max(s.seen[g], c)
	}
}
