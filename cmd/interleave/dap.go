package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/interleave-dev/interleave/dap"
)

func init() {
	commands = append(commands, command{"dap", "[-listen addr]", "serve the Debug Adapter Protocol (for VS Code)", runDAP})
}

// runDAP serves the Debug Adapter Protocol on stdin and stdout, or with -listen on a TCP port
// of the loopback interface (one session per connection, one at a time, for this user's
// processes only). A session ends at the first message that breaks the protocol — an HTTP
// request from a web page among them — at any request before initialize, and when a
// connection sends no initialize within dap.DefaultInitTimeout (then the next is served).
func runDAP(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("dap", stderr)
	listen := fs.String("listen", "", "serve on `addr` (port, or 127.0.0.1:port) instead of stdin/stdout")
	noDelve := fs.Bool("no-delve", false, "run the test without Delve (no Locals, no evaluate)")
	logging := fs.Bool("log", false, "log the adapter's diagnostics to stderr")
	allowBuildFlags := fs.Bool("allow-build-flags", false, "let launch configurations pass build flags that run programs or replace files (-toolexec, -exec, -overlay, -modfile, -ldflags, ...)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %v", errUsage, fs.Args())
	}
	cfg := dap.Config{NoDelve: *noDelve, AllowBuildFlags: *allowBuildFlags}
	if *logging {
		cfg.Log = stderr
	}
	// A signal (SIGTERM, SIGHUP, Ctrl-C) ends the session in progress: its test process is
	// killed and its temporary files removed before the adapter exits.
	ctx, stop := stopContext()
	defer stop()
	if *listen == "" {
		return serveUntil(ctx, dap.NewSession(os.Stdin, stdout, cfg))
	}
	addr, err := loopback(*listen)
	if err != nil {
		return fmt.Errorf("%w: -listen %s: %v", errUsage, *listen, err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	fmt.Fprintf(stdout, "DAP server listening at: %s\n", ln.Addr())
	return dap.ServeListener(ctx, ln, cfg, stderr)
}

// serveUntil serves the session until it ends or ctx is canceled; then the session is closed
// (its test process killed, its files removed) without waiting for its input to end.
func serveUntil(ctx context.Context, s *dap.Session) error {
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		s.Close()
		return nil
	}
}

// loopback turns "port", ":port" or "127.0.0.1:port" into an address on 127.0.0.1; any other
// host is refused, so that the adapter is never reachable from another machine.
func loopback(s string) (string, error) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		host, port = "", s
	}
	switch host {
	case "", "127.0.0.1", "localhost":
	default:
		return "", fmt.Errorf("the adapter listens on 127.0.0.1 only, not on %s", host)
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return "", err
	}
	return net.JoinHostPort("127.0.0.1", port), nil
}
