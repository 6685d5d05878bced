package dap_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/interleave-dev/interleave/dap"
	"github.com/interleave-dev/interleave/dap/daptest"
)

// frame is a message in the base protocol's framing.
func frame(content string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(content), content)
}

// request is the JSON of a request.
func request(seq int, command string, args any) string {
	b, err := json.Marshal(map[string]any{"seq": seq, "type": "request", "command": command, "arguments": args})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// serveRaw serves one session on a loopback TCP connection, as interleave dap -listen does,
// writes input to it and returns what the adapter wrote back before it closed the connection,
// and the error the session ended with.
func serveRaw(t *testing.T, cfg dap.Config, input string) (string, error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	served := make(chan error, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			served <- err
			return
		}
		defer conn.Close()
		if err := dap.CheckPeer(conn); err != nil {
			served <- err
			return
		}
		served <- dap.NewSession(conn, conn, cfg).Serve()
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, input); err != nil {
		t.Fatal(err)
	}
	conn.(*net.TCPConn).CloseWrite()                  // all is sent: a read past it ends
	conn.SetReadDeadline(time.Now().Add(time.Minute)) // a guard: the adapter closes at once
	out, _ := io.ReadAll(conn)
	var serveErr error
	select {
	case serveErr = <-served:
	case <-time.After(time.Minute):
		t.Fatal("the session did not end")
	}
	return string(out), serveErr
}

// TestBrowserRequestRefused sends what a web page's fetch('http://127.0.0.1:PORT/', {method:
// 'POST', body}) sends — an HTTP request with a text/plain body, which needs no preflight —
// with a body that frames initialize and a launch whose build flags run a shell command. The
// adapter answers nothing, closes the connection, and runs nothing.
func TestBrowserRequestRefused(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "pwned")
	program := example(t, "lockorder")
	body := frame(request(1, "initialize", map[string]any{"adapterID": "interleave"})) +
		frame(request(2, "launch", map[string]any{"program": program, "buildFlags": []string{"-toolexec=sh -c 'touch " + marker + "; exec \"$0\" \"$@\"'"}}))
	http := "POST / HTTP/1.1\r\n" +
		"Host: 127.0.0.1:4711\r\n" +
		"Connection: keep-alive\r\n" +
		fmt.Sprintf("Content-Length: %d\r\n", len(body)) +
		"sec-ch-ua-platform: \"Linux\"\r\n" +
		"User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36\r\n" +
		"Content-Type: text/plain;charset=UTF-8\r\n" +
		"Accept: */*\r\n" +
		"Origin: http://attacker.example\r\n" +
		"Sec-Fetch-Site: cross-site\r\n" +
		"Sec-Fetch-Mode: cors\r\n" +
		"Referer: http://attacker.example/\r\n" +
		"Accept-Encoding: gzip, deflate, br\r\n" +
		"Accept-Language: en-US,en;q=0.9\r\n\r\n" + body
	out, err := serveRaw(t, dap.Config{NoDelve: true}, http)
	var fe *dap.FrameError
	if !errors.As(err, &fe) || !fe.HTTP {
		t.Fatalf("session ended with %v, want a refused HTTP request", err)
	}
	if out != "" {
		t.Errorf("the adapter answered a web page: %q", out)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("the build flag's command ran (%v)", err)
	}
}

// TestFramesThatBreakTheProtocol: each ends the session at once, with an output event that
// says why when the client speaks the protocol at all; nothing after it is read, so nothing
// smuggled behind it (an initialize request here) is answered.
func TestFramesThatBreakTheProtocol(t *testing.T) {
	next := frame(request(1, "initialize", map[string]any{"adapterID": "interleave"}))
	tests := []struct {
		name, input, want string
	}{
		{"not a number", "Content-Length: lots\r\n\r\n" + next, "Content-Length must be a positive number"},
		{"absurd length", "Content-Length: 99999999999999999999999\r\n\r\n" + next, "Content-Length must be a positive number"},
		{"over the limit", "Content-Length: 16777217\r\n\r\n" + next, "larger than the adapter's limit of 16777216 bytes"},
		{"another header", "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}" + next, "want one Content-Length header and nothing else"},
		{"two lengths", "Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}" + next, "want one Content-Length header"},
		{"bare line feeds", "Content-Length: 2\n\n{}" + next, `lines must end with \r\n`},
		{"no length", "\r\n" + next, "without Content-Length"},
		{"a header line without end", strings.Repeat("x", 300) + next, "longer than 256 bytes"},
		{"a short body", "Content-Length: 500\r\n\r\n{}", "ends after fewer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := serveRaw(t, dap.Config{NoDelve: true}, tc.input)
			var fe *dap.FrameError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("session ended with %v, want %q", err, tc.want)
			}
			msgs := readMessages(t, out)
			if len(msgs) != 1 {
				t.Fatalf("the adapter wrote %d messages, want one output event:\n%q", len(msgs), out)
			}
			e, ok := msgs[0].(*godap.OutputEvent)
			if !ok || !strings.Contains(e.Body.Output, tc.want) || !strings.Contains(e.Body.Output, "closing the session") {
				t.Errorf("message %+v, want an output event saying %q", msgs[0], tc.want)
			}
		})
	}
}

