// Package vnet is the virtual network of an instrumented test binary: net.Pipe, loopback
// TCP and Unix sockets under the engine. The instrumenter rewrites calls of net.Pipe, net.Listen, net.Dial,
// net.DialTimeout and (*net.Dialer).Dial and DialContext into this package's functions.
//
// Under control (the caller is a goroutine the engine runs), net.Pipe is a synchronous
// in-memory connection and a TCP listener on a loopback or unspecified address (127.0.0.1:0,
// localhost:8080, [::1]:0, :0) belongs to the execution's virtual network, on ports it gives
// out (from 40000, the same in every execution); a dial of such an address reaches it. The
// connections are engine objects (engine.VConn, engine.VListener): reads, writes, accepts,
// closes, half-closes and deadlines are scheduling points with Go's semantics and errors
// (*net.OpError wrapping net.ErrClosed, ECONNRESET, EPIPE, ECONNREFUSED, EADDRINUSE,
// os.ErrDeadlineExceeded), waits are the engine's — a protocol deadlock is a deadlock — and
// deadlines run on the virtual clock.
//
// A Unix socket listener (net.Listen("unix", path)) is virtual too, on a path of the virtual
// network (nothing is made in the file system), and a dial of a path a virtual listener of the
// execution has or had reaches it.
//
// What stays real: every call outside an execution or from a goroutine the engine does not
// run, other networks (udp, unixgram, unixpacket), other hosts, named ports, net.ListenTCP,
// DialTCP, ListenUnix and DialUnix (their results are package net's own types, which a
// virtual connection cannot be), and a dial of a loopback port no virtual listener of the
// execution ever had (a server started by code that was not instrumented). A dial of a port whose virtual listener closed is refused.
//
// This package is apart from the engine so that package net is linked into a test binary
// only when the program uses it.
package vnet

import (
	"context"
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/interleave-dev/interleave/engine"
)

// callerPos is the position of the operation whose method's caller is skip frames up (see
// engine.CallerPos).
func callerPos(skip int) engine.Pos { return engine.CallerPos(skip + 1) }

// Pipe is net.Pipe().
func Pipe(pos engine.Pos) (net.Conn, net.Conn) {
	a, b := engine.NewVConns(false, pos)
	if a == nil {
		return net.Pipe()
	}
	return &conn{c: a, local: pipeAddr{}, remote: pipeAddr{}}, &conn{c: b, local: pipeAddr{}, remote: pipeAddr{}}
}

// pipeAddr is net.Pipe's address.
type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

// conn is a virtual net.Pipe end or TCP connection.
type conn struct {
	c             *engine.VConn
	tcp           bool
	local, remote net.Addr
}

// err translates the engine's error of op into package net's.
func (c *conn) err(op string, err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	if !c.tcp {
		if err == engine.ErrVForeign {
			return &net.OpError{Op: op, Net: "pipe", Err: err}
		}
		return err
	}
	switch err {
	case engine.ErrVClosed:
		err = net.ErrClosed
	case engine.ErrVReset:
		err = os.NewSyscallError(op, syscall.ECONNRESET)
	case engine.ErrVShutdown:
		err = os.NewSyscallError(op, syscall.EPIPE)
	}
	return &net.OpError{Op: op, Net: c.local.Network(), Source: c.local, Addr: c.remote, Err: err}
}

func (c *conn) Read(b []byte) (int, error) {
	n, err := c.c.Read(b, callerPos(2))
	return n, c.err("read", err)
}

func (c *conn) Write(b []byte) (int, error) {
	n, err := c.c.Write(b, callerPos(2))
	return n, c.err("write", err)
}

func (c *conn) Close() error {
	err := c.c.Close(callerPos(2))
	if !c.tcp && err == engine.ErrVClosed {
		return nil // net.Pipe's Close always succeeds
	}
	return c.err("close", err)
}

// CloseWrite is (*net.TCPConn).CloseWrite: a half-close.
func (c *conn) CloseWrite() error { return c.err("close", c.c.CloseWrite(callerPos(2))) }

func (c *conn) LocalAddr() net.Addr  { return c.local }
func (c *conn) RemoteAddr() net.Addr { return c.remote }

