package dap

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
)

// The adapter's TCP port (interleave dap -listen) is on the loopback interface, where every
// local user can connect to it. As Delve does for its own (--only-same-user), a connection is
// served only when the process at its other end runs as the adapter's user: on Linux the
// kernel's socket table (/proc/net/tcp) says which user owns the peer's socket.

// socketOwner finds in a socket table in the format of /proc/net/tcp or /proc/net/tcp6 the
// owner of the socket whose local address is local and remote address remote.
func socketOwner(table io.Reader, local, remote *net.TCPAddr) (uid int, found bool, err error) {
	wantLocal, wantRemote := procAddr(local), procAddr(remote)
	sc := bufio.NewScanner(table)
	for first := true; sc.Scan(); first = false {
		f := strings.Fields(sc.Text())
		if first || len(f) < 8 {
			continue // the header line
		}
		if strings.EqualFold(f[1], wantLocal) && strings.EqualFold(f[2], wantRemote) {
			uid, err := strconv.Atoi(f[7])
			if err != nil {
				return 0, false, fmt.Errorf("socket table: uid %q: %v", f[7], err)
			}
			return uid, true, nil
		}
	}
	return 0, false, sc.Err()
}

// procAddr writes an address as the kernel's socket tables do: the IP as 32-bit words in the
// host's byte order, in hexadecimal, then the port.
func procAddr(a *net.TCPAddr) string {
	ip := a.IP.To4()
	if ip == nil {
		ip = a.IP.To16()
	}
	var b strings.Builder
	for i := 0; i+4 <= len(ip); i += 4 {
		fmt.Fprintf(&b, "%08X", binary.NativeEndian.Uint32(ip[i:i+4]))
	}
	fmt.Fprintf(&b, ":%04X", a.Port)
	return b.String()
}
