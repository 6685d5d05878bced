//go:build linux

package main

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/dap/daptest"
)

// hangingTest tells the test through the FIFO named by READY which process it runs in, and
// then blocks where the engine cannot see (opening a FIFO that nobody writes): a test binary
// busy for as long as nobody stops it.
const hangingTest = `package m

import (
	"os"
	"strconv"
	"testing"
)

func TestHang(t *testing.T) {
	os.WriteFile(os.Getenv("READY"), []byte(strconv.Itoa(os.Getpid())), 0o644)
	os.ReadFile(os.Getenv("NEVER"))
}
`

// fifos makes the READY and NEVER FIFOs of hangingTest.
func fifos(t *testing.T) (ready, never string, env []string) {
	t.Helper()
	dir := t.TempDir()
	ready, never = filepath.Join(dir, "ready"), filepath.Join(dir, "never")
	for _, p := range []string{ready, never} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	return ready, never, []string{"READY=" + ready, "NEVER=" + never}
}

// readPID waits until the test binary says it runs (the FIFO's write meets this read), and
// returns its process id.
func readPID(t *testing.T, ready string) int {
	t.Helper()
	type result struct {
		b   []byte
		err error
	}
	ch := make(chan result, 1)
	go func() {
		b, err := os.ReadFile(ready)
		ch <- result{b, err}
	}()
	var r result
	select {
	case r = <-ch:
	case <-time.After(5 * time.Minute): // a guard against a hang, not a timing
		t.Fatal("the test binary never said it runs")
	}
	b, err := r.b, r.err
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatalf("pid %q: %v", b, err)
	}
	return pid
}

// waitGone waits for the process to end, on a pidfd that becomes readable when it does (the
// kernel delivers the parent-death signal asynchronously); the timeout only guards against a
// hang.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	const sysPidfdOpen = 434 // pidfd_open(2), the same number on every Linux architecture
	fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	if errno != 0 {
		if errno == syscall.ESRCH {
			return // already gone and reaped
		}
		t.Fatalf("pidfd_open(%d): %v", pid, errno)
	}
	defer syscall.Close(int(fd))
	var set syscall.FdSet
	set.Bits[fd/64] |= 1 << (fd % 64)
	tv := syscall.Timeval{Sec: 60}
	n, err := syscall.Select(int(fd)+1, &set, nil, nil, &tv)
	if err != nil || n == 0 {
		t.Fatalf("process %d still runs (%v)", pid, err)
	}
}

// workDirs lists the interleave work directories in tmp.
func workDirs(t *testing.T, tmp string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(tmp, "interleave-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// No orphans: interleave test stopped by SIGTERM or SIGHUP stops its test binary and removes
// its work directory; killed by SIGKILL, its test binary dies with it (the kernel's
// parent-death signal) and the next run removes the directory it left.
func TestNoOrphans(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := writeModule(t, map[string]string{"m_test.go": hangingTest})
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			ready, _, env := fifos(t)
			// One worker process: the test binary tells its pid through one FIFO (with -p 2
			// the test would be split between two binaries, each stopped the same way).
			cmd := exec.Command(interleaveBinary(t), "test", "-p", "1", ".")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), append(env, "TMPDIR="+tmp)...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pid := readPID(t, ready)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			waitGone(t, pid)
			left := workDirs(t, tmp)
			if sig == syscall.SIGKILL {
				if len(left) != 1 {
					t.Fatalf("work directories after kill -9: %v", left)
				}
				// The next run removes what the killed one could not.
				next := exec.Command(interleaveBinary(t), "test", "-run", "TestNothing", ".")
				next.Dir, next.Env = dir, append(os.Environ(), "TMPDIR="+tmp)
				next.Run()
				left = workDirs(t, tmp)
			}
			if len(left) != 0 {
				t.Errorf("work directories left: %v\n%s", left, out.String())
			}
		})
	}
}

// A client that drops without disconnect ends its session: the test process is killed, the
// work directory removed, and the adapter answers the next client; SIGTERM to the adapter ends
// a session the same way.
func TestDAPDroppedClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := writeModule(t, map[string]string{"m_test.go": hangingTest})
	tmp := t.TempDir()
	ready, _, env := fifos(t)
	cmd := exec.Command(interleaveBinary(t), "dap", "-listen", "127.0.0.1:0", "-no-delve")
	cmd.Env = append(os.Environ(), append(env, "TMPDIR="+tmp)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line := make([]byte, 200)
	n, err := stdout.Read(line)
	addr, ok := strings.CutPrefix(strings.TrimSpace(string(line[:n])), "DAP server listening at: ")
	if err != nil || !ok {
		t.Fatalf("first line %q, %v", line[:n], err)
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c := daptest.New(conn, conn)
	c.Timeout = 5 * time.Minute
	if _, err := c.Call("initialize", map[string]any{"adapterID": "interleave"}); err != nil {
		t.Fatal(err)
	}
	c.Send("launch", map[string]any{"type": "interleave", "request": "launch", "program": dir, "test": "TestHang"})
	c.Send("configurationDone", nil) // the exploration starts
	pid := readPID(t, ready)
	conn.Close() // no disconnect
	waitGone(t, pid)

	next, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	c2 := daptest.New(next, next)
	if _, err := c2.Call("initialize", map[string]any{"adapterID": "interleave"}); err != nil {
		t.Fatalf("the next client: %v", err)
	}
	if left := workDirs(t, tmp); len(left) != 0 {
		t.Errorf("work directories left: %v", left)
	}

	// SIGTERM to the adapter in the middle of the next session: its test process and its
	// work directory go with it.
	c2.Timeout = 5 * time.Minute
	c2.Send("launch", map[string]any{"type": "interleave", "request": "launch", "program": dir, "test": "TestHang"})
	c2.Send("configurationDone", nil)
	pid = readPID(t, ready)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("the adapter's exit: %v", err)
	}
	waitGone(t, pid)
	if left := workDirs(t, tmp); len(left) != 0 {
		t.Errorf("work directories left after SIGTERM: %v", left)
	}
}