// TestInitializeFirst: a request before initialize gets an error and ends the session; nothing
// behind it is served.
func TestInitializeFirst(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	input := frame(request(1, "launch", map[string]any{"program": example(t, "lockorder"), "buildFlags": []string{"-toolexec=touch " + marker}})) +
		frame(request(2, "initialize", map[string]any{"adapterID": "interleave"}))
	out, err := serveRaw(t, dap.Config{NoDelve: true}, input)
	if err == nil || !strings.Contains(err.Error(), "the first request must be initialize") {
		t.Fatalf("session ended with %v", err)
	}
	msgs := readMessages(t, out)
	if len(msgs) != 1 {
		t.Fatalf("the adapter wrote %d messages, want one error response:\n%q", len(msgs), out)
	}
	if r, ok := msgs[0].(*godap.ErrorResponse); !ok || r.RequestSeq != 1 || !strings.Contains(r.Message, "the first request must be initialize") {
		t.Errorf("response %+v", msgs[0])
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("something ran (%v)", err)
	}
}

// TestDangerousBuildFlagsRefused: each build flag that runs a program or replaces files is
// refused with a message naming it and the setting that allows it.
func TestDangerousBuildFlagsRefused(t *testing.T) {
	program := example(t, "lockorder")
	for _, tc := range []struct {
		flags []string
		want  string // the flag the error names
	}{
		{[]string{"-toolexec=sh -c 'id'"}, "-toolexec=sh -c 'id'"},
		{[]string{"-toolexec", "/bin/sh"}, "-toolexec"},
		{[]string{"-exec=/bin/sh"}, "-exec=/bin/sh"},
		{[]string{"-overlay=/tmp/overlay.json"}, "-overlay=/tmp/overlay.json"},
		{[]string{"-modfile=/tmp/go.mod"}, "-modfile=/tmp/go.mod"},
		{[]string{"-ldflags=-extld=/bin/sh"}, "-ldflags=-extld=/bin/sh"},
		{[]string{"-gcflags=-importcfg=/tmp/cfg"}, "-gcflags=-importcfg=/tmp/cfg"},
		{[]string{"-pkgdir=/tmp/pkg"}, "-pkgdir=/tmp/pkg"},
		{[]string{"-compiler=gccgo"}, "-compiler=gccgo"},
		{[]string{"-o=/home/me/.bashrc"}, "-o=/home/me/.bashrc"},
		{[]string{"-C=/"}, "-C=/"},
		{[]string{"-tags", "integration", "--toolexec=/bin/sh"}, "--toolexec=/bin/sh"},
		{[]string{"./other/package"}, "./other/package"},
	} {
		t.Run(strings.Join(tc.flags, " "), func(t *testing.T) {
			c := driver{t, session(t, dap.Config{NoDelve: true})}
			c.call("initialize", map[string]any{"adapterID": "interleave"})
			_, err := c.Call("launch", map[string]any{"type": "interleave", "request": "launch", "program": program, "buildFlags": tc.flags})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("launch: %v, want an error naming %s", err, tc.want)
			}
			if strings.HasPrefix(tc.want, "-") && !strings.Contains(err.Error(), "interleave dap -allow-build-flags") {
				t.Errorf("the error does not say what allows the flag: %v", err)
			}
			c.call("disconnect", nil)
		})
	}
}

// TestCheckPeer: a connection from this user's process is served (the kernel's socket table
// says whose it is).
func TestCheckPeer(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the socket table is Linux's")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
			defer c.Close()
			io.Copy(io.Discard, c)
		}
	}()
	conn, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := dap.CheckPeer(conn); err != nil {
		t.Fatalf("a connection of this user refused: %v", err)
	}
}

