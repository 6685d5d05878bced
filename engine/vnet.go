package engine

import (
	"errors"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

// Virtual pipes and connections: io.Pipe here, net.Pipe and loopback TCP in package
// engine/vnet, built on VConn and VListener (this package does not import package net: a
// test binary links it only when the program does).
//
// The instrumenter rewrites the calls that make them (io.Pipe; net.Pipe, net.Listen,
// net.Dial, net.DialTimeout, (*net.Dialer).Dial and DialContext) into IOPipe and vnet's Pipe,
// Listen, Dial, DialTimeout, DialerDial and DialerDialContext. Under control they make engine
// objects: two
// streams of bytes (one per direction) whose reads, writes, closes, accepts and deadlines are
// scheduling points and whose waits are the engine's, so a goroutine blocked reading a pipe
// nobody writes is blocked as on a channel nobody sends to — a deadlock is reported as one —
// and a deadline fires on the virtual clock. Outside an execution each is the real one.
//
// Semantics are Go's, per kind:
//
//   - io.Pipe and net.Pipe are synchronous: a write completes once readers have taken all
//     its bytes (each read takes what fits, so reads are partial); one write at a time.
//   - loopback TCP is buffered (vnetBuffer bytes per direction, a socket's buffer): a write
//     blocks only while the buffer is full, a read returns what is buffered.
//   - io.Pipe: Read after the writer closed returns its error (io.EOF by Close), after the
//     reader closed io.ErrClosedPipe; Write after the reader closed returns the reader's error
//     (io.ErrClosedPipe by Close), after the writer closed io.ErrClosedPipe; a close ends a
//     write in progress.
//   - net.Pipe: io.ErrClosedPipe on the closed end, io.EOF reading from a closed peer,
//     io.ErrClosedPipe writing to it, os.ErrDeadlineExceeded past a deadline.
//   - TCP (vnet wraps these in a *net.OpError): ErrVClosed on the closed end, io.EOF reading
//     from a peer that closed or half-closed (CloseWrite) once its bytes are read, ErrVReset
//     writing to a peer that closed, ErrVShutdown writing after CloseWrite,
//     os.ErrDeadlineExceeded past a deadline.
//
// Data passed through a stream orders its writer's earlier steps before its reader's later
// ones for the race detector (every operation on a stream synchronizes with the others).
//
// A virtual object used by a goroutine the engine does not control (one an uninstrumented
// library started) cannot wait under the engine: its operation fails with ErrVForeign and the
// execution notes the goroutine passing through (current).

// vnetBuffer is the capacity of one direction of a virtual TCP connection.
const vnetBuffer = 256 << 10

// The errors of virtual connections that package vnet translates into package net's.
var (
	// ErrVForeign: the operation came from a goroutine the engine does not control.
	ErrVForeign = errors.New("virtual connection used by a goroutine outside the engine's control")
	// ErrVClosed: the end was closed.
	ErrVClosed = errors.New("use of closed virtual connection")
	// ErrVReset: a write to a peer that closed.
	ErrVReset = errors.New("virtual connection reset by peer")
	// ErrVShutdown: a write after CloseWrite.
	ErrVShutdown = errors.New("virtual connection shut down for writing")
	// ErrVInUse: a listen on a port a listener of the execution has open.
	ErrVInUse = errors.New("virtual address already in use")
	// ErrVRefused: a dial of a port whose virtual listener closed.
	ErrVRefused = errors.New("virtual connection refused")
)

// vstream is one direction of a virtual pipe or connection.
type vstream struct {
	buf []byte // bytes written and not read yet: a synchronous write's rest, or the buffer
	// writing says a synchronous write is in progress; taken counts the bytes read of it.
	writing bool
	taken   int
	// wclosed: the writing side closed (or half-closed); reads past buf return werr.
	wclosed bool
	werr    error
	vc      vclock
}

// vpair is a virtual pipe or connection: its two streams, the goroutines waiting on either,
// and its kind's errors.
type vpair struct {
	e *Exec
	q waitq
	s [2]*vstream // s[i] is written by end i and read by end 1-i
	// limit is the buffer's capacity; 0 for a synchronous pipe.
	limit int
}

func newVpair(e *Exec, limit int) *vpair {
	return &vpair{e: e, s: [2]*vstream{{}, {}}, limit: limit}
}

// CallerPos is the position of the operation on a virtual pipe or connection whose method's
// caller is skip frames up (1: CallerPos's caller): the first frame from there that is
// neither the standard library's nor the engine's — the program's line that called
// io.ReadFull or bufio's Scan, not the read inside them — or the caller's when there is none.
func CallerPos(skip int) Pos {
	var pcs [32]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(skip+1, pcs[:])])
	first := Pos("")
	for {
		f, more := frames.Next()
		if f.File != "" {
			p := f.File + ":" + strconv.Itoa(f.Line)
			if first == "" {
				first = p
			}
			if !standardLibrary(f.Function) && !hiddenFrame(f.Function) && !strings.HasPrefix(f.Function, vnetPkg) {
				return p
			}
		}
		if !more {
			break
		}
	}
	if first == "" {
		return "?"
	}
	return first
}

