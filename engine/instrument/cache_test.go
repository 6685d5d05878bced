package instrument

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Without HOME (and so without a user cache directory) the cache is this user's own directory
// in the temporary directory, created 0700 — not a shared, predictable one.
func TestCacheDirWithoutHome(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" || runtime.GOOS == "plan9" {
		t.Skip("the user cache directory does not come from HOME here")
	}
	tmp := t.TempDir()
	t.Setenv("HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("TMPDIR", tmp)
	dir, err := cacheDir("")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(tmp, "interleave-"+strconv.Itoa(os.Getuid())); dir != want {
		t.Errorf("cache %s, want %s", dir, want)
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("cache mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
}

// A cache directory another user could have written into is refused with a message that says
// why and what to do.
func TestCacheDirRefusesSharedDirectories(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix permissions")
	}
	root := t.TempDir()
	shared := filepath.Join(root, "shared")
	if err := os.Mkdir(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(shared, 0o777) // past the umask
	link := filepath.Join(root, "link")
	if err := os.Symlink(t.TempDir(), link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir, want string
		setup           func(t *testing.T, dir string)
	}{
		{"writable by others", shared, "writable by other users", nil},
		{"a symbolic link", link, "not a directory of its own", nil},
		{"owned by another user", filepath.Join(root, "other"), "owned by user 12345", func(t *testing.T, dir string) {
			if os.Getuid() != 0 {
				t.Skip("changing a directory's owner needs root")
			}
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(dir, 12345, 12345); err != nil {
				t.Skipf("chown: %v", err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.setup != nil {
				tc.setup(t, tc.dir)
			}
			_, err := cacheDir(tc.dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.dir) {
				t.Fatalf("cacheDir(%s): %v, want an error naming it with %q", tc.dir, err, tc.want)
			}
		})
	}
}

// A runtime copy that was altered after it was written — a file changed, a file planted — is
// not trusted: it is written again before anything is built with it.
func TestRuntimeCopyIsVerified(t *testing.T) {
	cache := t.TempDir()
	dir, err := Runtime(cache)
	if err != nil {
		t.Fatal(err)
	}
	exec := filepath.Join(dir, "engine", "exec.go")
	orig, err := os.ReadFile(exec)
	if err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(dir, "engine", "zz_planted.go")
	tests := []struct {
		name  string
		alter func() error
	}{
		{"a file changed", func() error { return os.WriteFile(exec, append(orig, "\nfunc init() { panic(1) }\n"...), 0o644) }},
		{"a file planted", func() error {
			return os.WriteFile(planted, []byte("package engine\n\nfunc init() { panic(1) }\n"), 0o644)
		}},
		{"a file removed", func() error { return os.Remove(exec) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.alter(); err != nil {
				t.Fatal(err)
			}
			again, err := Runtime(cache)
			if err != nil || again != dir {
				t.Fatalf("Runtime: %s, %v; want %s", again, err, dir)
			}
			if got, err := os.ReadFile(exec); err != nil || string(got) != string(orig) {
				t.Errorf("exec.go was not restored (%v)", err)
			}
			if _, err := os.Stat(planted); !os.IsNotExist(err) {
				t.Errorf("the planted file is still there (%v)", err)
			}
		})
	}
}
