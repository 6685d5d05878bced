package constructs

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// runAll calls each of fs: a method value passed as an argument.
func runAll(fs ...func()) {
	for _, f := range fs {
		f()
	}
}

func TestSyncMethodValues(t *testing.T) {
	var wg sync.WaitGroup
	add, done := wg.Add, wg.Done
	results := make([]int, 3)
	add(3)
	for i := range 3 {
		go func() {
			defer done()
			results[i] = i * i
		}()
	}
	wg.Wait()
	say("add and done by value %v", results)
	wg.Add(2)
	go runAll(wg.Done, wg.Done)
	wg.Wait()
	say("passed as arguments")
	wg.Add(1)
	go done()
	wg.Wait()
	say("go of a value")
	goFn := wg.Go
	n := 0
	goFn(func() { n = 7 })
	wg.Wait()
	say("wg.Go by value %d", n)

	// defer of the call and defer of a method value: both unlock at return.
	var mu sync.Mutex
	func() {
		mu.Lock()
		defer mu.Unlock()
		say("defer call: trylock %v", mu.TryLock())
	}()
	func() {
		mu.Lock()
		unlock := mu.Unlock
		defer unlock()
		say("defer value: trylock %v", mu.TryLock())
	}()
	tryLock := mu.TryLock
	say("trylock by value %v %v", tryLock(), tryLock())
	mu.Unlock()

	// The receiver is evaluated (its address taken) when the method value is made.
	var wg1, wg2 sync.WaitGroup
	pw := &wg1
	add1 := pw.Add
	pw = &wg2
	add1(1)
	go wg1.Done()
	wg1.Wait()
	pw.Add(1)
	go wg2.Done()
	wg2.Wait()
	say("bound before reassignment")
	wgs := make([]sync.WaitGroup, 2)
	i := 0
	addAt := wgs[i].Add
	i = 1
	addAt(1)
	go wgs[0].Done()
	wgs[0].Wait()
	say("bound element %d", i)

	var once sync.Once
	do := once.Do
	for k := range 2 {
		do(func() { say("once %d", k) })
	}

	var rw sync.RWMutex
	rlocker := rw.RLocker
	rl := rlocker()
	rl.Lock()
	rwTry, rwTryR := rw.TryLock, rw.TryRLock
	say("read-locked: trylock %v tryrlock %v", rwTry(), rwTryR())
	rw.RUnlock()
	rl.Unlock()
	say("unlocked: trylock %v", rwTry())
	rw.Unlock()

	// Promoted methods.
	var g Guarded
	glock, gtry := g.Lock, g.TryLock
	glock()
	say("guarded: trylock %v", gtry())
	g.Unlock()
	pg := PGuarded{Mutex: new(sync.Mutex)}
	pgTry := pg.TryLock
	first := pg.Mutex
	pg.Mutex = new(sync.Mutex)
	say("pguarded: trylock %v %v", pgTry(), first.TryLock())
	pg.Lock()
	say("pguarded: new mutex trylock %v", pg.TryLock())
	pg.Unlock()

	// Panics happen where the value is called.
	var wg3 sync.WaitGroup
	addNeg := wg3.Add
	try("negative add by value", func() { addNeg(-1) })
	var wg4 sync.WaitGroup
	try("extra done by value", wg4.Done)
	var nilWG *sync.WaitGroup
	nilAdd := nilWG.Add
	try("nil receiver", func() { nilAdd(1) })
}

