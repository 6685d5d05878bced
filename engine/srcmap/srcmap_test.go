package srcmap_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/srcmap"
)

const original = `package m

import (
	"sync"
	"testing"
)

func TestDeadlock(t *testing.T) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		mu.Lock()
	}()
	mu.Lock()
	wg.Wait()
}
`

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A schedule's positions are found again after edits that leave their lines alone, and a line
// that changed is reported as gone.
func TestRelocate(t *testing.T) {
	recorded := &schedule.File{
		Steps: []schedule.Step{
			{G: 0, Op: "wg.add", Pos: "p/x_test.go:11"},
			{G: 0, Op: "go", Pos: "p/x_test.go:12"},
			{G: 0, Op: "lock", Pos: "p/x_test.go:16"},
			{G: 1, Op: "lock", Pos: "p/x_test.go:14"},
			{G: 0, Op: "wg.wait", Pos: "p/x_test.go:17"},
		},
		RacyPoints: []string{"p/x_test.go:14:3"},
		Bug:        &schedule.Bug{Kind: "deadlock", Pos: "p/x_test.go:17"},
	}
	tests := []struct {
		name  string
		files map[string]string // p/…, replacing x_test.go
		want  []string          // the steps' positions now
		racy  string
		gone  string // Describe
	}{
		{"unchanged", nil,
			[]string{"p/x_test.go:11", "p/x_test.go:12", "p/x_test.go:16", "p/x_test.go:14", "p/x_test.go:17"}, "p/x_test.go:14:3", ""},
		{"a comment and a blank line above the test",
			map[string]string{"x_test.go": strings.Replace(original, "func TestDeadlock", "// TestDeadlock deadlocks.\n\nfunc TestDeadlock", 1)},
			[]string{"p/x_test.go:13", "p/x_test.go:14", "p/x_test.go:18", "p/x_test.go:16", "p/x_test.go:19"}, "p/x_test.go:16:3", ""},
		{"comments inside the test, and reformatted",
			map[string]string{"x_test.go": strings.NewReplacer("\twg.Add(1)\n", "\t// one\n\twg.Add( 1 ) // the goroutine\n", "\tmu.Lock()\n\twg.Wait()", "\n\tmu.Lock()\n\twg.Wait()",
				"\t\tmu.Lock()\n\t}()", "        mu.Lock()\n\t}()").Replace(original)},
			[]string{"p/x_test.go:12", "p/x_test.go:13", "p/x_test.go:18", "p/x_test.go:15", "p/x_test.go:19"}, "p/x_test.go:15:9", ""},
		{"a new function above the test",
			map[string]string{"x_test.go": strings.Replace(original, "func TestDeadlock", "func helper() int {\n\tvar mu sync.Mutex\n\tmu.Lock()\n\treturn 1\n}\n\nfunc TestDeadlock", 1)},
			[]string{"p/x_test.go:17", "p/x_test.go:18", "p/x_test.go:22", "p/x_test.go:20", "p/x_test.go:23"}, "p/x_test.go:20:3", ""},
		{"the test moved to another file",
			map[string]string{"x_test.go": "package m\n", "y_test.go": "package m\n\n// moved\n" + strings.TrimPrefix(original, "package m\n")},
			[]string{"p/y_test.go:13", "p/y_test.go:14", "p/y_test.go:18", "p/y_test.go:16", "p/y_test.go:19"}, "p/y_test.go:16:3", ""},
		{"a line on the path changed",
			map[string]string{"x_test.go": strings.Replace(original, "\tmu.Lock()\n\twg.Wait()", "\tmu.TryLock()\n\twg.Wait()", 1)},
			[]string{"p/x_test.go:11", "p/x_test.go:12", "", "p/x_test.go:14", "p/x_test.go:17"}, "p/x_test.go:14:3",
			"p/x_test.go:16 (`mu.Lock()` in TestDeadlock)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.Mkdir(filepath.Join(root, "p"), 0o755); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(root, "p"), map[string]string{"x_test.go": original})
			f := *recorded
			srcmap.Annotate(&f, root)
			if a := f.Source["p/x_test.go:14"]; a.Func != "TestDeadlock" || a.Text != "mu.Lock()" || a.Line != 6 || a.Nth != 0 || a.Col != 3 {
				t.Fatalf("anchor of p/x_test.go:14: %+v", a)
			}
			if a := f.Source["p/x_test.go:16"]; a.Nth != 1 {
				t.Fatalf("anchor of p/x_test.go:16, the second mu.Lock(): %+v", a)
			}
			write(t, filepath.Join(root, "p"), tc.files)
			g, m := srcmap.Relocate(&f, root)
			var got []string
			for _, s := range g.Steps {
				got = append(got, s.Pos)
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("positions now %q, want %q", got, tc.want)
			}
			if g.RacyPoints[0] != tc.racy {
				t.Errorf("racy point now %s, want %s", g.RacyPoints[0], tc.racy)
			}
			if d := m.Describe(); d != tc.gone {
				t.Errorf("Describe() = %q, want %q", d, tc.gone)
			}
			if f.Steps[0].Pos != "p/x_test.go:11" {
				t.Errorf("Relocate modified its argument")
			}
		})
	}
}

// A file without anchors (version 1) is replayed as written.
func TestRelocateWithoutAnchors(t *testing.T) {
	f := &schedule.File{Steps: []schedule.Step{{G: 0, Op: "go", Pos: "x.go:3"}}}
	g, m := srcmap.Relocate(f, t.TempDir())
	if g != f || m.SourceChanged() {
		t.Errorf("Relocate of a file without anchors: %+v, %+v", g, m)
	}
}
