package engine_test

import (
	"strconv"
	"testing"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// defaultSpecs are the random walk, each member of the default portfolio as
// DefaultPortfolioMembers gives it (stride's p exactly, which is looked up, not estimated),
// and the portfolio itself: the strategies whose cost the many-goroutine tests compare.
func defaultSpecs() []string {
	p2 := strconv.FormatFloat(strategy.StrideTargetProbability(0.99, 9900, 2), 'g', -1, 64)
	return []string{"random", "pct:d=3", "pos", "stride:p=" + p2, "idb", "period", "greybox", "portfolio"}
}

// newStrategy returns the strategy that spec names (as -strategy takes it), seeded with 1.
func newStrategy(tb testing.TB, spec string) engine.Strategy {
	tb.Helper()
	name, params, err := strategy.Parse(spec)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := strategy.New(name, params, 1)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
