package dap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// DefaultInitTimeout is how long a connection to interleave dap -listen may stay without
// sending its initialize request.
const DefaultInitTimeout = 10 * time.Second

func (c Config) initTimeout() time.Duration {
	if c.InitTimeout > 0 {
		return c.InitTimeout
	}
	return DefaultInitTimeout
}

// InitTimeoutError ends a session whose client did not send initialize in time.
type InitTimeoutError struct{ Timeout time.Duration }

func (e *InitTimeoutError) Error() string {
	return fmt.Sprintf("no initialize request within %v: closing the connection", e.Timeout)
}

// ServeListener serves the connections of ln one at a time until ctx is canceled or ln
// fails: each connection is one session, served only when CheckPeer accepts it. A
// connection that has not sent its initialize request within cfg.InitTimeout is closed, so
// that a silent client does not keep the next one waiting forever. What ends each
// connection other than its client's end is written to errs as one line; when ctx is
// canceled, the session in progress is closed (its test process killed, its files removed)
// and ServeListener returns nil.
func ServeListener(ctx context.Context, ln net.Listener, cfg Config, errs io.Writer) error {
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("accept a connection on %s: %w", ln.Addr(), err)
		}
		if err := CheckPeer(conn); err != nil {
			fmt.Fprintf(errs, "interleave dap: %v\n", err)
			conn.Close()
			continue
		}
		s := NewSession(conn, conn, cfg)
		s.conn, s.initDeadline = conn, time.Now().Add(cfg.initTimeout())
		err = serveUntil(ctx, s)
		conn.Close()
		if err != nil {
			var te *InitTimeoutError
			if errors.As(err, &te) {
				err = fmt.Errorf("connection from %s: %w", conn.RemoteAddr(), err)
			}
			fmt.Fprintf(errs, "interleave dap: %v\n", err)
		}
		if ctx.Err() != nil {
			return nil
		}
	}
}

// serveUntil serves the session until it ends or ctx is canceled; then the session is closed
// (its test process killed, its files removed) without waiting for its input to end.
func serveUntil(ctx context.Context, s *Session) error {
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
