// Package keep is interleave keep: it copies a schedule file that exposes a bug into the
// committed corpus of its test, testdata/interleave/<TestName>/ in the test's package
// directory (as go test keeps a failing fuzz input in testdata/fuzz/<FuzzName>/), under a
// name made from its content. Every later interleave test replays the corpus before it
// explores, so a fixed bug that comes back fails at once, on every machine and in CI.
package keep

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/base"
	"github.com/interleave-dev/interleave/engine/explore"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/store"
)

// Args and Summary are the command's arguments and what it does, for interleave's usage.
const (
	Args    = "[-o dir] FILE"
	Summary = "keep a schedule as a regression test in testdata/interleave/<Test>/"
)

const usage = `usage: interleave keep [-o dir] FILE

Keep copies the schedule FILE (a bug's schedule, best minimized: interleave minimize) into
testdata/interleave/<TestName>/ in its test's package directory, named after its bug's kind
and a hash of its decisions ("deadlock-3f9a1c2e0b4d.json": the same schedule always gets the
same name). Commit the file: interleave test replays every schedule there before it explores
the test, and fails at once, with that schedule, if the bug is back.

Flags:
  -o dir   the package directory to keep it in (default: found from the schedule's module
           and package, from the file's location or the current directory)
`

// Run runs interleave keep.
func Run(args []string, stdout, stderr io.Writer) error {
	fset := base.NewFlagSet("keep", stderr)
	fset.Usage = func() { fmt.Fprint(stderr, usage) }
	out := fset.String("o", "", "the package `dir`ectory to keep the schedule in")
	if err := fset.Parse(args); err != nil {
		return err
	}
	if fset.NArg() != 1 {
		return fmt.Errorf("%w: want one schedule file", base.ErrUsage)
	}
	path := fset.Arg(0)
	f, err := schedule.Load(path)
	if err != nil {
		return err
	}
	if f.Bug == nil {
		return fmt.Errorf("keep %s: the schedule passes: only a bug's schedule guards anything", path)
	}
	dir := *out
	if dir == "" {
		if dir, err = packageDir(path, f); err != nil {
			return fmt.Errorf("keep %s: %w", path, err)
		}
	}
	dst, kept, err := Keep(f, dir)
	if err != nil {
		return fmt.Errorf("keep %s: %w", path, err)
	}
	rel := dst
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, dst); err == nil && !strings.HasPrefix(r, "..") {
			rel = r
		}
	}
	if !kept {
		fmt.Fprintf(stdout, "already kept: %s\n", rel)
		return nil
	}
	fmt.Fprintf(stdout, "kept: %s\ncommit it: interleave test replays it before exploring %s, and fails at once if the %s is back\n", rel, f.Test.Name, f.Bug.Kind)
	return nil
}

// packageDir finds the directory of the schedule's package: in its module, found from the
// file's location (a results store is at its module's root) or the working directory.
func packageDir(path string, f *schedule.File) (string, error) {
	var dirs []string
	if abs, err := filepath.Abs(path); err == nil {
		dirs = append(dirs, filepath.Dir(abs))
	}
	if wd, err := os.Getwd(); err == nil {
		dirs = append(dirs, wd)
	}
	if f.Test.Module == "" {
		return "", fmt.Errorf("the schedule does not name its module: give the package directory with -o")
	}
	root, err := store.ModuleRoot(f.Test.Module, dirs...)
	if err != nil {
		return "", err
	}
	rel, ok := strings.CutPrefix(f.Test.Package, f.Test.Module)
	if !ok || (rel != "" && !strings.HasPrefix(rel, "/")) {
		return "", fmt.Errorf("package %s is not in module %s", f.Test.Package, f.Test.Module)
	}
	dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(rel, "/")))
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", fmt.Errorf("package %s: no directory %s", f.Test.Package, dir)
	}
	return dir, nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Name is the corpus file name of f: its bug's kind and a hash of its decisions.
func Name(f *schedule.File) string {
	h := sha256.New()
	for _, s := range f.Steps {
		fmt.Fprintf(h, "%d %d %d %d\n", s.Kind, s.G, s.Value, s.N)
	}
	kind := "pass"
	if f.Bug != nil {
		kind = unsafeName.ReplaceAllString(f.Bug.Kind, "_")
	}
	return kind + "-" + hex.EncodeToString(h.Sum(nil))[:12] + ".json"
}

// Keep writes f into the corpus of its test in the package directory dir, and returns the
// file's path and whether it was written (false: the same schedule is kept there already).
func Keep(f *schedule.File, dir string) (string, bool, error) {
	corpus := filepath.Join(dir, filepath.FromSlash(explore.CorpusDir), explore.CorpusName(f.Test.Name))
	dst := filepath.Join(corpus, Name(f))
	var b bytes.Buffer
	if err := f.Encode(&b); err != nil {
		return "", false, err
	}
	switch old, err := os.ReadFile(dst); {
	case err == nil && bytes.Equal(old, b.Bytes()):
		return dst, false, nil
	case err == nil:
		if g, err := schedule.Load(dst); err == nil && Name(g) == Name(f) {
			return dst, false, nil // the same decisions, kept from another run
		}
	case !errors.Is(err, fs.ErrNotExist):
		return "", false, err
	}
	if err := os.MkdirAll(corpus, 0o755); err != nil {
		return "", false, fmt.Errorf("create %s: %w", corpus, err)
	}
	g := *f
	if err := g.Save(dst); err != nil {
		return "", false, err
	}
	return dst, true, nil
}
