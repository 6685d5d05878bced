package bounded

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	small := Limit{"a test file", 10}
	ok := write("ok.json", "0123456789")
	empty := write("empty.json", "")
	over := write("over.json", "0123456789x")
	sparse := filepath.Join(dir, "sparse.json")
	if err := os.WriteFile(sparse, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// A sparse file one byte over the schedule limit: no disk is used, and the refusal
	// comes from its size, before a byte is read.
	if err := os.Truncate(sparse, Schedule.Max+1); err != nil {
		t.Fatal(err)
	}
	dirJSON := filepath.Join(dir, "x.json")
	if err := os.Mkdir(dirJSON, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(ok, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		limit    Limit
		path     string
		noFollow bool
		want     string // the content, or
		err      error  // the error, and
		msg      []string
	}{
		{name: "within the limit", limit: small, path: ok, want: "0123456789"},
		{name: "empty", limit: small, path: empty, want: ""},
		{name: "one byte over", limit: small, path: over, err: ErrTooLarge,
			msg: []string{over + ": 11 bytes, more than 10 bytes, the limit of a test file: refusing to read it"}},
		{name: "sparse, over the schedule limit", limit: Schedule, path: sparse, err: ErrTooLarge,
			msg: []string{sparse + ": 256.0 MiB (268435457 bytes), more than 256 MiB (268435456 bytes), the limit of a schedule file"}},
		{name: "a directory named x.json", limit: Schedule, path: dirJSON, err: ErrNotRegular,
			msg: []string{dirJSON, "not a regular file but a directory", "as a schedule file"}},
		{name: "missing", limit: small, path: filepath.Join(dir, "missing.json"), err: os.ErrNotExist,
			msg: []string{"missing.json"}},
		{name: "a symbolic link, followed", limit: small, path: link, want: "0123456789"},
		{name: "a symbolic link, not followed", limit: small, path: link, noFollow: true, err: ErrSymlink,
			msg: []string{link, "a symbolic link: refusing to follow it"}},
		{name: "a regular file, not followed", limit: small, path: ok, noFollow: true, want: "0123456789"},
		{name: "/dev/zero", limit: Schedule, path: os.DevNull, err: ErrNotRegular,
			msg: []string{os.DevNull, "not a regular file but a character device"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.path == os.DevNull {
				if _, err := os.Stat("/dev/zero"); err != nil {
					t.Skip("no /dev/zero")
				}
				tc.path = "/dev/zero"
				tc.msg[0] = tc.path
			}
			read := tc.limit.ReadFile
			if tc.noFollow {
				read = tc.limit.ReadFileNoFollow
			}
			got, err := read(tc.path)
			if tc.err == nil {
				if err != nil || string(got) != tc.want {
					t.Fatalf("ReadFile(%s) = %q, %v; want %q", tc.path, got, err, tc.want)
				}
				return
			}
			if !errors.Is(err, tc.err) || got != nil {
				t.Fatalf("ReadFile(%s) = %d bytes, %v; want the error %v", tc.path, len(got), err, tc.err)
			}
			for _, m := range tc.msg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not say %q", err, m)
				}
			}
		})
	}
}

// TestReadGrowing: a file whose metadata gave a size within the limit but that holds more
// when read (it grew, or it is a file of /proc) is read up to one byte past the limit.
func TestReadGrowing(t *testing.T) {
	l := Limit{"a test file", 10}
	r := &countingReader{n: 1 << 30}
	_, err := l.read(r, "growing.json", 5)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "growing.json: more than 10 bytes, the limit of a test file") {
		t.Fatalf("read = %v, want the limit's error", err)
	}
	if r.read != 11 {
		t.Errorf("read %d bytes of the file, want 11 (the limit and one)", r.read)
	}
}

func TestReadAll(t *testing.T) {
	l := Limit{"a test file", 10}
	if b, err := l.ReadAll(strings.NewReader("0123456789"), "stdin"); err != nil || string(b) != "0123456789" {
		t.Errorf("ReadAll of 10 bytes = %q, %v", b, err)
	}
	r := &countingReader{n: 1 << 40}
	if _, err := l.ReadAll(r, "stdin"); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "read stdin: more than 10 bytes") {
		t.Errorf("ReadAll of an endless stream = %v", err)
	}
	if r.read != 11 {
		t.Errorf("ReadAll read %d bytes of an endless stream, want 11", r.read)
	}
}

// countingReader is a stream of n zero bytes that counts what was read of it.
type countingReader struct{ n, read int64 }

func (r *countingReader) Read(p []byte) (int, error) {
	if r.read >= r.n {
		return 0, io.EOF
	}
	k := min(int64(len(p)), r.n-r.read)
	clear(p[:k])
	r.read += k
	return int(k), nil
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 bytes", 1: "1 byte", 1023: "1023 bytes", 1024: "1 KiB", 1536: "1.5 KiB",
		256 << 20: "256 MiB", 256<<20 + 1: "256.0 MiB", 10 << 30: "10 GiB",
	} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
