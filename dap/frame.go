package dap

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// The base protocol's framing, read strictly. go-dap's reader resynchronizes after a bad
// header, so that an HTTP request from a web page (an ordinary POST to the adapter's port,
// which a browser sends without asking) could slip a framed request through in its body.
// This reader accepts exactly "Content-Length: N\r\n\r\n" followed by N bytes, and the session
// ends at the first frame that is anything else: nothing after a malformed frame is read.

// maxMessage is the largest message the adapter reads (VS Code's are a few kilobytes).
const maxMessage = 16 << 20

// maxHeaderLine is the longest header line the adapter reads.
const maxHeaderLine = 256

// A FrameError is a message that does not follow the base protocol; the session ends at it.
type FrameError struct {
	// HTTP is set when the bytes are an HTTP request: a web page, not a debugger, is talking.
	HTTP bool
	Msg  string
}

func (e *FrameError) Error() string { return e.Msg }

var httpRequestLine = regexp.MustCompile(`^[A-Z]+ \S+ HTTP/\d`)

// readFrame reads one message's content. It returns io.EOF at the end of the input between
// messages, and a *FrameError for a frame that breaks the protocol.
func readFrame(r *bufio.Reader) ([]byte, error) {
	length := -1
	for first := true; ; first = false {
		line, err := readHeaderLine(r)
		if err != nil {
			if first && errors.Is(err, io.EOF) && line == "" {
				return nil, io.EOF
			}
			if fe := (*FrameError)(nil); errors.As(err, &fe) {
				if first && httpRequestLine.MatchString(line) {
					fe.HTTP = true
					fe.Msg = fmt.Sprintf("an HTTP request (%q), not a Debug Adapter Protocol message: refused", clip(line))
				}
				return nil, fe
			}
			return nil, &FrameError{Msg: fmt.Sprintf("message header: %v", err)}
		}
		if first && httpRequestLine.MatchString(line) {
			return nil, &FrameError{HTTP: true, Msg: fmt.Sprintf("an HTTP request (%q), not a Debug Adapter Protocol message: refused", clip(line))}
		}
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || !strings.EqualFold(strings.TrimSpace(name), "Content-Length") || length >= 0 {
			return nil, &FrameError{Msg: fmt.Sprintf("message header %q: want one Content-Length header and nothing else", clip(line))}
		}
		n, err := strconv.Atoi(strings.TrimSpace(value))
		switch {
		case err != nil || n <= 0:
			return nil, &FrameError{Msg: fmt.Sprintf("message header %q: Content-Length must be a positive number", clip(line))}
		case n > maxMessage:
			return nil, &FrameError{Msg: fmt.Sprintf("message of %d bytes: larger than the adapter's limit of %d bytes", n, maxMessage)}
		}
		length = n
	}
	if length < 0 {
		return nil, &FrameError{Msg: "message header without Content-Length"}
	}
	content := make([]byte, length)
	if _, err := io.ReadFull(r, content); err != nil {
		return nil, &FrameError{Msg: fmt.Sprintf("message of %d bytes ends after fewer: %v", length, err)}
	}
	return content, nil
}

// readHeaderLine reads one header line, without its "\r\n". A line longer than maxHeaderLine
// or ended by a bare "\n" is a FrameError (the bytes read so far are returned with it).
func readHeaderLine(r *bufio.Reader) (string, error) {
	var b strings.Builder
	for {
		c, err := r.ReadByte()
		if err != nil {
			return b.String(), err
		}
		switch {
		case c == '\r':
			c2, err := r.ReadByte()
			if err != nil {
				return b.String(), err
			}
			if c2 != '\n' {
				return b.String(), &FrameError{Msg: fmt.Sprintf("message header %q: a carriage return not followed by a line feed", clip(b.String()))}
			}
			return b.String(), nil
		case c == '\n':
			return b.String(), &FrameError{Msg: fmt.Sprintf("message header %q: lines must end with \\r\\n", clip(b.String()))}
		case b.Len() >= maxHeaderLine:
			return b.String(), &FrameError{Msg: fmt.Sprintf("message header %q...: longer than %d bytes", clip(b.String()), maxHeaderLine)}
		}
		b.WriteByte(c)
	}
}

// clip shortens a line for a message.
func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}
