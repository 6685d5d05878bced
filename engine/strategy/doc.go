// Package strategy holds the scheduling strategies of the SCTBench study (Thomson, Donaldson
// and Betts, "Concurrency Testing Using Schedule Bounding: an Empirical Study", 2015; seed
// 004): the controlled random scheduler (§2.6), probabilistic concurrency testing (§2.7),
// unbounded depth-first search (§2.2, §3) and iterative preemption and delay bounding
// (§2.3–§2.5). Each implements engine.Strategy; the systematic ones also implement
// engine.Exhauster and engine.Aborter.
//
// Terms are the paper's: a step is one goroutine executing one visible operation (a
// scheduling point of the engine); a schedule is the list of goroutines of the steps (plus,
// here, the data choices); a preemption is a switch away from a goroutine that is still
// enabled; a delay is a deviation from the non-preemptive round-robin scheduler.
//
// The package uses the standard library only: it is compiled into the test binaries.
package strategy

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/interleave-dev/interleave/engine"
)

// Names lists the strategies New knows.
var Names = []string{"random", "pct", "pos", "rapos", "stride", "greybox", "period", "dfs", "ipb", "idb", "portfolio"}

// paramNames lists the parameters each strategy accepts.
var paramNames = map[string][]string{
	"random":    {"seed"},
	"greybox":   {"seed"},
	"pct":       {"d", "k", "learn", "n", "seed"},
	"dfs":       {FairParam},
	"ipb":       {FairParam, "max"},
	"idb":       {FairParam, "max"},
	"rapos":     {"seed"},
	"pos":       {"seed"},
	"stride":    {"learn", "lengths", "p", "seed", "smax"},
	"period":    {"mode", "periods"},
	"portfolio": {"members"},
}

// New returns the strategy called name (one of Names; replay is constructed separately),
// configured by params, with seed as the initial seed of the randomized ones.
//
// Parameters:
//   - random: seed — the seed of the first execution (what Params reported for an
//     execution), so that it can be run again alone; later executions follow the list
//     generated from the seed argument.
//   - pct: d (bug depth, ≥ 1, default 3), n and k (initial estimates of the number of
//     goroutines and of steps, ≥ 1), learn (executions between refinements of n and k,
//     0 = default 1000, negative = no learning), seed (as for random).
//   - dfs: fair (as for ipb and idb).
//   - ipb, idb: max — the largest bound to explore (≥ 0; no maximum by default); fair — the
//     fairness bound of the search's executions, in steps (≥ 1; the exploration's by
//     default): a goroutine runs that many steps in a row while others wait before it is
//     made to yield (engine.FairBounder; the default portfolio's unfair member).
//   - greybox: seed (as for random; a mutant's execution is reproduced by its schedule file,
//     not its seed: see Greybox).
//   - rapos, pos: seed (as for random). Random partial order sampling (seed 001) and partial
//     order sampling (Yuan, Yang and Gu, CAV 2018).
//   - period: PERIOD (seed 003). mode — parallel (default; the paper's definitive
//     scheduler, §3.2.2) or serial (§3.2.1); periods — the period bound P (≥ 1, default 4:
//     bugs of depth ≤ P−1). Systematic: the exploration ends when every discovered slice has
//     been explored with ≤ P periods.
//   - stride: randomized stride scheduling (seed 000). smax — fixed maximum stride (≥ 1,
//     default 2); or p — target probability in (0, 0.5) of covering the least likely ordering
//     edge per execution, selecting the length-based smax = ⌈L/r⌉ (e.g. 0.000465 or 0.0216,
//     the paper's two variants); with p: learn — executions with smax = 1 that learn the
//     goroutines' lengths (≥ 1, default 100), lengths — comma-separated lengths by goroutine
//     id, used at once instead of learning; smax and p exclude each other. seed as for random.
//   - portfolio: members — the member strategies, rotated one execution each (a learning
//     greybox member more, see Portfolio), joined by "+", each a name with optional
//     ":key=value" parameters (default DefaultPortfolioMembers,
//     "pct:d=3+pos+stride:p=0.0216…+idb+period+greybox"); their seeds are derived from seed.
func New(name string, params map[string]string, seed uint64) (engine.Strategy, error) {
	known, ok := paramNames[name]
	if !ok {
		return nil, fmt.Errorf("unknown strategy %q (known: %s)", name, strings.Join(Names, ", "))
	}
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !contains(known, k) {
			if len(known) == 0 {
				return nil, fmt.Errorf("%s: unknown parameter %q (%s takes no parameters)", name, k, name)
			}
			return nil, fmt.Errorf("%s: unknown parameter %q (known: %s)", name, k, strings.Join(known, ", "))
		}
	}
	intParam := func(key string, min, def int) (int, error) {
		v, ok := params[key]
		if !ok {
			return def, nil
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return 0, fmt.Errorf("%s: parameter %s must be an integer, got %q", name, key, v)
		}
		if n < min {
			return 0, fmt.Errorf("%s: parameter %s must be ≥ %d, got %d", name, key, min, n)
		}
		return n, nil
	}
	firstSeed := func(s *seeds) error {
		v, ok := params["seed"]
		if !ok {
			return nil
		}
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return fmt.Errorf("%s: parameter seed must be an unsigned integer, got %q", name, v)
		}
		s.first, s.hasFirst = n, true
		return nil
	}
	switch name {
	case "greybox":
		g := NewGreybox(seed)
		if err := firstSeed(&g.seeds); err != nil {
			return nil, err
		}
		return g, nil
	case "random":
		r := NewRandom(seed)
		if err := firstSeed(&r.seeds); err != nil {
			return nil, err
		}
		return r, nil
	case "pct":
		var c PCTConfig
		var err error
		if c.D, err = intParam("d", 1, DefaultPCTDepth); err != nil {
			return nil, err
		}
		if c.N, err = intParam("n", 1, DefaultPCTN); err != nil {
			return nil, err
		}
		if c.K, err = intParam("k", 1, DefaultPCTK); err != nil {
			return nil, err
		}
		if c.Learn, err = intParam("learn", -1<<31, 0); err != nil {
			return nil, err
		}
		c.Seed = seed
		p, err := NewPCT(c)
		if err != nil {
			return nil, err
		}
		if err := firstSeed(&p.seeds); err != nil {
			return nil, err
		}
		return p, nil
	case "rapos":
		r := NewRAPOS(seed)
		if err := firstSeed(&r.seeds); err != nil {
			return nil, err
		}
		return r, nil
	case "pos":
		p := NewPOS(seed)
		if err := firstSeed(&p.seeds); err != nil {
			return nil, err
		}
		return p, nil
	case "stride":
		return NewStrideParams(params, seed)
	case "period":
		mode := strings.TrimSpace(params["mode"])
		if mode == "" {
			mode = PeriodParallel
		}
		p, err := intParam("periods", 1, DefaultPeriods)
		if err != nil {
			return nil, err
		}
		return NewPeriod(mode, p)
	case "dfs":
		fair, err := intParam(FairParam, 1, 0)
		if err != nil {
			return nil, err
		}
		d := NewDFS().Unfair(fair)
		d.fallbackSeed = seed
		return d, nil
	case "portfolio":
		return NewPortfolioParams(params, seed)
	default: // ipb, idb
		m, err := intParam("max", 0, -1)
		if err != nil {
			return nil, err
		}
		fair, err := intParam(FairParam, 1, 0)
		if err != nil {
			return nil, err
		}
		s := NewIDB(m)
		if name == "ipb" {
			s = NewIPB(m)
		}
		s = s.Unfair(fair)
		s.fallbackSeed = seed
		return s, nil
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
