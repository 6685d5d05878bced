// Package bounded reads the files interleave takes as input — schedule files, the results
// store's documents, configuration and source files — with two guarantees that os.ReadFile
// lacks. It reads only regular files: a device (/dev/zero), a FIFO, a socket or a directory
// is refused with an error that names it, and a FIFO without a writer does not block the
// reader. And it reads at most a Limit: a file larger than that, sparse, or growing while it
// is read, is refused with an error that names its size and the limit, after reading at most
// one byte past the limit. So no path given on the command line, in a debug configuration or
// planted in a results store can make the command, the debug adapter or the language server
// read until it runs out of memory, or hang.
//
// Like every package compiled into test binaries, it uses the standard library only.
package bounded

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// A Limit is the most bytes a kind of file may hold, and what that kind is called in errors.
type Limit struct {
	// What names the kind of file in errors: "a schedule file".
	What string
	// Max is the largest size accepted, in bytes.
	Max int64
}

// The limits of interleave's inputs. Each is far above what interleave itself writes, so
// that only a file that is not what it claims to be meets it.
var (
	// Schedule is the limit of a schedule file. The longest a run writes at the default
	// step bound (engine.DefaultMaxSteps, 100,000 steps) is a livelock's: 7.2 MB measured
	// (72 bytes a step), and loading it allocates about 7 times that. The limit leaves room
	// for 35 times as many steps, or longer positions and many goroutines' stacks in the
	// bug; schedule.Encode refuses to write a file past it (-max-steps far above the
	// default), since it could not be read back.
	Schedule = Limit{"a schedule file", 256 << 20}
	// Document is the limit of a results store's findings and instrumentation documents
	// (one per test, or per package): their races and constructs are deduplicated by
	// source location, so they grow with the code, not with the schedules run.
	Document = Limit{"a results-store document", 64 << 20}
	// Summary is the limit of a run summary (.interleave/runs) and of a stress record:
	// an outcome per test.
	Summary = Limit{"a run summary", 32 << 20}
	// Config is the limit of a configuration file written by hand (interleave-stress.json).
	Config = Limit{"a configuration file", 16 << 20}
	// Source is the limit of a Go source file read to hash it or to place a position in
	// it: larger than any source file written by hand, and than most generated ones.
	Source = Limit{"a source file", 64 << 20}
)

var (
	// ErrNotRegular is the error (wrapped in an *Error) of a path that is not a regular file.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge is the error (wrapped in an *Error) of a file larger than its Limit.
	ErrTooLarge = errors.New("larger than the limit")
	// ErrSymlink is the error (wrapped in an *Error) of a symbolic link given to
	// ReadFileNoFollow, or of a file replaced while it was opened.
	ErrSymlink = errors.New("a symbolic link")
)

// Error is the error of a file refused: Err is ErrNotRegular, ErrTooLarge or ErrSymlink.
type Error struct {
	Path  string
	Limit Limit
	Err   error
	// Mode is the file's mode (for ErrNotRegular and ErrSymlink).
	Mode fs.FileMode
	// Size is the file's size as its metadata gave it (for ErrTooLarge), or -1 when it was
	// within the limit there and the file grew past it while it was read, or it has no size
	// (a stream).
	Size int64
}

func (e *Error) Error() string {
	switch e.Err {
	case ErrNotRegular:
		return fmt.Sprintf("read %s: not a regular file but %s: refusing to read it as %s", e.Path, Kind(e.Mode), e.Limit.What)
	case ErrSymlink:
		if e.Mode&fs.ModeSymlink != 0 {
			return fmt.Sprintf("read %s: a symbolic link: refusing to follow it for %s", e.Path, e.Limit.What)
		}
		return fmt.Sprintf("read %s: the file was replaced while it was opened: refusing to read it as %s", e.Path, e.Limit.What)
	case ErrTooLarge:
		if e.Size < 0 {
			return fmt.Sprintf("read %s: more than %s, the limit of %s: refusing to read the rest", e.Path, exact(e.Limit.Max), e.Limit.What)
		}
		return fmt.Sprintf("read %s: %s, more than %s, the limit of %s: refusing to read it", e.Path, exact(e.Size), exact(e.Limit.Max), e.Limit.What)
	}
	return fmt.Sprintf("read %s: %v", e.Path, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Kind names the kind of file of a mode, with its article: "a directory", "a FIFO".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return "a special file (" + m.String() + ")"
}

// Size writes a size in bytes for a person: "256 MiB", "1.5 GiB", "812 bytes".
func Size(n int64) string {
	units := []struct {
		shift uint
		name  string
	}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}}
	for _, u := range units {
		if n >= 1<<u.shift {
			if n%(1<<u.shift) == 0 {
				return fmt.Sprintf("%d %s", n>>u.shift, u.name)
			}
			return fmt.Sprintf("%.1f %s", float64(n)/float64(int64(1)<<u.shift), u.name)
		}
	}
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// exact is Size, with the number of bytes beside it when Size rounds it: "256 MiB (268435456 bytes)".
func exact(n int64) string {
	if n < 1<<10 {
		return Size(n)
	}
	return fmt.Sprintf("%s (%d bytes)", Size(n), n)
}

