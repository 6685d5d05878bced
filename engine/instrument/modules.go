// The modules of a build: the alternate go.mod that requires the runtime copy, the copies
// of instrumented modules that live in the read-only module cache, and the modules a test
// binary links without instrumenting them.

package instrument

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

// uninstrumentedModules lists the modules of the packages root links (the standard library's
// and the runtime copy's left out) that instrumented does not accept, sorted.
func uninstrumentedModules(root *packages.Package, instrumented func(*packages.Package) bool) []string {
	mods := map[string]bool{}
	packages.Visit([]*packages.Package{root}, nil, func(p *packages.Package) {
		if p.Module != nil && p.Module.Path != runtimeModule && !instrumented(p) {
			mods[p.Module.Path] = true
		}
	})
	out := make([]string, 0, len(mods))
	for m := range mods {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// uninstrumentedImports returns the packages p imports that were not instrumented, by package
// name and by import path, with their modules (explainFailure).
func uninstrumentedImports(p *packages.Package, instrumented func(*packages.Package) bool) map[string]string {
	out := map[string]string{}
	for _, imp := range p.Imports {
		if imp.Module != nil && imp.Module.Path != runtimeModule && !instrumented(imp) {
			out[imp.Name], out[imp.PkgPath] = imp.Module.Path, imp.Module.Path
		}
	}
	return out
}

// modFile makes the alternate go.mod that requires the runtime copy, and returns the go
// command flags that use it. The main module's own go.mod and go.sum are not touched.
func modFile(ctx context.Context, cfg Config, m *packages.Module, rt string, replaces []string) ([]string, error) {
	if m == nil || m.GoMod == "" {
		return nil, errors.New("no main module: run interleave inside a Go module")
	}
	if m.Path == runtimeModule {
		return nil, nil // instrumenting interleave itself: the engine is the module's own
	}
	dir := filepath.Join(cfg.Work, "mod")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	gomod := filepath.Join(dir, "go.mod")
	b, err := os.ReadFile(m.GoMod)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", m.GoMod, err)
	}
	if err := os.WriteFile(gomod, b, 0o644); err != nil {
		return nil, err
	}
	if sum, err := os.ReadFile(strings.TrimSuffix(m.GoMod, ".mod") + ".sum"); err == nil {
		if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
			return nil, err
		}
	}
	editArgs := []string{"mod", "edit",
		"-require=" + runtimeModule + "@v0.0.0-00010101000000-000000000000",
		"-replace=" + runtimeModule + "=" + rt}
	if modulePin(m.GoVersion) != "" {
		// The runtime copy needs a newer go line than the module's (see langversion.go);
		// the runtime's behaviour stays that of the module's version.
		goLine := m.GoVersion
		if goLine == "" {
			goLine = "1.16"
		}
		editArgs = append(editArgs, "-go="+runtimeGoVersion, "-godebug=default=go"+goLine)
	}
	for _, r := range replaces {
		editArgs = append(editArgs, "-replace="+r)
	}
	cmd := Command(ctx, "go", append(editArgs, gomod)...)
	cmd.Dir = cfg.Dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, &Error{Op: "go mod edit", Detail: string(out)}
	}
	args := []string{"-modfile", gomod}
	if _, err := os.Stat(filepath.Join(m.Dir, "vendor", "modules.txt")); err == nil {
		args = append(args, "-mod=mod")
	}
	return args, nil
}

// copyCachedModules copies each module of mods that lives in the module cache to
// cfg.Cache/mods/PATH@VERSION, once: a writable directory outside the module cache, where the
// overlay may replace files, the tests may write, and the results store of the module's tests
// (.interleave at its root) outlives the run, so that interleave replay finds the module
// there. It returns the copies (module directory -> copy) and the go mod edit -replace
// arguments that use them.
func copyCachedModules(ctx context.Context, cfg Config, mods map[string]*packages.Module) (map[string]string, []string, error) {
	if len(mods) == 0 {
		return nil, nil, nil
	}
	cmd := Command(ctx, "go", "env", "GOMODCACHE")
	cmd.Dir = cfg.Dir
	out, err := cmd.Output()
	if err != nil {
		return nil, nil, &Error{Op: "go env GOMODCACHE", Detail: err.Error()}
	}
	cache := strings.TrimSpace(string(out))
	if cache == "" {
		return nil, nil, nil
	}
	copies := map[string]string{}
	var replaces []string
	dirs := make([]string, 0, len(mods))
	for d := range mods {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		m := mods[dir]
		rel, err := filepath.Rel(cache, dir)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			continue
		}
		dst := filepath.Join(cfg.Cache, "mods", rel)
		if err := copyModule(dir, dst, m.Path); err != nil {
			return nil, nil, fmt.Errorf("copy %s: %w", m.Path, err)
		}
		copies[dir] = dst
		left := m.Path
		if m.Version != "" {
			left += "@" + m.Version
		}
		replaces = append(replaces, left+"="+dst)
	}
	return copies, replaces, nil
}

// copyModule copies the module at src to dst unless dst is there already (its go.mod written
// last), giving it a go.mod if it has none.
func copyModule(src, dst, path string) error {
	if _, err := os.Stat(filepath.Join(dst, "go.mod")); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dst), ".tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := copyTree(src, tmp); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(tmp, "go.mod")); err != nil {
		if err := os.WriteFile(filepath.Join(tmp, "go.mod"), []byte("module "+path+"\n"), 0o644); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, dst); err != nil {
		if _, statErr := os.Stat(filepath.Join(dst, "go.mod")); statErr == nil {
			return nil // another process copied it first
		}
		return err
	}
	return nil
}

// movedTo is where path is in the copy of the copied directory it is under; "" when it is
// under none of copies.
func movedTo(copies map[string]string, path string) string {
	for from, to := range copies {
		if rel, err := filepath.Rel(from, path); err == nil && !strings.HasPrefix(rel, "..") && path != "" {
			return filepath.Join(to, rel)
		}
	}
	return ""
}

// copyTree copies the directories and regular files under src to dst, writable.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}

// findMainModule asks the go command for the main module of cfg.Dir; nil when there is none.
func findMainModule(ctx context.Context, cfg Config) *packages.Module {
	cmd := Command(ctx, "go", "list", "-m", "-json")
	cmd.Dir = cfg.Dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	var m packages.Module
	if err := json.Unmarshal(out, &m); err != nil || m.GoMod == "" {
		return nil
	}
	return &m
}
