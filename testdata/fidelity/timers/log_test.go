package timers

import (
	"testing"
	"time"
)

func check(t *testing.T, batches [][]string) {
	t.Helper()
	for _, b := range batches {
		if len(b)%2 != 0 {
			t.Fatalf("a batch of %d entries holds a torn record", len(b))
		}
	}
}

func TestTornRecord(t *testing.T) {
	check(t, Run(300, time.Microsecond, (*Log).WriteTorn))
}

func TestWholeRecords(t *testing.T) {
	check(t, Run(300, time.Microsecond, (*Log).Write))
}
