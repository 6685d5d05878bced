//go:build unix

package main

import "testing"

func TestMaxrssBytes(t *testing.T) {
	for _, tc := range []struct {
		goos   string
		maxrss int64
		want   int64
	}{
		{"linux", 2048, 2 << 20},
		{"freebsd", 2048, 2 << 20},
		{"darwin", 2 << 20, 2 << 20},
	} {
		if got := maxrssBytes(tc.maxrss, tc.goos); got != tc.want {
			t.Errorf("maxrssBytes(%d, %s) = %d, want %d", tc.maxrss, tc.goos, got, tc.want)
		}
	}
}
