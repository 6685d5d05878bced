package constructs

import "testing"

var idx int

func bump() int { idx++; return 100 + idx }

func trace(s string, v bool) bool { say("eval %s", s); return v }

func TestEvalOrder(t *testing.T) {
	a := make([]int, 4)
	idx = 0
	a[idx] = bump()
	say("a %v idx %d", a, idx)
	i := 0
	set := func() int { i = 2; return 7 }
	b := []int{0, 0, 0}
	b[i] = set()
	say("b %v", b)
	calls := ""
	f := func(s string, v int) int { calls += s; return v }
	b[f("i", 1)] = f("v", 9)
	say("b %v calls %s", b, calls)
	x, y := f("x", 1), f("y", 2)
	say("x %d y %d calls %s", x, y, calls)
	var p *Pair
	if p != nil && p.A > 0 {
		say("unexpected")
	}
	if p == nil || p.A > 0 {
		say("short circuit or")
	}
	p = &Pair{1, 2}
	g := func() *Pair { return p }
	if g() != nil && g().A == 1 && trace("third", false) || trace("fourth", true) {
		say("condition")
	}
	m := map[string]int{"a": 1}
	addA := func() int { m["a"] += 10; return 1 }
	m["a"] += addA()
	say("map op-assign %d", m["a"])
	ps := []*Pair{nil, {}}
	j := 0
	pick := func() int { j++; return j }
	ps[pick()].A = f("rhs", 5)
	say("ps %v calls %s", *ps[1], calls)
}

// TestUnspecifiedOrder depends on an order the spec leaves open (of variable reads and calls
// in one statement), which gc fixes (the calls first): instrumented, a shared variable's read
// is a call, made in its place from left to right.
func TestUnspecifiedOrder(t *testing.T) {
	idx = 0
	say("args %d %d %d", idx, bump(), idx)
	arr := [3]int{}
	k := 0
	adv := func() int { k++; return k }
	arr[k], arr[adv()] = adv(), k
	say("arr %v k %d", arr, k)
}
