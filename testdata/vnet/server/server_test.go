package server

import (
	"errors"
	"syscall"
	"testing"
)

// TestRequests: requests before the shutdown are all answered.
func TestRequests(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 2)
	for _, q := range []string{"ping", "pong"} {
		go func() {
			r, err := Request(s.Addr(), q)
			if err != nil {
				t.Errorf("request %q: %v", q, err)
			}
			done <- r
		}()
	}
	got := map[string]bool{<-done: true, <-done: true}
	if !got["PING"] || !got["PONG"] {
		t.Errorf("replies %v", got)
	}
	s.Shutdown()
}

// TestRequestDuringShutdown: a request racing the shutdown is either refused or answered.
func TestRequestDuringShutdown(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		r, err := Request(s.Addr(), "ping")
		if err != nil && !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("request neither refused nor answered: %q, %v", r, err)
		}
	}()
	s.Shutdown()
	<-done
}
