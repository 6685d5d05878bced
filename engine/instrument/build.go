package instrument

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/findings"
)

// runtimeModule is the module path of the packages compiled into instrumented binaries.
const runtimeModule = "github.com/interleave-dev/interleave"

func init() {
	engineFuncs = make(map[string]bool)
	fset := token.NewFileSet()
	entries, _ := fs.ReadDir(engine.Source, ".")
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		src, err := fs.ReadFile(engine.Source, e.Name())
		if err != nil {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), src, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.IsExported() {
				engineFuncs[fd.Name.Name] = true
			}
		}
	}
}

// runtimeFile reports whether the embedded file at name (relative to the engine's directory)
// belongs in the runtime copy: sources of the engine and its runtime packages, not tests, test
// data, generators, or the embedding itself.
func runtimeFile(name string) bool {
	if strings.HasSuffix(name, "_test.go") || name == "source.go" {
		return false
	}
	for _, part := range strings.Split(path.Dir(name), "/") {
		if part == "testdata" || part == "gen" {
			return false
		}
	}
	return strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".s")
}

// Runtime writes the runtime packages (see engine.Source) under cacheDir, with a go.mod of
// their own (they need nothing but the standard library), once per content, and returns the
// module directory.
func Runtime(cacheDir string) (string, error) {
	var names []string
	err := fs.WalkDir(engine.Source, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && runtimeFile(p) {
			names = append(names, "engine/"+p)
		}
		return nil
	})
	names = append(names, "go.mod")
	if err != nil {
		return "", fmt.Errorf("runtime source: %w", err)
	}
	sort.Strings(names)
	h := sha256.New()
	contents := make(map[string][]byte, len(names))
	for _, n := range names {
		var b []byte
		if n == "go.mod" {
			// The runtime needs nothing but the standard library.
			b = []byte("module " + runtimeModule + "\n\ngo " + runtimeGoVersion + "\n")
		} else {
			var err error
			if b, err = fs.ReadFile(engine.Source, strings.TrimPrefix(n, "engine/")); err != nil {
				return "", fmt.Errorf("runtime source: %w", err)
			}
		}
		contents[n] = b
		fmt.Fprintf(h, "%s %d\n", n, len(b))
		h.Write(b)
	}
	dir := filepath.Join(cacheDir, "runtime-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
		// Written before, by this process or another: used only if it is exactly what this
		// binary carries; else written again.
		if verifyTree(dir, contents) == nil {
			return dir, nil
		}
		if err := os.RemoveAll(dir); err != nil {
			return "", fmt.Errorf("runtime source: replace the altered copy %s: %w", dir, err)
		}
	}
	tmp, err := os.MkdirTemp(cacheDir, "runtime-tmp-")
	if err != nil {
		return "", fmt.Errorf("runtime source: %w", err)
	}
	defer os.RemoveAll(tmp)
	for _, n := range names {
		p := filepath.Join(tmp, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", fmt.Errorf("runtime source: %w", err)
		}
		if err := os.WriteFile(p, contents[n], 0o644); err != nil {
			return "", fmt.Errorf("runtime source: %w", err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, "go.mod")); statErr == nil {
			// Another process won the race.
			if verr := verifyTree(dir, contents); verr != nil {
				return "", fmt.Errorf("runtime source %s: %w", dir, verr)
			}
			return dir, nil
		}
		return "", fmt.Errorf("runtime source: %w", err)
	}
	return dir, nil
}

// Config says what to instrument and build.
type Config struct {
	// Dir is the directory the packages are resolved in (the user's working directory).
	Dir string
	// Patterns are the package patterns, as for go test.
	Patterns []string
	// BuildFlags are passed to go list and go test -c (-tags, -gcflags, ...).
	BuildFlags []string
	// Modules lists module path prefixes whose packages are instrumented besides the main
	// module's.
	Modules []string
	// Work is the private directory for rewritten files and binaries.
	Work string
	// Cache is the directory for the runtime copy (default: the user cache directory).
	Cache string
	// Output receives the go command's output (build errors), as it comes.
	Output io.Writer
}

