package findings

import (
	"errors"
	"slices"
	"testing"
	"time"
)

func part(p string, schedules int, races []Race, bugs []Bug) *File {
	return &File{
		Format: FormatName, Version: Version, Test: Test{Package: "example.com/bank", Name: "TestWithdraw"},
		Time: time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC), Strategy: "pct", Params: map[string]string{"d": "3"},
		Seed: 7, Budget: 1000, Build: "b1", Points: "racy", Schedules: schedules, DetectionSchedules: 10,
		Races: races, Bugs: bugs, Part: p, Path: "/store-" + p + "/doc.json",
		Files: map[string]string{"bank.go": "h1"}, RacyPoints: []string{"bank.go:10:2"},
	}
}

func race(a, b string, first, n int) Race {
	return Race{A: Access{Pos: a, Op: "write"}, B: Access{Pos: b, Op: "read"}, FirstSchedule: first, Schedules: n}
}

func TestMerge(t *testing.T) {
	r1 := race("bank.go:10:2", "bank.go:14:5", 3, 5)
	r1b := race("bank.go:14:5", "bank.go:10:2", 1, 2) // the same pair, the other way round
	r2 := race("bank.go:20:2", "bank.go:21:2", 7, 1)
	bug := Bug{Kind: "fail", Message: "overdrawn", Pos: "bank_test.go:30:3", Schedule: "/s/a.json"}
	docs := []*File{
		part("1/2,1/2", 250, []Race{r1}, nil),
		part("1/2,2/2", 250, []Race{r1b, r2}, []Bug{bug}),
		part("2/2", 500, []Race{r1}, []Bug{bug}),
	}
	docs[2].RacyPoints = []string{"bank.go:20:2"}
	docs[2].Time = docs[2].Time.Add(time.Minute)
	m, err := Merge(docs, false)
	if err != nil {
		t.Fatal(err)
	}
	if m.Schedules != 1000 || m.DetectionSchedules != 10 {
		t.Errorf("schedules %d, detection %d; want 1000, 10", m.Schedules, m.DetectionSchedules)
	}
	if len(m.Races) != 2 || m.Races[0].Schedules != 5+2+5 || m.Races[0].FirstSchedule != 1 || m.Races[1].Schedules != 1 {
		t.Errorf("races %+v; want the pair 10/14 seen in 12 schedules (first 1) and 20/21 in 1", m.Races)
	}
	if len(m.Bugs) != 1 {
		t.Errorf("bugs %v; want the one bug once", m.Bugs)
	}
	if !slices.Equal(m.RacyPoints, []string{"bank.go:10:2", "bank.go:20:2"}) {
		t.Errorf("racy points %v", m.RacyPoints)
	}
	if m.Part != "" {
		t.Errorf("part %q; want the whole exploration", m.Part)
	}
	if !m.Time.Equal(docs[2].Time) {
		t.Errorf("time %v; want the latest", m.Time)
	}
}

func TestUnionOfParts(t *testing.T) {
	tests := []struct {
		parts []string
		want  string
	}{
		{[]string{"1/2", "2/2"}, ""},
		{[]string{"1/3", "3/3"}, "1/3;3/3"},
		{[]string{"1/2,1/2", "1/2,2/2"}, "1/2"},
		{[]string{"1/2,1/2", "1/2,2/2", "2/2,1/3", "2/2,2/3", "2/2,3/3"}, ""},
		{[]string{"2/4", "2/4"}, "2/4"},
		{[]string{"1/2", ""}, ""},
	}
	for _, tc := range tests {
		if got := UnionOfParts(tc.parts); got != tc.want {
			t.Errorf("UnionOfParts(%q) = %q, want %q", tc.parts, got, tc.want)
		}
	}
}

func TestMergeRefusesOtherRuns(t *testing.T) {
	tests := []struct {
		field  string
		change func(f *File)
	}{
		{"build", func(f *File) { f.Build = "b2" }},
		{"strategy", func(f *File) { f.Strategy = "random" }},
		{"strategy parameters", func(f *File) { f.Params = map[string]string{"d": "2"} }},
		{"seed", func(f *File) { f.Seed = 8 }},
		{"schedule budget", func(f *File) { f.Budget = 10 }},
		{"scheduling points", func(f *File) { f.Points = "all" }},
		{"the source of bank.go", func(f *File) { f.Files = map[string]string{"bank.go": "h2"} }},
	}
	for _, tc := range tests {
		t.Run(tc.field, func(t *testing.T) {
			a, b := part("1/2", 10, nil, nil), part("2/2", 10, nil, nil)
			tc.change(b)
			_, err := Merge([]*File{a, b}, false)
			var me *MismatchError
			if !errors.As(err, &me) || me.Field != tc.field || me.PathA != a.Path || me.PathB != b.Path {
				t.Fatalf("Merge: %v; want a mismatch in %s naming both documents", err, tc.field)
			}
			if m, err := Merge([]*File{a, b}, true); err != nil || m.Schedules != 20 {
				t.Fatalf("Merge with force: %v, %v", m, err)
			}
		})
	}
	other := part("1/2", 10, nil, nil)
	other.Test.Name = "TestDeposit"
	if _, err := Merge([]*File{part("1/2", 10, nil, nil), other}, true); err == nil {
		t.Fatal("documents of two tests merged")
	}
}
