package dap

import (
	"fmt"
	"strings"
)

// Build flags a launch configuration may carry. A launch request is data from the client;
// flags that make the go command run another program (-toolexec, -exec, -ldflags=-extld,
// -compiler), replace source or module files (-overlay, -modfile, -pkgdir), write elsewhere
// (-o, -C) or otherwise reach beyond the build of the package are refused unless the user
// allowed them where no client can: the adapter's own command line (interleave dap
// -allow-build-flags).

// safeBuildFlags are the build flags a client may pass: they select what is built and how it
// is checked, and run nothing.
var safeBuildFlags = map[string]bool{
	"tags": true, "race": true, "msan": true, "asan": true, "cover": true, "covermode": true,
	"coverpkg": true, "mod": true, "modcacherw": true, "trimpath": true, "buildvcs": true,
	"a": true, "v": true, "x": true, "p": true, "work": true, "installsuffix": true,
}

// valueFlags are the safe flags that take a value, which may be the next argument.
var valueFlags = map[string]bool{"tags": true, "covermode": true, "coverpkg": true, "mod": true, "p": true, "installsuffix": true}

// checkBuildFlags refuses the flags of a launch configuration that are not known to be
// safe, naming the first and the setting that allows it.
func checkBuildFlags(flags []string, allowed bool) error {
	if allowed {
		return nil
	}
	for i := 0; i < len(flags); i++ {
		f := flags[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(f, "-"), "=")
		if !strings.HasPrefix(f, "-") {
			return fmt.Errorf("launch: buildFlags: %q is not a flag (the package is the launch configuration's program)", f)
		}
		if valueFlags[name] && !hasValue {
			i++ // its value: "-tags", "integration"
		}
		if !safeBuildFlags[name] {
			return fmt.Errorf("launch: buildFlags: %s is refused: a build flag from a launch configuration may only select and check what is built (%s); flags that run programs or replace files are allowed only by starting the adapter with interleave dap -allow-build-flags", f, strings.Join(sortedSafeFlags(), ", "))
		}
	}
	return nil
}

// sortedSafeFlags lists safeBuildFlags, as -name.
func sortedSafeFlags() []string {
	var out []string
	for _, k := range sortedKeys(safeBuildFlags) {
		out = append(out, "-"+k)
	}
	return out
}
