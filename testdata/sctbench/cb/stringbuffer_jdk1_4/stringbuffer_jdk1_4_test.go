package stringbuffer_jdk1_4

import "testing"

func TestStringbufferJdk14(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
