package stepbound

import "testing"

func TestCycleBesideHeartbeat(t *testing.T) {
	WithHeartbeat(TransferUnordered)
}

func TestOrderedBesideHeartbeat(t *testing.T) {
	WithHeartbeat(Transfer)
}
