package engine

import "embed"

// Source is the source of the packages compiled into instrumented test binaries — this
// package and its runtime subpackages, without tests, test data or the instrumenter — as
// paths relative to this directory. The interleave command writes it to its cache (see
// package instrument) and builds the user's tests against that copy, so that it needs no
// network and no checkout. TestSourceHoldsTheRuntime checks that every package a test binary
// imports is here.
//
//go:embed *.go *.s bounded internal/splitmix strategy schedule srcmap findings random minimize store report control explore harness stress vnet
var Source embed.FS
