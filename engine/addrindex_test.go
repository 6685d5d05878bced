package engine

import (
	"math/rand/v2"
	"testing"
)

// TestAddrIndexAgainstMap runs random puts, gets, deletes and resets on the table next to a Go
// map, on addresses drawn from a small range (long probe runs, deletions inside them, the
// table growing) and from a wide one, and checks every lookup and the count after each step.
func TestAddrIndexAgainstMap(t *testing.T) {
	for _, tc := range []struct {
		name  string
		addrs int // addresses drawn from 8, 16, ..., 8*addrs
		steps int
	}{
		{"dense", 200, 50_000},
		{"wide", 1 << 20, 50_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(tc.addrs)))
			var x addrIndex
			m := map[uintptr]int32{}
			addr := func() uintptr { return uintptr(8 * (1 + rng.IntN(tc.addrs))) }
			for step := range tc.steps {
				switch op := rng.IntN(100); {
				case op < 50:
					a, v := addr(), int32(rng.IntN(1000))
					x.put(a, v)
					m[a] = v
				case op < 80:
					a := addr()
					x.delete(a)
					delete(m, a)
				case op < 99:
					a := addr()
					got, ok := x.get(a)
					want, wantOK := m[a]
					if got != want || ok != wantOK {
						t.Fatalf("step %d: get(%#x) = %d, %v; want %d, %v", step, a, got, ok, want, wantOK)
					}
				default:
					x.reset()
					clear(m)
				}
				if x.n != len(m) {
					t.Fatalf("step %d: %d entries, want %d", step, x.n, len(m))
				}
			}
			for a, want := range m {
				if got, ok := x.get(a); !ok || got != want {
					t.Fatalf("at the end: get(%#x) = %d, %v; want %d", a, got, ok, want)
				}
			}
		})
	}
}