// vnetPkg prefixes the functions of package engine/vnet.
const vnetPkg = "github.com/interleave-dev/interleave/engine/vnet."

// readyFunc is a blocker from a function.
type readyFunc func() bool

func (f readyFunc) ready(*goroutine) bool { return f() }

// read is a read of st into b by g: it waits until st has bytes, its writer closed, or stop
// returns an error, which wins over the bytes.
func (p *vpair) read(g *goroutine, st *vstream, b []byte, obj uintptr, pos Pos, stop func() error) (int, error) {
	e := p.e
	e.pointWait(g, OpNetRead, obj, pos, readyFunc(func() bool { return len(st.buf) > 0 || st.wclosed || stop() != nil }), &p.q)
	e.raceSync(g, &st.vc)
	if err := stop(); err != nil {
		return 0, err
	}
	if len(st.buf) > 0 {
		n := copy(b, st.buf)
		st.buf = st.buf[n:]
		st.taken += n
		if len(st.buf) == 0 && !st.writing {
			st.buf = nil
		}
		e.notify(&p.q)
		return n, nil
	}
	return 0, st.werr
}

// write is a write of b into st by g: synchronous (limit 0) or into the buffer. stop returns
// the error that ends it (the end closed, a deadline, the reader gone).
func (p *vpair) write(g *goroutine, st *vstream, b []byte, obj uintptr, pos Pos, stop func() error) (int, error) {
	e := p.e
	if p.limit == 0 {
		e.pointWait(g, OpNetWrite, obj, pos, readyFunc(func() bool { return !st.writing || stop() != nil }), &p.q)
		e.raceSync(g, &st.vc)
		if err := stop(); err != nil {
			return 0, err
		}
		if len(b) == 0 {
			return 0, nil
		}
		st.writing, st.taken, st.buf = true, 0, b
		e.notify(&p.q)
		e.pointWait(g, OpNetWrite, obj, pos, readyFunc(func() bool { return len(st.buf) == 0 || stop() != nil }), &p.q)
		e.raceSync(g, &st.vc)
		n := st.taken
		st.writing, st.taken, st.buf = false, 0, nil
		e.notify(&p.q)
		if n == len(b) {
			return n, nil
		}
		return n, stop()
	}
	n := 0
	for {
		e.pointWait(g, OpNetWrite, obj, pos, readyFunc(func() bool { return len(st.buf) < p.limit || stop() != nil }), &p.q)
		e.raceSync(g, &st.vc)
		if err := stop(); err != nil {
			return n, err
		}
		k := min(p.limit-len(st.buf), len(b)-n)
		st.buf = append(st.buf, b[n:n+k]...)
		n += k
		e.notify(&p.q)
		if n == len(b) {
			return n, nil
		}
	}
}

// closeWrite ends st's writes: readers get err once its bytes are read. A synchronous
// write in progress loses the rest of its bytes (stop reports its error).
func (p *vpair) closeWrite(st *vstream, err error) {
	if !st.wclosed {
		st.wclosed, st.werr = true, err
	}
	if p.limit == 0 {
		st.buf = nil
	}
}

