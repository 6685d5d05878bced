// Package aget_bug2 is SCTBench benchmark 0, CB.aget-bug2.
//
// Aget is a multithreaded download accelerator: it splits a download into
// one byte range per worker thread, and each worker receives its range in
// chunks, writes each chunk to the local file, advances its own offset and
// then, under a mutex, adds the chunk's size to the global count of bytes
// written. On Ctrl-C a helper thread saves a resume log: it copies every
// worker's progress and then the global count, and (in the benchmark) asserts
// that the per-worker progress sums to the count. Neither copy takes the
// mutex and a worker's offset and the count are not updated atomically
// together, so a worker that advances between the two copies (or between its
// own two updates) makes them disagree: the assertion fails. The SCTBench
// version fakes the network with local files and delivers the interrupt at
// once: the helper thread saves the log as soon as it starts. Four threads:
// main, the signal helper and two workers (35147 bytes need two).
//
// Simplified: the network and the files are byte slices, the HTTP header
// handling of the first chunk is left out, and the helper does not exit the
// process after saving, so main joins it and the workers (which then run to
// completion).
package aget_bug2

import (
	"fmt"
	"sync"
)

const (
	contentLength = 35147
	maxBufSize    = 8192
	statOK        = 1
)

type threadData struct {
	soffset, foffset, offset int
	status                   int
}

type histData struct {
	wthread  []threadData
	bwritten int
}

type download struct {
	clength   int
	nthreads  int
	wthread   []threadData
	remote    []byte // what the server sends
	localFile []byte

	bwrittenMutex sync.Mutex
	bwritten      int
}

// numOfThreads is the number of workers Aget suggests for a download size.
func numOfThreads(size int) int {
	const bufsiz = 8192
	switch {
	case size == 0:
		return 0
	case size < bufsiz*4:
		return 1
	case size < bufsiz*8:
		return 2
	case size < bufsiz*16:
		return 3
	default:
		return 4
	}
}

func (d *download) httpGet(td *threadData) {
	if td.soffset < 0 || td.soffset >= td.foffset {
		td.status = statOK
		return
	}
	for td.offset < td.foffset {
		// Receive up to one buffer from the connection and write it at the
		// thread's offset.
		dr := min(maxBufSize, td.foffset-td.offset)
		dw := copy(d.localFile[td.offset:td.foffset], d.remote[td.offset:td.offset+dr])
		td.offset += dw

		d.bwrittenMutex.Lock()
		d.bwritten += dw
		d.bwrittenMutex.Unlock()
	}
	if td.offset == td.foffset {
		td.status = statOK
	}
}

// saveLog is the SIGINT handler's work: save the resume log and check it.
func (d *download) saveLog() error {
	if d.wthread == nil {
		return nil
	}
	if d.bwritten == d.clength {
		// The download has just completed.
		return nil
	}
	var h histData
	h.wthread = make([]threadData, d.nthreads)
	for i := range h.wthread {
		h.wthread[i] = d.wthread[i]
	}
	h.bwritten = d.bwritten

	total := 0
	for i := range h.wthread {
		total += h.wthread[i].offset - h.wthread[i].soffset
	}
	if total != h.bwritten {
		return fmt.Errorf("resume log: workers wrote %d bytes in total, log says %d", total, h.bwritten)
	}
	return nil
}

// Run downloads contentLength bytes with Aget's worker threads while the
// signal helper saves a resume log, and returns the helper's assertion
// failure.
func Run() error {
	d := &download{clength: contentLength}
	d.remote = make([]byte, d.clength)
	for i := range d.remote {
		d.remote[i] = byte('a' + i%26)
	}
	d.localFile = make([]byte, d.clength)
	d.nthreads = max(numOfThreads(d.clength), 1)
	d.wthread = make([]threadData, d.nthreads)
	for i := range d.wthread {
		td := &d.wthread[i]
		td.soffset = i * (d.clength / d.nthreads)
		td.foffset = (i + 1) * (d.clength / d.nthreads)
		if i == d.nthreads-1 {
			td.foffset = d.clength
		}
		td.offset = td.soffset
	}

	var err error
	helperDone := make(chan struct{})
	go func() { defer close(helperDone); err = d.saveLog() }()

	var workers sync.WaitGroup
	workers.Add(d.nthreads)
	for i := range d.wthread {
		go func(td *threadData) { defer workers.Done(); d.httpGet(td) }(&d.wthread[i])
	}
	workers.Wait()
	<-helperDone
	return err
}