// AlwaysInstrumented lists the modules whose packages are instrumented whenever a test links
// them, besides the main module and Config.Modules: libraries that tests run through and that
// wait or start goroutines themselves — testify's Eventually and Never poll on a ticker in a
// goroutine of their own, golang.org/x/sync's errgroup, semaphore and singleflight block. Left
// uninstrumented, a test blocked in them waits outside the engine's control (abandoned by the
// watchdog), or an assertion times out in real time while the engine holds the goroutines it
// polls (a false failure). go.uber.org/goleak reads every goroutine's traceback (runtime.Stack),
// which the engine filters to the test's own goroutines, and retries with sleeps that must let
// the controlled goroutines finish. github.com/jonboulle/clockwork is the clock that libraries
// take as a dependency to be testable (gocron's default is its real clock): left
// uninstrumented, its time.Now and time.AfterFunc are the real ones while the test's are the
// virtual clock's — a start date the test computes is 26 years in the past for the library,
// and a job waiting on the real AfterFunc is a deadlock to the engine (29 of gocron v2's tests
// failed so; instrumented, they pass).
//
// None is here for the test's *testing.T: it keeps its type (handle.go), so a module that
// takes it builds instrumented or not. Instrumented, testify's assertions (and goleak's
// VerifyNone) report through the execution's test, with their messages in the bug; were they
// not instrumented, they would still build, and their failures would be seen
// (engine/external.go) without their messages.
var AlwaysInstrumented = []string{"github.com/stretchr/testify", "golang.org/x/sync", "go.uber.org/goleak", "github.com/jonboulle/clockwork"}

// Package is one instrumented test package.
type Package struct {
	ImportPath string
	Dir        string
	ModulePath string
	ModuleDir  string
	Binary     string // the test binary; "" when the package has no test files
	// Tests are the binary's top-level tests (its -test.list), kept with the build so that a
	// warm run does not start every binary to list them; nil when they could not be listed.
	Tests []string
	// Build identifies the test binary by its sources (see buildIdentity); whoever runs the
	// binary passes it in INTERLEAVE_BUILD (BuildEnv), and schedule files record it.
	Build string
	// Uninstrumented lists the modules of packages the test binary links that were not
	// instrumented, so that the engine can name the one a goroutine blocks in (BuildEnv).
	Uninstrumented []string
	// Instrument is Config.Modules, and RecordedFlags the build flags that change what the
	// binary does (-tags, -race, …; see recordedFlags): the binary's schedules record them
	// (BuildEnv), so that a replay builds it the same way.
	Instrument    []string `json:",omitempty"`
	RecordedFlags []string `json:",omitempty"`
}

// BuildEnv is the environment that tells a test binary about its build: its identity
// (INTERLEAVE_BUILD), the modules it links that were not instrumented
// (INTERLEAVE_UNINSTRUMENTED, comma-separated), and what its schedules record of how it was
// built: the modules instrumented on request (INTERLEAVE_INSTRUMENT, comma-separated) and the
// build flags (INTERLEAVE_BUILD_FLAGS, a JSON array).
func (p *Package) BuildEnv() []string {
	flags, _ := json.Marshal(p.RecordedFlags)
	if len(p.RecordedFlags) == 0 {
		flags = nil
	}
	return []string{"INTERLEAVE_BUILD=" + p.Build, "INTERLEAVE_UNINSTRUMENTED=" + strings.Join(p.Uninstrumented, ","),
		"INTERLEAVE_INSTRUMENT=" + strings.Join(p.Instrument, ","), "INTERLEAVE_BUILD_FLAGS=" + string(flags)}
}

// Result is what Build made.
type Result struct {
	Packages []*Package
	// Problems lists the constructs that were left uninstrumented.
	Problems []Problem
	// Files is the number of files rewritten.
	Files int
	// Points lists, per source file (absolute path), the lines with scheduling points: where
	// a debugger's breakpoint can stop the controlled execution.
	Points map[string][]int
	// Cached is set when the result comes from the build cache (nothing was rebuilt);
	// NotCached says why a fresh result could not be kept there ("" when it was).
	Cached    bool   `json:"-"`
	NotCached string `json:"-"`
}

// An Error is a failure to load, instrument or build, with the go command's words.
type Error struct {
	Op     string // "load", "build"
	Detail string
	// std is set when the build that failed had the standard library's servers instrumented
	// (stdlib.go): Build tries again without them.
	std bool
}

func (e *Error) Error() string { return e.Op + ": " + strings.TrimSpace(e.Detail) }

