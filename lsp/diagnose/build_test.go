package diagnose_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine/findings"
	"github.com/interleave-dev/interleave/lsp/diagnose"
	"github.com/interleave-dev/interleave/lsp/store"
)

// TestSeveralTests: a pair of accesses that several tests showed is one diagnostic per
// access, listing the tests; an access on another line names where the other is.
func TestSeveralTests(t *testing.T) {
	root := t.TempDir()
	src := "package p\n\nfunc (c *C) Inc() {\n\tc.n++\n}\n\nfunc (c *C) Get() int {\n\treturn c.n\n}\n"
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module m\n"), 0o644)
	os.WriteFile(filepath.Join(root, "c.go"), []byte(src), 0o644)
	acc := func(line, col int, op string, g int) findings.Access {
		return findings.Access{Pos: "c.go:" + itoa(line) + ":" + itoa(col), File: "c.go", Line: line, Col: col, Op: op, Goroutine: g, Created: "c_test.go:9:2"}
	}
	for i, name := range []string{"TestA", "TestB"} {
		f := &findings.File{Test: findings.Test{Module: "m", Package: "m", Name: name}, Points: "all", Schedules: 1000 * (i + 1),
			Races: []findings.Race{{A: acc(4, 2, "write", 1), B: acc(8, 9, "read", 2), FirstSchedule: 3, Schedules: 10 * (i + 1)}}}
		if i == 1 { // the other order: the same pair
			f.Races[0].A, f.Races[0].B = f.Races[0].B, f.Races[0].A
		}
		if err := f.Save(root); err != nil {
			t.Fatal(err)
		}
	}
	s := store.New(store.Module{Root: root, Path: "m"})
	s.Refresh()
	items := diagnose.Build([]*store.Snapshot{s.Snapshot()}, nil)
	var r diagnose.Resolver
	res := r.Resolve(items[filepath.Join(root, "c.go")], nil)
	if len(res) != 2 {
		t.Fatalf("%d diagnostics, want 2 (one per access)", len(res))
	}
	want := []string{
		"data race: read of c.n by G2 (started at c_test.go:9) and write by G1 at c.go:4 — seen in 20 of 2,000 schedules of TestB, 10 of 1,000 of TestA",
		"data race: write of c.n by G1 (started at c_test.go:9) and read by G2 at c.go:8 — seen in 20 of 2,000 schedules of TestB, 10 of 1,000 of TestA",
	}
	var got []string
	for _, x := range res {
		got = append(got, x.Message(x.Operand))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") && strings.Join([]string{got[1], got[0]}, "\n") != strings.Join(want, "\n") {
		t.Errorf("messages\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := len(res[0].Actions); n != 6 {
		t.Errorf("%d code actions, want 3 per test", n)
	}
}

func itoa(n int) string {
	s := ""
	for {
		s = string(rune('0'+n%10)) + s
		n /= 10
		if n == 0 {
			return s
		}
	}
}
