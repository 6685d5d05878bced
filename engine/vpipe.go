package engine

import (
	"io"
	"unsafe"
)

// io.Pipe under the engine: the two ends of an in-memory pipe on a vpair (vnet.go), whose
// reads, writes and closes are scheduling points with io.Pipe's results.

// ---- io.Pipe

// PipeReader is the read half of a pipe made by IOPipe: an *io.PipeReader's methods.
type PipeReader struct {
	real *io.PipeReader
	p    *vpipe
}

// PipeWriter is the write half of a pipe made by IOPipe: an *io.PipeWriter's methods.
type PipeWriter struct {
	real *io.PipeWriter
	p    *vpipe
}

// vpipe is an io.Pipe under control: one synchronous stream, with io.Pipe's close errors.
type vpipe struct {
	*vpair
	done       bool // either side closed
	rerr, werr error
}

func (v *vpipe) readCloseError() error {
	if v.rerr == nil && v.werr != nil {
		return v.werr
	}
	return io.ErrClosedPipe
}

func (v *vpipe) writeCloseError() error {
	if v.werr == nil && v.rerr != nil {
		return v.rerr
	}
	return io.ErrClosedPipe
}

// IOPipe is io.Pipe(): under control, a pipe the engine runs.
func IOPipe(pos Pos) (*PipeReader, *PipeWriter) {
	e, g := current(pos)
	if g == nil {
		r, w := io.Pipe()
		return &PipeReader{real: r}, &PipeWriter{real: w}
	}
	v := &vpipe{vpair: newVpair(e, 0)}
	e.point(g, OpNetDial, uintptr(unsafe.Pointer(v)), pos)
	return &PipeReader{p: v}, &PipeWriter{p: v}
}

// Read is (*io.PipeReader).Read.
func (r *PipeReader) Read(b []byte) (int, error) {
	if r.real != nil {
		return r.real.Read(b)
	}
	v, pos := r.p, CallerPos(2)
	g := v.live(pos)
	if g == nil {
		return 0, ErrVForeign
	}
	return v.read(g, v.s[0], b, uintptr(unsafe.Pointer(v)), pos, func() error {
		if v.done {
			return v.readCloseError()
		}
		return nil
	})
}

// Close is (*io.PipeReader).Close.
func (r *PipeReader) Close() error { return r.closeWithError(nil, CallerPos(2)) }

// CloseWithError is (*io.PipeReader).CloseWithError.
func (r *PipeReader) CloseWithError(err error) error { return r.closeWithError(err, CallerPos(2)) }

func (r *PipeReader) closeWithError(err error, pos Pos) error {
	if r.real != nil {
		return r.real.CloseWithError(err)
	}
	return r.p.closeEnd(pos, err, io.ErrClosedPipe, &r.p.rerr)
}

// closeEnd closes one end of the pipe at pos: the error the other end then sees is err, or
// def when err is nil, kept in *slot unless one was set before (as io.Pipe does).
func (v *vpipe) closeEnd(pos Pos, err, def error, slot *error) error {
	g := v.live(pos)
	if g == nil {
		return ErrVForeign
	}
	v.e.point(g, OpNetClose, uintptr(unsafe.Pointer(v)), pos)
	v.e.raceSync(g, &v.s[0].vc)
	if err == nil {
		err = def
	}
	if *slot == nil {
		*slot = err
	}
	v.close()
	return nil
}

func (v *vpipe) close() {
	v.done = true
	v.closeWrite(v.s[0], io.EOF)
	v.e.notify(&v.q)
}

// Write is (*io.PipeWriter).Write.
func (w *PipeWriter) Write(b []byte) (int, error) {
	if w.real != nil {
		return w.real.Write(b)
	}
	v, pos := w.p, CallerPos(2)
	g := v.live(pos)
	if g == nil {
		return 0, ErrVForeign
	}
	return v.write(g, v.s[0], b, uintptr(unsafe.Pointer(v)), pos, func() error {
		if v.done {
			return v.writeCloseError()
		}
		return nil
	})
}

// Close is (*io.PipeWriter).Close.
func (w *PipeWriter) Close() error { return w.closeWithError(nil, CallerPos(2)) }

// CloseWithError is (*io.PipeWriter).CloseWithError.
func (w *PipeWriter) CloseWithError(err error) error { return w.closeWithError(err, CallerPos(2)) }

func (w *PipeWriter) closeWithError(err error, pos Pos) error {
	if w.real != nil {
		return w.real.CloseWithError(err)
	}
	return w.p.closeEnd(pos, err, io.EOF, &w.p.werr)
}
