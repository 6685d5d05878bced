package main

import (
	"strings"
	"testing"
)

// TestLspHelp: interleave lsp -h describes the server and its flags; unexpected arguments
// are a usage error.
func TestLspHelp(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"lsp", "-h"}, 0, []string{"usage: interleave lsp", "Language Server Protocol", "interleave.runTest", "-poll", "-log"}},
		{[]string{"lsp", "extra"}, 2, []string{"unexpected arguments"}},
		{[]string{"-h"}, 0, []string{"interleave lsp"}},
	} {
		code, out, errOut := runCmd(t, tc.args...)
		if code != tc.code {
			t.Errorf("interleave %s: exit %d, want %d", strings.Join(tc.args, " "), code, tc.code)
		}
		for _, w := range tc.want {
			if !strings.Contains(out+errOut, w) {
				t.Errorf("interleave %s: no %q in\n%s%s", strings.Join(tc.args, " "), w, out, errOut)
			}
		}
	}
}
