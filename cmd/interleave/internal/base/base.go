// Package base holds what the subcommands of interleave share with main.go, as cmd/go's
// internal/base does: the errors that decide the exit status, and the flag set every
// subcommand parses its flags with.
package base

import (
	"errors"
	"flag"
	"io"
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
