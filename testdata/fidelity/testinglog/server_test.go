package testinglog

import "testing"

func TestLogsAfterReturn(t *testing.T) {
	s := Start(t.Logf)
	s.CloseNoWait()
}

func TestWaitsForServer(t *testing.T) {
	s := Start(t.Logf)
	s.Close()
}
