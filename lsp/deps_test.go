package lsp_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies enforces DESIGN.md's arrows: the language server depends on engine
// packages (the findings documents and schedule files), never on the command, the debug
// adapter or the module's root package (whose store moves to engine/).
func TestDependencies(t *testing.T) {
	const module = "github.com/interleave-dev/interleave"
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		switch {
		case pkg == module, strings.HasPrefix(pkg, module+"/cmd"), strings.HasPrefix(pkg, module+"/dap"):
			t.Errorf("the language server depends on %s", pkg)
		case strings.HasPrefix(pkg, module+"/") && !strings.HasPrefix(pkg, module+"/lsp") && !strings.HasPrefix(pkg, module+"/engine/"):
			t.Errorf("the language server depends on %s, which is neither lsp nor engine", pkg)
		}
	}
}
