// Command interleave finds and debugs concurrency bugs in Go programs by controlled
// concurrency testing.
//
// Usage:
//
//	interleave test [flags] [packages]  explore the interleavings of a package's tests
//	interleave demo [flags] [program]   explore a bundled example and print the bug's schedule
//	interleave replay [flags] FILE      replay a schedule file step by step
//	interleave minimize [flags] FILE    shrink a schedule to the fewest preemptions that keep its bug
//	interleave races [packages]         print the data races that the last runs found
//	interleave bench [flags]            run SCTBench-Go under every strategy, beside the paper's numbers
//	interleave dap [-listen addr]       serve the Debug Adapter Protocol (for VS Code)
//	interleave lsp [-log] [-poll D]     serve the Language Server Protocol on stdin/stdout (for editors)
//	interleave version                  print the version and commit this binary was built from
//
// Exit status: 0 when no bug was found, 1 when a bug was found (or reproduced), 2 when the
// tool could not run. interleave test reports a test whose executions were cut at the step
// bound (CUT, with the share cut) or that was abandoned because it blocked outside the engine
// (SKIP, with the reason) as skipped, not failed, as go test does not fail a skipped test: they
// leave the status 0 unless a bug was found, and the run's last line counts them. A run that a signal interrupted (Ctrl-C, a CI runner's SIGTERM) before
// it found a bug is not a pass: it says so and exits with 128 plus the signal's number, as a
// shell reports a command a signal ended — 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP; a
// bug found before the signal still makes it 1 (the bug is certain, and reported and saved).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/base"
	"github.com/interleave-dev/interleave/cmd/interleave/internal/keep"
	"github.com/interleave-dev/interleave/cmd/interleave/internal/merge"
	"github.com/interleave-dev/interleave/cmd/interleave/internal/replay"
	"github.com/interleave-dev/interleave/cmd/interleave/internal/test"
	"github.com/interleave-dev/interleave/cmd/interleave/internal/verify"
)

// The errors that decide the exit status, shared with the subcommands' packages (base).
var (
	errUsage = base.ErrUsage // bad command-line input: exit status 2
	errBug   = base.ErrBug   // a bug found: exit status 1
	errQuiet = base.ErrQuiet // a tool failure already reported: exit status 2
)

type command struct {
	name, args, summary string
	run                 func(args []string, stdout, stderr io.Writer) error
}

var commands = []command{
	{"test", "[flags] [packages]", "explore the interleavings of a package's tests", test.Run},
	{"demo", "[flags] [program]", "explore a bundled example program and print the bug's schedule", runDemo},
	{"replay", "[flags] FILE", "replay a schedule file step by step", replay.Run},
	{"minimize", "[flags] FILE", "shrink a schedule to the fewest preemptions that keep its bug", runMinimize},
}

func init() {
	commands = append(commands, command{"merge", merge.Args, merge.Summary, merge.Run},
		command{"keep", keep.Args, keep.Summary, keep.Run},
		command{"verify", verify.Args, verify.Summary, verify.Run})
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			err := c.run(args[1:], stdout, stderr)
			var interrupted *base.Interrupted
			switch {
			case err == nil:
				return 0
			case errors.Is(err, errBug):
				return 1
			case errors.As(err, &interrupted):
				fmt.Fprintf(stderr, "interleave %s: %v\n", c.name, err)
				return interrupted.ExitCode()
			case errors.Is(err, errQuiet):
				return 2
			case errors.Is(err, flag.ErrHelp):
				return 0
			case errors.Is(err, errUsage):
				fmt.Fprintf(stderr, "interleave %s: %v\nusage: interleave %s %s\n", c.name, strings.TrimPrefix(err.Error(), "usage: "), c.name, c.args)
				return 2
			default:
				fmt.Fprintf(stderr, "interleave %s: %v\n", c.name, err)
				return 2
			}
		}
	}
	fmt.Fprintf(stderr, "interleave: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "Interleave finds and debugs concurrency bugs by controlled concurrency testing.\n\nUsage:\n\n")
	for _, c := range commands {
		fmt.Fprintf(w, "\tinterleave %-8s %-18s %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprintf(w, "\nRun 'interleave COMMAND -h' for a command's flags.\n")
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet { return base.NewFlagSet(name, stderr) }

// stopContext returns a context canceled when the command is asked to stop — Ctrl-C, SIGTERM
// (a CI runner's timeout, kill), SIGHUP (a closed terminal) — so that it stops its children
// and removes its temporary files before it exits; base.InterruptedBy says by which signal.
func stopContext() (context.Context, context.CancelFunc) { return base.StopContext() }
