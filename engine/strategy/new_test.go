package strategy_test

import (
	"testing"

	"github.com/interleave-dev/interleave/engine/strategy"
)

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		params  map[string]string
		wantErr string
		check   func(t *testing.T, p map[string]string)
	}{
		{name: "random"},
		{name: "random", params: map[string]string{"seed": "17"}, check: func(t *testing.T, p map[string]string) {}},
		{name: "pct", params: map[string]string{"d": "2", "n": "5", "k": "40"}, check: func(t *testing.T, p map[string]string) {
			if p["d"] != "2" || p["n"] != "5" || p["k"] != "40" {
				t.Errorf("params %v", p)
			}
		}},
		{name: "dfs"},
		{name: "ipb", params: map[string]string{"max": "2"}, check: func(t *testing.T, p map[string]string) {
			if p["max"] != "2" {
				t.Errorf("params %v", p)
			}
		}},
		{name: "idb"},
		{name: "replay", wantErr: `unknown strategy "replay" (known: random, pct, pos, rapos, stride, greybox, period, dfs, ipb, idb, portfolio)`},
		{name: "pct", params: map[string]string{"d": "0"}, wantErr: "pct: parameter d must be ≥ 1, got 0"},
		{name: "pct", params: map[string]string{"d": "two"}, wantErr: `pct: parameter d must be an integer, got "two"`},
		{name: "pct", params: map[string]string{"n": "0"}, wantErr: "pct: parameter n must be ≥ 1, got 0"},
		{name: "pct", params: map[string]string{"depth": "3"}, wantErr: `pct: unknown parameter "depth" (known: d, k, learn, n, seed)`},
		{name: "pct", params: map[string]string{"seed": "-1"}, wantErr: `pct: parameter seed must be an unsigned integer, got "-1"`},
		{name: "dfs", params: map[string]string{"max": "1"}, wantErr: `dfs: unknown parameter "max" (known: fair)`},
		{name: "idb", params: map[string]string{"fair": "0"}, wantErr: "idb: parameter fair must be ≥ 1, got 0"},
		{name: "ipb", params: map[string]string{"max": "-1"}, wantErr: "ipb: parameter max must be ≥ 0, got -1"},
	}
	for _, tc := range tests {
		s, err := strategy.New(tc.name, tc.params, 1)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("New(%q, %v): error %v, want %q", tc.name, tc.params, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("New(%q, %v): %v", tc.name, tc.params, err)
			continue
		}
		if s.Name() != tc.name {
			t.Errorf("New(%q).Name() = %q", tc.name, s.Name())
		}
		if !s.Begin() {
			t.Errorf("%s: Begin returned false", tc.name)
		}
		if tc.check != nil {
			tc.check(t, s.Params())
		}
	}
}
