package syncmap

import (
	"sync"
	"testing"
)

func openAndRead(open func(*sync.Map, string)) {
	var m sync.Map
	done := make(chan struct{})
	go func() {
		UserOf(&m, "ada")
		close(done)
	}()
	open(&m, "ada")
	<-done
}

func TestSessionWrittenAfterStore(t *testing.T) {
	openAndRead(OpenLate)
}

func TestSessionWrittenBeforeStore(t *testing.T) {
	openAndRead(Open)
}

func twice(format func(...string) int) {
	done := make(chan struct{})
	go func() {
		format("a", "b")
		close(done)
	}()
	format("c")
	<-done
}

func TestBufferUsedAfterPut(t *testing.T) {
	twice(FormatLate)
}

func TestBufferDoneBeforePut(t *testing.T) {
	twice(Format)
}
