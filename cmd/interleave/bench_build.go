package main

// The build phase of interleave bench: every benchmark instrumented and, with -native, as it
// is.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/test"
	"github.com/interleave-dev/interleave/engine/findings"
	"github.com/interleave-dev/interleave/engine/instrument"
)

// buildAll builds every selected benchmark, instrumented and (with -native) natively. The
// instrumented packages are built in -p groups at once; a group whose build fails is built
// again package by package, so that one broken benchmark only fails its own cells.
func (b *bencher) buildAll(ctx context.Context) map[string]*built {
	out := map[string]*built{}
	var mu sync.Mutex
	for _, bm := range b.benchmarks {
		out[bm.Package] = &built{}
	}
	groups := make([][]string, min(b.f.workers, len(b.benchmarks)))
	for i, bm := range b.benchmarks {
		groups[i%len(groups)] = append(groups[i%len(groups)], bm.Package)
	}
	var wg sync.WaitGroup
	for gi, g := range groups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := b.buildInstrumented(ctx, fmt.Sprintf("group%d", gi), g)
			if err != nil && len(g) > 1 && ctx.Err() == nil {
				b.logf("building %d benchmarks together failed; building them one by one", len(g))
				for i, pkg := range g {
					r, err := b.buildInstrumented(ctx, fmt.Sprintf("group%d-%d", gi, i), []string{pkg})
					mu.Lock()
					b.record(out, []string{pkg}, r, err)
					mu.Unlock()
				}
				return
			}
			mu.Lock()
			b.record(out, g, res, err)
			mu.Unlock()
		}()
	}
	if b.f.native > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.buildNative(ctx, out, &mu)
		}()
	}
	wg.Wait()
	// The test of each instrumented binary.
	for _, bm := range b.benchmarks {
		bl := out[bm.Package]
		if bl.pkg == nil {
			continue
		}
		tests, err := test.ListTests(ctx, bl.pkg, "", "")
		switch {
		case err != nil:
			bl.buildErr = err.Error()
		case len(tests) != 1:
			bl.buildErr = fmt.Sprintf("want one test in %s, found %d (%s)", bm.Package, len(tests), strings.Join(tests, ", "))
		default:
			bl.test = tests[0]
		}
	}
	return out
}

func (b *bencher) buildInstrumented(ctx context.Context, name string, pkgs []string) (*instrument.Result, error) {
	var patterns []string
	for _, p := range pkgs {
		patterns = append(patterns, "./"+p)
	}
	return instrument.Build(ctx, instrument.Config{Dir: b.suite, Patterns: patterns, Work: filepath.Join(b.work, name)})
}

// record files the instrumented packages of one build under their benchmarks, or the build's
// error.
func (b *bencher) record(out map[string]*built, pkgs []string, res *instrument.Result, err error) {
	if err != nil {
		msg := err.Error()
		var ie *instrument.Error
		if errors.As(err, &ie) {
			msg = ie.Op + " failed: " + strings.TrimSpace(ie.Detail)
		}
		for _, p := range pkgs {
			out[p].buildErr = msg
		}
		b.logf("build %s: %s", strings.Join(pkgs, " "), firstLine(msg))
		return
	}
	if len(res.Problems) > 0 {
		b.problems += len(res.Problems)
		for _, p := range res.Problems {
			b.logf("not instrumented: %s: %s", p.Pos, p.Msg)
		}
	}
	byPath := map[string]*instrument.Package{}
	for _, p := range res.Packages {
		byPath[p.ImportPath] = p
	}
	for _, p := range pkgs {
		ip := byPath["sctbench/"+p]
		switch {
		case ip == nil:
			out[p].buildErr = "the build made no test binary for " + p
		case ip.Binary == "":
			out[p].buildErr = p + " has no test files"
		default:
			out[p].pkg = ip
		}
	}
}

// buildNative builds the uninstrumented test binaries with go test -c, one go command per
// package, -p at once.
func (b *bencher) buildNative(ctx context.Context, out map[string]*built, mu *sync.Mutex) {
	dir := filepath.Join(b.work, "native")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		mu.Lock()
		for _, bm := range b.benchmarks {
			out[bm.Package].nativeEr = err.Error()
		}
		mu.Unlock()
		return
	}
	// Named by the exact package path: packages whose paths flatten alike (a/b and a_b) each
	// get their own binary.
	binary := func(pkg string) string { return filepath.Join(dir, findings.FileStem(pkg)+".test") }
	goTestC := func(pkg string) error {
		cmd := instrument.Command(ctx, "go", "test", "-c", "-o", binary(pkg), "./"+pkg)
		cmd.Dir = b.suite
		cmd.Env = append(os.Environ(), "GOWORK=off")
		if outp, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go test -c ./%s: %v\n%s", pkg, err, outp)
		}
		return nil
	}
	// One go command per package, -p of them at once: the go command builds one package's
	// test binary per invocation with -o FILE.
	sem := make(chan struct{}, b.f.workers)
	var wg sync.WaitGroup
	for _, bm := range b.benchmarks {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			err := goTestC(bm.Package)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				out[bm.Package].nativeEr = err.Error()
				b.logf("native build of %s failed: %s", bm.Package, firstLine(err.Error()))
				return
			}
			out[bm.Package].native = binary(bm.Package)
		}()
	}
	wg.Wait()
}
