// Package splitmix is SplitMix64's finalizer, the 64-bit mix the engine and its strategies use
// to hash: the engine's execution fingerprints, a partition's choice of the subtrees a part
// owns, the seeds of data choices. Like every package compiled into test binaries, it uses the
// standard library only (none at all).
package splitmix

// Mix returns x mixed so that every bit of the input affects every bit of the output.
func Mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
