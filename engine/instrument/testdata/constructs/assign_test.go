package constructs

import (
	"slices"
	"testing"
)

// tracers returns functions that say when they are called: the order of evaluation.
func tracers() (at func(int) int, val func(int) int, key func(string) string) {
	at = func(i int) int { say("index %d", i); return i }
	val = func(v int) int { say("value %d", v); return v }
	key = func(k string) string { say("key %s", k); return k }
	return
}

func TestRedeclare(t *testing.T) {
	a := 1
	get := func() int { return a }
	a, b := 2, 3
	say("redeclared %d %d", get(), b)
	var n int64
	var e error
	getN := func() (int64, error) { return n, e }
	n, c := 1<<40, "c"
	say("typed %d %s", n, c)
	pair := func() (int64, error) { return 7, nil }
	n, e, d := func() (int64, error, int) { x, err := pair(); return x, err, 1 }()
	got, _ := getN()
	say("tuple %d %v %d", got, e, d)
	ch := make(chan int, 1)
	ch <- 5
	a, ok := <-ch
	say("comma ok %d %v", get(), ok)
	m := map[string]int{"k": 9}
	a, found := m["k"]
	say("map comma ok %d %v", get(), found)
	var x any = "s"
	var s string
	getS := func() string { return s }
	s, isString := x.(string)
	say("assertion %q %v", getS(), isString)
	var iface interface{ Error() string }
	getI := func() any { return iface }
	iface, f := e, 1.5
	say("interface %v %v", getI(), f)
}

func TestCompoundAssignCalls(t *testing.T) {
	at, val, key := tracers()
	m := map[string]int{"k": 1}
	m[key("k")] += val(5)
	m[key("k")]++
	s := []int{1, 2}
	s[at(1)] *= val(3)
	s[at(0)]--
	say("map %v slice %v", m, s)
	arr := [2]int{4, 5}
	p := &arr
	sum := func() int { return arr[0] + arr[1] }
	p[at(1)] -= val(2)
	(*p)[at(0)] <<= 2
	say("array %v %d", arr, sum())
	type box struct{ n int }
	boxes := []*box{{1}, {2}}
	boxes[at(1)].n += val(40)
	say("boxes %d %d", boxes[0].n, boxes[1].n)
	try("index out of range", func() { s[at(5)] += val(1) })
	var nilMap map[string]int
	try("nil map", func() { nilMap[key("z")] += val(2) })
	for i := -1; i < 1; s[at(i)]++ {
		i++
	}
	say("post %v", s)
}

func TestTupleAssignCalls(t *testing.T) {
	at, val, key := tracers()
	s := []int{1, 2}
	x, y := 1, 2
	swap := func() { x, y = y, x }
	swap()
	s[at(1)], x = 7, 8
	say("tuple %v %d %d", s, x, y)
	m := map[string]int{}
	m[key("a")], s[at(0)], y = val(1), val(2), val(3)
	say("tuple %v %v %d", m, s, y)
	try("index out of range", func() { x, s[at(9)], y = val(10), val(11), val(12) })
	say("after panic %d %d", x, y)
	_, x = val(4), val(5)
	say("blank %d", x)

	// The left side's index operands are evaluated before any assignment.
	i := 0
	bump := func() { i++ }
	bump()
	i, s[i] = 0, 5
	say("index before assignment %d %v", i, s)
	s2, old := []int{0, 0}, s
	s, s[0], x = s2, 9, i
	say("slice before assignment %v %v %d", s, old, x)
	type node struct{ v int }
	p := &node{1}
	keep := p
	getP := func() *node { return p }
	p, p.v = &node{2}, 3
	say("pointer before assignment %d %d", keep.v, getP().v)
	arr := [2]int{}
	getArr := func() [2]int { return arr }
	arr, arr[i] = [2]int{7, 7}, 8
	say("array location %v", getArr())
}

func TestForAssign(t *testing.T) {
	x, y := 0, 0
	get := func() (int, int) { return x, y }
	var fib []int
	for x, y = 0, 1; x < 30; x, y = y, x+y {
		if x%2 == 0 {
			continue
		}
		fib = append(fib, x)
	}
	say("odd fibonacci %v, then %d %d", fib, x, y)
	n := 0
	for x, y = 10, 0; x > y; x, y = x-1, y+1 {
		n++
	}
	a, b := get()
	say("met after %d: %d %d", n, a, b)
}

func TestRangeAssign(t *testing.T) {
	names := map[string]int{"k": 1}
	var k string
	var v int
	keep := func() (string, int) { return k, v }
	for k = range names {
	}
	for k, v = range names {
		say("in the body %s %d", k, v)
	}
	k2, v2 := keep()
	say("map %s %d", k2, v2)
	var i int64
	var r rune
	lastRune := func() (int64, rune) { return i, r }
	for i = range 3 {
		if i == 1 {
			continue
		}
		say("int %d", i)
	}
	for _, r = range "héllo" {
		if r == 'l' {
			break
		}
	}
	i2, r2 := lastRune()
	say("int and string %d %c", i2, r2)
	words := []string{"a", "b", "c"}
	var idx int
	var w string
	last := func() (int, string) { return idx, w }
	for idx, w = range words {
	}
	li, lw := last()
	say("slice %d %s", li, lw)
	for idx, w = range slices.Backward(words) {
		if idx == 1 {
			break
		}
	}
	li, lw = last()
	say("iterator %d %s", li, lw)
	ch := make(chan string, 2)
	ch <- "x"
	ch <- "y"
	close(ch)
	for w = range ch {
	}
	_, lw = last()
	say("channel %s", lw)
	counts := map[string]int{}
	for counts["n"] = range 4 {
	}
	say("map index %v", counts)
}

func TestSelectAssign(t *testing.T) {
	var k string
	var ok bool
	keep := func() (string, bool) { return k, ok }
	c2 := make(chan string, 1)
	c2 <- "v"
	select {
	case k = <-c2:
	}
	k1, _ := keep()
	say("select %s", k1)
	c2 <- "w"
	other := make(chan string)
	select {
	case k, ok = <-c2:
	case <-other:
	}
	k1, ok1 := keep()
	say("select comma ok %s %v", k1, ok1)
	close(c2)
	m := map[string]string{}
	select {
	case m["x"], ok = <-c2:
	case <-other:
	}
	_, ok1 = keep()
	say("select closed %q %v", m["x"], ok1)
}
