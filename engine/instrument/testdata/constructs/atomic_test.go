package constructs

import (
	"sync"
	"sync/atomic"
	"testing"
)

type config struct{ name string }

func TestAtomics(t *testing.T) {
	var n int64
	var u32 uint32
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			atomic.AddInt64(&n, 2)
			atomic.AddUint32(&u32, 1)
		}()
	}
	wg.Wait()
	say("add %d %d", atomic.LoadInt64(&n), atomic.LoadUint32(&u32))
	atomic.StoreInt64(&n, 5)
	say("cas %v %v", atomic.CompareAndSwapInt64(&n, 5, 6), atomic.CompareAndSwapInt64(&n, 5, 7))
	say("swap %d now %d", atomic.SwapInt64(&n, 9), n)
	var i32 int32
	say("and/or %d %d %d", atomic.OrInt32(&i32, 6), atomic.AndInt32(&i32, 3), atomic.LoadInt32(&i32))

	var c atomic.Int64
	var flag atomic.Bool
	var u atomic.Uint32
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Add(3)
			flag.Store(true)
			u.Or(4)
		}()
	}
	wg.Wait()
	say("Int64 %d Bool %v Uint32 %d", c.Load(), flag.Load(), u.Load())
	say("Int64 cas %v swap %d", c.CompareAndSwap(9, 1), c.Swap(2))

	var p atomic.Pointer[config]
	say("pointer nil %v", p.Load() == nil)
	first := &config{"first"}
	p.Store(first)
	say("pointer cas %v %s", p.CompareAndSwap(first, &config{"second"}), p.Load().name)
	old := p.Swap(&config{"third"})
	say("pointer swap %s %s", old.name, p.Load().name)

	var v atomic.Value
	say("value nil %v", v.Load() == nil)
	v.Store("a")
	say("value %v cas %v swap %v now %v", v.Load(), v.CompareAndSwap("a", "b"), v.Swap("c"), v.Load())

	type holder struct{ hits atomic.Int32 }
	h := &holder{}
	h.hits.Add(1)
	hs := []holder{{}, {}}
	hs[1].hits.Store(4)
	say("fields %d %d", h.hits.Load(), hs[1].hits.Load())
}
