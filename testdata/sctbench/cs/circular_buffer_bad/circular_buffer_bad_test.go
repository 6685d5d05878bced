package circular_buffer_bad

import "testing"

func TestCircularBufferBad(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
