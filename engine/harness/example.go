package harness

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine"
)

// Examples. go test runs an ExampleXxx function that has an output comment once, with its
// standard output captured, and fails it when the output differs from the comment's. The
// instrumenter renames such a function and gives an ExampleXxx, with the same output comment,
// that hands the renamed one to RunExample: the example is explored as a test is, its output
// compared with the comment's after each schedule, and a schedule whose output differs is a
// failure (a bug with its schedule saved), reported as go test reports it, with what the
// example printed ("got:") and the comment's output ("want:") — when the difference depends
// on the schedule: an output that differs the same way in every schedule (an example that
// prints its own call stack, which runs through the harness and the engine here) is a
// notice, and the example passes (engine.T.OutputDiffers). An example without an output
// comment is compiled but not run, by go test as before: the instrumenter leaves it alone.

// RunExample is what the instrumenter makes of an ExampleXxx function with an output
// comment: it explores example (the function, rewritten) under the test named name, comparing
// its standard output with output (unordered: as a set of lines) after every schedule; a
// difference is a failure at pos, the example's declaration ("file:line"). The
// exploration runs in a test of its own (testing.RunTests): an example has no *testing.T. What
// the test prints (its log, the exploration's report) goes to standard error, and go test's
// comparison sees the expected output when no schedule failed, and the test's report, which
// differs from it, when one did.
func RunExample(name string, example func(), output string, unordered bool, pos string) {
	real := os.Stdout
	logs, err := os.CreateTemp("", "interleave-example-log-*")
	if err != nil {
		fmt.Fprintf(os.Stderr, "interleave: %s: %v\n", name, err)
		os.Exit(1)
	}
	defer os.Remove(logs.Name())
	defer logs.Close()
	capture, err := os.CreateTemp("", "interleave-example-out-*")
	if err != nil {
		fmt.Fprintf(os.Stderr, "interleave: %s: %v\n", name, err)
		os.Exit(1)
	}
	defer os.Remove(capture.Name())
	defer capture.Close()
	body := exampleBody(example, output, unordered, pos, capture, logs)
	// The test's output (testing writes it to os.Stdout as it is when the test starts) is
	// kept apart from the example's.
	os.Stdout = logs
	ok := testing.RunTests(func(pat, str string) (bool, error) { return regexp.MatchString(pat, str) }, []testing.InternalTest{{
		Name: name,
		F: func(t *testing.T) {
			t.Helper()
			runBody(t, body)
		},
	}})
	os.Stdout = real
	log, _ := os.ReadFile(logs.Name())
	if ok {
		os.Stderr.Write(log)
		fmt.Fprint(real, output)
		return
	}
	// Not the expected output: go test fails the example, and shows this as what it got.
	fmt.Fprintf(real, "interleave: %s failed under the engine:\n%s", name, log)
}

// exampleBody returns the body the engine runs once per schedule for an example: it runs the
// example with os.Stdout captured in capture, restores os.Stdout to logs (where the test's
// output goes meanwhile), and fails the execution at pos when the output is not the expected
// one.
func exampleBody(example func(), output string, unordered bool, pos string, capture, logs *os.File) func(*engine.T) {
	return func(t *engine.T) {
		capture.Truncate(0)
		capture.Seek(0, io.SeekStart)
		os.Stdout = capture
		finished := false
		defer func() {
			os.Stdout = logs
			if !finished {
				return // a panic or a Goexit: the engine reports it
			}
			got, err := os.ReadFile(capture.Name())
			if err != nil {
				t.Fatalf("read the example's output: %v", err)
			}
			if msg := exampleMismatch(string(got), output, unordered); msg != "" {
				t.OutputDiffers(pos, msg, comparedOutput(string(got), unordered))
			}
		}()
		example()
		finished = true
	}
}

// comparedOutput is an example's output as exampleMismatch compares it: two schedules whose
// outputs are the same by this differ from the comment the same way.
func comparedOutput(stdout string, unordered bool) string {
	got := strings.TrimSpace(stdout)
	if runtime.GOOS == "windows" {
		got = strings.ReplaceAll(got, "\r\n", "\n")
	}
	if unordered {
		return strings.Join(slices.Sorted(strings.SplitSeq(got, "\n")), "\n")
	}
	return got
}

// exampleMismatch compares an example's output with the expected one as go test does (spaces
// around trimmed; unordered, as sorted lines) and returns go test's report of the difference,
// or "" when they agree.
func exampleMismatch(stdout, output string, unordered bool) string {
	got, want := strings.TrimSpace(stdout), strings.TrimSpace(output)
	if runtime.GOOS == "windows" {
		got = strings.ReplaceAll(got, "\r\n", "\n")
		want = strings.ReplaceAll(want, "\r\n", "\n")
	}
	if unordered {
		if !slices.Equal(slices.Sorted(strings.SplitSeq(got, "\n")), slices.Sorted(strings.SplitSeq(want, "\n"))) {
			return fmt.Sprintf("got:\n%s\nwant (unordered):\n%s", stdout, output)
		}
		return ""
	}
	if got != want {
		return fmt.Sprintf("got:\n%s\nwant:\n%s", got, want)
	}
	return ""
}
