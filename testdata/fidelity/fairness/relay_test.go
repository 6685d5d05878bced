package fairness

import "testing"

// The worker may not have sent its result when the pinger stops: it blocks forever.
func TestRelayLeak(t *testing.T) {
	Session(0)
}

// The fix: the result channel has room for the result.
func TestRelayBuffered(t *testing.T) {
	Session(1)
}
