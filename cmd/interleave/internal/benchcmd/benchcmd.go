// Package benchcmd holds what the repository's benchmark programs (perfbench, stressbench)
// share: finding the repository's root, and writing the command lines they ran so that a
// shell runs them again.
package benchcmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// FindRoot returns the repository's root: the working directory or the first parent that
// holds cmd/interleave and the directory marker (a path relative to the root).
func FindRoot(marker string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if isDir(filepath.Join(d, "cmd", "interleave")) && isDir(filepath.Join(d, marker)) {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("run it in the interleave repository: no cmd/interleave and %s in %s or above", marker, dir)
		}
	}
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// Line is the command name args as a shell reads it back: each word quoted where it needs to
// be.
func Line(name string, args []string) string {
	q := []string{Quote(name)}
	for _, a := range args {
		q = append(q, Quote(a))
	}
	return strings.Join(q, " ")
}

// Quote quotes s for a POSIX shell, unless it is made only of characters no shell treats
// specially.
func Quote(s string) string {
	safe := func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r)
	}
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !safe(r) }) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
