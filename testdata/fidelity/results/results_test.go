package results

import "testing"

func TestBareReturnWhileWorkerWrites(t *testing.T) {
	ready := make(chan struct{}, 1)
	Start(ready)
	<-ready
}

func TestBareReturnAfterWorker(t *testing.T) {
	if !StartWait(make(chan struct{}, 1)) {
		t.Fatal("not started")
	}
}

// The lookup is canceled as it starts: the worker's write and the return's may both happen.
func TestReturnWritesWhileWorkerWrites(t *testing.T) {
	cancel := make(chan struct{})
	close(cancel)
	Lookup(cancel)
}

func TestReturnWithOwnValue(t *testing.T) {
	cancel := make(chan struct{})
	close(cancel)
	if v, err := LookupOwn(cancel); err == nil && v != "value" {
		t.Fatalf("value %q", v)
	}
}
