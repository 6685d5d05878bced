// Package base holds what the subcommands of interleave share with main.go, as cmd/go's
// internal/base does: the errors that decide the exit status, and the flag set every
// subcommand parses its flags with.
package base

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
)

// ErrUsage reports bad command-line input; the command exits with status 2.
var ErrUsage = errors.New("usage")

// ErrBug is returned by a command that found a bug: exit status 1.
var ErrBug = errors.New("bug found")

// ErrQuiet is a tool failure already reported: exit status 2 without another message.
var ErrQuiet = errors.New("quiet")

// NewFlagSet is the flag set of the subcommand name, which reports its errors to stderr and
// returns them rather than exiting.
func NewFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// Interrupted is the cause of a command's context canceled by a signal (Ctrl-C, a CI
// runner's SIGTERM), and the error of a command it interrupted: the command exits with
// 128 plus the signal's number, as a shell reports a command a signal ended (130 for
// SIGINT, 143 for SIGTERM, 129 for SIGHUP).
type Interrupted struct {
	Signal os.Signal
}

func (e *Interrupted) Error() string { return "interrupted (signal: " + e.Signal.String() + ")" }

// ExitCode is the exit status of a command the signal interrupted.
func (e *Interrupted) ExitCode() int {
	if s, ok := e.Signal.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 2
}

// InterruptedBy returns the signal that canceled ctx (StopContext), nil when none did.
func InterruptedBy(ctx context.Context) *Interrupted {
	var i *Interrupted
	if errors.As(context.Cause(ctx), &i) {
		return i
	}
	return nil
}

// StopContext returns a context canceled when the command is asked to stop — Ctrl-C,
// SIGTERM (a CI runner's timeout, kill), SIGHUP (a closed terminal) — so that it stops its
// children and removes its temporary files before it exits; its cause (InterruptedBy) is the
// signal. Signals that come after the first are caught too, until stop is called.
func StopContext() (ctx context.Context, stop context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.Background())
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-signals:
			cancel(&Interrupted{Signal: s})
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(signals)
			close(done)
			cancel(context.Canceled)
		})
	}
}

// IndentLines puts prefix before every line of s.
func IndentLines(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// LastLines is the last n lines of s, without the spaces around them.
func LastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// Thousands formats n with thousands separators: 12,345.
func Thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + Thousands(-n)
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
