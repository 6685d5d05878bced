package interleave

import "embed"

// Source is the source of the packages compiled into instrumented test binaries: this
// package, the engine and its subpackages (go.mod and the .go files; the instrumenter skips
// tests, test data and generators). The interleave command writes it to its cache and builds
// the user's tests against that copy, so that it needs no network and no checkout.
//
//go:embed go.mod *.go engine
var Source embed.FS
