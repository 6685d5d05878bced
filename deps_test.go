package interleave_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestRuntimePackagesUseStandardLibraryOnly enforces DESIGN.md's rule: every package that is
// compiled into a program under test — the engine and this package — imports nothing outside
// the standard library and the module's own runtime packages, because it is injected into
// arbitrary user modules, offline.
func TestRuntimePackagesUseStandardLibraryOnly(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	const module = "github.com/interleave-dev/interleave"
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}",
		module, module+"/engine/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		switch {
		case pkg == module, strings.HasPrefix(pkg, module+"/engine"):
			if strings.Contains(pkg, "/instrument") {
				continue // the instrumenter runs in the tool, not in the program under test
			}
		default:
			t.Errorf("a runtime package depends on %s, which is not in the standard library", pkg)
		}
	}
}
