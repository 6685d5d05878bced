//go:build unix

package control

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
)

// dial connects to the debug adapter's control socket at addr: "unix:" and the path of a Unix
// domain socket, in a directory that only the adapter's user can enter (package dap's
// listenControl).
//
// It makes the socket with package syscall, not package net: net, and the cgo resolver that
// comes with it, would be compiled into every instrumented test binary for this one
// connection — about a second and a half of a build on a fresh cache, a third of what
// interleave test adds to go test's. The socket is made non-blocking before os.NewFile wraps
// it, so that its reads and writes go through the runtime's poller as a net.Conn's would, and
// closing it ends a read in progress.
func dial(addr string) (io.ReadWriteCloser, error) {
	path, ok := strings.CutPrefix(addr, "unix:")
	if !ok || path == "" {
		return nil, fmt.Errorf("control address %q: want unix:PATH, the adapter's socket", addr)
	}
	// Under ForkLock, as package net makes its sockets: a process started between the socket
	// and CloseOnExec would inherit it.
	syscall.ForkLock.RLock()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	for {
		err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: path})
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err == nil {
		err = syscall.SetNonblock(fd, true)
	}
	if err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "connect", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}
