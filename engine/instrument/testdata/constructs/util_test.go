package constructs

import (
	"fmt"
	"path/filepath"
	"runtime"
)

// say prints one line of the transcript.
func say(format string, args ...any) { fmt.Printf("> "+format+"\n", args...) }

// try runs f and says how it ended: normally, or by a panic with its value and the line of
// this package's code where it happened.
func try(name string, f func()) {
	defer func() {
		v := recover()
		if v == nil {
			say("%s: returned", name)
			return
		}
		_, rt := v.(runtime.Error)
		say("%s: panic %q (runtime error %v) at %s", name, fmt.Sprint(v), rt, panicSite())
	}()
	f()
}

// panicSite is the first frame of this package's files below runtime.gopanic on the stack of
// the deferred call that recovers.
func panicSite() string {
	_, self, _, _ := runtime.Caller(0)
	dir := filepath.Dir(self)
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	panicking := false
	for {
		f, more := frames.Next()
		if f.Function == "runtime.gopanic" {
			panicking = true
		} else if panicking && filepath.Dir(f.File) == dir {
			return fmt.Sprintf("%s:%d", filepath.Base(f.File), f.Line)
		}
		if !more {
			return "?"
		}
	}
}
