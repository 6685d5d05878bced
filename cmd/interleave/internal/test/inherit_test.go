package test

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine/explore"
)

// TestInheritedStreams: a child opens the files inherit passes it by the names inherit gives
// (as a test binary opens INTERLEAVE_EVENTS and INTERLEAVE_LOCKSTEP, with explore.OpenStream),
// reads a line from the one and writes it back on the other. On Unix they are /dev/fd/N, on
// Windows inherited handles (exec.Cmd.ExtraFiles is Unix only).
func TestInheritedStreams(t *testing.T) {
	if os.Getenv("INTERLEAVE_TEST_INHERIT_CHILD") != "" {
		in, err := explore.OpenStream(os.Getenv("INTERLEAVE_TEST_IN"), os.O_RDONLY)
		if err != nil {
			os.Exit(3)
		}
		out, err := explore.OpenStream(os.Getenv("INTERLEAVE_TEST_OUT"), os.O_WRONLY|os.O_APPEND|os.O_CREATE)
		if err != nil {
			os.Exit(4)
		}
		line, _ := bufio.NewReader(in).ReadString('\n')
		out.WriteString("echo " + line)
		out.Close()
		os.Exit(0)
	}
	toChild, fromParent, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromChild, toParent, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestInheritedStreams$")
	names := inherit(cmd, []*os.File{toParent, toChild})
	cmd.Env = append(os.Environ(), "INTERLEAVE_TEST_INHERIT_CHILD=1", "INTERLEAVE_TEST_OUT="+names[0], "INTERLEAVE_TEST_IN="+names[1])
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toParent.Close()
	toChild.Close()
	fromParent.WriteString("hello\n")
	fromParent.Close()
	got, _ := bufio.NewReader(fromChild).ReadString('\n')
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child (names %q): %v\n%s", names, err, stderr.String())
	}
	if got != "echo hello\n" {
		t.Errorf("the child wrote %q on %s, want %q", got, names[0], "echo hello\n")
	}
}