// vdeadline is a deadline of one end on the virtual clock.
type vdeadline struct {
	set bool
	at  int64 // virtual nanoseconds, as clock.now
	vt  *vtimer
}

func (d *vdeadline) expired(e *Exec) bool { return d.set && e.clock.now >= d.at }

// setDeadline sets d to t (zero: none); the timer notifies p's waiters when it passes.
func (p *vpair) setDeadline(d *vdeadline, t time.Time, pos Pos) {
	e := p.e
	if d.vt != nil {
		e.clock.stop(d.vt)
	}
	if t.IsZero() {
		d.set = false
		e.notify(&p.q)
		return
	}
	d.set, d.at = true, int64(t.Sub(e.clock.origin))
	if d.vt == nil {
		d.vt = &vtimer{index: -1, fire: fireDeadlineNet, data: p}
	}
	if d.at > e.clock.now {
		e.clock.start(d.vt, time.Duration(d.at-e.clock.now))
	}
	e.notify(&p.q)
}

func fireDeadlineNet(e *Exec, vt *vtimer) { e.notify(&vt.data.(*vpair).q) }

func (p *vpair) stopDeadlines(ds ...*vdeadline) {
	for _, d := range ds {
		if d.vt != nil {
			p.e.clock.stop(d.vt)
		}
	}
}

// live returns the goroutine calling an operation on p when it may wait under the engine:
// p's execution is running and the caller is its controlled goroutine.
func (p *vpair) live(pos Pos) *goroutine {
	e, g := current(pos)
	if e != p.e {
		return nil
	}
	return g
}

// ---- connections for package vnet

// VConn is one end of a virtual connection made by NewVConns or VDial: package vnet's
// net.Pipe and TCP connections. Its errors are io.EOF, io.ErrClosedPipe (a pipe's closed end
// and closed peer), os.ErrDeadlineExceeded and the ErrV errors above.
type VConn struct {
	p      *vpair
	i      int // writes p.s[i], reads p.s[1-i]
	peer   *VConn
	closed bool
	tcp    bool // buffered, with TCP's errors; else net.Pipe's
	num    int  // the number of a dialed connection in its execution, from 1
	rdl    vdeadline
	wdl    vdeadline
	// Ext is the caller's: package vnet's net.Conn around this end.
	Ext any
}

// NewVConns returns the two ends of a new virtual connection, a synchronous pipe or (tcp) a
// buffered TCP connection; nil when the caller is not a goroutine the engine runs (then the
// connection must be real). Making it is a scheduling point.
func NewVConns(tcp bool, pos Pos) (a, b *VConn) {
	e, g := current(pos)
	if g == nil {
		return nil, nil
	}
	limit := 0
	if tcp {
		limit = vnetBuffer
	}
	p := newVpair(e, limit)
	e.point(g, OpNetDial, uintptr(unsafe.Pointer(p)), pos)
	return newVConns(p, tcp)
}

func newVConns(p *vpair, tcp bool) (*VConn, *VConn) {
	a := &VConn{p: p, i: 0, tcp: tcp}
	b := &VConn{p: p, i: 1, tcp: tcp}
	a.peer, b.peer = b, a
	return a, b
}

func (c *VConn) obj() uintptr { return uintptr(unsafe.Pointer(c.p)) }

func (c *VConn) closedErr() error {
	if c.tcp {
		return ErrVClosed
	}
	return io.ErrClosedPipe
}

// Read reads into b what the peer wrote, waiting under the engine.
func (c *VConn) Read(b []byte, pos Pos) (int, error) {
	g := c.p.live(pos)
	if g == nil {
		return 0, ErrVForeign
	}
	return c.p.read(g, c.p.s[1-c.i], b, c.obj(), pos, func() error {
		switch {
		case c.closed:
			return c.closedErr()
		case c.rdl.expired(c.p.e):
			return os.ErrDeadlineExceeded
		}
		return nil
	})
}

