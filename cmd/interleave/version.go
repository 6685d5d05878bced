package main

import "github.com/interleave-dev/interleave/cmd/interleave/internal/version"

func init() {
	commands = append(commands, command{"version", "", "print the version and commit this binary was built from", version.Run})
}
