// Package realpkgs exists to require golang.org/x/sync at a fixed version, so that
// interleave test -instrument golang.org/x/sync can run that module's own tests
// (see instrument/realpkg_test.go).
package realpkgs

import (
	_ "golang.org/x/sync/errgroup"
	_ "golang.org/x/sync/semaphore"
	_ "golang.org/x/sync/singleflight"
)
