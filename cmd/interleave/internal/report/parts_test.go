package report

import (
	"fmt"
	"testing"

	"github.com/interleave-dev/interleave/engine/explore"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// TestCombinePartsPoints: the parts' claims of exhaustion add up to one only when the parts
// ended on the same racy points.
func TestCombinePartsPoints(t *testing.T) {
	part := func(i int, points ...string) *Part {
		return &Part{Part: strategy.Part{Levels: []strategy.PartLevel{{Index: i, Count: 2}}}, Event: &explore.Event{
			Event: "result", Test: "T", Schedules: 5, Stopped: "exhausted", Points: "racy", RacyPoints: points,
			Exhausted: fmt.Sprintf("all 5 schedules of part %d/2 explored", i+1)}}
	}
	for _, tc := range []struct {
		name    string
		results []*Part
		want    string
	}{
		{"same points", []*Part{part(0, "a.go:1"), part(1, "a.go:1")}, "all 10 schedules explored"},
		{"points grew in one part", []*Part{part(0, "a.go:1"), part(1, "a.go:1", "a.go:2")},
			"each part explored its share, but races first seen while exploring made different scheduling points in different parts, so the shares are of different schedule spaces: all 5 schedules of part 1/2 explored; all 5 schedules of part 2/2 explored"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := CombineParts(tc.results, false)
			if err != nil {
				t.Fatal(err)
			}
			if c.Stopped != "exhausted" || c.Exhausted != tc.want {
				t.Errorf("stopped %q, %q\nwant %q", c.Stopped, c.Exhausted, tc.want)
			}
		})
	}
}
