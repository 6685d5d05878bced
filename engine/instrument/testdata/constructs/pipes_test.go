package constructs

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"testing"
	"time"
)

func TestIOPipe(t *testing.T) {
	pr, pw := io.Pipe()
	var sink bytes.Buffer
	done := make(chan struct{})
	go func() {
		n, err := io.Copy(&sink, pr)
		say("copied %d bytes, %v", n, err)
		close(done)
	}()
	pw.Write([]byte("hello, "))
	io.WriteString(pw, "pipe")
	pw.Close()
	<-done
	say("sink %q", sink.String())
	if _, err := pw.Write([]byte("x")); err != nil {
		say("write after close: %v", err)
	}
}

// producer returns the read end of a pipe a goroutine writes to, as an io.ReadCloser.
func producer(lines ...string) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		for _, l := range lines {
			io.WriteString(pw, l+"\n")
		}
		pw.CloseWithError(errors.New("producer done"))
	}()
	return pr
}

func TestIOPipeReturned(t *testing.T) {
	r := producer("a", "b")
	got, err := io.ReadAll(r)
	say("read %q, %v", got, err)
	r.Close()
}

// readAllPipe takes package io's type: the pipe passed to it stays a real one.
func readAllPipe(r *io.PipeReader) string {
	b, _ := io.ReadAll(r)
	return string(b)
}

func TestIOPipeConcrete(t *testing.T) {
	pr, pw := io.Pipe()                           // problem: io.Pipe stays a real pipe
	pw.CloseWithError(errors.New("closed first")) // a real pipe's wait would be outside the engine
	say("read %q", readAllPipe(pr))
}

func TestNetPipe(t *testing.T) {
	a, b := net.Pipe()
	go func() {
		buf := make([]byte, 3)
		var got []byte
		for len(got) < 6 {
			n, _ := b.Read(buf) // partial reads of one write
			got = append(got, buf[:n]...)
		}
		b.Write(bytes.ToUpper(got))
		b.Close()
	}()
	a.Write([]byte("abcdef"))
	reply, err := io.ReadAll(a)
	say("reply %q, %v, %s-%s", reply, err, a.LocalAddr(), a.RemoteAddr())
	a.Close()
	a.SetReadDeadline(time.Now().Add(time.Millisecond))
	_, err = a.Read(make([]byte, 1))
	say("read of a closed end: %v", err)
}

func TestNetPipeDeadline(t *testing.T) {
	a, b := net.Pipe()
	defer b.Close()
	a.SetReadDeadline(time.Now().Add(5 * time.Millisecond))
	_, err := a.Read(make([]byte, 1))
	say("deadline: %v, timeout %v", errors.Is(err, os.ErrDeadlineExceeded), err.(net.Error).Timeout())
	a.Close()
}

func TestLoopbackTCP(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				say("accept after close: %v", errors.Is(err, net.ErrClosed))
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				req, _ := io.ReadAll(c)
				c.Write(append([]byte("echo "), req...))
				c.Close()
			}()
		}
	}()
	var d net.Dialer
	for i, dial := range []func() (net.Conn, error){
		func() (net.Conn, error) { return net.Dial("tcp", l.Addr().String()) },
		func() (net.Conn, error) { return net.DialTimeout("tcp", l.Addr().String(), time.Second) },
		func() (net.Conn, error) { return d.DialContext(context.Background(), "tcp", l.Addr().String()) },
	} {
		c, err := dial()
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte{'a' + byte(i)})
		c.(interface{ CloseWrite() error }).CloseWrite()
		reply, err := io.ReadAll(c)
		say("reply %q, %v", reply, err)
		c.Close()
	}
	l.Close()
	wg.Wait()
}
