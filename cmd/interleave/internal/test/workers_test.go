package test

import (
	"strconv"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine/strategy"
)

// TestShardTests checks when -shard splits the test list (always for a strategy that cannot
// be partitioned), and that the shards' lists are disjoint and make the whole.
func TestShardTests(t *testing.T) {
	jobs := func(n int) []*testJob {
		var js []*testJob
		for i := 0; i < n; i++ {
			js = append(js, &testJob{test: "Test" + strconv.Itoa(i)})
		}
		return js
	}
	tests := []struct {
		name       string
		tests      int
		shards     int
		time       time.Duration
		splittable bool
		byTests    bool
	}{
		{"few tests: schedules split", 7, 2, 0, true, false},
		{"enough tests: list split", 8, 2, 0, true, true},
		{"a time budget: schedules split", 40, 2, time.Second, true, false},
		{"no shards", 40, 1, 0, true, false},
		{"many shards", 45, 11, 0, true, true},
		{"few tests, not partitionable: list split", 3, 2, 0, false, true},
		{"more shards than tests, not partitionable", 3, 5, 0, false, true},
		{"a time budget, not partitionable: list split", 7, 2, time.Second, false, true},
		{"no shards, not partitionable", 3, 1, 0, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			all := jobs(tc.tests)
			seen := map[string]int{}
			for i := 0; i < max(tc.shards, 1); i++ {
				f := &testFlags{shard: strategy.PartLevel{Index: i, Count: tc.shards}, time: tc.time, timeSet: tc.time > 0}
				mine, byTests := shardTests(f, all, tc.splittable)
				if byTests != tc.byTests {
					t.Fatalf("shard %d: split the list %v, want %v", i, byTests, tc.byTests)
				}
				if !byTests {
					if len(mine) != len(all) {
						t.Fatalf("shard %d: %d tests of %d without a list split", i, len(mine), len(all))
					}
					return
				}
				for _, j := range mine {
					seen[j.test]++
				}
			}
			for _, j := range all {
				if seen[j.test] != 1 {
					t.Errorf("%s is in %d shards", j.test, seen[j.test])
				}
			}
		})
	}
}
