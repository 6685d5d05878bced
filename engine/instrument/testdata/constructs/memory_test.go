package constructs

import (
	"sync"
	"testing"
)

type shared struct {
	n    int
	p    *Pair
	arr  [3]Pair
	list []int
}

var global shared

func next(x *int) int { *x += 10; return *x }

func TestPackageVars(t *testing.T) {
	Counter = 1
	Counter++
	Counter += next(&Counter)
	Counter -= 2
	Counter *= 2
	say("counter %d", Counter)
	global.n = 3
	global.n++
	global.p = &Pair{1, 2}
	global.p.A += 5
	global.arr[1].B = 7
	global.arr[2] = Pair{8, 9}
	global.list = append(global.list, 1, 2)
	global.list[0]--
	say("global %d %v %v %v", global.n, *global.p, global.arr, global.list)
	g := global
	say("copy %d", g.arr[1].B)
	global = shared{}
	say("reset %d %v", global.n, global.p == nil)
}

func TestCapturedLocals(t *testing.T) {
	x, y := 1, 2
	f := func() int { x += 100; return 1 }
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		x++
		x += f()
		x, y = y, x
	}()
	wg.Wait()
	say("x %d y %d", x, y)
	a, b, c := 1, 2, 3
	swap := func() { a, b, c = c, a, b }
	swap()
	say("rotated %d %d %d", a, b, c)
	var s string
	func() { s = "set in closure" }()
	say("%s", s)
	arr := [3]int{1, 2, 3}
	sl := arr[:]
	sl[0] = 10
	q := &arr[1]
	*q = 20
	(*q)++
	arr[2] *= 3
	say("arr %v", arr)
	var _, z = 5, func() int { return x }()
	say("z %d", z)
}

func TestPointersAndSlices(t *testing.T) {
	p := &Pair{1, 2}
	p.A = 3
	p.B += p.A
	pp := &p
	(*pp).A = 9
	(**pp).B--
	say("pair %v", *p)
	n := &Node{Val: 1, Next: &Node{Val: 2}}
	n.Next.Val *= 10
	n.Next.Next = n
	say("nodes %d %d %d", n.Val, n.Next.Val, n.Next.Next.Next.Val)
	s := []int{1, 2, 3}
	s[0], s[2] = s[2], s[0]
	s[1]++
	i := 1
	s[i] = s[i-1] + s[i+1]
	say("slice %v", s)
	m := [][]int{{1}, {2, 3}}
	m[1][0] = 7
	say("2d %v", m)
	ps := []*Pair{{1, 1}, {2, 2}}
	for _, q := range ps {
		q.A *= 5
	}
	say("pointers %v %v", *ps[0], *ps[1])
	arrp := &[2]int{4, 5}
	arrp[1] = 6
	say("array pointer %v len %d", *arrp, len(arrp))
	type wrap struct{ inner struct{ v []int } }
	w := &wrap{}
	w.inner.v = append(w.inner.v, 1)
	w.inner.v[0] += 41
	say("nested %v", w.inner.v)
	var iface any = p
	say("assert %d", iface.(*Pair).A)
	b := []byte("hi")
	b[0] = 'H'
	str := string(b)
	say("%s %c", str, str[1])
}

func TestCompositeAndConversions(t *testing.T) {
	Counter = 2
	v := Pair{A: Counter, B: Counter * 2}
	arr := [...]int{0: Counter, 2: Counter + 1}
	mp := map[int]int{Counter: Counter}
	fn := func(x int) int { return x + Counter }
	say("%v %v %v %d", v, arr, mp, fn(1))
	type celsius float64
	c := celsius(Counter)
	say("%.1f", c)
	var i interface{ Report(chan<- string) } = &Node{Val: Counter}
	switch x := i.(type) {
	case *Node:
		say("type switch node %d", x.Val)
	default:
		say("other")
	}
	switch {
	case Counter > 1:
		say("switch true")
	}
	switch Counter {
	case 1, 2:
		say("switch 2")
	}
}

type myErr struct{ s string }

func (e *myErr) Error() string { return e.s }

// namedResults returns through named results that a deferred closure reads and writes (they
// are shared): return with a concrete error into an error result, with constants only, a
// bare return, and a return where err is shadowed.
func namedResults(k int) (n float64, err error) {
	defer func() {
		if err != nil {
			n = -n
		}
	}()
	switch k {
	case 0:
		return 2, nil
	case 1:
		return float64(k) * 3, &myErr{"one"}
	case 2:
		n, err = 4, &myErr{"two"}
		return
	}
	if err := error(&myErr{"shadowed"}); err != nil {
		return 5, err // problem: the named result err by a return statement is not instrumented: it is shadowed
	}
	return
}

func TestNamedResults(t *testing.T) {
	for k := range 4 {
		n, err := namedResults(k)
		say("named results %d: %v %v", k, n, err)
	}
}