func (c *conn) SetDeadline(t time.Time) error {
	return c.err("set", c.c.SetDeadline(t, true, true, callerPos(2)))
}

func (c *conn) SetReadDeadline(t time.Time) error {
	return c.err("set", c.c.SetDeadline(t, true, false, callerPos(2)))
}

func (c *conn) SetWriteDeadline(t time.Time) error {
	return c.err("set", c.c.SetDeadline(t, false, true, callerPos(2)))
}

// loopback parses a TCP address the virtual network serves: a loopback or unspecified host
// and a numeric port. ok is false for any other.
func loopback(network, address string) (ip netip.Addr, port int, ok bool) {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return netip.Addr{}, 0, false
	}
	host, ps, err := net.SplitHostPort(address)
	if err != nil {
		return netip.Addr{}, 0, false
	}
	port, err = strconv.Atoi(ps)
	if err != nil || port < 0 || port > 65535 {
		return netip.Addr{}, 0, false
	}
	switch host {
	case "localhost":
		if network == "tcp6" {
			return netip.IPv6Loopback(), port, true
		}
		return netip.AddrFrom4([4]byte{127, 0, 0, 1}), port, true
	case "":
		if network == "tcp4" {
			return netip.IPv4Unspecified(), port, true
		}
		return netip.IPv6Unspecified(), port, true
	}
	ip, err = netip.ParseAddr(host)
	if err != nil || ip.Zone() != "" || !(ip.IsLoopback() || ip.IsUnspecified()) {
		return netip.Addr{}, 0, false
	}
	return ip.Unmap(), port, true
}

// listener is a virtual TCP listener.
type listener struct {
	l    *engine.VListener
	addr net.Addr // *net.TCPAddr or *net.UnixAddr
}

// Listen is net.Listen(network, address): a TCP listener on a loopback or unspecified
// address is virtual under control.
func Listen(network, address string, pos engine.Pos) (net.Listener, error) {
	if network == "unix" && address != "" {
		return listenUnix(address, pos)
	}
	ip, port, ok := loopback(network, address)
	if !ok {
		return net.Listen(network, address)
	}
	l, err := engine.VListen(port, pos)
	switch {
	case err != nil:
		return nil, &net.OpError{Op: "listen", Net: network, Addr: &net.TCPAddr{IP: ip.AsSlice(), Port: port}, Err: os.NewSyscallError("bind", syscall.EADDRINUSE)}
	case l == nil:
		return net.Listen(network, address)
	}
	vl := &listener{l: l, addr: &net.TCPAddr{IP: ip.AsSlice(), Port: l.Port()}}
	l.Ext = vl
	return vl, nil
}

// listenUnix is net.Listen("unix", path): a Unix socket listener, virtual under control.
// Nothing is made in the file system: the path is the virtual network's.
func listenUnix(path string, pos engine.Pos) (net.Listener, error) {
	l, err := engine.VListenUnix(path, pos)
	addr := &net.UnixAddr{Name: path, Net: "unix"}
	switch {
	case err != nil:
		return nil, &net.OpError{Op: "listen", Net: "unix", Addr: addr, Err: os.NewSyscallError("bind", syscall.EADDRINUSE)}
	case l == nil:
		return net.Listen("unix", path)
	}
	vl := &listener{l: l, addr: addr}
	l.Ext = vl
	return vl, nil
}

// dialUnix dials the Unix socket at path virtually when a virtual listener of the execution
// has or had it; ok is false when the dial must be real.
func dialUnix(path string, pos engine.Pos) (c net.Conn, ok bool, err error) {
	client, l, virtual, err := engine.VDialUnix(path, pos)
	if !virtual {
		return nil, false, nil
	}
	raddr := l.Ext.(*listener).addr
	if err != nil {
		// The closed listener's socket file is gone, as package net's Close removes it.
		return nil, true, &net.OpError{Op: "dial", Net: "unix", Addr: raddr, Err: os.NewSyscallError("connect", syscall.ENOENT)}
	}
	laddr := &net.UnixAddr{Net: "unix"} // an unnamed client socket
	cc := &conn{c: client, tcp: true, local: laddr, remote: raddr}
	sc := &conn{c: client.Peer(), tcp: true, local: raddr, remote: laddr}
	client.Ext, client.Peer().Ext = cc, sc
	return cc, true, nil
}

