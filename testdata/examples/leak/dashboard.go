// Package leak loads the parts of a dashboard concurrently and leaks a
// goroutine when one part fails.
//
// Load starts one goroutine per part; each sends its result on an
// unbuffered channel. Load returns as soon as it receives an error,
// without receiving the other results. If the failing part reports before
// a part that succeeds, the goroutine of the successful part blocks
// forever in its send: a goroutine leak. If the failing part reports last,
// every send is received and nothing leaks. Load's result is correct
// either way, so only a leak check catches the bug. The fix is a channel
// buffered for every part (or a context that the senders select on).
package leak

// A Part loads one section of the dashboard.
type Part func() (string, error)

// result is what a Part's goroutine reports.
type result struct {
	index   int
	section string
	err     error
}

// Load runs the parts concurrently and returns their sections in order,
// or the first error reported.
func Load(parts []Part) ([]string, error) {
	results := make(chan result) // BUG: unbuffered; see the early return below.
	for i, part := range parts {
		go func() {
			section, err := part()
			results <- result{index: i, section: section, err: err}
		}()
	}

	sections := make([]string, len(parts))
	for range parts {
		r := <-results
		if r.err != nil {
			// The parts not yet received stay blocked in their send forever.
			return nil, r.err
		}
		sections[r.index] = r.section
	}
	return sections, nil
}
