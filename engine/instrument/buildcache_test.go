package instrument

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The build cache gives an unchanged package's build back without rebuilding it, and rebuilds
// whenever anything the build reads changed: a source file (and back again), go.mod, the build
// flags; flags that read files it cannot see are not cached, and an entry whose binary was
// altered is not used.
func TestBuildCache(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "testdata", "examples", "counter"))); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	build := func(flags ...string) *Result {
		t.Helper()
		res, err := Build(ctx, Config{Dir: dir, Patterns: []string{"."}, BuildFlags: flags, Work: t.TempDir(), Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Packages) != 1 || res.Packages[0].Binary == "" {
			t.Fatalf("want one test binary, got %+v", res.Packages)
		}
		return res
	}
	// runs checks that the binary is a working instrumented test binary of the package.
	runs := func(res *Result) string {
		t.Helper()
		p := res.Packages[0]
		cmd := exec.CommandContext(ctx, p.Binary, "-test.list", ".")
		cmd.Dir = p.Dir
		cmd.Env = append(os.Environ(), p.BuildEnv()...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s -test.list: %v\n%s", p.Binary, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	edit := func(name, old, new string) {
		t.Helper()
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), old) {
			t.Fatalf("%s has no %q", name, old)
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	first := build()
	if first.Cached || first.NotCached != "" {
		t.Fatalf("first build: cached %v, not kept because %q", first.Cached, first.NotCached)
	}
	second := build()
	if !second.Cached {
		t.Fatal("an unchanged package was built again")
	}
	if a, b := first.Packages[0], second.Packages[0]; a.Build != b.Build || a.ImportPath != b.ImportPath || a.Dir != b.Dir ||
		b.Binary == a.Binary || len(second.Points) == 0 || len(second.Points) != len(first.Points) {
		t.Errorf("the cached result differs: %+v (points %d) vs %+v (points %d)", b, len(second.Points), a, len(first.Points))
	}
	if got, want := runs(second), runs(first); got != want || !strings.Contains(got, "TestConcurrentWithdraw") {
		t.Errorf("the cached binary lists %q, the built one %q", got, want)
	}
	// The build lists the binary's tests, and the cache keeps the list: a warm run starts no
	// binary to learn them.
	listed := strings.Join(first.Packages[0].Tests, "\n")
	if want := runs(first); listed != want || strings.Join(second.Packages[0].Tests, "\n") != want {
		t.Errorf("the build listed %q, the cache kept %q; the binary lists %q", first.Packages[0].Tests, second.Packages[0].Tests, want)
	}

	// A changed test file: built again, with another identity; changed back: the first entry.
	edit("account_test.go", "func TestConcurrentWithdraw(", "func TestRenamedWithdraw(")
	changed := build()
	if changed.Cached || changed.Packages[0].Build == first.Packages[0].Build || !strings.Contains(runs(changed), "TestRenamedWithdraw") ||
		!slices.Contains(changed.Packages[0].Tests, "TestRenamedWithdraw") || slices.Contains(changed.Packages[0].Tests, "TestConcurrentWithdraw") {
		t.Fatalf("after an edit: cached %v, identity %s (was %s), tests %q, listed %q", changed.Cached, changed.Packages[0].Build, first.Packages[0].Build, runs(changed), changed.Packages[0].Tests)
	}
	edit("account_test.go", "func TestRenamedWithdraw(", "func TestConcurrentWithdraw(")
	if back := build(); !back.Cached || back.Packages[0].Build != first.Packages[0].Build {
		t.Errorf("the edit undone: cached %v, identity %s, want the first build's %s", back.Cached, back.Packages[0].Build, first.Packages[0].Build)
	}

	// go.mod and the build flags are part of the key; flags that read files the key cannot
	// see make a build that is not kept, and say why.
	key := func(flags ...string) (string, string) {
		rt, err := Runtime(cache)
		if err != nil {
			t.Fatal(err)
		}
		return buildKey(ctx, Config{Dir: dir, Patterns: []string{"."}, BuildFlags: flags}, rt)
	}
	base, why := key()
	if base == "" {
		t.Fatalf("no key: %s", why)
	}
	if k, _ := key("-tags", "sometag"); k == base || k == "" {
		t.Errorf("-tags: key %q, the same as without", k)
	}
	for _, flags := range [][]string{{"-pgo=/some/profile"}, {"-toolexec", "/bin/true"}, {"-overlay=/some/overlay.json"}, {"-gcflags=-importcfg=/x"}} {
		if k, why := key(flags...); k != "" || !strings.Contains(why, strings.SplitN(strings.TrimPrefix(flags[0], "-"), "=", 2)[0]) {
			t.Errorf("%v: key %q (%q), want none and the flag named", flags, k, why)
		}
	}
	if k, _ := key("-pgo=off"); k == "" {
		t.Error("-pgo=off: not cacheable")
	}
	edit("go.mod", "go 1.22", "go 1.23")
	if k, _ := key(); k == base {
		t.Error("a changed go.mod kept the key")
	}
	edit("go.mod", "go 1.23", "go 1.22")
	if res := build(); !res.Cached {
		t.Error("go.mod changed back: not the cached build")
	}

	// An altered binary in the cache: not used, the build is made again.
	entries, err := filepath.Glob(filepath.Join(cache, "builds", "*", "*.test"))
	if err != nil || len(entries) == 0 {
		t.Fatalf("no cached binary (%v)", err)
	}
	for _, e := range entries {
		if err := os.WriteFile(e, []byte("#!/bin/sh\necho altered\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	res := build()
	if res.Cached {
		t.Fatal("an altered cached binary was used")
	}
	if !strings.Contains(runs(res), "TestConcurrentWithdraw") {
		t.Errorf("the rebuilt binary lists %q", runs(res))
	}
}
