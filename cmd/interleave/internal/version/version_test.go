package version

import (
	"bytes"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestGet(t *testing.T) {
	vcs := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}}}
	tagged := &debug.BuildInfo{Main: debug.Module{Version: "v0.2.0"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "def456"}}}
	tests := []struct {
		name            string
		version, commit string
		bi              *debug.BuildInfo
		want            Info
	}{
		{"stamped", "0.1.0", "31538d6", vcs, Info{Version: "0.1.0", Commit: "31538d6"}},
		{"stamped with v", "v0.1.0", "31538d6", nil, Info{Version: "0.1.0", Commit: "31538d6"}},
		{"checkout", "", "", vcs, Info{Version: "devel", Commit: "abc123-dirty"}},
		{"module version", "", "", tagged, Info{Version: "0.2.0", Commit: "def456"}},
		{"nothing known", "", "", nil, Info{Version: "devel", Commit: "unknown"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := get(tt.version, tt.commit, tt.bi)
			tt.want.Go, tt.want.OS = runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH
			if got != tt.want {
				t.Errorf("get(%q, %q) = %+v, want %+v", tt.version, tt.commit, got, tt.want)
			}
		})
	}
}

func TestRun(t *testing.T) {
	Version, Commit = "0.1.0", "31538d6"
	defer func() { Version, Commit = "", "" }()
	var out bytes.Buffer
	if err := Run(nil, &out, &out); err != nil {
		t.Fatal(err)
	}
	want := "interleave version 0.1.0 commit 31538d6 " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	if out.String() != want {
		t.Errorf("interleave version printed %q, want %q", out.String(), want)
	}
	if err := Run([]string{"-x"}, &out, &out); err == nil || !strings.Contains(err.Error(), "no arguments") {
		t.Errorf("interleave version -x: %v, want an error", err)
	}
}
