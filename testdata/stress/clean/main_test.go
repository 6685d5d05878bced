package clean

import (
	"os"
	"testing"
)

// setUp is set by TestMain before the tests run, as a package's shared fixture would be:
// stress runs the tests inside m.Run, so they see it.
var setUp bool

func TestMain(m *testing.M) {
	setUp = true
	os.Exit(m.Run())
}
