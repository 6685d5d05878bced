// Package timeout implements a user-profile lookup with a timeout over a
// single, serialized database connection.
//
// Profile runs two queries (user, then orders) in a goroutine and waits
// for the result or for the timeout. Between the two queries the lookup
// hands a visit record to the store's background writer, which writes it
// on the same connection. Usually the lookup takes the connection again
// first and answers after two queries, well within the timeout. But if the
// writer takes the connection between the two queries, the lookup needs two
// queries plus the slow write, the caller times out and, because the
// result channel is unbuffered, the abandoned lookup goroutine then blocks
// forever in its send. The outcome depends only on which goroutine gets
// the connection first, not on speed: the durations are fixed.
package timeout

import (
	"errors"
	"sync"
	"time"
)

// Durations of the simulated database operations.
const (
	queryTime = 10 * time.Millisecond
	writeTime = 50 * time.Millisecond
)

// ErrTimeout is returned by Profile when the lookup takes too long.
var ErrTimeout = errors.New("profile lookup timed out")

// Profile is what Store.Profile returns.
type Profile struct {
	User   string
	Orders int
}

// Store is a database reached over one connection, used by one operation
// at a time. Visits are recorded in the background.
type Store struct {
	conn   sync.Mutex // held for the duration of each operation
	visits chan string
	stop   chan struct{} // closed by Close
	done   chan struct{} // closed when the background writer exits
	seen   map[string]int
}

// NewStore returns a store and starts its background writer.
// Call Close to stop it.
func NewStore() *Store {
	s := &Store{
		visits: make(chan string, 16),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
		seen:   make(map[string]int),
	}
	go s.recordVisits()
	return s
}

// exec runs one operation of duration d on the connection.
func (s *Store) exec(d time.Duration, op func()) {
	s.conn.Lock()
	defer s.conn.Unlock()
	time.Sleep(d)
	op()
}

// recordVisits is the background writer.
func (s *Store) recordVisits() {
	defer close(s.done)
	for {
		select {
		case user := <-s.visits:
			s.exec(writeTime, func() { s.seen[user]++ })
		case <-s.stop:
			return
		}
	}
}

// Profile looks up a user's profile, giving up after timeout.
func (s *Store) Profile(user string, timeout time.Duration) (Profile, error) {
	result := make(chan Profile) // BUG: unbuffered, so a late result is never received.
	go func() {
		var p Profile
		s.exec(queryTime, func() { p.User = user })
		s.visits <- user
		// BUG: the background writer may take the connection first.
		s.exec(queryTime, func() { p.Orders = 3 })
		result <- p
	}()

	select {
	case p := <-result:
		return p, nil
	case <-time.After(timeout):
		return Profile{}, ErrTimeout
	}
}

// Close stops the background writer, waiting for the write in progress.
// Visits not yet written are dropped.
func (s *Store) Close() {
	close(s.stop)
	<-s.done
}
