package benchcmd

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestLine: a shell given Line's output passes the command exactly the words it was given.
func TestLine(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	for _, args := range [][]string{
		{"-bench", "Ratios|RaceDetector", "-benchtime", "1x"},
		{"-run", "^TestX$", "./..."},
		{"", "it's", "a b", "$HOME", "`x`", "*", "-p=2", "x,y:z@1%"},
	} {
		line := Line("printf", append([]string{`%s\n`}, args...))
		out, err := exec.Command("sh", "-c", line).Output()
		if err != nil {
			t.Fatalf("sh -c %q: %v", line, err)
		}
		got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		if !slices.Equal(got, args) {
			t.Errorf("sh -c %q printed %q, want %q", line, got, args)
		}
	}
	if got := Line("go", []string{"test", "-run", "^TestX$"}); got != "go test -run '^TestX$'" {
		t.Errorf("Line = %q: plain words are left unquoted, others quoted", got)
	}
}
