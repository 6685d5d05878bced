package timeout

import "testing"

// TestProfile looks up a profile with a timeout comfortably above the two
// queries it needs.
func TestProfile(t *testing.T) {
	s := NewStore()
	defer s.Close()

	p, err := s.Profile("ada", 5*queryTime)
	if err != nil {
		t.Fatalf("Profile: %v", err)
	}
	if want := (Profile{User: "ada", Orders: 3}); p != want {
		t.Errorf("Profile = %+v, want %+v", p, want)
	}
}