// ReadFile reads the file at path, following symbolic links, if it is a regular file of at
// most l.Max bytes. A refused file gives an *Error; a file that cannot be opened or read
// gives the *fs.PathError of that.
func (l Limit) ReadFile(path string) ([]byte, error) {
	return l.readFile(path, true)
}

// ReadFileNoFollow is ReadFile, except that it refuses a symbolic link (as the last element
// of path) as well: for reading a directory whose files are not to lead elsewhere, such as
// a results store made by someone else.
func (l Limit) ReadFileNoFollow(path string) ([]byte, error) {
	return l.readFile(path, false)
}

func (l Limit) readFile(path string, follow bool) ([]byte, error) {
	f, info, err := l.Open(path, follow)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return l.read(f, path, info.Size())
}

// Open opens the file at path for reading if it is a regular file of at most l.Max bytes (a
// symbolic link as the last element of path is followed only if follow is set), and returns
// it with its metadata. It never blocks on a FIFO, and does not open a path that a first
// look finds is not a regular file (opening a device can have effects). The caller reads it
// through io.LimitReader(f, l.Max+1) or ReadAll, since it may grow.
func (l Limit) Open(path string, follow bool) (*os.File, fs.FileInfo, error) {
	stat := os.Stat
	if !follow {
		stat = os.Lstat
	}
	before, err := stat(path)
	if err != nil {
		return nil, nil, err
	}
	if err := l.check(path, before, follow); err != nil {
		return nil, nil, err
	}
	f, info, err := l.openChecked(path)
	if err != nil {
		return nil, nil, err
	}
	if !follow && !os.SameFile(before, info) {
		f.Close()
		return nil, nil, &Error{Path: path, Limit: l, Err: ErrSymlink, Mode: info.Mode(), Size: info.Size()}
	}
	return f, info, nil
}

// openChecked opens path without blocking (a FIFO, put in its place after a first look, opens
// at once, not when a writer comes) and checks what it opened: the check that counts, since
// the path may have changed since.
func (l Limit) openChecked(path string) (*os.File, fs.FileInfo, error) {
	f, err := openNonblocking(path)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err == nil {
		err = l.check(path, info, true)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, info, nil
}

// check refuses what info says is not a regular file of at most l.Max bytes.
func (l Limit) check(path string, info fs.FileInfo, follow bool) error {
	m := info.Mode()
	switch {
	case !follow && m&fs.ModeSymlink != 0:
		return &Error{Path: path, Limit: l, Err: ErrSymlink, Mode: m, Size: info.Size()}
	case !m.IsRegular():
		return &Error{Path: path, Limit: l, Err: ErrNotRegular, Mode: m, Size: info.Size()}
	case info.Size() > l.Max:
		return &Error{Path: path, Limit: l, Err: ErrTooLarge, Mode: m, Size: info.Size()}
	}
	return nil
}

// ReadAll reads r to its end if that is at most l.Max bytes; name names r in errors. It
// reads at most l.Max+1 bytes of r.
func (l Limit) ReadAll(r io.Reader, name string) ([]byte, error) {
	return l.read(r, name, 0)
}

// read reads r (at most l.Max+1 bytes of it) to its end; size is what its metadata says.
func (l Limit) read(r io.Reader, name string, size int64) ([]byte, error) {
	// As os.ReadFile: room for the whole file and the end-of-file read, when it is known.
	n := int64(512)
	if size > 0 {
		n = size + 1
	}
	b := make([]byte, 0, min(n, l.Max+1))
	lr := io.LimitReader(r, l.Max+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		k, err := lr.Read(b[len(b):cap(b)])
		b = b[:len(b)+k]
		if err == io.EOF {
			break
		}
		if err != nil {
			if _, ok := err.(*fs.PathError); ok {
				return nil, err // a file's, which names it
			}
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
	}
	if int64(len(b)) > l.Max {
		return nil, &Error{Path: name, Limit: l, Err: ErrTooLarge, Size: -1}
	}
	return b, nil
}
