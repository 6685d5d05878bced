package randdata

import "testing"

func TestRandomLockOrder(t *testing.T) {
	s := &Shards{}
	Concurrently(s.MoveRandom, s.Move)
}

func TestFixedLockOrder(t *testing.T) {
	s := &Shards{}
	Concurrently(s.Move, s.Move)
}
