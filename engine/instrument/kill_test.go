package instrument

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// killTreeRole makes the test binary a process of TestKillTree's tree: "child" starts a
// grandchild that shares its stdout and prints the grandchild's pid. Both then block until
// they are killed.
const killTreeRole = "INTERLEAVE_TEST_KILLTREE_ROLE"

func TestMain(m *testing.M) {
	switch os.Getenv(killTreeRole) {
	case "child":
		gc := exec.Command(os.Args[0], "-test.run=^$")
		gc.Env = append(os.Environ(), killTreeRole+"=grandchild")
		gc.Stdout = os.Stdout
		if err := gc.Start(); err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString(strconv.Itoa(gc.Process.Pid) + "\n")
		blockForever()
	case "grandchild":
		blockForever()
	}
	os.Exit(m.Run())
}

// blockForever reads a pipe of its own that no one writes to.
func blockForever() {
	r, w, err := os.Pipe()
	if err != nil {
		os.Exit(3)
	}
	io.Copy(io.Discard, r)
	w.Close()
	os.Exit(0)
}

// TestKillTree: canceling a Command ends the process and what it started. The grandchild
// holds the test's stdout pipe; reading it to its end returns only when both are gone (a kill
// of the child alone leaves the test waiting until its timeout).
func TestKillTree(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cmd := Command(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), killTreeRole+"=child")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	in := bufio.NewReader(out)
	line, err := in.ReadString('\n')
	if err != nil {
		t.Fatalf("read the grandchild's pid: %v", err)
	}
	gc, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("grandchild pid %q: %v", line, err)
	}
	if !ProcessAlive(gc) {
		t.Fatalf("ProcessAlive(%d) = false for the running grandchild", gc)
	}
	cancel()
	if _, err := io.Copy(io.Discard, in); err != nil {
		t.Fatalf("read until the tree is gone: %v", err)
	}
	cmd.Wait()
}
