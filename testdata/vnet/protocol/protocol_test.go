package protocol

import (
	"net"
	"testing"
)

// TestBothHandshake: both ends read first; neither writes.
func TestBothHandshake(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	done := make(chan string)
	go func() {
		p, _ := Handshake(b, "alice")
		done <- p
	}()
	if p, err := Handshake(a, "bobby"); err != nil || p != "alice" {
		t.Errorf("handshake: %q, %v", p, err)
	}
	<-done
}

// TestGreetHandshake: one end greets first; it works in every interleaving.
func TestGreetHandshake(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	done := make(chan string)
	go func() {
		p, _ := Handshake(b, "alice")
		done <- p
	}()
	if p, err := Greet(a, "bobby"); err != nil || p != "alice" {
		t.Errorf("greet: %q, %v", p, err)
	}
	if p := <-done; p != "bobby" {
		t.Errorf("the other end heard %q", p)
	}
}
