package engine_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine"
)

const module = "github.com/interleave-dev/interleave"

// layer places every package of the module in the data path of DESIGN.md, lowest first: a
// package may import only packages of lower layers. A new package gets a layer here.
var layer = map[string]int{
	"engine/bounded":                      0,
	"engine/internal/splitmix":            0,
	"engine/schedule":                     5,
	"engine/srcmap":                       6,
	"engine":                              10,
	"engine/findings":                     10,
	"engine/vnet":                         12,
	"engine/random":                       10,
	"engine/strategy":                     20,
	"engine/store":                        20,
	"engine/report":                       20,
	"engine/minimize":                     30,
	"engine/control":                      30,
	"engine/explore":                      40,
	"engine/stress":                       45,
	"engine/runs":                         45,
	"engine/harness":                      50,
	"engine/runopts":                      55,
	"engine/instrument":                   60,
	"engine/internal/gen/atomic":          60,
	"dap/dapext":                          64,
	"dap/daptest":                         65,
	"lsp/lsptest":                         65,
	"lsp/store":                           65,
	"lsp/lens":                            65,
	"lsp/diagnose":                        66,
	"dap":                                 70,
	"lsp":                                 70,
	"cmd/interleave/internal/bench":       70,
	"cmd/interleave/internal/stressbench": 70,
	"cmd/interleave/internal/perfbench":   70,
	"cmd/interleave/internal/benchcmd":    68,
	"cmd/interleave/internal/demo":        70,
	"cmd/interleave/internal/atomicfile":  66,
	"cmd/interleave/internal/base":        66,
	"cmd/interleave/internal/report":      67,
	"cmd/interleave/internal/merge":       70,
	"cmd/interleave/internal/test":        72,
	"cmd/interleave/internal/keep":        78,
	"cmd/interleave/internal/version":     66,
	"cmd/interleave/internal/replay":      78,
	"cmd/interleave/internal/verify":      78,
	"cmd/interleave":                      80,
	"docs":                                90, // tests of the documentation pages; builds cmd/interleave
	"docs/ci":                             90, // tests of the CI documents; builds cmd/interleave
}

// goList runs go list on the module's packages with a template whose output is
// "importpath: import import ..." per package.
func goList(t *testing.T, args ...string) map[string][]string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command("go", append([]string{"list"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	pkgs := make(map[string][]string)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, imports, _ := strings.Cut(line, ":")
		pkgs[name] = strings.Fields(imports)
	}
	return pkgs
}

// TestImportsRunDownward enforces DESIGN.md's arrows: cmd → dap, lsp → engine/...; nothing
// in engine/ imports dap, lsp or cmd, and within engine/ nothing imports what sits above it.
func TestImportsRunDownward(t *testing.T) {
	pkgs := goList(t, "-f", "{{.ImportPath}}:{{join .Imports \" \"}}", module+"/...")
	for pkg, imports := range pkgs {
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
		if strings.Contains(rel, "testdata") {
			continue
		}
		l, ok := layer[rel]
		if !ok {
			t.Errorf("package %s has no layer in deps_test.go: place it in the data path", rel)
			continue
		}
		for _, imp := range imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			irel := strings.TrimPrefix(imp, module+"/")
			if il, ok := layer[irel]; ok && il >= l {
				t.Errorf("%s (layer %d) imports %s (layer %d): arrows must run downward", rel, l, irel, il)
			}
		}
	}
}

// runtimePackages are the packages compiled into an instrumented test binary: the harness,
// the virtual network (which instrumented code imports when it uses package net) and what
// they import, transitively, in this module.
func runtimePackages(t *testing.T) map[string][]string {
	deps := goList(t, "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}:{{join .Imports \" \"}}{{end}}", module+"/engine/harness", module+"/engine/vnet")
	delete(deps, "")
	return deps
}

// TestRuntimePackagesUseStandardLibraryOnly enforces DESIGN.md's rule: every package that is
// compiled into a program under test imports nothing outside the standard library and the
// module's own runtime packages, because it is injected into arbitrary user modules, offline.
func TestRuntimePackagesUseStandardLibraryOnly(t *testing.T) {
	deps := runtimePackages(t)
	if len(deps) < 5 {
		t.Fatalf("runtime packages: %v", deps)
	}
	for pkg := range deps {
		if pkg != module+"/engine" && !strings.HasPrefix(pkg, module+"/engine/") {
			t.Errorf("a runtime package depends on %s, which is neither the standard library nor the engine", pkg)
		}
	}
}

// TestSourceHoldsTheRuntime checks that engine.Source, the copy of the runtime that the
// interleave command builds user tests against, holds the source of every runtime package.
func TestSourceHoldsTheRuntime(t *testing.T) {
	for pkg := range runtimePackages(t) {
		dir := strings.TrimPrefix(strings.TrimPrefix(pkg, module+"/engine"), "/")
		if dir == "" {
			dir = "."
		}
		entries, err := fs.ReadDir(engine.Source, dir)
		n := 0
		for _, e := range entries {
			if path.Ext(e.Name()) == ".go" && !strings.HasSuffix(e.Name(), "_test.go") {
				n++
			}
		}
		if err != nil || n == 0 {
			t.Errorf("engine.Source lacks %s (%v): add its directory to the go:embed line of source.go", pkg, err)
		}
	}
}

// TestRuntimeNeedsNoNetwork: on the Unix systems, nothing compiled into an instrumented test
// binary needs package net or cgo (the debug session's connection is a Unix domain socket made
// with package syscall: control's dial). Either would be compiled for every user's test
// binary, on a fresh build cache about a second and a half more than go test builds — the C
// compiler run on runtime/cgo included.
func TestRuntimeNeedsNoNetwork(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	for _, goos := range []string{"linux", "darwin", "freebsd"} {
		cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", module+"/engine/harness")
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=arm64", "CGO_ENABLED=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list for %s: %v\n%s", goos, err, out)
		}
		for _, pkg := range strings.Fields(string(out)) {
			if pkg == "net" || pkg == "runtime/cgo" {
				t.Errorf("on %s the runtime packages depend on %s", goos, pkg)
			}
		}
	}
}

// TestRuntimeBuildsOnMacOS cross-compiles the runtime packages for macOS, whose package
// syscall lacks calls that Linux's has (nanosleep): a test binary instrumented on a Mac must
// build.
func TestRuntimeBuildsOnMacOS(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command("go", "build", "-o", os.DevNull, module+"/engine/harness")
	cmd.Env = append(os.Environ(), "GOOS=darwin", "GOARCH=arm64", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build for darwin/arm64: %v\n%s", err, out)
	}
}
