// Package random is the Randomizer of the stochastic stress framework of Gunal and Patil
// ("Testing Concurrency Runtime via a Stochastic Stress Framework", PNSQC 2010; seed 002):
// the element that varies a stress test's execution path from one iteration to the next by
// drawing the test's parameters — inputs to the software under test, or the test's own
// control decisions such as which action to take next — from random distributions that
// model the scenario of the test (§3.1).
//
// As in §4.1 there are four distributions: uniform over [Min, Max], Gaussian with a mean and
// a standard deviation, exponential decreasing from Min to Max, and weighted, which picks
// one of several intervals by its probability and is uniform within it. A Spec describes one
// untyped; a Dist[T] is one that yields values of a numeric type T (integers, floats,
// time.Duration). Samples come from the caller's *rand.Rand (math/rand/v2), so a test that
// seeds its source replays the same values.
//
// §4.1 also has every test define the type and parameters of its distributions in a
// configuration file that "best models the expected customer usage": here that is the file
// interleave-stress.json (ConfigFile) in the test's package directory, read by LoadConfig. It
// also holds the hang limit of each test (§3.3 i) and whether a test may be combined with
// others (§3.4).
//
// The package uses the standard library only: it is compiled into the test binaries.
package random
