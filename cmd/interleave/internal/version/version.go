// Package version implements interleave version: the version and commit the binary was built
// from. Release builds (npm run package) stamp both with the linker:
//
//	go build -ldflags "-X github.com/interleave-dev/interleave/cmd/interleave/internal/version.Version=0.1.0 -X github.com/interleave-dev/interleave/cmd/interleave/internal/version.Commit=31538d6" ./cmd/interleave
//
// Other builds report what the go command recorded: the module's version ("devel" in a
// checkout without a tag) and the VCS revision.
package version

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// Version and Commit are set by the linker (-X) in release builds.
var (
	Version string
	Commit  string
)

// Info is what a binary knows of its build.
type Info struct {
	Version string // "0.1.0", without a leading v; "devel" when unknown
	Commit  string // the VCS revision, with "-dirty" if the tree was modified; "unknown"
	Go      string // the toolchain, go1.26.8
	OS      string // GOOS/GOARCH
}

// Get returns this binary's build information.
func Get() Info {
	var bi *debug.BuildInfo
	if b, ok := debug.ReadBuildInfo(); ok {
		bi = b
	}
	return get(Version, Commit, bi)
}

// get fills what the linker did not stamp from the go command's build information.
func get(version, commit string, bi *debug.BuildInfo) Info {
	info := Info{Version: version, Commit: commit, Go: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH}
	if bi != nil {
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		if info.Commit == "" {
			var rev, modified string
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					rev = s.Value
				case "vcs.modified":
					modified = s.Value
				}
			}
			if rev != "" && modified == "true" {
				rev += "-dirty"
			}
			info.Commit = rev
		}
	}
	info.Version = strings.TrimPrefix(info.Version, "v")
	if info.Version == "" {
		info.Version = "devel"
	}
	if info.Commit == "" {
		info.Commit = "unknown"
	}
	return info
}

// String is the line interleave version prints: "interleave version 0.1.0 commit 31538d6 go1.26.8 linux/amd64".
func (i Info) String() string {
	return fmt.Sprintf("interleave version %s commit %s %s %s", i.Version, i.Commit, i.Go, i.OS)
}

// Run prints the version line; it takes no arguments.
func Run(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		return fmt.Errorf("version takes no arguments, got %q", strings.Join(args, " "))
	}
	_, err := fmt.Fprintln(stdout, Get())
	return err
}
