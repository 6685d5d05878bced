package dap

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestObjectName: the timeline labels an operation with its object as the source spells it
// at the operation's position.
func TestObjectName(t *testing.T) {
	const src = `package p

func f() {
	from.mu.Lock()
	defer from.mu.Unlock()
	ch <- 1
	v := <-done
	x = v + 1
	y := x
	atomic.AddInt64(&n, 1)
	for e := range jobs {
	}
	go work()
	accounts[i].balance = 3
	wg.Wait()
}
`
	tests := []struct {
		line int
		at   string // the text the position starts at, on that line
		want string
	}{
		{4, "from.mu.Lock", "from.mu"},
		{5, "from.mu.Unlock", "from.mu"},
		{5, "defer", "from.mu"},
		{6, "ch <-", "ch"},
		{6, "<- 1", "ch"},
		{7, "<-done", "done"},
		{8, "x =", "x"},
		{8, "v + 1", "v"},
		{9, "x\n", "x"},
		{10, "atomic", "n"},
		{11, "for", "jobs"},
		{13, "go", ""},
		{14, "accounts", "accounts[i].balance"},
		{15, "wg", "wg"},
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	tf := fset.File(f.Pos())
	lines := strings.SplitAfter(src, "\n")
	for _, tt := range tests {
		col := strings.Index(lines[tt.line-1], tt.at)
		if col < 0 {
			t.Fatalf("line %d has no %q", tt.line, tt.at)
		}
		if got := objectName(f, tf.LineStart(tt.line)+token.Pos(col)); got != tt.want {
			t.Errorf("line %d at %q: %q, want %q", tt.line, tt.at, got, tt.want)
		}
	}
}
