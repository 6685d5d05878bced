package session

import (
	"net"
	"testing"

	"github.com/interleave-dev/interleave/engine/random"
)

// TestCall makes a few requests of sizes drawn as clients send them: mostly small, rarely
// larger than the server's buffer.
func TestCall(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	go Serve(server)
	defer server.Close()
	calls := random.Draw(t, "calls", random.NewUniform(1, 4))
	for i := range calls {
		size := random.Draw(t, "size", random.NewWeighted(
			random.Range[int]{Min: 0, Max: 512, P: 0.9},
			random.Range[int]{Min: 513, Max: 4096, P: 0.099},
			random.Range[int]{Min: 4097, Max: 8192, P: 0.001}))
		got, err := Call(client, size)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if got != size {
			t.Fatalf("call %d: answered %d bytes, sent %d", i, got, size)
		}
	}
}
