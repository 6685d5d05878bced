package lsp_test

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/lsp/lsptest"
)

// exe is the interleave command the protocol tests start, built once per test binary.
var exe string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "interleave-lsp-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	lsptest.Timeout = time.Minute
	exe, err = lsptest.Build(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// copyTree copies the directory src (a module of testdata) to dst, without its results store.
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() && d.Name() == ".interleave" {
			return fs.SkipDir
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
}

// copyStore copies the results store of the module src to the module dst.
func copyStore(t testing.TB, src, dst string) {
	t.Helper()
	for _, sub := range []string{"findings", "instrument", "schedules"} {
		entries, _ := os.ReadDir(filepath.Join(src, ".interleave", sub))
		os.MkdirAll(filepath.Join(dst, ".interleave", sub), 0o755)
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(src, ".interleave", sub, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dst, ".interleave", sub, e.Name()), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// interleave runs the interleave command in dir and returns its stdout; a status other than
// the ones in ok fails the test.
func interleave(t testing.TB, dir string, ok []int, args ...string) string {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	if ee, isExit := err.(*exec.ExitError); isExit {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("interleave %s: %v", strings.Join(args, " "), err)
	}
	for _, c := range ok {
		if c == code {
			return string(out)
		}
	}
	t.Fatalf("interleave %s in %s: exit status %d\n%s\n%s", strings.Join(args, " "), dir, code, out, stderr.String())
	return ""
}

// racesOnce holds the race suite's module with its results store, made once per test binary.
var racesOnce struct {
	sync.Once
	dir string
}

// racesModule returns a copy of testdata/races whose racy programs interleave test explored:
// its store holds their findings. Tests must not change it.
func racesModule(t *testing.T) string {
	t.Helper()
	racesOnce.Do(func() {
		dir, err := os.MkdirTemp("", "interleave-lsp-races-")
		if err != nil {
			t.Fatal(err)
		}
		copyTree(t, "../testdata/races", dir)
		interleave(t, dir, []int{0}, "test", "-json", "-schedules", "300", "./racy/...")
		racesOnce.dir = dir
	})
	if racesOnce.dir == "" {
		t.Fatal("the race suite's store could not be made")
	}
	return racesOnce.dir
}

// marked returns the lines marked "// race" in the Go files below root: "path:line" (1-based).
func marked(t *testing.T, root string) map[string]bool {
	t.Helper()
	out := make(map[string]bool)
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			if strings.HasSuffix(strings.TrimSpace(sc.Text()), "// race") {
				out[fmt.Sprintf("%s:%d", path, n)] = true
			}
		}
		return nil
	})
	return out
}

// examplesOnce holds a copy of testdata/examples (one module per example) whose tests
// interleave test explored, each finding its bug.
var examplesOnce struct {
	sync.Once
	dir string
}

// examplesDir returns the copy of testdata/examples with each example's store. Tests must
// not change it.
func examplesDir(t *testing.T) string {
	t.Helper()
	examplesOnce.Do(func() {
		dir, err := os.MkdirTemp("", "interleave-lsp-examples-")
		if err != nil {
			t.Fatal(err)
		}
		copyTree(t, "../testdata/examples", dir)
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.IsDir() {
				interleave(t, filepath.Join(dir, e.Name()), []int{1}, "test", "-json", ".")
			}
		}
		examplesOnce.dir = dir
	})
	if examplesOnce.dir == "" {
		t.Fatal("the examples' stores could not be made")
	}
	return examplesOnce.dir
}
