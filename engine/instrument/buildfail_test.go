package instrument

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A failed build of rewritten code says, after each error at a rewritten line, what the line
// was and became, and the -instrument flag or the fix; an error at a line the rewrite did not
// change is the program's own, and is left as the go command wrote it.
func TestExplainFailure(t *testing.T) {
	dir := t.TempDir()
	orig := filepath.Join(dir, "h.go")
	dst := filepath.Join(dir, "h.rewritten.go")
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(orig, "package h\n\nfunc f(c chan int, s *arg.State) {\n\tc <- 1\n\treturn \"x\"\n}\n")
	write(dst, "//line "+orig+":1:1\npackage h\n\nfunc f(c chan int, s *arg.State) {\n\t__il.Send(c, 1, \"h.go:4:2\")\n\treturn \"x\"\n}\n")
	files := map[string]failedFile{orig: {dst: dst, module: "example.com/m", main: true,
		uninstrumented: map[string]string{"arg": "example.com/arg", "example.com/arg/v2/arg": "example.com/arg/v2"}}}
	for _, tc := range []struct {
		name, out string
		files     map[string]failedFile
		want      []string // "" entries: the output is unchanged
	}{
		{"a type of an uninstrumented module", "./h.go:4:2: cannot use x (variable of type *arg.State) as *state value", files,
			[]string{"interleave rewrote ./h.go:4, whose operations now call engine.Send", "as written:   c <- 1", `as rewritten: __il.Send(c, 1, "h.go:4:2")`,
				"fix: the error names a type of module example.com/arg, which was not instrumented: interleave test -instrument example.com/arg"}},
		{"by import path", `h.go:4:2: cannot use "example.com/arg/v2/arg".X as int`, files,
			[]string{"interleave test -instrument example.com/arg/v2"}},
		{"the instrumenter's fault", "h.go:4:2: declared and not used: v", files,
			[]string{"interleave rewrote h.go:4", "this is the instrumenter's fault: please report the line"}},
		{"a module instrumented on request", "h.go:4:2: declared and not used: v",
			map[string]failedFile{orig: {dst: dst, module: "example.com/dep"}},
			[]string{"module example.com/dep is instrumented on request: without -instrument example.com/dep the test builds"}},
		{"the program's own error", "h.go:5:9: too many return values", files, nil},
		{"not a rewritten file", "other.go:4:2: undefined: x", files, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := explainFailure(tc.out, dir, tc.files)
			if tc.want == nil {
				if got != tc.out {
					t.Errorf("explained %q as\n%s\nwant it unchanged", tc.out, got)
				}
				return
			}
			if !strings.HasPrefix(got, tc.out+"\n") {
				t.Errorf("explanation does not follow the go command's line:\n%s", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("explanation lacks %q:\n%s", w, got)
				}
			}
		})
	}
}
