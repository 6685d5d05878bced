package httpserver

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"syscall"
	"testing"
)

// get requests url with client and returns the body.
func get(t *testing.T, client *http.Client, url string) string {
	resp, err := client.Get(url)
	if err != nil {
		t.Errorf("get %s: %v", url, err)
		return ""
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Errorf("read the body of %s: %v", url, err)
	}
	return string(b)
}

// TestLostHit: two concurrent requests to Counter; the count after both is 2, unless their
// handlers interleave between the read and the write of the count.
func TestLostHit(t *testing.T) {
	c := &Counter{}
	ts := httptest.NewServer(c)
	defer ts.Close()
	twoRequests(t, ts.Client(), ts.URL)
	if c.Hits() != 2 {
		t.Errorf("%d hits counted after 2 requests", c.Hits())
	}
}

// TestLockedHits: the same with LockedCounter, over the default client: no hit is lost.
func TestLockedHits(t *testing.T) {
	c := &LockedCounter{}
	ts := httptest.NewServer(c)
	defer ts.Close()
	twoRequests(t, http.DefaultClient, ts.URL)
	if c.Hits() != 2 {
		t.Errorf("%d hits counted after 2 requests", c.Hits())
	}
}

// twoRequests sends two concurrent requests to ts with client and returns when both are
// answered.
func twoRequests(t *testing.T, client *http.Client, url string) {
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			get(t, client, url)
		}()
	}
	wg.Wait()
}

// TestTLSLostHit: TestLostHit over TLS (httptest.NewTLSServer and its client).
func TestTLSLostHit(t *testing.T) {
	c := &Counter{}
	ts := httptest.NewTLSServer(c)
	defer ts.Close()
	twoRequests(t, ts.Client(), ts.URL)
	if c.Hits() != 2 {
		t.Errorf("%d hits counted after 2 requests over TLS", c.Hits())
	}
}

// TestTLSLockedHits: TestLockedHits over TLS: no hit is lost.
func TestTLSLockedHits(t *testing.T) {
	c := &LockedCounter{}
	ts := httptest.NewTLSServer(c)
	defer ts.Close()
	twoRequests(t, ts.Client(), ts.URL)
	if c.Hits() != 2 {
		t.Errorf("%d hits counted after 2 requests over TLS", c.Hits())
	}
}

// serve starts an http.Server with LockedCounter on a loopback listener.
func serve(t *testing.T) (*http.Server, string) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: &LockedCounter{}}
	go srv.Serve(l)
	return srv, "http://" + l.Addr().String()
}

// TestGetDuringShutdown: a request racing the server's Shutdown is either refused or
// answered — unless its connection was dialed but not yet accepted when Shutdown closed the
// listener: then it is reset, and the request fails with neither.
func TestGetDuringShutdown(t *testing.T) {
	srv, url := serve(t)
	client := &http.Client{Transport: &http.Transport{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := client.Get(url)
		if err != nil {
			if !errors.Is(err, syscall.ECONNREFUSED) {
				t.Errorf("request neither refused nor answered: %v", err)
			}
			return
		}
		resp.Body.Close()
	}()
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Errorf("shutdown: %v", err)
	}
	<-done
}

// TestGetThenShutdown: a request answered before the Shutdown; the Shutdown waits for nothing.
func TestGetThenShutdown(t *testing.T) {
	srv, url := serve(t)
	client := &http.Client{Transport: &http.Transport{}}
	if body := get(t, client, url); body != "1" {
		t.Errorf("body %q, want 1", body)
	}
	client.CloseIdleConnections()
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Errorf("shutdown: %v", err)
	}
}

// TestDefaultMux: a handler registered on http.DefaultServeMux by the test, served by a server
// with no handler of its own. (Each execution registers it again, as the test's first run
// does.)
func TestDefaultMux(t *testing.T) {
	c := &LockedCounter{}
	http.Handle("/count", c)
	ts := httptest.NewServer(nil)
	defer ts.Close()
	twoRequests(t, ts.Client(), ts.URL+"/count")
	if c.Hits() != 2 {
		t.Errorf("%d hits counted after 2 requests", c.Hits())
	}
}
