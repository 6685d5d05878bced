// Package initclock is a pool that measures its uptime from the package's initialization, as
// a published worker pool does: var started = time.Now() at package init, time.Since(started)
// in the tests. Times taken at init, in TestMain and in the tests are one timeline.
package initclock

import "time"

var started = time.Now()

// Uptime is how long ago the package was initialized.
func Uptime() time.Duration { return time.Since(started) }

// WarmUp is how long after the package started the pool begins counting its tasks.
const WarmUp = 100 * time.Microsecond

// Pool counts the tasks it ran once warm.
type Pool struct{ Done int }

// Do runs task and counts it once warm. The count is not locked (the bug): tasks done at once
// may be counted once.
func (p *Pool) Do(task func()) {
	task()
	if Uptime() >= WarmUp {
		p.Done++
	}
}
