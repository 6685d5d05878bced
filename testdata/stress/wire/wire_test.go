package wire

import (
	"bytes"
	"net"
	"sync"
	"testing"

	"github.com/interleave-dev/interleave/engine/random"
)

// TestConcurrentSend sends messages from two goroutines over a net.Pipe and checks that the
// receiver gets each of them whole.
func TestConcurrentSend(t *testing.T) {
	a, b := net.Pipe()
	sender, receiver := New(a), New(b)
	defer sender.Close()
	defer receiver.Close()
	size := random.Draw(t, "size", random.NewUniform(1, 64))
	msgs := [][]byte{bytes.Repeat([]byte{'x'}, size), bytes.Repeat([]byte{'y'}, size)}
	var wg sync.WaitGroup
	for _, m := range msgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sender.Send(m)
		}()
	}
	for range msgs {
		got, err := receiver.Recv()
		if err != nil {
			t.Fatalf("Recv: %v", err)
		}
		if !bytes.Equal(got, msgs[0]) && !bytes.Equal(got, msgs[1]) {
			t.Fatalf("received a frame that was never sent: %q", got)
		}
	}
	wg.Wait()
}