func (l *listener) Accept() (net.Conn, error) {
	c, err := l.l.Accept(callerPos(2))
	if err != nil {
		return nil, l.err("accept", err)
	}
	return c.Ext.(*conn), nil
}

func (l *listener) Close() error { return l.err("close", l.l.Close(callerPos(2))) }

func (l *listener) err(op string, err error) error {
	if err == nil {
		return nil
	}
	if err == engine.ErrVClosed {
		err = net.ErrClosed
	}
	return &net.OpError{Op: op, Net: l.addr.Network(), Addr: l.addr, Err: err}
}

func (l *listener) Addr() net.Addr { return l.addr }

// Dial is net.Dial(network, address).
func Dial(network, address string, pos engine.Pos) (net.Conn, error) {
	return dial(nil, nil, network, address, pos)
}

// DialTimeout is net.DialTimeout(network, address, timeout): a virtual dial connects, or is
// refused, at once.
func DialTimeout(network, address string, timeout time.Duration, pos engine.Pos) (net.Conn, error) {
	return dial(nil, nil, network, address, pos, timeout)
}

// DialerDial is d.Dial(network, address).
func DialerDial(d *net.Dialer, network, address string, pos engine.Pos) (net.Conn, error) {
	return dial(d, nil, network, address, pos)
}

// DialerDialContext is d.DialContext(ctx, network, address).
func DialerDialContext(d *net.Dialer, ctx context.Context, network, address string, pos engine.Pos) (net.Conn, error) {
	if ctx == nil {
		panic("nil context") // as net's
	}
	return dial(d, ctx, network, address, pos)
}

// ephemeral is the port of the dialing ends of virtual connections: the same in every
// execution but for the count, which only distinguishes connections.
const ephemeral = 50000

// dial dials address virtually when a virtual listener of the execution has or had its
// port; otherwise for real, as d (nil: net.Dial, or net.DialTimeout with timeout) would.
func dial(d *net.Dialer, ctx context.Context, network, address string, pos engine.Pos, timeout ...time.Duration) (net.Conn, error) {
	if network == "unix" {
		if ctx != nil && ctx.Err() != nil {
			return nil, &net.OpError{Op: "dial", Net: network, Addr: &net.UnixAddr{Name: address, Net: "unix"}, Err: ctx.Err()}
		}
		if c, virtual, err := dialUnix(address, pos); virtual {
			return c, err
		}
	}
	ip, port, ok := loopback(network, address)
	if ok {
		if ctx != nil && ctx.Err() != nil {
			// Checked before the dial is attempted, as net's dial does.
			return nil, &net.OpError{Op: "dial", Net: network, Addr: &net.TCPAddr{IP: ip.AsSlice(), Port: port}, Err: ctx.Err()}
		}
		client, l, virtual, err := engine.VDial(port, pos)
		if virtual {
			vl := l.Ext.(*listener)
			listenAddr := vl.addr.(*net.TCPAddr)
			raddr := &net.TCPAddr{IP: ip.AsSlice(), Port: port}
			if ip.IsUnspecified() {
				raddr.IP = listenAddr.IP
			}
			if err != nil {
				return nil, &net.OpError{Op: "dial", Net: network, Addr: raddr, Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
			}
			lip := net.IPv6loopback
			if ip.Is4() || listenAddr.IP.To4() != nil {
				lip = net.IPv4(127, 0, 0, 1).To4()
			}
			laddr := &net.TCPAddr{IP: lip, Port: ephemeral + client.Number()}
			cc := &conn{c: client, tcp: true, local: laddr, remote: raddr}
			sc := &conn{c: client.Peer(), tcp: true, local: vl.addr, remote: laddr}
			client.Ext, client.Peer().Ext = cc, sc
			return cc, nil
		}
	}
	switch {
	case d != nil && ctx != nil:
		return d.DialContext(ctx, network, address)
	case d != nil:
		return d.Dial(network, address)
	case len(timeout) > 0:
		return net.DialTimeout(network, address, timeout[0])
	}
	return net.Dial(network, address)
}
