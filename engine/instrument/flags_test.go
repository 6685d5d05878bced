package instrument

import (
	"slices"
	"strings"
	"testing"
)

// A schedule records the build flags that change what the test binary does, each as one
// argument, and nothing that only changes how it is built.
func TestRecordedFlags(t *testing.T) {
	for _, tc := range []struct {
		flags, want []string
	}{
		{nil, nil},
		{[]string{"-tags", "integration,slow", "-v"}, []string{"-tags=integration,slow"}},
		{[]string{"-race", "-x", "-p", "4", "-gcflags=all=-N -l"}, []string{"-race"}},
		{[]string{"--tags=a", "-mod=mod", "-a"}, []string{"--tags=a", "-mod=mod"}},
	} {
		if got := recordedFlags(tc.flags); !slices.Equal(got, tc.want) {
			t.Errorf("recordedFlags(%q) = %q, want %q", tc.flags, got, tc.want)
		}
	}
}

// A schedule file is data: a flag that runs a program or replaces files is refused, named.
func TestCheckRecordedFlags(t *testing.T) {
	for _, tc := range []struct {
		flags []string
		bad   string // "" when accepted
	}{
		{nil, ""},
		{[]string{"-tags=a", "-race", "-tags", "b"}, ""},
		{[]string{"-toolexec=/tmp/x.sh"}, "-toolexec=/tmp/x.sh"},
		{[]string{"-tags=a", "-ldflags=-extld=/tmp/x"}, "-ldflags=-extld=/tmp/x"},
		{[]string{"-overlay", "o.json"}, "-overlay"},
		{[]string{"pkg"}, "pkg"},
	} {
		err := CheckRecordedFlags("s.json", tc.flags)
		switch {
		case tc.bad == "" && err != nil:
			t.Errorf("%q: %v, want accepted", tc.flags, err)
		case tc.bad != "" && (err == nil || !strings.Contains(err.Error(), "s.json records the build flag "+tc.bad+",")):
			t.Errorf("%q: %v, want %s refused", tc.flags, err, tc.bad)
		}
	}
}
