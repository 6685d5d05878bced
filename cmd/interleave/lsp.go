package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/interleave-dev/interleave/lsp"
)

func init() {
	commands = append(commands, command{"lsp", "[-log] [-poll D]", "serve the Language Server Protocol on stdin/stdout (for editors)", runLSP})
}

const lspUsage = `usage: interleave lsp [-log] [-poll D]

Lsp serves the Language Server Protocol on stdin and stdout, for an editor (the VS Code
extension starts it; any LSP client can). It reads the results stores (.interleave/) of every
Go module in the workspace folders and shows on the source lines:

  - each data race as a warning on both accesses (code "race"), with the other access and
    both goroutines' go statements as related information;
  - each bug (deadlock, leak, panic, failed test, ...) as an error at its position, with the
    blocked goroutines' operations as related information;
  - each construct the rewriter left uninstrumented as information;

with hovers (both stacks, counts, command links), code lenses above tests (Explore
interleavings, Replay <kind>), code actions, and the command interleave.runTest, which runs
interleave test -json in the background with progress. A finding from a run before its file
changed says so; ranges follow unsaved edits. Diagnostics update when a run writes the store.

Flags:
`

// runLSP serves the language server until the client exits.
func runLSP(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("lsp", stderr)
	logging := fs.Bool("log", false, "log the server's own diagnostics to stderr")
	poll := fs.Duration("poll", 500*time.Millisecond, "how often to look for changes in the results stores (their documents when the client cannot watch them, their directories when it can)")
	fs.Usage = func() {
		fmt.Fprint(stderr, lspUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %v", errUsage, fs.Args())
	}
	cfg := lsp.Config{PollInterval: *poll}
	if *logging {
		cfg.Log = stderr
	}
	if code := lsp.NewServer(cfg).Serve(context.Background(), os.Stdin, stdout); code != 0 {
		return errLSPExit
	}
	return nil
}

// errLSPExit is an exit without shutdown: status 1, as the protocol asks.
var errLSPExit = fmt.Errorf("%w: exit without shutdown", errBug)
