package dap

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/google/go-dap"
)

// FuzzReadFrame: any bytes are read as whole frames up to the first that breaks the protocol,
// which is an error; never a panic, never a frame that was not sent as one, and a frame
// written by go-dap always reads back.
func FuzzReadFrame(f *testing.F) {
	for _, s := range []string{
		"Content-Length: 2\r\n\r\n{}",
		"Content-Length: 2\r\n\r\n{}Content-Length: 3\r\n\r\n[1]",
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 26\r\n\r\nContent-Length: 2\r\n\r\n{}",
		"Content-Length: 99999999999999999999\r\n\r\n",
		"content-length:  5 \r\n\r\nhello",
		"Content-Length: 2\n\n{}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReader(bytes.NewReader(data))
		read := 0
		for {
			content, err := readFrame(r)
			if err != nil {
				var fe *FrameError
				if !errors.Is(err, io.EOF) && !errors.As(err, &fe) {
					t.Fatalf("error %v is neither the end nor a FrameError", err)
				}
				break
			}
			if len(content) == 0 || len(content) > maxMessage {
				t.Fatalf("a frame of %d bytes", len(content))
			}
			read += len(content)
			if read > len(data) {
				t.Fatalf("read %d bytes of content from %d bytes", read, len(data))
			}
		}
		if len(data) > 0 && len(data) <= maxMessage {
			var buf bytes.Buffer
			dap.WriteBaseMessage(&buf, data)
			got, err := readFrame(bufio.NewReader(&buf))
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("a frame go-dap wrote reads back as %q, %v", got, err)
			}
		}
	})
}

// FuzzDecodeRequest: any well-framed content is decoded or refused, and any launch
// arguments are parsed or refused, without a panic; refused build flags are never accepted.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{
		`{"seq":1,"type":"request","command":"initialize","arguments":{"adapterID":"interleave"}}`,
		`{"seq":2,"type":"request","command":"launch","arguments":{"program":"/tmp","buildFlags":["-toolexec=sh"]}}`,
		`{"seq":3,"type":"request","command":"launch","arguments":{"mode":"replay","scheduleFile":"x.json","then":"pct:d=2"}}`,
		`{"seq":4,"type":"request","command":"setBreakpoints","arguments":{"source":{"path":"a.go"},"breakpoints":[{"line":3}]}}`,
		`{"seq":5,"type":"request","command":"launch","arguments":{"program":"/tmp","buildFlags":["-tags","x","-C=/"]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		msg, err := dap.DecodeProtocolMessage(content)
		if err != nil {
			return
		}
		req, ok := msg.(*dap.LaunchRequest)
		if !ok {
			return
		}
		a, err := parseLaunchArgs(req.Arguments, false)
		if err != nil {
			return
		}
		for _, fl := range a.BuildFlags {
			if err := checkBuildFlags([]string{fl}, false); err != nil && len(a.BuildFlags) == 1 {
				t.Fatalf("launch accepted with a refused build flag %q", fl)
			}
		}
		if _, err := json.Marshal(a); err != nil {
			t.Fatal(fmt.Errorf("launch arguments do not encode: %w", err))
		}
	})
}
