package interleave

import (
	"reflect"
	"testing"

	"github.com/interleave-dev/interleave/engine"
)

func TestParseStacks(t *testing.T) {
	const text = `goroutine 21 [running]:
github.com/interleave-dev/interleave.(*debugStrategy).Pick(0xc000130000, 0xc000134018)
	/src/interleave/debug.go:400 +0x45
github.com/interleave-dev/interleave/engine.(*Exec).decide(0xc000134000)
	/src/interleave/engine/exec.go:380 +0x1a5
github.com/interleave-dev/interleave/engine.(*Exec).yield(0xc000134000, 0xc00014a000?)
	/src/interleave/engine/exec.go:312 +0x45
github.com/interleave-dev/interleave/engine.Lock(0xc000118008, {0x5f1a2e, 0xc})
	/src/interleave/engine/mutex.go:28 +0xd5
example.com/bank.Transfer(0xc000118000, 0xc000118020, 0x1e)
	/home/me/bank/bank.go:42 +0x6b
example.com/bank.__ilTestTransfer.func1()
	/home/me/bank/bank_test.go:18 +0x3e
created by github.com/interleave-dev/interleave/engine.(*Exec).spawn in goroutine 20
	/src/interleave/engine/exec.go:520 +0x1c5

goroutine 22 [chan receive]:
github.com/interleave-dev/interleave/engine.(*Exec).wait(0xc000134000, 0xc00014a0d0)
	/src/interleave/engine/exec.go:331 +0x2e
github.com/interleave-dev/interleave/engine.(*Exec).switchTo(0xc000134000, 0xc00014a0d0, 0xc00014a000)
	/src/interleave/engine/exec.go:325 +0x65
...additional frames elided...
example.com/bank.helper(...)
	/home/me/bank/bank.go:60
example.com/bank.__ilTestTransfer.func2()
	/home/me/bank/bank_test.go:24 +0x3e

goroutine 3 [select]:
runtime.gopark(0x0?, 0x0?, 0x0?, 0x0?, 0x0?)
	/usr/local/go/src/runtime/proc.go:460 +0xce
`
	got := parseStacks(text)
	want := map[uintptr]goroutineStack{
		0xc00014a000: {goid: 21, frames: []engine.Frame{
			{Func: "example.com/bank.Transfer", File: "/home/me/bank/bank.go", Line: 42},
			{Func: "example.com/bank.TestTransfer.func1", File: "/home/me/bank/bank_test.go", Line: 18},
		}},
		0xc00014a0d0: {goid: 22, frames: []engine.Frame{
			{Func: "example.com/bank.helper", File: "/home/me/bank/bank.go", Line: 60},
			{Func: "example.com/bank.TestTransfer.func2", File: "/home/me/bank/bank_test.go", Line: 24},
		}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseStacks:\n got %+v\nwant %+v", got, want)
	}
}

func TestLineOf(t *testing.T) {
	for in, want := range map[string]string{"bank.go:42:2": "bank.go:42", "a/b.go:7:11": "a/b.go:7", "bank.go:42": "bank.go:42", "": ""} {
		if got := lineOf(in); got != want {
			t.Errorf("lineOf(%q) = %q, want %q", in, got, want)
		}
	}
}
