// Package bluetooth_driver_bad is SCTBench benchmark 5,
// CS.bluetooth_driver_bad.
//
// The original models a Windows Bluetooth driver: an add routine increments
// a pending-I/O count unless the device is stopping, does work that asserts
// the device has not been stopped, and decrements the count; a stop routine
// sets the stopping flag, drops its own reference and, if the count reached
// zero, marks the device stopped. The flag test and the increment are not
// atomic together, so the stop routine can run completely between them and
// the add routine then works on a stopped device: the assertion fails. Two
// threads: main runs the add routine, a second thread the stop routine.
//
// The original's atomic sections (a global mutex in SCTBench) are a
// sync.Mutex here; the flags are plain fields accessed without it.
package bluetooth_driver_bad

import (
	"errors"
	"sync"
)

type device struct {
	atomic        sync.Mutex // the original's __ESBMC_atomic_begin/end
	pendingIo     int
	stoppingFlag  bool
	stoppingEvent bool
	stopped       bool
}

func (e *device) ioIncrement() int {
	if e.stoppingFlag {
		return -1
	}
	e.atomic.Lock()
	e.pendingIo = e.pendingIo + 1
	e.atomic.Unlock()
	return 0
}

func (e *device) ioDecrement() {
	e.atomic.Lock()
	e.pendingIo = e.pendingIo - 1
	pending := e.pendingIo
	e.atomic.Unlock()
	if pending == 0 {
		e.stoppingEvent = true
	}
}

func (e *device) pnpAdd() error {
	var err error
	if e.ioIncrement() == 0 {
		// Do work here.
		if e.stopped {
			err = errors.New("add routine works on a stopped device")
		}
	}
	e.ioDecrement()
	return err
}

func (e *device) pnpStop() {
	e.stoppingFlag = true
	e.ioDecrement()
	if e.stoppingEvent {
		// Release allocated resources.
		e.stopped = true
	}
}

// Run starts the stop routine, runs the add routine and joins the stop
// routine; it returns the add routine's assertion failure.
func Run() error {
	e := &device{pendingIo: 1}
	done := make(chan struct{})
	go func() { defer close(done); e.pnpStop() }()
	err := e.pnpAdd()
	<-done
	return err
}
