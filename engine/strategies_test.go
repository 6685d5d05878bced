package engine_test

import (
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// defaultSpecs are the random walk, each member of the default portfolio as
// DefaultPortfolioMembers gives it but the unfair one, and the portfolio itself: the strategies whose cost the
// many-goroutine tests compare.
func defaultSpecs() []string {
	specs := []string{"random"}
	for _, m := range strings.Split(strategy.DefaultPortfolioMembers, "+") {
		// A member's parameters are separated by ":", a -strategy's by ",".
		name, params, _ := strings.Cut(m, ":")
		if strings.Contains(params, strategy.FairParam+"=") {
			// The unfair member: delay bounding's first schedule, which idb's runs too, under
			// another fairness bound; it is exhausted after that one execution.
			continue
		}
		if params != "" {
			name += ":" + strings.ReplaceAll(params, ":", ",")
		}
		specs = append(specs, name)
	}
	return append(specs, "portfolio")
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