// Write writes b to the peer, waiting under the engine while it cannot take it.
func (c *VConn) Write(b []byte, pos Pos) (int, error) {
	g := c.p.live(pos)
	if g == nil {
		return 0, ErrVForeign
	}
	out := c.p.s[c.i]
	return c.p.write(g, out, b, c.obj(), pos, func() error {
		switch {
		case c.closed:
			return c.closedErr()
		case out.wclosed:
			return ErrVShutdown
		case c.wdl.expired(c.p.e):
			return os.ErrDeadlineExceeded
		case c.peer.closed:
			if c.tcp {
				return ErrVReset
			}
			return io.ErrClosedPipe
		}
		return nil
	})
}

// Close closes c: the peer reads io.EOF once it has read what was sent, and its writes fail.
// Closing a closed end returns ErrVClosed.
func (c *VConn) Close(pos Pos) error {
	g := c.p.live(pos)
	if g == nil {
		return ErrVForeign
	}
	c.p.e.point(g, OpNetClose, c.obj(), pos)
	c.p.e.raceSync(g, &c.p.s[c.i].vc)
	if c.closed {
		return ErrVClosed
	}
	c.close()
	return nil
}

func (c *VConn) close() {
	c.closed = true
	c.p.closeWrite(c.p.s[c.i], io.EOF)
	c.p.s[1-c.i].buf = nil // unread bytes are dropped
	c.p.stopDeadlines(&c.rdl, &c.wdl)
	c.p.e.notify(&c.p.q)
}

// CloseWrite half-closes c: the peer reads io.EOF once it has read what was sent; writes on c
// fail with ErrVShutdown.
func (c *VConn) CloseWrite(pos Pos) error {
	g := c.p.live(pos)
	if g == nil {
		return ErrVForeign
	}
	c.p.e.point(g, OpNetClose, c.obj(), pos)
	c.p.e.raceSync(g, &c.p.s[c.i].vc)
	if c.closed {
		return ErrVClosed
	}
	c.p.closeWrite(c.p.s[c.i], io.EOF)
	c.p.e.notify(&c.p.q)
	return nil
}

// SetDeadline sets c's read and/or write deadline to t on the virtual clock (zero: none).
func (c *VConn) SetDeadline(t time.Time, read, write bool, pos Pos) error {
	g := c.p.live(pos)
	if g == nil {
		return ErrVForeign
	}
	c.p.e.point(g, OpNetDeadline, c.obj(), pos)
	if c.closed {
		return c.closedErr()
	}
	if read {
		c.p.setDeadline(&c.rdl, t, pos)
	}
	if write {
		c.p.setDeadline(&c.wdl, t, pos)
	}
	return nil
}

// VListener is the engine side of a virtual TCP listener: its port in the execution's
// virtual network and the connections dialed and not accepted yet.
type VListener struct {
	e       *Exec
	q       waitq
	port    int
	backlog []*VConn
	closed  bool
	vc      vclock // orders a dial before the Accept that returns its connection
	// Ext is the caller's: package vnet's net.Listener.
	Ext any
}

// vnetFirstPort is the first port the virtual network gives a listener on port 0.
const vnetFirstPort = 40000

// vnet is an execution's virtual network: every listener it made, by port, closed ones too.
type vnet struct {
	ports    map[int]*VListener
	paths    map[string]*VListener // Unix sockets' listeners, by path
	nextPort int
	dialed   int // connections dialed
}

func vnetOf(e *Exec) *vnet {
	return lookup(e, 0, shadowNet, func() *vnet { return &vnet{ports: map[int]*VListener{}, nextPort: vnetFirstPort} })
}

// VListen makes a virtual listener on port (0: one the network gives out, the same in every
// execution) and returns it with its port; nil when the caller is not a goroutine the engine
// runs. A port with a listener open already gives ErrVInUse.
func VListen(port int, pos Pos) (*VListener, error) {
	e, g := current(pos)
	if g == nil {
		return nil, nil
	}
	n := vnetOf(e)
	l := &VListener{e: e}
	e.point(g, OpNetDial, uintptr(unsafe.Pointer(l)), pos)
	if port == 0 {
		for n.ports[n.nextPort] != nil {
			n.nextPort++
		}
		port = n.nextPort
		n.nextPort++
	} else if old := n.ports[port]; old != nil && !old.closed {
		return nil, ErrVInUse
	}
	l.port = port
	n.ports[port] = l
	return l, nil
}

