package schedule

// Errors of reading a schedule file: which file, where in it, and what is wrong.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The kinds of errors of this package, for errors.Is. Every error of Decode, Load, Encode and
// Check is an *Error that wraps one of them.
var (
	ErrSyntax      = errors.New("invalid JSON")
	ErrTruncated   = errors.New("truncated schedule file")
	ErrNotSchedule = errors.New("not a schedule file")
	ErrVersion     = errors.New("unsupported format version")
	ErrMissing     = errors.New("missing required field")
	ErrInvalid     = errors.New("invalid value")
	ErrOtherTest   = errors.New("schedule recorded for another test")
	ErrOtherBuild  = errors.New("schedule recorded by another build")
)

// Error is a problem with a schedule file.
type Error struct {
	// Path is the file's path, empty when it is unknown (Decode).
	Path string
	// Line and Column locate the problem in the document (1-based; 0 when not applicable).
	Line, Column int
	// Kind is one of the Err* values of this package.
	Kind error
	msg  string
}

// Error returns the message, which names the file and, when it can, the line.
func (e *Error) Error() string { return e.msg }

// Unwrap returns e.Kind.
func (e *Error) Unwrap() error { return e.Kind }

// fileName is how messages name the file.
func fileName(path string) string {
	if path == "" {
		return "schedule file"
	}
	return "schedule file " + path
}

// errorf makes an error "schedule file PATH: line L, column C: msg".
func errorf(path string, kind error, line, col int, format string, args ...any) *Error {
	var b strings.Builder
	b.WriteString(fileName(path))
	b.WriteString(": ")
	switch {
	case line > 0 && col > 0:
		fmt.Fprintf(&b, "line %d, column %d: ", line, col)
	case line > 0:
		fmt.Fprintf(&b, "line %d: ", line)
	}
	fmt.Fprintf(&b, format, args...)
	return &Error{Path: path, Line: line, Column: col, Kind: kind, msg: b.String()}
}

// position converts a byte offset of data to a 1-based line and column.
func position(data []byte, off int) (line, col int) {
	if off < 0 {
		off = 0
	}
	if off > len(data) {
		off = len(data)
	}
	before := data[:off]
	line = 1 + bytes.Count(before, []byte{'\n'})
	col = off - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// jsonError describes an error of encoding/json with its place in data.
func jsonError(data []byte, path string, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		if strings.Contains(syn.Error(), "unexpected end of JSON input") {
			line, col := position(data, len(data))
			return &Error{Path: path, Line: line, Column: col, Kind: ErrTruncated,
				msg: fmt.Sprintf("%s is truncated: the JSON document ends early (line %d, column %d)", fileName(path), line, col)}
		}
		line, col := position(data, int(syn.Offset)-1)
		return errorf(path, ErrSyntax, line, col, "invalid JSON: %v", syn)
	case errors.As(err, &typ):
		line, col := position(data, int(typ.Offset)-1)
		if typ.Field == "" {
			return &Error{Path: path, Line: line, Column: col, Kind: ErrNotSchedule,
				msg: fmt.Sprintf("%s is not an interleave schedule: the document is a JSON %s, not an object", fileName(path), typ.Value)}
		}
		return errorf(path, ErrInvalid, line, col, "field %s: a JSON %s cannot be a %v", typ.Field, typ.Value, typ.Type)
	}
	return errorf(path, ErrInvalid, 0, 0, "%v", err)
}

type checkError struct {
	kind error
	msg  string
}
