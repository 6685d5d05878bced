package constructs

import (
	"fmt"
	"sort"
	"sync"
	"testing"
)

func keys(m map[string]int) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func TestMaps(t *testing.T) {
	clear(Names)
	Names["a"] = 1
	Names["b"] += 2
	Names["a"]++
	v, ok := Names["a"]
	say("a %d %v", v, ok)
	_, ok = Names["zz"]
	say("zz %v len %d b %d", ok, len(Names), Names["b"])
	if n, ok := Names["b"]; ok {
		say("if comma-ok %d", n)
	}
	var w int
	w, ok = Names["b"]
	say("assigned %d %v", w, ok)
	delete(Names, "a")
	say("keys %v", keys(Names))
	total := 0
	for k, v := range Names {
		total += v + len(k)
	}
	say("total %d", total)

	m := map[string][]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			m["k"] = append(m["k"], i)
			m["n"] = nil
			delete(m, "n")
			mu.Unlock()
		}()
	}
	wg.Wait()
	sort.Ints(m["k"])
	say("appended %v len %d", m["k"], len(m))
	clear(m)
	say("cleared %d", len(m))

	mm := map[string]map[string]int{"x": {}}
	mm["x"]["y"] = 5
	mm["x"]["y"] *= 2
	say("nested %d", mm["x"]["y"])
	type holder struct{ m map[int]string }
	h := &holder{m: map[int]string{}}
	h.m[1] = "one"
	h.m[2] += "two"
	say("field map %v", h.m)
	pm := map[string]*Pair{"p": {1, 2}}
	pm["p"].A = 10
	say("pointer elem %v", *pm["p"])
	sm := map[Pair]bool{{1, 2}: true}
	say("struct key %v %v", sm[Pair{1, 2}], sm[Pair{}])
	var a, b int
	a, b = Names["b"], len(Names)
	say("tuple %d %d", a, b)
	Names["x"], Names["y"] = 1, 2
	say("tuple store %v", keys(Names))
	for k := range Names {
		delete(Names, k)
	}
	say("deleted in range %d", len(Names))
}

// TestMapRangeOrder ranges over a map as table-driven tests and fan-outs do. Natively the
// order changes from range to range; instrumented, it is the same in every execution (the
// rewriter's test compares the "~ " lines of two instrumented runs).
func TestMapRangeOrder(t *testing.T) {
	cases := map[string]int{}
	for i := range 20 {
		cases[fmt.Sprint("case", i)] = i
	}
	var order []string
	for name := range cases {
		order = append(order, name)
	}
	drew("map order %v", order)
	var mu sync.Mutex
	var wg sync.WaitGroup
	var started []int
	for _, v := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			started = append(started, v)
			mu.Unlock()
		}()
	}
	wg.Wait()
	drew("goroutines in map order %v", started)
	sum := 0
	for _, v := range cases {
		sum += v
	}
	say("map range sum %d of %d", sum, len(cases))
}
