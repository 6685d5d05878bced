package main

import (
	"strings"
	"testing"
)

func TestVersionCommand(t *testing.T) {
	code, out, errOut := runCmd(t, "version")
	if code != 0 || !strings.HasPrefix(out, "interleave version ") || !strings.Contains(out, " commit ") {
		t.Errorf("interleave version: exit %d, stdout %q, stderr %q; want the version line", code, out, errOut)
	}
}
