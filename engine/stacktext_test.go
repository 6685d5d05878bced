package engine

import (
	"strings"
	"testing"
)

// TestWithoutEngineFramesNamesTheProgramsFunctions: a controlled goroutine's traceback has the
// program's names — the test function as written (the instrumenter renamed it __ilTestXxx),
// and "created by" the function whose closure it runs, at the closure's line, not the
// engine's spawn; a goroutine waiting in a subtest's Run has testing.(*T).Run on top.
func TestWithoutEngineFramesNamesTheProgramsFunctions(t *testing.T) {
	const in = `goroutine 23 [chan receive]:
github.com/interleave-dev/interleave/engine.(*Exec).wait(0xc000134000, 0xc00014a0d0)
	/src/interleave/engine/exec.go:331 +0x2e
github.com/interleave-dev/interleave/engine.Recv[...](...)
	/src/interleave/engine/chan.go:360
github.com/interleave-dev/interleave/engine.(*T).Run(0xc000118000, {0x5f1a2e, 0x3}, 0xc00012c0f0)
	/src/interleave/engine/subtest.go:22 +0x1c8
example.com/bank.__ilTestTransfer.func2.1()
	/home/me/bank/bank_test.go:24 +0x3e
github.com/interleave-dev/interleave/engine.(*Exec).call(0xc000134000, 0xc00014a0d0)
	/src/interleave/engine/goroutine.go:186 +0x5c
github.com/interleave-dev/interleave/engine.(*Exec).run(0xc000134000, 0xc00014a0d0)
	/src/interleave/engine/goroutine.go:120 +0x85
created by github.com/interleave-dev/interleave/engine.(*Exec).spawn in goroutine 21
	/src/interleave/engine/goroutine.go:39 +0x1ba`
	const want = `goroutine 23 [chan receive]:
testing.(*T).Run(...)
	/src/interleave/engine/subtest.go:22 +0x1c8
example.com/bank.TestTransfer.func2.1()
	/home/me/bank/bank_test.go:24 +0x3e
created by example.com/bank.TestTransfer.func2 in goroutine 21
	/home/me/bank/bank_test.go:24 +0x3e`
	if got := string(withoutEngineFrames([]byte(in))); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for fn, want := range map[string]string{
		"m.F.func2": "m.F", "m.F.func2.1": "m.F.func2", "m.(*T).M.func1": "m.(*T).M", "m.F": "", "m.F.funcs": "", "m.F.func": "",
	} {
		if got := string(closureOwner([]byte(fn))); got != want {
			t.Errorf("closureOwner(%q) = %q, want %q", fn, got, strings.TrimSpace(want))
		}
	}
}