func TestSyncMethodExpressions(t *testing.T) {
	var mu sync.Mutex
	lock, unlock := (*sync.Mutex).Lock, (*sync.Mutex).Unlock
	tryLock := (*sync.Mutex).TryLock
	lock(&mu)
	say("locked: trylock %v", tryLock(&mu))
	unlock(&mu)
	say("unlocked: trylock %v", tryLock(&mu))
	unlock(&mu)

	var wg sync.WaitGroup
	add := (*sync.WaitGroup).Add
	add(&wg, 2)
	go (*sync.WaitGroup).Done(&wg)
	go func() { defer (*sync.WaitGroup).Done(&wg) }()
	(*sync.WaitGroup).Wait(&wg)
	say("waitgroup by method expression")

	// Promoted: the receiver is found in the argument.
	var g Guarded
	glock, gtry := (*Guarded).Lock, (*Guarded).TryLock
	glock(&g)
	say("guarded: trylock %v", gtry(&g))
	go (*Guarded).Unlock(&g)
	(*Guarded).Lock(&g)
	say("guarded: relocked")
	(*Guarded).Unlock(&g)
	pg := PGuarded{Mutex: new(sync.Mutex)}
	pgLock := PGuarded.Lock
	pgLock(pg)
	say("pguarded: trylock %v", (*PGuarded).TryLock(&pg))
	PGuarded.Unlock(pg)

	var l sync.Locker = &mu
	llock, lunlock := sync.Locker.Lock, sync.Locker.Unlock
	llock(l)
	say("locker: trylock %v", mu.TryLock())
	lunlock(l)
	sync.Locker.Lock(l)
	sync.Locker.Unlock(l)

	var rw sync.RWMutex
	rl := (*sync.RWMutex).RLocker(&rw)
	rlock := (*sync.RWMutex).RLock
	rlock(&rw)
	rl.Lock()
	say("read-locked twice: trylock %v", rw.TryLock())
	rl.Unlock()
	rw.RUnlock()
	say("unlocked: trylock %v", rw.TryLock())
	rw.Unlock()

	var wg2 sync.WaitGroup
	try("negative add by method expression", func() { add(&wg2, -1) })
}

type counter struct {
	atomic.Int64
	name string
}

func TestAtomicMethodValues(t *testing.T) {
	var c atomic.Int64
	add, load := c.Add, c.Load
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			add(2)
		}()
	}
	wg.Wait()
	say("int64 %d", load())
	cas, swap := c.CompareAndSwap, c.Swap
	say("cas %v %v swap %d now %d", cas(6, 1), cas(6, 2), swap(3), c.Load())

	var flag atomic.Bool
	set := flag.Store
	done := make(chan bool)
	go func() {
		set(true)
		done <- true
	}()
	<-done
	say("bool %v", flag.Load())

	var p atomic.Pointer[config]
	store, pswap := p.Store, p.Swap
	store(&config{"a"})
	old := pswap(&config{"b"})
	say("pointer %s %s", old.name, p.Load().name)
	var v atomic.Value
	vstore, vload := v.Store, v.Load
	vstore("x")
	say("value %v", vload())

	cs := make([]atomic.Int64, 2)
	i := 0
	addAt := cs[i].Add
	i = 1
	addAt(5)
	say("bound element %d %d (i %d)", cs[0].Load(), cs[1].Load(), i)
	ct := &counter{name: "hits"}
	incr := ct.Add
	incr(4)
	say("promoted %s %d", ct.name, ct.Load())

	incr32 := (*atomic.Int32).Add
	var i32 atomic.Int32
	say("method expression %d %d", incr32(&i32, 5), (*atomic.Int32).Load(&i32))
	cadd := (*counter).Add
	cadd(ct, 1)
	say("promoted method expression %d", (*counter).Load(ct))

	var np *atomic.Int64
	nilAdd := np.Add
	try("nil receiver", func() { nilAdd(1) })
}

func TestFuncValues(t *testing.T) {
	// Function values of sync/atomic, time and sync functions call the engine as their calls
	// do: here the virtual clock orders the sleeps.
	sleep, add := time.Sleep, atomic.AddInt64
	var total int64
	order := make(chan string, 3)
	var wg sync.WaitGroup
	for _, d := range []int{60, 1, 30} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sleep(time.Duration(d) * time.Millisecond)
			add(&total, int64(d))
			order <- "slept " + time.Duration(d*int(time.Millisecond)).String()
		}()
	}
	wg.Wait()
	close(order)
	for s := range order {
		say("%s", s)
	}
	once := sync.OnceValue[int]
	calls := 0
	get := once(func() int { calls++; return 5 })
	say("total %d once %d %d calls %d", total, get(), get(), calls)
}