// Build loads the packages of cfg.Patterns with their tests, rewrites the packages of the main
// module (and of cfg.Modules) into cfg.Work, and builds one test binary per package with
// go test -c -overlay, leaving every file of the user's module as it was.
//
// An unchanged build is not made again: the result is kept in the cache directory, keyed by
// everything it reads (buildcache.go), and its binaries are copied into cfg.Work.
func Build(ctx context.Context, cfg Config) (*Result, error) {
	var err error
	if cfg.Cache, err = cacheDir(cfg.Cache); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Work, 0o755); err != nil {
		return nil, fmt.Errorf("work directory: %w", err)
	}
	rt, err := Runtime(cfg.Cache)
	if err != nil {
		return nil, err
	}
	key, why := buildKey(ctx, cfg, rt)
	if key != "" && !slices.Contains(cfg.BuildFlags, "-a") {
		if res, err := loadCachedBuild(cfg.Cache, key, cfg.Work); err != nil || res != nil {
			if res != nil {
				res.Cached = true
			}
			return res, err
		}
	}
	res, err := build(ctx, cfg, rt, true)
	var berr *Error
	if errors.As(err, &berr) && berr.std {
		// The standard library's servers did not build instrumented: built again without
		// them, the connections they could reach stay real (stdlib.go).
		res, err = build(ctx, cfg, rt, false)
		if res != nil {
			res.Problems = append(res.Problems, Problem{Msg: "net/http, crypto/tls and net/rpc are not instrumented (their instrumented build failed: " +
				headLine(berr.Detail) + "): connections they could reach stay real"})
		}
	}
	if err != nil {
		return nil, err
	}
	listTests(ctx, res.Packages)
	res.NotCached = why
	// Kept only if nothing changed while it was built: the entry holds what its key says.
	if key != "" {
		if again, _ := buildKey(ctx, cfg, rt); again == key {
			if err := saveCachedBuild(cfg.Cache, key, res); err != nil {
				res.NotCached = "the build cache: " + err.Error()
			}
		} else {
			res.NotCached = "the sources changed during the build"
		}
	}
	return res, nil
}

// listTests fills in the Tests of the packages with a binary (ListTests), a few binaries at a
// time. A binary that cannot list its tests (it fails in an init function) keeps nil Tests:
// whoever runs it reports the failure.
func listTests(ctx context.Context, pkgs []*Package) {
	sem := make(chan struct{}, runtime.NumCPU())
	var wg sync.WaitGroup
	for _, p := range pkgs {
		if p.Binary == "" {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if tests, err := ListTests(ctx, p); err == nil {
				p.Tests = tests
			}
		}()
	}
	wg.Wait()
}

// ListTests runs the package's test binary with -test.list and returns its top-level tests.
func ListTests(ctx context.Context, p *Package) ([]string, error) {
	cmd := Command(ctx, p.Binary, "-test.list", ".")
	cmd.Dir = p.Dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("list the tests of %s: %v", p.ImportPath, err)
	}
	tests := []string{}
	for _, line := range strings.Split(string(out), "\n") {
		if line = strings.TrimSpace(line); IsListed(line) {
			tests = append(tests, line)
		}
	}
	return tests, nil
}

// IsListed reports whether name, a line of a test binary's -test.list, is one that interleave
// explores: a test, or an example with an output comment (the only examples -test.list
// lists, since go test runs no other).
func IsListed(name string) bool {
	return strings.HasPrefix(name, "Test") || strings.HasPrefix(name, "Example")
}

