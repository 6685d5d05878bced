package main

// The native phase of interleave bench: the uninstrumented test binaries run as they are
// (PERIOD's native column, seed 003).

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/bench"
	"github.com/interleave-dev/interleave/engine/instrument"
)

// runNative runs the uninstrumented test binary -native times (PERIOD's native column):
// processes of -test.count runs each, a new one for the runs left after a crash or a hang.
func (b *bencher) runNative(ctx context.Context, bm bench.Benchmark, bl *built) bench.Native {
	tally := bench.NewNativeTally(bm.Package, bl.test, b.f.native)
	switch {
	case bl.native == "":
		tally.Error = "build: " + bl.nativeEr
		return tally.Native
	case bl.test == "":
		// The test's name comes from the instrumented binary's list; the native binary lists
		// the same tests.
		tests, err := listNativeTests(ctx, bl.native, filepath.Join(b.suite, bm.Package))
		if err != nil || len(tests) != 1 {
			tally.Error = fmt.Sprintf("list tests: %v %v", err, tests)
			return tally.Native
		}
		tally = bench.NewNativeTally(bm.Package, tests[0], b.f.native)
	}
	deadline := time.Now().Add(b.f.nativeTime)
	for tally.Left() > 0 && ctx.Err() == nil {
		if time.Now().After(deadline) {
			tally.Error = fmt.Sprintf("native time budget %v reached", b.f.nativeTime)
			break
		}
		startedRuns := tally.Runs
		if err := b.nativeProcess(ctx, bl, bm, tally, deadline); err != nil {
			tally.Error = err.Error()
			break
		}
		if tally.Runs == startedRuns {
			tally.Error = "a native process ran no test"
			break
		}
	}
	return tally.Native
}

func listNativeTests(ctx context.Context, binary, dir string) ([]string, error) {
	cmd := instrument.Command(ctx, binary, "-test.list", ".")
	cmd.Dir = dir
	outp, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(outp)), nil
}

// nativeProcess runs one process of native runs and counts them in tally. A run that does not
// end within -native-timeout is a hang: the process is killed and the run counted as buggy.
func (b *bencher) nativeProcess(ctx context.Context, bl *built, bm bench.Benchmark, tally *bench.NativeTally, deadline time.Time) error {
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := instrument.Command(pctx, bl.native, "-test.run", "^"+regexp.QuoteMeta(tally.Test())+"$",
		"-test.count", strconv.Itoa(tally.Left()), "-test.v", "-test.timeout=0")
	cmd.Dir = filepath.Join(b.suite, bm.Package)
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	runsBefore := tally.Runs
	if err := cmd.Start(); err != nil {
		pw.Close()
		pr.Close()
		return fmt.Errorf("start %s: %w", bl.native, err)
	}
	pw.Close()
	lines := make(chan string, 256)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	hang := time.NewTimer(b.f.nativeTimeout)
	defer hang.Stop()
	budget := time.NewTimer(time.Until(deadline))
	defer budget.Stop()
	completed := 0
	var firstStart, lastEnd time.Time
	var tail []string
	killed := false
loop:
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				break loop
			}
			if len(tail) < 40 {
				tail = append(tail, line)
			}
			switch tally.Line(line) {
			case bench.NativeStart:
				if firstStart.IsZero() {
					firstStart = time.Now()
				}
				hang.Reset(b.f.nativeTimeout)
			case bench.NativePass, bench.NativeFail:
				completed++
				lastEnd = time.Now()
			}
		case <-hang.C:
			if tally.Running() {
				tally.Hung()
				killed = true
				cancel()
			} else {
				hang.Reset(b.f.nativeTimeout)
			}
		case <-budget.C:
			tally.Abandon()
			killed = true
			cancel()
		}
	}
	waitErr := cmd.Wait()
	pr.Close()
	if tally.Running() {
		tally.Crashed()
	}
	// The runs that completed took the time from the first one's start to the last one's
	// end, as the pipe shows them: the process's start-up and exit are not in it.
	if completed > 0 {
		tally.Seconds += lastEnd.Sub(firstStart).Seconds()
		tally.Timed += completed
	}
	if waitErr != nil && !killed && tally.Runs == runsBefore && ctx.Err() == nil {
		return fmt.Errorf("native run of %s: %v: %s", bm.Package, waitErr, strings.Join(tail, "\n"))
	}
	return nil
}
