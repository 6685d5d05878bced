package lens

import (
	"fmt"
	"strings"
	"testing"
)

func TestTests(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string // "name@line:col", 0-based
	}{
		{"tests and subtests", `package p

import "testing"

func TestA(t *testing.T) {
	t.Run("one two", func(t *testing.T) {
		t.Run("x/y", func(t *testing.T) {})
	})
	t.Run(name, func(t *testing.T) {})
}

func Test(t *testing.T) {}
func Testlower(t *testing.T) {}
func TestÉ(t *testing.T) {}
func TestB(b *testing.B) {}
func TestC(t *testing.T) int { return 0 }
func TestD[T any](t *testing.T) {}
func (s S) TestE(t *testing.T) {}
`, []string{"TestA@4:0", "TestA/one_two@5:1", "TestA/one_two/x/y@6:2", "Test@11:0", "TestÉ@13:0"}},
		{"a renamed import and a file that does not compile", `package p

import tst "testing"

func TestA(t *tst.T) {
	undefined(
}

func TestB(t *tst.T) { var x int = "s" }
`, []string{"TestA@4:0", "TestB@8:0"}},
		{"not Go", "this is not Go", nil},
	} {
		var got []string
		for _, tt := range Tests([]byte(tc.src)) {
			got = append(got, fmt.Sprintf("%s@%d:%d", tt.Name, tt.Line, tt.Col))
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
