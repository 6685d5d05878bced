package leak

import (
	"errors"
	"testing"
)

// TestLoadFailure loads a dashboard whose orders section fails and checks
// that Load reports the error.
func TestLoadFailure(t *testing.T) {
	errOrders := errors.New("orders service unavailable")
	parts := []Part{
		func() (string, error) { return "profile: ada", nil },
		func() (string, error) { return "", errOrders },
	}

	sections, err := Load(parts)
	if !errors.Is(err, errOrders) {
		t.Fatalf("Load error = %v, want %v", err, errOrders)
	}
	if sections != nil {
		t.Errorf("Load sections = %q, want nil", sections)
	}
}