// readMessages decodes the messages the adapter wrote.
func readMessages(t *testing.T, out string) []godap.Message {
	t.Helper()
	var msgs []godap.Message
	r := bufio.NewReader(strings.NewReader(out))
	for {
		m, err := godap.ReadProtocolMessage(r)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("the adapter's output: %v\n%q", err, out)
			}
			return msgs
		}
		msgs = append(msgs, m)
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader in different goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestSilentClientTimedOut: interleave dap -listen serves one client at a time; a client
// that connects and never sends initialize is closed after the initialize timeout, with a
// line saying so, and the client behind it is served.
func TestSilentClientTimedOut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var errs syncBuffer
	served := make(chan error, 1)
	go func() {
		served <- dap.ServeListener(ctx, ln, dap.Config{NoDelve: true, InitTimeout: 50 * time.Millisecond}, &errs)
	}()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("ServeListener: %v", err)
		}
	}()

	silent, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	// The second client connects behind the silent one: the listener accepts in order.
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := daptest.New(conn, conn)
	c.Timeout = 30 * time.Second
	seq := c.Send("initialize", map[string]any{"adapterID": "interleave"})

	// The adapter closes the silent connection (a guard deadline, long past the timeout,
	// tells a connection that is never closed from one closed by the adapter).
	silent.SetReadDeadline(time.Now().Add(30 * time.Second))
	out, err := io.ReadAll(silent)
	if err != nil {
		t.Fatalf("the silent connection was not closed by the adapter: %v (read %q)", err, out)
	}
	msgs := readMessages(t, string(out))
	if len(msgs) != 1 {
		t.Fatalf("the silent client got %d messages, want one output event: %q", len(msgs), out)
	}
	if e, ok := msgs[0].(*godap.OutputEvent); !ok || !strings.Contains(e.Body.Output, "no initialize request within 50ms: closing the connection") {
		t.Errorf("the silent client got %+v, want an output event saying why it was closed", msgs[0])
	}
	r, err := c.Response(seq)
	if err != nil {
		t.Fatalf("the client behind the silent one: %v", err)
	}
	if !r.GetResponse().Success {
		t.Fatalf("initialize: %+v", r)
	}
	if _, err := c.Call("disconnect", nil); err != nil {
		t.Fatal(err)
	}
	want := "interleave dap: connection from " + silent.LocalAddr().String() + ": no initialize request within 50ms: closing the connection\n"
	if got := errs.String(); !strings.Contains(got, want) {
		t.Errorf("the adapter's log %q, want the line %q", got, want)
	}
}

// TestLaunchOptionsRefused: a launch configuration's exploration options are those of
// package runopts, as interleave.runTest's are, with the same checks: a key that is not an
// option (toolexec, or junit, which a launch does not write) is refused with the accepted
// keys, and so is a value that fails its option's check; nothing is built or run.
func TestLaunchOptionsRefused(t *testing.T) {
	program := example(t, "lockorder")
	marker := filepath.Join(t.TempDir(), "ran")
	for _, tc := range []struct {
		opts map[string]any
		want string
	}{
		{map[string]any{"toolexec": "touch " + marker}, `launch: option "toolexec" is not accepted (accepted: buildFlags, cwd, env, max-steps, mode, points, program, races, scheduleFile, schedules, seed, stopOnEntry, strategy, strict-leaks, tags, test, then, time, and the strategies' parameters (`},
		{map[string]any{"junit": filepath.Join(t.TempDir(), "r.xml")}, `launch: option "junit" is not accepted`},
		{map[string]any{"strategy": "-toolexec=touch " + marker}, `launch: option strategy: "-toolexec=touch `},
		{map[string]any{"schedules": -1}, `launch: option schedules: -1: want a number of schedules ≥ 0`},
		{map[string]any{"seed": -1}, `launch: option seed: -1: want an unsigned integer`},
		{map[string]any{"time": "-1s"}, `launch: option time: "-1s": want a duration ≥ 0`},
		{map[string]any{"points": "racy"}, `launch: option points: "racy": want "all" or "sync"`},
		{map[string]any{"tags": []string{"-toolexec=touch " + marker}}, `launch: option tags: ["-toolexec=touch `},
		{map[string]any{"max-steps": 1.5}, `launch: option max-steps: 1.5: want an integer`},
		{map[string]any{"strategy": "pct", "d": 0}, `launch: option strategy: pct: parameter d must be ≥ 1, got 0`},
	} {
		t.Run(fmt.Sprint(tc.opts), func(t *testing.T) {
			c := driver{t, session(t, dap.Config{NoDelve: true})}
			c.call("initialize", map[string]any{"adapterID": "interleave"})
			args := map[string]any{"type": "interleave", "request": "launch", "program": program}
			for k, v := range tc.opts {
				args[k] = v
			}
			_, err := c.Call("launch", args)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("launch: %v, want an error saying %q", err, tc.want)
			}
			c.call("disconnect", nil)
		})
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("something ran (%v)", err)
	}
}
