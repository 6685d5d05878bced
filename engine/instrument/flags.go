package instrument

import (
	"fmt"
	"sort"
	"strings"
)

// Build flags that may come from data — a debug adapter's launch request, a schedule file
// that records the flags its test binary was built with — rather than from the user's own
// command line: they select what is built and how it is checked, and run nothing. Flags that
// make the go command run another program (-toolexec, -exec, -ldflags=-extld, -compiler),
// replace source or module files (-overlay, -modfile, -pkgdir), write elsewhere (-o, -C) or
// otherwise reach beyond the build of the package are not among them.
var safeBuildFlags = map[string]bool{
	"tags": true, "race": true, "msan": true, "asan": true, "cover": true, "covermode": true,
	"coverpkg": true, "mod": true, "modcacherw": true, "trimpath": true, "buildvcs": true,
	"a": true, "v": true, "x": true, "p": true, "work": true, "installsuffix": true,
}

// safeValueFlags are the safe flags that take a value, which may be the next argument.
var safeValueFlags = map[string]bool{"tags": true, "covermode": true, "coverpkg": true, "mod": true, "p": true, "installsuffix": true}

// semanticFlags are the safe flags that change what the test binary does, which a schedule
// records (Package.RecordedFlags): not -a, -v, -x, -p, -work, which only change how it is built.
var semanticFlags = map[string]bool{
	"tags": true, "race": true, "msan": true, "asan": true, "cover": true, "covermode": true,
	"coverpkg": true, "mod": true, "trimpath": true, "installsuffix": true,
}

// SafeBuildFlags lists the build flags that may come from data, as -name.
func SafeBuildFlags() []string {
	var out []string
	for k := range safeBuildFlags {
		out = append(out, "-"+k)
	}
	sort.Strings(out)
	return out
}

// UnsafeBuildFlag returns the first of flags that is not a safe build flag (see
// SafeBuildFlags), or "" when all are; a value given as the next argument belongs to its
// flag. An argument that is not a flag is returned too.
func UnsafeBuildFlag(flags []string) string {
	for i := 0; i < len(flags); i++ {
		f := flags[i]
		if !strings.HasPrefix(f, "-") {
			return f
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(f, "-"), "=")
		if !safeBuildFlags[name] {
			return f
		}
		if safeValueFlags[name] && !hasValue {
			i++
		}
	}
	return ""
}

// recordedFlags keeps of flags those a schedule records: the semantic ones (semanticFlags),
// each as one argument (-tags=a,b).
func recordedFlags(flags []string) []string {
	var out []string
	for i := 0; i < len(flags); i++ {
		f := flags[i]
		if !strings.HasPrefix(f, "-") {
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(f, "-"), "=")
		if safeValueFlags[name] && !hasValue && i+1 < len(flags) {
			f += "=" + flags[i+1]
			i++
		}
		if semanticFlags[name] {
			out = append(out, f)
		}
	}
	return out
}

// CheckRecordedFlags refuses build flags a schedule file records that are not safe (a file
// is data: one written by hand could name any flag), naming the file and the flag.
func CheckRecordedFlags(path string, flags []string) error {
	if bad := UnsafeBuildFlag(flags); bad != "" {
		return fmt.Errorf("the schedule %s records the build flag %s, which a schedule may not carry (only %s): not built", path, bad, strings.Join(SafeBuildFlags(), ", "))
	}
	return nil
}
