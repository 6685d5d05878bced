// Package instrument is the build-time half of running a Go test under the engine: it loads
// the user's packages with full type information (golang.org/x/tools/go/packages), rewrites
// every construct the engine must control into a call into it carrying its source position,
// and builds the test binary with go test -c -overlay -modfile against a copy of the
// engine's runtime packages (engine.Source), so that no file of the user's module changes and
// no network is needed.
//
// The rewriter works on the source text of one file at a time (fileRewriter, rewrite.go) and
// keeps every line's number. It is split by construct family, as the Go compiler's walk is:
// goroutine.go (go statements), chan.go (channel operations and select), range.go (range
// over channels and maps), specials.go, calls.go and methodvalue.go (the sync, sync/atomic,
// time, context, runtime, math/rand and hash/maphash functions and methods the engine
// replaces, called or used as values), builtin.go, memory.go and shared.go (reads and writes
// of shared memory and which memory is shared), assign.go, stmt.go, tests.go (test functions),
// handle.go (the methods of the test's *testing.T, through the harness), typenames.go, output.go (the rewritten file and its line directives),
// langversion.go (the language version of copies of older modules) and problems.go (what is
// left as it was, reported). build.go loads, rewrites and builds; identity.go names a build
// by its sources; cache.go keeps the runtime copy private and verified; flags.go says which
// build flags may come from data; buildfail.go explains a failed build of rewritten code.
package instrument
