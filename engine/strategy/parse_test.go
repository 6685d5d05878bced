package strategy_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine/strategy"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in, name, params, err string
	}{
		{"pct", "pct", "map[]", ""},
		{"pct:d=2,n=4", "pct", "map[d:2 n:4]", ""},
		{"", "", "", "empty strategy name"},
		{"pct:d", "", "", "want key=value"},
	} {
		name, params, err := strategy.Parse(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || name != tc.name || fmt.Sprint(params) != tc.params {
			t.Errorf("%q: %q %v %v", tc.in, name, params, err)
		}
	}
}
