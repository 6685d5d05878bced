package engine

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/interleave-dev/interleave/engine/internal/splitmix"
)

// fingerprintReference is the definition fingerprinter.sum implements (see fingerprinter),
// written plainly with maps: per object, reads since the last write summed, a write folding
// them into the object's hash; objects combined by addition after a full mix.
func fingerprintReference(trace []traceStep) uint64 {
	local := map[GID]uint64{}
	type object struct{ h, reads uint64 }
	objects := map[uintptr]*object{}
	for _, s := range trace {
		if s.isChoice() {
			continue
		}
		local[s.g]++
		if s.obj == 0 {
			continue
		}
		o := objects[s.obj]
		if o == nil {
			o = &object{h: 0x9e3779b97f4a7c15}
			objects[s.obj] = o
		}
		v := (uint64(s.g)<<40 ^ local[s.g]<<8 ^ uint64(s.op())) * 0x9e3779b97f4a7c15
		if !s.op().IsWrite() {
			o.reads += v
			continue
		}
		o.h = (o.h^o.reads)*0x100000001b3 ^ v
		o.reads = 0
	}
	var total uint64
	for _, o := range objects {
		total += splitmix.Mix(o.h ^ bits.RotateLeft64(o.reads, 17))
	}
	return total
}

// TestFingerprintAgainstReference compares the fingerprinter, whose tables are reused across
// executions and whose loop keeps the current goroutine and object in locals, with the plain
// definition on random traces: runs of one goroutine and one object, many objects (the table
// grows), choices, steps without an object, loops' runs of one operation (summed at once).
func TestFingerprintAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ops := []OpKind{OpRead, OpWrite, OpAtomicLoad, OpLock, OpUnlock, OpYield, OpGo}
	var f fingerprinter
	for i := range 2000 {
		goroutines := 1 + r.IntN(6)
		objects := 1 + r.IntN(1+i%200)
		var trace []traceStep
		g, obj := GID(0), uintptr(0)
		for range r.IntN(400) {
			if r.IntN(4) == 0 {
				g = GID(r.IntN(goroutines))
			}
			if r.IntN(3) == 0 {
				obj = uintptr(r.IntN(objects)) * 8
			}
			code := traceCode(ops[r.IntN(len(ops))], posID(r.IntN(5)))
			if r.IntN(20) == 0 {
				code |= traceChoice
			}
			trace = append(trace, traceStep{g: g, obj: obj, code: code})
			if r.IntN(8) == 0 {
				// A loop's run of one operation, at one or two positions.
				for k := range r.IntN(40) {
					trace = append(trace, traceStep{g: g, obj: obj, code: code&^tracePosMask | uint32(k%2)})
				}
			}
		}
		if got, want := f.sum(trace, goroutines), fingerprintReference(trace); got != want {
			t.Fatalf("trace %d (%d steps): sum %#x, the definition %#x", i, len(trace), got, want)
		}
	}
}

// BenchmarkFingerprint is the fingerprint of BenchmarkPointNoSwitch's executions: 1,000 reads
// of one word by one goroutine.
func BenchmarkFingerprint(b *testing.B) {
	trace := make([]traceStep, 1000)
	for i := range trace {
		trace[i] = traceStep{obj: 64, code: traceCode(OpRead, 1)}
	}
	var f fingerprinter
	for b.Loop() {
		f.sum(trace, 1)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(trace)), "ns/step")
}
