package instrument

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// The build cache: a warm interleave test on an unchanged package does not load, type-check,
// rewrite and link again, as go test does not recompile what has not changed. The result of
// Build (its test binaries, their identities, the problems found) is kept under the cache
// directory, keyed by everything the build reads:
//
//   - the tool itself (its executable's path, size and modification time) and the runtime
//     copy's content hash;
//   - the go command's environment that changes a build (go env: version, GOOS, GOARCH,
//     CGO_ENABLED, GOFLAGS, GOEXPERIMENT, the C toolchain and its flags, ...);
//   - the directory, the patterns, the build flags and the modules to instrument;
//   - every package of the test binaries' graph, as go list -deps -test sees it: its import
//     path, its files, and their contents — except for the standard library (part of the go
//     version) and for modules of the module cache, whose path and version say what they hold;
//   - the main module's go.mod and go.sum.
//
// Anything the key cannot vouch for is not cached: a package go list reports an error for (the
// build reports it), a cgo package outside the standard library (the C toolchain is not in the
// key), build flags that read files or run programs the key does not cover (-overlay, -modfile,
// -toolexec, -pgo other than off, -importcfg, -extld). A module replaced by a directory outside
// the module cache is hashed file by file like the main module. -a rebuilds (and refreshes the
// entry).

// buildCacheEntries is how many builds the cache keeps (the least recently used go first).
const buildCacheEntries = 16

// buildCacheVersion changes when the format of an entry does.
const buildCacheVersion = "interleave-build-cache 2"

// cachedBuild is the file kept with an entry's binaries.
type cachedBuild struct {
	Version string
	Result  *Result
	// Binaries maps a binary's file name in the entry to its SHA-256, and Sizes to its size:
	// an entry whose binary changed (a disk error, a hand edit) is not used. A binary is
	// linked into the work directory when it can be, its size checked (hashing the binaries
	// of a package tree took longer than the rest of a warm start); copied and its hash
	// checked when it cannot.
	Binaries map[string]string
	Sizes    map[string]int64
}

// listedPackage is what go list -json says of a package, the fields the key needs.
type listedPackage struct {
	ImportPath string
	Dir        string
	ForTest    string
	Standard   bool
	Module     *struct {
		Path    string
		Version string
		Dir     string
		GoMod   string
		Main    bool
		Replace *struct {
			Path    string
			Version string
			Dir     string
		}
	}
	GoFiles, CgoFiles, CFiles, CXXFiles, MFiles, HFiles, FFiles, SFiles []string
	SwigFiles, SwigCXXFiles, SysoFiles, EmbedFiles                      []string
	TestGoFiles, XTestGoFiles, TestEmbedFiles, XTestEmbedFiles          []string
	Error                                                               *struct{ Err string }
	DepsErrors                                                          []*struct{ Err string }
}

var listFields = "ImportPath,Dir,ForTest,Standard,Module,GoFiles,CgoFiles,CFiles,CXXFiles,MFiles,HFiles,FFiles,SFiles," +
	"SwigFiles,SwigCXXFiles,SysoFiles,EmbedFiles,TestGoFiles,XTestGoFiles,TestEmbedFiles,XTestEmbedFiles,Error,DepsErrors"

// uncacheableFlags read files or run programs the key does not cover.
var uncacheableFlags = []string{"overlay", "modfile", "toolexec", "pgo"}

