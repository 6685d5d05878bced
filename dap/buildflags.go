package dap

import (
	"fmt"
	"strings"

	"github.com/interleave-dev/interleave/engine/instrument"
)

// Build flags a launch configuration may carry. A launch request is data from the client;
// flags that make the go command run another program (-toolexec, -exec, -ldflags=-extld,
// -compiler), replace source or module files (-overlay, -modfile, -pkgdir), write elsewhere
// (-o, -C) or otherwise reach beyond the build of the package are refused unless the user
// allowed them where no client can: the adapter's own command line (interleave dap
// -allow-build-flags). The flags that are safe are instrument.SafeBuildFlags.

// checkBuildFlags refuses the flags of a launch configuration that are not known to be
// safe, naming the first and the setting that allows it.
func checkBuildFlags(flags []string, allowed bool) error {
	if allowed {
		return nil
	}
	switch f := instrument.UnsafeBuildFlag(flags); {
	case f == "":
		return nil
	case !strings.HasPrefix(f, "-"):
		return fmt.Errorf("launch: buildFlags: %q is not a flag (the package is the launch configuration's program)", f)
	default:
		return fmt.Errorf("launch: buildFlags: %s is refused: a build flag from a launch configuration may only select and check what is built (%s); flags that run programs or replace files are allowed only by starting the adapter with interleave dap -allow-build-flags", f, strings.Join(instrument.SafeBuildFlags(), ", "))
	}
}
