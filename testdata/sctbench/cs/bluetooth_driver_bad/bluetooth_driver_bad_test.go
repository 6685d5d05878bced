package bluetooth_driver_bad

import "testing"

func TestBluetoothDriverBad(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
