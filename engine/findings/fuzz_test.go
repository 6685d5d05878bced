package findings

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode: any bytes either decode into a findings document whose races name positions
// that parse, or give an error naming the document; never a panic.
func FuzzDecode(f *testing.F) {
	seeds, _ := filepath.Glob("../instrument/testdata/constructs/.interleave/findings/*.json")
	for _, p := range seeds {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	good, _ := json.Marshal(&File{Format: FormatName, Version: Version, Test: Test{Package: "m", Name: "TestX"},
		Races: []Race{{A: Access{Pos: "a.go:1:2", File: "a.go", Line: 1, Col: 2, Op: "write"}, B: Access{Pos: "a.go:3", Op: "read"}}}})
	f.Add(good)
	f.Add([]byte(`{"format":"interleave-findings","version":99}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Decode(data, "fuzz.json")
		if err != nil {
			if doc != nil {
				t.Fatalf("an error with a document: %v", err)
			}
			return
		}
		for _, r := range doc.Races {
			ParsePos(r.A.Pos)
			ParsePos(r.B.Pos)
			r.Key()
		}
	})
}
