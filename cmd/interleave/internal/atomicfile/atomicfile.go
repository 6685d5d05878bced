// Package atomicfile writes files whole: a reader sees the old file or the new one, never
// half of one.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes data to path through a temporary file in the same directory renamed over it:
// a reader (an editor watching the directory, a CI step) sees the old file or the new one,
// never half of one, and an interrupted write leaves no partial file behind.
func Write(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
