package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// link makes a hard link; tests replace it to take the path of file systems without links.
var link = os.Link

// WriteNew writes data to a new file at path and never replaces a file there: when path
// exists it returns an error wrapping fs.ErrExist. The file appears whole or not at all (it
// is written to a temporary file, then linked to its name, which fails if the name is
// taken), so a reader never sees half of it. On a file system without hard links the name
// is taken by creating it (O_EXCL) and the temporary file is then renamed onto it: a reader
// may see it empty for that moment, but never a file of another writer replaced.
func WriteNew(path string, data []byte) error {
	tmp, err := writeTemp(path, data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	return place(tmp, path)
}

// maxSuffix bounds the names CreateUnique tries.
const maxSuffix = 100000

// CreateUnique writes data to a new file in dir named stem+ext, or stem-2+ext, stem-3+ext …
// when the name is taken (or taken, if not nil, returns true for its path), and returns its
// path. It never replaces a file, and the file appears whole or not at all (WriteNew).
func CreateUnique(dir, stem, ext string, data []byte, taken func(path string) bool) (string, error) {
	tmp, err := writeTemp(filepath.Join(dir, stem+ext), data)
	if err != nil {
		return "", fmt.Errorf("write %s%s in %s: %w", stem, ext, dir, err)
	}
	defer os.Remove(tmp)
	for n := 1; n <= maxSuffix; n++ {
		name := stem + ext
		if n > 1 {
			name = fmt.Sprintf("%s-%d%s", stem, n, ext)
		}
		path := filepath.Join(dir, name)
		if taken != nil && taken(path) {
			continue
		}
		err := place(tmp, path)
		if err == nil {
			return path, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("write %s: %w", path, err)
		}
	}
	return "", fmt.Errorf("write %s%s in %s: %d names taken", stem, ext, dir, maxSuffix)
}

// writeTemp writes data to a new temporary file beside path, hidden (its name starts with a
// dot, which readers of the store skip), readable by all as the store's files are, and
// returns its name.
func writeTemp(path string, data []byte) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// place gives the complete file tmp the name path unless path exists (an error wrapping
// fs.ErrExist); see WriteNew.
func place(tmp, path string) error {
	err := link(tmp, path)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	r, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	r.Close()
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(path) // the empty file this call created
		return err
	}
	return nil
}