// VListenUnix is VListen for a Unix socket at path: the paths of the virtual network are
// apart from its ports. A path with a listener open already gives ErrVInUse; a closed
// listener's path may be listened on again (package net removes the socket's file on Close).
func VListenUnix(path string, pos Pos) (*VListener, error) {
	e, g := current(pos)
	if g == nil {
		return nil, nil
	}
	n := vnetOf(e)
	if n.paths == nil {
		n.paths = map[string]*VListener{}
	}
	l := &VListener{e: e}
	e.point(g, OpNetDial, uintptr(unsafe.Pointer(l)), pos)
	if old := n.paths[path]; old != nil && !old.closed {
		return nil, ErrVInUse
	}
	n.paths[path] = l
	return l, nil
}

// VDialUnix is VDial for a Unix socket at path: virtual when a listener of the execution
// has or had the path; ErrVRefused when it closed.
func VDialUnix(path string, pos Pos) (client *VConn, l *VListener, virtual bool, err error) {
	e, g := current(pos)
	if g == nil {
		return nil, nil, false, nil
	}
	l = vnetOf(e).paths[path]
	if l == nil {
		return nil, nil, false, nil
	}
	client, err = dialTo(e, g, l, pos)
	return client, l, true, err
}

// Port is l's port.
func (l *VListener) Port() int { return l.port }

// Accept waits for a connection dialed to l, or l's close (ErrVClosed).
func (l *VListener) Accept(pos Pos) (*VConn, error) {
	e, g := current(pos)
	if e != l.e || g == nil {
		return nil, ErrVForeign
	}
	e.pointWait(g, OpNetAccept, uintptr(unsafe.Pointer(l)), pos, readyFunc(func() bool { return l.closed || len(l.backlog) > 0 }), &l.q)
	e.raceSync(g, &l.vc)
	if l.closed {
		return nil, ErrVClosed
	}
	c := l.backlog[0]
	l.backlog = l.backlog[1:]
	return c, nil
}

// Close closes l: connections dialed and not accepted are closed; a second close returns
// ErrVClosed.
func (l *VListener) Close(pos Pos) error {
	e, g := current(pos)
	if e != l.e || g == nil {
		return ErrVForeign
	}
	e.point(g, OpNetClose, uintptr(unsafe.Pointer(l)), pos)
	e.raceSync(g, &l.vc)
	if l.closed {
		return ErrVClosed
	}
	l.closed = true
	for _, c := range l.backlog {
		c.close()
	}
	l.backlog = nil
	e.notify(&l.q)
	return nil
}

// VDial dials port on the virtual network. virtual is false when the dial must be real: the
// caller is not a goroutine the engine runs, or no listener of the execution ever had the
// port. Otherwise it returns the client's end of a new TCP connection, whose server end
// (client.Peer()) waits in the listener's backlog, or ErrVRefused when the listener closed.
func VDial(port int, pos Pos) (client *VConn, l *VListener, virtual bool, err error) {
	e, g := current(pos)
	if g == nil {
		return nil, nil, false, nil
	}
	n := vnetOf(e)
	l = n.ports[port]
	if l == nil {
		return nil, nil, false, nil
	}
	client, err = dialTo(e, g, l, pos)
	return client, l, true, err
}

// dialTo is g's dial of the virtual listener l: the client's end of a new connection, whose
// server end waits in l's backlog, or ErrVRefused when l closed.
func dialTo(e *Exec, g *goroutine, l *VListener, pos Pos) (*VConn, error) {
	n := vnetOf(e)
	e.point(g, OpNetDial, uintptr(unsafe.Pointer(l)), pos)
	if l.closed {
		return nil, ErrVRefused
	}
	client, server := newVConns(newVpair(e, vnetBuffer), true)
	n.dialed++
	client.num, server.num = n.dialed, n.dialed
	e.raceSync(g, &l.vc)
	l.backlog = append(l.backlog, server)
	e.notify(&l.q)
	return client, nil
}

// Peer is the other end of c's connection.
func (c *VConn) Peer() *VConn { return c.peer }

// Number is the number of c's connection among those dialed in its execution, from 1 (0 for
// a pipe).
func (c *VConn) Number() int { return c.num }