// buildKey returns the key of the build cfg asks for, or "" with the reason it is not
// cacheable.
func buildKey(ctx context.Context, cfg Config, runtimeDir string) (key, why string) {
	for _, f := range cfg.BuildFlags {
		name, value, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
		for _, u := range uncacheableFlags {
			if name == u && !(name == "pgo" && value == "off") {
				return "", "build flag -" + name
			}
		}
		if strings.Contains(value, "importcfg") || strings.Contains(value, "embedcfg") || strings.Contains(value, "-extld") {
			return "", "build flag " + f + " (reads files or runs programs)"
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return "", "no executable: " + err.Error()
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return "", "no executable: " + err.Error()
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\ntool %s %d %d\nruntime %s\n", buildCacheVersion, exe, fi.Size(), fi.ModTime().UnixNano(), filepath.Base(runtimeDir))
	env := Command(ctx, "go", "env", "-json", "GOVERSION", "GOROOT", "GOOS", "GOARCH", "GOAMD64", "GOARM", "GOARM64", "CGO_ENABLED", "GOFLAGS",
		"GOEXPERIMENT", "GOTOOLCHAIN", "GOPATH", "GOMODCACHE", "CC", "CXX", "CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_CXXFLAGS", "CGO_LDFLAGS", "GOPROXY", "GONOSUMDB")
	env.Dir = cfg.Dir
	env.Env = append(os.Environ(), "GOWORK=off")
	envOut, err := env.Output()
	if err != nil {
		return "", "go env: " + err.Error()
	}
	h.Write(envOut)
	fmt.Fprintf(h, "dir %s\npatterns %q\nflags %q\nmodules %q\n", cfg.Dir, cfg.Patterns, cfg.BuildFlags, cfg.Modules)

	args := append([]string{"list", "-deps", "-test", "-e", "-json=" + listFields}, cfg.BuildFlags...)
	args = append(args, "--")
	args = append(args, cfg.Patterns...)
	list := Command(ctx, "go", args...)
	list.Dir = cfg.Dir
	list.Env = append(os.Environ(), "GOWORK=off")
	var stderr bytes.Buffer
	list.Stderr = &stderr
	out, err := list.Output()
	if err != nil {
		return "", "go list: " + strings.TrimSpace(stderr.String())
	}
	modFiles := map[string]bool{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return "", "go list output: " + err.Error()
		}
		if p.Error != nil || len(p.DepsErrors) > 0 {
			return "", "a package with errors: " + p.ImportPath
		}
		fmt.Fprintf(h, "package %s %s %s\n", p.ImportPath, p.ForTest, p.Dir)
		if p.Standard || (strings.HasSuffix(p.ImportPath, ".test") && p.ForTest == "") {
			// The standard library is the go version's; a test main is generated from the
			// test files of its package, hashed with that package.
			continue
		}
		m := p.Module
		if m != nil && m.Version != "" && (m.Replace == nil || m.Replace.Version != "") {
			// A module of the module cache (or replaced by one): immutable at its version.
			fmt.Fprintf(h, "module %s@%s", m.Path, m.Version)
			if m.Replace != nil {
				fmt.Fprintf(h, " => %s@%s", m.Replace.Path, m.Replace.Version)
			}
			fmt.Fprintf(h, " files %q\n", p.GoFiles)
			continue
		}
		if len(p.CgoFiles)+len(p.SwigFiles)+len(p.SwigCXXFiles) > 0 {
			// The C toolchain's own version is not part of the key.
			return "", "a cgo package: " + p.ImportPath
		}
		if m != nil && m.GoMod != "" {
			modFiles[m.GoMod] = true
		}
		var files []string
		for _, list := range [][]string{p.GoFiles, p.CgoFiles, p.CFiles, p.CXXFiles, p.MFiles, p.HFiles, p.FFiles, p.SFiles,
			p.SwigFiles, p.SwigCXXFiles, p.SysoFiles, p.EmbedFiles, p.TestGoFiles, p.XTestGoFiles, p.TestEmbedFiles, p.XTestEmbedFiles} {
			files = append(files, list...)
		}
		sort.Strings(files)
		for _, f := range files {
			if err := hashFile(h, filepath.Join(p.Dir, f)); err != nil {
				return "", err.Error()
			}
		}
	}
	var mods []string
	for m := range modFiles {
		mods = append(mods, m, strings.TrimSuffix(m, ".mod")+".sum")
	}
	sort.Strings(mods)
	for _, m := range mods {
		if err := hashFile(h, m); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err.Error()
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:32], ""
}

func hashFile(h io.Writer, name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Fprintf(h, "file %s\n", name)
	fh := sha256.New()
	if _, err := io.Copy(fh, f); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	fmt.Fprintf(h, "%x\n", fh.Sum(nil))
	return nil
}

func buildCacheDir(cacheDir, key string) string {
	return filepath.Join(cacheDir, "builds", key)
}

// loadCachedBuild returns the cached result of key with its binaries copied into work/bin, or
// nil when there is none (or it cannot be used).
func loadCachedBuild(cacheDir, key, work string) (*Result, error) {
	dir := buildCacheDir(cacheDir, key)
	b, err := os.ReadFile(filepath.Join(dir, "build.json"))
	if err != nil {
		return nil, nil
	}
	var c cachedBuild
	if err := json.Unmarshal(b, &c); err != nil || c.Version != buildCacheVersion || c.Result == nil {
		return nil, nil
	}
	if err := os.MkdirAll(filepath.Join(work, "bin"), 0o755); err != nil {
		return nil, fmt.Errorf("work directory: %w", err)
	}
	for _, p := range c.Result.Packages {
		if p.Binary == "" {
			continue
		}
		name := p.Binary
		want, ok := c.Binaries[name]
		if !ok || filepath.Base(name) != name {
			return nil, nil
		}
		dst := filepath.Join(work, "bin", name)
		if !linkCached(filepath.Join(dir, name), dst, c.Sizes[name]) {
			sum, err := copyFile(filepath.Join(dir, name), dst, 0o755)
			if err != nil || sum != want {
				os.Remove(dst)
				return nil, nil
			}
		}
		p.Binary = dst
	}
	now := time.Now()
	os.Chtimes(dir, now, now) // recently used
	return c.Result, nil
}

// linkCached links the cached binary src to dst, and reports whether dst is then that binary
// with the size it was saved with.
func linkCached(src, dst string, size int64) bool {
	if size <= 0 || os.Link(src, dst) != nil {
		return false
	}
	if fi, err := os.Stat(dst); err != nil || fi.Size() != size {
		os.Remove(dst)
		return false
	}
	return true
}

// saveCachedBuild keeps res under key: its binaries are copied in, and the entry appears whole
// (renamed into place) or not at all.
func saveCachedBuild(cacheDir, key string, res *Result) error {
	builds := filepath.Join(cacheDir, "builds")
	if err := os.MkdirAll(builds, 0o700); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(builds, "tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	c := cachedBuild{Version: buildCacheVersion, Result: &Result{Problems: res.Problems, Files: res.Files, Points: res.Points}, Binaries: map[string]string{}, Sizes: map[string]int64{}}
	for _, p := range res.Packages {
		cp := *p
		if p.Binary != "" {
			cp.Binary = filepath.Base(p.Binary)
			if _, dup := c.Binaries[cp.Binary]; dup {
				return fmt.Errorf("two binaries named %s", cp.Binary)
			}
			sum, err := copyFile(p.Binary, filepath.Join(tmp, cp.Binary), 0o755)
			if err != nil {
				return err
			}
			c.Binaries[cp.Binary] = sum
			if fi, err := os.Stat(filepath.Join(tmp, cp.Binary)); err == nil {
				c.Sizes[cp.Binary] = fi.Size()
			}
		}
		c.Result.Packages = append(c.Result.Packages, &cp)
	}
	b, err := json.MarshalIndent(c, "", "\t")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, "build.json"), b, 0o600); err != nil {
		return err
	}
	dir := buildCacheDir(cacheDir, key)
	os.RemoveAll(dir) // an entry that could not be used is replaced
	if err := os.Rename(tmp, dir); err != nil {
		return err
	}
	trimBuildCache(builds, buildCacheEntries)
	return nil
}

// trimBuildCache removes the least recently used entries beyond keep, and temporary
// directories of saves that did not finish an hour ago.
func trimBuildCache(builds string, keep int) {
	entries, err := os.ReadDir(builds)
	if err != nil {
		return
	}
	type entry struct {
		name string
		used time.Time
	}
	var list []entry
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			continue
		}
		if strings.HasPrefix(e.Name(), "tmp-") {
			if time.Since(fi.ModTime()) > time.Hour {
				os.RemoveAll(filepath.Join(builds, e.Name()))
			}
			continue
		}
		list = append(list, entry{e.Name(), fi.ModTime()})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].used.After(list[j].used) })
	for i := keep; i < len(list); i++ {
		os.RemoveAll(filepath.Join(builds, list[i].name))
	}
}

// copyFile copies src to dst (replacing it) and returns the content's SHA-256.
func copyFile(src, dst string, perm os.FileMode) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(out, h), in); err != nil {
		out.Close()
		return "", err
	}
	if err := out.Close(); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
