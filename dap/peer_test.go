package dap

import (
	"net"
	"strings"
	"testing"
)

// TestSocketOwner finds the owner of a socket in a table as /proc/net/tcp prints it.
func TestSocketOwner(t *testing.T) {
	server := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4711}
	client := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 51234}
	row := func(local, remote *net.TCPAddr, uid string) string {
		return "   1: " + procAddr(local) + " " + procAddr(remote) + " 01 00000000:00000000 00:00000000 00000000  " + uid + "        0 123456 1 0000000000000000 20 4 30 10 -1\n"
	}
	table := "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n" +
		row(server, &net.TCPAddr{IP: net.IPv4zero}, "1000") + // the listener
		row(server, client, "1000") + // the adapter's side
		row(client, server, "1001") // the client's side: another user
	tests := []struct {
		name          string
		local, remote *net.TCPAddr
		uid           int
		found         bool
	}{
		{"the client's socket", client, server, 1001, true},
		{"the adapter's socket", server, client, 1000, true},
		{"no such socket", client, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9}, 0, false},
	}
	for _, tc := range tests {
		uid, found, err := socketOwner(strings.NewReader(table), tc.local, tc.remote)
		if err != nil || uid != tc.uid || found != tc.found {
			t.Errorf("%s: uid %d, found %v, %v; want %d, %v", tc.name, uid, found, err, tc.uid, tc.found)
		}
	}
}

// TestCheckBuildFlags: what a client may pass, and that the adapter's own setting allows
// the rest.
func TestCheckBuildFlags(t *testing.T) {
	for _, flags := range [][]string{nil, {"-tags=integration"}, {"-tags", "a,b", "-race"}, {"-mod=vendor", "-trimpath", "-cover", "-covermode", "atomic"}} {
		if err := checkBuildFlags(flags, false); err != nil {
			t.Errorf("%q: %v", flags, err)
		}
	}
	if err := checkBuildFlags([]string{"-toolexec=x"}, true); err != nil {
		t.Errorf("allowed by the adapter's setting: %v", err)
	}
}
