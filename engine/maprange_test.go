package engine_test

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/interleave-dev/interleave/engine"
)

// rangeKeys ranges over m with MapRange in one execution and returns the keys in the order
// produced.
func rangeKeys[K comparable, V any](t *testing.T, m map[K]V) []string {
	t.Helper()
	var got []string
	r := engine.Run(func(*engine.T) {
		for k := range engine.MapRange(m, "range") {
			got = append(got, fmt.Sprint(k))
		}
	}, firstEnabled(), engine.Config{})
	if r.Bug != nil {
		t.Fatal(r.Bug)
	}
	return got
}

type point struct {
	X, Y int
	Name string
}

func TestMapRangeOrder(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		keys func(*testing.T) []string
		want []string
	}{
		{"int", func(t *testing.T) []string { return rangeKeys(t, map[int]bool{3: true, -1: true, 10: true, 0: true}) }, []string{"-1", "0", "3", "10"}},
		{"string", func(t *testing.T) []string {
			return rangeKeys(t, map[string]int{"b": 1, "a": 2, "ab": 3, "": 4})
		}, []string{"", "a", "ab", "b"}},
		{"uint8", func(t *testing.T) []string { return rangeKeys(t, map[uint8]int{200: 1, 2: 2, 20: 3}) }, []string{"2", "20", "200"}},
		{"bool", func(t *testing.T) []string { return rangeKeys(t, map[bool]int{true: 1, false: 2}) }, []string{"false", "true"}},
		{"float with NaN", func(t *testing.T) []string {
			return rangeKeys(t, map[float64]int{2.5: 1, nan: 2, -1: 3, nan: 4})
		}, []string{"NaN", "NaN", "-1", "2.5"}},
		{"struct", func(t *testing.T) []string {
			return rangeKeys(t, map[point]int{{1, 2, "b"}: 1, {1, 2, "a"}: 2, {0, 9, "z"}: 3})
		}, []string{"{0 9 z}", "{1 2 a}", "{1 2 b}"}},
		{"array", func(t *testing.T) []string {
			return rangeKeys(t, map[[2]string]int{{"b", "a"}: 1, {"a", "z"}: 2, {"a", "b"}: 3})
		}, []string{"[a b]", "[a z]", "[b a]"}},
		{"interface", func(t *testing.T) []string {
			return rangeKeys(t, map[any]int{"x": 1, 2: 2, 1: 3, nil: 4, "a": 5})
		}, []string{"<nil>", "1", "2", "a", "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range 5 { // Go's order changes from range to range
				if got := tt.keys(t); !slices.Equal(got, tt.want) {
					t.Fatalf("range %d: %v, want %v", i, got, tt.want)
				}
			}
		})
	}
}

// Keys without a stable order keep Go's order, and every entry is still produced once.
func TestMapRangeUnorderedKeys(t *testing.T) {
	a, b, c := new(int), new(int), new(int)
	tests := []struct {
		name string
		keys []string
		want int
	}{
		{"pointers", rangeKeys(t, map[*int]int{a: 1, b: 2, c: 3}), 3},
		{"interface holding a pointer", rangeKeys(t, map[any]int{a: 1, "s": 2, 3: 3}), 3},
	}
	for _, tt := range tests {
		keys := slices.Clone(tt.keys)
		sort.Strings(keys)
		if len(slices.Compact(keys)) != tt.want {
			t.Errorf("%s: produced %v, want %d distinct keys", tt.name, tt.keys, tt.want)
		}
	}
}

// The semantics of a range over a map: deleted entries are not produced, values are read when
// reached, break ends the range, and outside an execution every entry is produced.
func TestMapRangeSemantics(t *testing.T) {
	var got []string
	r := engine.Run(func(*engine.T) {
		m := map[int]string{1: "one", 2: "two", 3: "three", 4: "four"}
		for k, v := range engine.MapRange(m, "range") {
			got = append(got, fmt.Sprint(k, "=", v))
			if k == 1 {
				delete(m, 2)
				m[3] = "THREE"
				m[5] = "five" // added: Go may or may not produce it; MapRange does not
			}
			if k == 4 {
				break
			}
		}
	}, firstEnabled(), engine.Config{})
	if r.Bug != nil {
		t.Fatal(r.Bug)
	}
	if want := []string{"1=one", "3=THREE", "4=four"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}

	n := 0
	for range engine.MapRange(map[int]int{1: 1, 2: 2}, "range") {
		n++
	}
	if n != 2 {
		t.Errorf("outside an execution: %d entries, want 2", n)
	}
}

// A write by another goroutine in the middle of a range is a race, as Go's race detector and
// runtime ("concurrent map iteration and map write") see it.
func TestMapRangeWriteDuringRangeIsARace(t *testing.T) {
	body := func(t *engine.T) {
		m := map[int]int{1: 1, 2: 2, 3: 3}
		engine.Go(func() { engine.MapStore(m, 4, 4, "write") }, "go")
		for range engine.MapRange(m, "range") {
		}
	}
	rep := engine.Explore(body, engine.Config{Strategy: randomStrategy(1), Schedules: 50, Races: true})
	if len(rep.Races) == 0 {
		t.Fatalf("no race in %d schedules", rep.Schedules)
	}
	if k := rep.Races[0].Key(); k == "" {
		t.Errorf("race without positions: %+v", rep.Races[0])
	}
}

// TestMapRangePointerKeys: keys with no order of their own (pointers, interfaces holding
// them) stored with MapStore in the execution are produced in the order of their first store,
// in every execution, as the standard library's servers range over their connections; a map
// with such a key the execution did not store keeps Go's order.
func TestMapRangePointerKeys(t *testing.T) {
	type conn struct{ id int }
	for range 20 {
		var ptrs, ifaces, mixed []int
		r := engine.Run(func(*engine.T) {
			byPtr := map[*conn]bool{}
			byIface := map[any]int{}
			cs := make([]*conn, 8)
			for i := range cs {
				cs[i] = &conn{i}
			}
			for _, i := range []int{5, 2, 7, 0, 3, 6, 1, 4} {
				engine.MapStore(byPtr, cs[i], true, "store")
				engine.MapStore(byIface, any(cs[i]), i, "store")
			}
			engine.MapStore(byPtr, cs[5], false, "store") // a second store keeps its place
			for c := range engine.MapRange(byPtr, "range") {
				ptrs = append(ptrs, c.id)
			}
			for _, i := range engine.MapRange(byIface, "range") {
				ifaces = append(ifaces, i)
			}
			unseen := map[*conn]bool{{10}: true, {11}: true, {12}: true}
			for c := range engine.MapRange(unseen, "range") {
				mixed = append(mixed, c.id)
			}
		}, firstEnabled(), engine.Config{})
		if r.Bug != nil {
			t.Fatal(r.Bug)
		}
		want := []int{5, 2, 7, 0, 3, 6, 1, 4}
		if !slices.Equal(ptrs, want) || !slices.Equal(ifaces, want) {
			t.Fatalf("pointer keys in %v, interface keys in %v, want the order of their stores %v", ptrs, ifaces, want)
		}
		if len(mixed) != 3 {
			t.Fatalf("a map whose keys were not stored by MapStore produced %v", mixed)
		}
	}
}