// build is Build without its cache. With std, the standard library's servers and clients are
// instrumented in the binaries that link them (stdlib.go).
func build(ctx context.Context, cfg Config, rt string, std bool) (*Result, error) {
	lcfg := &packages.Config{
		Context:    ctx,
		Mode:       packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports | packages.NeedDeps | packages.NeedModule,
		Dir:        cfg.Dir,
		Tests:      true,
		BuildFlags: cfg.BuildFlags,
		Env:        append(os.Environ(), "GOWORK=off"),
	}
	pkgs, err := packages.Load(lcfg, cfg.Patterns...)
	if err != nil {
		return nil, &Error{Op: "load", Detail: err.Error()}
	}
	var loadErrs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			loadErrs = append(loadErrs, e.Error())
		}
	})
	if len(loadErrs) > 0 {
		return nil, &Error{Op: "load", Detail: strings.Join(dedup(loadErrs), "\n")}
	}

	// The test variants of the selected packages, each with its test main.
	type target struct {
		pkg  *packages.Package // the package with its _test.go files (or the plain one)
		main *packages.Package // the generated test main, root of the test binary's graph
	}
	var targets []*target // pointers: byPath keeps them while targets grows
	byPath := map[string]*target{}
	for _, p := range pkgs {
		if strings.HasSuffix(p.ID, ".test") && p.Name == "main" {
			path := strings.TrimSuffix(p.PkgPath, ".test")
			t := byPath[path]
			if t == nil {
				t = &target{}
				targets = append(targets, t)
				byPath[path] = t
			}
			t.main = p
		}
	}
	for _, p := range pkgs {
		if t := byPath[p.PkgPath]; t != nil && strings.Contains(p.ID, "[") && strings.HasSuffix(p.ID, ".test]") {
			t.pkg = p
		}
	}
	// A package with external tests only has no test variant: its directory and module are
	// the plain package's (or the external test package's).
	for _, p := range pkgs {
		path := strings.TrimSuffix(p.PkgPath, "_test")
		if t := byPath[path]; t != nil && t.pkg == nil && !strings.HasSuffix(p.ID, ".test") && (p.ID == p.PkgPath || p.PkgPath == path+"_test") {
			t.pkg = p
		}
	}
	res := &Result{}
	rewritten := map[string]string{}   // original file -> rewritten file
	explain := map[string]failedFile{} // what a failed build says of each rewritten file
	var mainModule *packages.Module
	others := map[string]*packages.Module{} // instrumented modules besides the main one, by directory
	stdUsed := false                        // a standard library package was instrumented
	instrumented := func(p *packages.Package) bool {
		if p.Module == nil {
			return std && stdServer(p)
		}
		if p.Module.Main {
			return true
		}
		for _, m := range append(cfg.Modules, AlwaysInstrumented...) {
			if p.Module.Path == m || strings.HasPrefix(p.Module.Path, m+"/") {
				return true
			}
		}
		return false
	}
	var rewriteErr error
	states := newStateFiles()
	stdStates := map[string][]byte{} // the standard library's state files (stdStateFile)
	seen := map[*packages.Package]bool{}
	var visit func(p *packages.Package)
	visit = func(p *packages.Package) {
		if seen[p] || rewriteErr != nil {
			return
		}
		seen[p] = true
		for _, imp := range p.Imports {
			visit(imp)
		}
		if !instrumented(p) || p.PkgPath == runtimeModule || strings.HasPrefix(p.PkgPath, runtimeModule+"/engine") {
			return
		}
		goroot := p.Module == nil // one of the standard library's servers (stdlib.go)
		stdUsed = stdUsed || goroot
		if !goroot && p.Module.Main && mainModule == nil {
			mainModule = p.Module
		}
		if !goroot && !p.Module.Main && p.Module.Dir != "" {
			others[p.Module.Dir] = p.Module
		}
		realNet, tcpReal := netServers(p, instrumented), tcpAssertion(p.Fset, p.TypesInfo)
		if goroot {
			if content := stdStateFile(p); content != nil {
				stdStates[filepath.Join(pkgDir(p), "zz_interleave_state.go")] = content
			}
		}
		for i, f := range p.Syntax {
			if i >= len(p.CompiledGoFiles) {
				break
			}
			name := p.CompiledGoFiles[i]
			if _, done := rewritten[name]; done || !strings.HasSuffix(name, ".go") {
				continue
			}
			if goroot && stdKept[p.PkgPath+"/"+filepath.Base(name)] {
				rewritten[name] = ""
				continue
			}
			if hasCgo(f) {
				res.Problems = append(res.Problems, Problem{Pos: p.Fset.Position(f.Pos()), Msg: "cgo file is not instrumented"})
				rewritten[name] = ""
				continue
			}
			if !goroot {
				// The standard library's package variables are not restored: the package
				// keeps what it set up at init (stdlib.go).
				statePin := ""
				if !p.Module.Main {
					statePin = modulePin(p.Module.GoVersion)
				}
				sizes := p.TypesSizes
				if sizes == nil {
					sizes = types.SizesFor("gc", runtime.GOARCH)
				}
				states.add(p.Fset, p.TypesInfo, sizes, f, name, statePin)
			}
			src, err := os.ReadFile(name)
			if err != nil {
				rewriteErr = fmt.Errorf("instrument %s: %w", name, err)
				return
			}
			posName := filepath.ToSlash(name)
			if goroot {
				// Positions in GOROOT are named from its src directory, as the packages'
				// import paths are ("net/http/server.go").
				posName = p.PkgPath + "/" + filepath.Base(name)
			} else if rel, err := filepath.Rel(p.Module.Dir, name); err == nil && !strings.HasPrefix(rel, "..") {
				posName = filepath.ToSlash(rel)
			}
			fr := newFileRewriter(p.Fset, p.Types, p.TypesInfo, f, src, posName, strings.HasSuffix(name, "_test.go"))
			fr.realNet, fr.tcpReal, fr.syncOnly = realNet, tcpReal, goroot
			if goroot {
				// The standard library keeps its language version: the go line of GOROOT's.
			} else if pin := modulePin(p.Module.GoVersion); pin != "" {
				// The main module's go line is raised in the alternate go.mod: every file of
				// its packages keeps its language version by a pinned copy. Other modules
				// keep their go line: only their rewritten copies need the pin.
				fr.pin = pin
				fr.pinAll = p.Module.Main
			}
			fr.rewrite()
			res.Problems = append(res.Problems, fr.problems...)
			out := fr.output()
			if out == nil {
				rewritten[name] = ""
				continue
			}
			if n, m := bytes.Count(src, []byte("\n")), bytes.Count(out, []byte("\n")); m < n {
				rewriteErr = fmt.Errorf("instrument %s: internal error: the rewrite lost lines (%d of %d)", name, m, n)
				return
			}
			sum := sha256.Sum256([]byte(name))
			dst := filepath.Join(cfg.Work, "src", hex.EncodeToString(sum[:8])+"_"+filepath.Base(name))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				rewriteErr = err
				return
			}
			if err := os.WriteFile(dst, out, 0o644); err != nil {
				rewriteErr = err
				return
			}
			rewritten[name] = dst
			res.Files++
			if goroot {
				explain[filepath.Clean(name)] = failedFile{dst: dst, module: "std", uninstrumented: uninstrumentedImports(p, instrumented)}
				continue
			}
			explain[filepath.Clean(name)] = failedFile{dst: dst, module: p.Module.Path, main: p.Module.Main, uninstrumented: uninstrumentedImports(p, instrumented)}
			res.addPoints(p.Module.Dir, out)
		}
	}
	for _, t := range targets {
		if t.main != nil {
			visit(t.main)
		}
	}
	if rewriteErr != nil {
		return nil, rewriteErr
	}
	files := states.files()
	maps.Copy(files, stdStates)
	for name, content := range files {
		sum := sha256.Sum256([]byte(name))
		dst := filepath.Join(cfg.Work, "src", hex.EncodeToString(sum[:8])+"_"+filepath.Base(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(dst, content, 0o644); err != nil {
			return nil, err
		}
		rewritten[name] = dst
	}
	res.Problems = append(res.Problems, states.skipped...)
	// Packages without test files have no test main: nothing to explore.
	for _, p := range pkgs {
		if p.Name == "main" && strings.HasSuffix(p.ID, ".test") {
			continue
		}
		if strings.Contains(p.ID, "[") || strings.HasSuffix(p.PkgPath, "_test") {
			continue
		}
		if byPath[p.PkgPath] == nil {
			res.Packages = append(res.Packages, &Package{ImportPath: p.PkgPath, Dir: pkgDir(p)})
		}
	}
	// The go command refuses overlays of files in the module cache: the instrumented modules
	// that live there are copied (once, into the cache directory) and replaced by their
	// copies, whose files the overlay replaces.
	copies, replaces, err := copyCachedModules(ctx, cfg, others)
	if err != nil {
		return nil, err
	}
	overlay := struct{ Replace map[string]string }{map[string]string{}}
	for orig, dst := range rewritten {
		if dst == "" {
			continue
		}
		if to := movedTo(copies, orig); to != "" {
			orig = to
		}
		overlay.Replace[orig] = dst
	}
	ob, _ := json.Marshal(overlay)
	overlayPath := filepath.Join(cfg.Work, "overlay.json")
	if err := os.WriteFile(overlayPath, ob, 0o644); err != nil {
		return nil, err
	}
	if mainModule == nil {
		// Only other modules' packages were selected (-instrument): the main module is
		// the one cfg.Dir is in.
		mainModule = findMainModule(ctx, cfg)
	}
	modArgs, err := modFile(ctx, cfg, mainModule, rt, replaces)
	if err != nil {
		return nil, err
	}
	binaries := map[string]string{} // binary -> import path
	for _, t := range targets {
		if t.main == nil {
			continue
		}
		p := t.pkg
		if p == nil {
			p = t.main
		}
		pkg := &Package{ImportPath: strings.TrimSuffix(t.main.PkgPath, ".test"), Dir: pkgDir(p)}
		if p.Module != nil {
			pkg.ModulePath, pkg.ModuleDir = p.Module.Path, p.Module.Dir
		}
		// A package of a copied module runs in its copy (the module cache is read-only).
		if d := movedTo(copies, pkg.Dir); d != "" {
			pkg.Dir = d
		}
		if d := movedTo(copies, pkg.ModuleDir); d != "" {
			pkg.ModuleDir = d
		}
		if pkg.Build, err = buildIdentity(t.main, rt, cfg.BuildFlags, instrumented); err != nil {
			return nil, err
		}
		pkg.Uninstrumented = uninstrumentedModules(t.main, instrumented)
		pkg.Instrument, pkg.RecordedFlags = cfg.Modules, recordedFlags(cfg.BuildFlags)
		// Named by the exact import path: packages whose paths flatten alike (a/b and a_b)
		// each get their own binary, never the one built last.
		pkg.Binary = filepath.Join(cfg.Work, "bin", findings.FileStem(pkg.ImportPath)+".test")
		if other, dup := binaries[pkg.Binary]; dup {
			return nil, fmt.Errorf("build %s: its test binary %s would be %s's too", pkg.ImportPath, filepath.Base(pkg.Binary), other)
		}
		binaries[pkg.Binary] = pkg.ImportPath
		args := []string{"test", "-c", "-o", pkg.Binary, "-overlay", overlayPath}
		args = append(args, modArgs...)
		args = append(args, cfg.BuildFlags...)
		args = append(args, pkg.ImportPath)
		cmd := Command(ctx, "go", args...)
		cmd.Dir = cfg.Dir
		cmd.Env = append(os.Environ(), "GOWORK=off")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			if cfg.Output != nil {
				cfg.Output.Write(out.Bytes())
			}
			return nil, &Error{Op: "build " + pkg.ImportPath, Detail: explainFailure(out.String(), cfg.Dir, explain), std: stdUsed}
		}
		res.Packages = append(res.Packages, pkg)
	}
	sort.Slice(res.Problems, func(i, j int) bool {
		a, b := res.Problems[i].Pos, res.Problems[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Offset < b.Offset
	})
	res.Problems = dedupProblems(res.Problems)
	return res, nil
}

// posLiteral is a position the rewritten code passes to the engine: "file.go:line:col",
// the file relative to its module's directory.
var posLiteral = regexp.MustCompile(`"([^"\s]+\.go):(\d+):(\d+)"`)

// addPoints records the scheduling points of a rewritten file of the module in moduleDir.
func (r *Result) addPoints(moduleDir string, rewritten []byte) {
	if r.Points == nil {
		r.Points = map[string][]int{}
	}
	for _, m := range posLiteral.FindAllSubmatch(rewritten, -1) {
		file := string(m[1])
		if !filepath.IsAbs(file) {
			file = filepath.Join(moduleDir, filepath.FromSlash(file))
		}
		line, _ := strconv.Atoi(string(m[2]))
		lines := r.Points[file]
		if i, found := slices.BinarySearch(lines, line); !found {
			r.Points[file] = slices.Insert(lines, i, line)
		}
	}
}

func pkgDir(p *packages.Package) string {
	files := p.GoFiles
	if len(files) == 0 {
		files = p.CompiledGoFiles
	}
	if len(files) == 0 {
		return ""
	}
	return filepath.Dir(files[0])
}

func hasCgo(f *ast.File) bool {
	for _, imp := range f.Imports {
		if imp.Path.Value == `"C"` {
			return true
		}
	}
	return false
}

func dedup(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func dedupProblems(list []Problem) []Problem {
	seen := map[string]bool{}
	var out []Problem
	for _, p := range list {
		k := p.String()
		if !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	return out
}
