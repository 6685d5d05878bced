package instrument

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// cacheDir returns the directory for the runtime copy and copied modules: dir if the caller
// gave one, else interleave in the user's cache directory, or, when there is none (HOME
// unset), a directory of this user's own in the temporary directory. Everything in it ends up
// compiled into test binaries, so it must be the user's alone: it is created 0700, and a
// directory that another user owns or can write to is refused.
func cacheDir(dir string) (string, error) {
	if dir == "" {
		if d, err := os.UserCacheDir(); err == nil {
			dir = filepath.Join(d, "interleave")
		} else {
			dir = filepath.Join(os.TempDir(), "interleave-"+strconv.Itoa(os.Getuid()))
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("cache: %w", err)
	}
	if err := checkPrivate(dir); err != nil {
		return "", fmt.Errorf("cache %s: %w", dir, err)
	}
	return dir, nil
}

// checkPrivate refuses a directory that is a symbolic link, is owned by another user, or
// that others can write to.
func checkPrivate(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
		return fmt.Errorf("not a directory of its own (%s): refusing to build code from it", fi.Mode().Type())
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("writable by other users (mode %v): refusing to build code from it; chmod go-w it", fi.Mode().Perm())
	}
	return checkOwner(fi)
}

// verifyTree reports whether the directory dir holds exactly the files of want (slash paths
// relative to dir) with exactly their contents: a copy that was changed, or that gained a
// file, is not used.
func verifyTree(dir string, want map[string][]byte) error {
	seen := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		content, ok := want[rel]
		if !ok {
			return fmt.Errorf("%s: a file that is not part of the runtime", rel)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", rel)
		}
		got, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !bytes.Equal(got, content) {
			return fmt.Errorf("%s: changed since it was written", rel)
		}
		seen++
		return nil
	})
	if err == nil && seen != len(want) {
		err = fmt.Errorf("%d of %d files missing", len(want)-seen, len(want))
	}
	return err
}
