package queue_bad

import "testing"

func TestQueueBad(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
