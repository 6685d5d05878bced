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
	if got := string(withoutEngineFrames([]byte(in), nil)); got != want {
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

// TestWithoutEngineFramesEndsATestInTRunner: a goroutine that runs a test's function (the
// execution's first, from the runner) or a subtest's (from T.Run) ends, as under go test, with
// testing.tRunner and "created by testing.(*T).Run" — the test process's own frames for them —
// which leak checkers look for (grpc's leakcheck skips every goroutine with testing.tRunner on
// its stack, and reported the test's goroutine waiting in t.Run as leaked). Other goroutines
// keep their creator.
func TestWithoutEngineFramesEndsATestInTRunner(t *testing.T) {
	runner := testRunnerOf([]byte(`goroutine 6 [chan receive]:
github.com/interleave-dev/interleave/engine.Explore(0xc000102340)
	/src/interleave/engine/explore.go:190 +0x1c8
example.com/bank.TestTransfer(0xc000102340)
	/home/me/bank/bank_test.go:40 +0x25
testing.tRunner(0xc000102340, 0x6a1b28)
	/usr/local/go/src/testing/testing.go:1934 +0xea
created by testing.(*T).Run in goroutine 1
	/usr/local/go/src/testing/testing.go:1997 +0x465`))
	if runner == nil {
		t.Fatal("testRunnerOf found no tRunner frame in a test's goroutine")
	}
	for _, tc := range []struct{ name, in, want string }{
		{"the test's function, waiting in t.Run", `goroutine 7 [chan receive]:
github.com/interleave-dev/interleave/engine.(*Exec).wait(0xc000134000, 0xc00014a0d0)
	/src/interleave/engine/exec.go:331 +0x2e
github.com/interleave-dev/interleave/engine.(*T).Run(0xc000118000, {0x5f1a2e, 0x3}, 0xc00012c0f0)
	/src/interleave/engine/subtest.go:22 +0x1c8
example.com/bank.__ilTestTransfer(0xc000102340)
	/home/me/bank/bank_test.go:12 +0x3e
github.com/interleave-dev/interleave/engine/harness.RunTest.func1(0xc000118000)
	/src/interleave/engine/harness/harness.go:80 +0x2c
github.com/interleave-dev/interleave/engine.(*runner).prepare.func1()
	/src/interleave/engine/runner.go:120 +0x5c
github.com/interleave-dev/interleave/engine.(*Exec).run(0xc000134000, 0xc00014a0d0)
	/src/interleave/engine/goroutine.go:120 +0x85
github.com/interleave-dev/interleave/engine.Explore.func2()
	/src/interleave/engine/explore.go:179 +0x85
created by github.com/interleave-dev/interleave/engine.Explore in goroutine 6
	/src/interleave/engine/explore.go:179 +0x1ba`, `goroutine 7 [chan receive]:
testing.(*T).Run(...)
	/src/interleave/engine/subtest.go:22 +0x1c8
example.com/bank.TestTransfer(0xc000102340)
	/home/me/bank/bank_test.go:12 +0x3e
testing.tRunner(...)
	/usr/local/go/src/testing/testing.go:1934 +0xea
created by testing.(*T).Run in goroutine 1
	/usr/local/go/src/testing/testing.go:1997 +0x465`},
		{"a subtest's function", `goroutine 9 [select]:
github.com/interleave-dev/interleave/engine.(*Exec).wait(0xc000134000, 0xc00014a0d0)
	/src/interleave/engine/exec.go:331 +0x2e
example.com/bank.__ilTestTransfer.func1(0xc000118000)
	/home/me/bank/bank_test.go:14 +0x3e
github.com/interleave-dev/interleave/engine.(*T).Run.func1()
	/src/interleave/engine/subtest.go:21 +0x5c
github.com/interleave-dev/interleave/engine.(*Exec).run(0xc000134000, 0xc00014a0d0)
	/src/interleave/engine/goroutine.go:120 +0x85
created by github.com/interleave-dev/interleave/engine.(*Exec).spawn in goroutine 7
	/src/interleave/engine/goroutine.go:39 +0x1ba`, `goroutine 9 [select]:
example.com/bank.TestTransfer.func1(0xc000118000)
	/home/me/bank/bank_test.go:14 +0x3e
testing.tRunner(...)
	/usr/local/go/src/testing/testing.go:1934 +0xea
created by testing.(*T).Run in goroutine 7
	/usr/local/go/src/testing/testing.go:1997 +0x465`},
		{"a goroutine of the program's", `goroutine 11 [chan send]:
github.com/interleave-dev/interleave/engine.(*Exec).wait(0xc000134000, 0xc00014a0d0)
	/src/interleave/engine/exec.go:331 +0x2e
example.com/bank.__ilTestTransfer.func2()
	/home/me/bank/bank_test.go:20 +0x3e
github.com/interleave-dev/interleave/engine.(*Exec).run(0xc000134000, 0xc00014a0d0)
	/src/interleave/engine/goroutine.go:120 +0x85
created by github.com/interleave-dev/interleave/engine.(*Exec).spawn in goroutine 7
	/src/interleave/engine/goroutine.go:39 +0x1ba`, `goroutine 11 [chan send]:
example.com/bank.TestTransfer.func2()
	/home/me/bank/bank_test.go:20 +0x3e
created by example.com/bank.TestTransfer in goroutine 7
	/home/me/bank/bank_test.go:20 +0x3e`},
	} {
		if got := string(withoutEngineFrames([]byte(tc.in), runner)); got != tc.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}

// TestInHarness: a frame's file line is the harness's when its file is one of the harness's
// sources, whatever the name the frame gives (an inlined closure takes its caller's), and not
// when it is a test of the harness's or another file.
func TestInHarness(t *testing.T) {
	for line, want := range map[string]bool{
		"\t" + harnessDir + "hooks.go:155":            true,
		"\t" + harnessDir + "hooks.go:155 +0x1f":      true,
		"\t" + harnessDir + "harness_test.go:12 +0x1": false,
		"\t/home/me/bank/bank_test.go:24 +0x3e":       false,
		"\tC:/Users/me/bank/bank_test.go:24 +0x3e":    false,
	} {
		if got := inHarness([]byte(line)); got != want {
			t.Errorf("inHarness(%q) = %v, want %v", line, got, want)
		}
	}
}
