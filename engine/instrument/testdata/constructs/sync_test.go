package constructs

import (
	"sync"
	"testing"
)

func TestMutexes(t *testing.T) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	Counter = 0
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			Incr(&mu)
		}()
	}
	wg.Wait()
	say("counter %d", Counter)
	say("trylock %v", mu.TryLock())
	say("trylock again %v", mu.TryLock())
	mu.Unlock()

	a := &Account{}
	wg.Add(2)
	go func() { defer wg.Done(); a.Deposit(5) }()
	go func() { defer wg.Done(); a.Deposit(7) }()
	wg.Wait()
	say("balance %d", a.Balance())
	say("rw trylock %v", a.mu.TryLock())
	say("rw tryrlock %v", a.mu.TryRLock())
	a.mu.Unlock()
	say("rw tryrlock %v", a.mu.TryRLock())
	rl := a.mu.RLocker()
	rl.Lock()
	rl.Unlock()
	a.mu.RUnlock()
	say("rlocker done")
}

func TestEmbeddedAndMethodValues(t *testing.T) {
	var g Guarded
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			g.Lock()
			defer g.Unlock()
			g.N += i
		})
	}
	wg.Wait()
	say("guarded %d", g.N)

	pg := PGuarded{Mutex: new(sync.Mutex)}
	done := make(chan bool)
	go func() {
		pg.Lock()
		pg.N++
		pg.Unlock()
		done <- true
	}()
	<-done
	pg.Lock()
	say("pguarded %d", pg.N)
	pg.Unlock()

	var mu sync.Mutex
	unlock := mu.Unlock
	mu.Lock()
	unlock()
	say("method value unlock: trylock %v", mu.TryLock())
	func() {
		defer mu.Unlock()
		say("deferred unlock")
	}()
	lock := g.Lock
	lock()
	g.Unlock()
	var l sync.Locker = &mu
	l.Lock()
	l.Unlock()
	lk := l.Lock
	lk()
	l.Unlock()
	done2 := wg.Done
	wg.Add(1)
	go done2()
	wg.Wait()
	say("locker done")
}

func TestOnceAndCond(t *testing.T) {
	var once sync.Once
	var wg sync.WaitGroup
	n := 0
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			once.Do(func() { n++ })
		}()
	}
	wg.Wait()
	say("once %d", n)

	calls := 0
	f := sync.OnceFunc(func() { calls++ })
	f()
	f()
	g := sync.OnceValue(func() int { calls += 10; return calls })
	say("oncevalue %d %d calls %d", g(), g(), calls)
	h := sync.OnceValues(func() (string, error) { return "v", nil })
	s, err := h()
	say("oncevalues %s %v", s, err)

	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	ready := false
	woken := 0
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			for !ready {
				cond.Wait()
			}
			woken++
			mu.Unlock()
		}()
	}
	mu.Lock()
	ready = true
	cond.Broadcast()
	mu.Unlock()
	wg.Wait()
	say("woken %d", woken)

	c2 := sync.Cond{L: &mu}
	turn := 0
	wg.Add(1)
	go func() {
		defer wg.Done()
		mu.Lock()
		for turn != 1 {
			c2.Wait()
		}
		turn = 2
		c2.Signal()
		mu.Unlock()
	}()
	mu.Lock()
	turn = 1
	c2.Signal()
	for turn != 2 {
		c2.Wait()
	}
	mu.Unlock()
	wg.Wait()
	say("turn %d", turn)
}

func TestSyncMapAndPool(t *testing.T) {
	var m sync.Map
	m.Store("a", 1)
	v, ok := m.Load("a")
	say("load %v %v", v, ok)
	actual, loaded := m.LoadOrStore("b", 2)
	say("loadorstore %v %v", actual, loaded)
	prev, loaded := m.Swap("a", 3)
	say("swap %v %v", prev, loaded)
	say("cas %v %v", m.CompareAndSwap("a", 3, 4), m.CompareAndSwap("a", 3, 5))
	say("cad %v", m.CompareAndDelete("b", 2))
	v, loaded = m.LoadAndDelete("a")
	say("loadanddelete %v %v", v, loaded)
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.Store(i, i*i)
		}()
	}
	wg.Wait()
	sum := 0
	m.Range(func(k, v any) bool {
		sum += v.(int)
		return true
	})
	say("range sum %d", sum)
	load := m.Load
	_, ok = load(2)
	say("method value %v", ok)
	m.Delete(0)
	m.Clear()
	_, ok = m.Load(1)
	say("cleared %v", !ok)

	made := 0
	p := sync.Pool{New: func() any { made++; return new(int) }}
	x := p.Get().(*int)
	*x = 7
	p.Put(x)
	say("pool made %d", made)
}
