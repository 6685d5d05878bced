//go:build !race

package engine_test

// raceBuild is whether the tests are built with Go's race detector (go test -race), whose
// instrumentation makes every frame larger and the runtime's stack guard twice as large.
const raceBuild = false
