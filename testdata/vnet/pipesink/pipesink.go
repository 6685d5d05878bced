// Package pipesink is a logger that writes lines into an io.Pipe that a goroutine copies
// into a Sink. Close closes the pipe but does not wait for the copier: a line written just
// before Close can still be in the copier's hands, so the sink misses it.
package pipesink

import (
	"bufio"
	"fmt"
	"io"
)

// Sink collects lines. It has no lock: only the copier goroutine writes it.
type Sink struct {
	Lines []string
}

// Logger writes lines through a pipe into a Sink.
type Logger struct {
	w    io.WriteCloser
	done chan struct{}
}

// New starts the copier of a logger into s.
func New(s *Sink) *Logger {
	pr, pw := io.Pipe()
	l := &Logger{w: pw, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			s.Lines = append(s.Lines, sc.Text())
		}
	}()
	return l
}

// Printf writes one line.
func (l *Logger) Printf(format string, args ...any) {
	fmt.Fprintf(l.w, format+"\n", args...)
}

// Close closes the pipe. It should wait for the copier (<-l.done) and does not.
func (l *Logger) Close() error {
	return l.w.Close()
}

// CloseAndWait closes the pipe and waits until the copier has written every line.
func (l *Logger) CloseAndWait() error {
	err := l.w.Close()
	<-l.done
	return err
}
