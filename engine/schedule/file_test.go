package schedule_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine/bounded"
	"github.com/interleave-dev/interleave/engine/schedule"
)

// sampleFile is a file with every field set, and characters that need escaping.
func sampleFile() *schedule.File {
	return &schedule.File{
		Test: schedule.Test{
			Module:  "example.com/bank",
			Package: "example.com/bank",
			Name:    "TestTransfer/two_accounts",
			Build:   "5f2c9a",
		},
		Strategy:  schedule.Strategy{Name: "pct", Params: map[string]string{"depth": "3", "seed": "42"}},
		Execution: 17,
		Result:    schedule.Summary{Steps: 4, Goroutines: 2, Preemptions: 1, Fingerprint: 0x9f1c00e3a1b2c3d4},
		Bug: &schedule.Bug{
			Kind:    "fail",
			Message: "balance = 50, want 100 <\"quoted\">\n\tsecond line",
			Step:    4,
			G:       0,
			Pos:     "/src/bank/bank_test.go:30",
			Logs:    []string{"bank_test.go:29: balance = 50, want 100", "bank_test.go:31: done & dusted"},
			Goroutines: []schedule.Goroutine{
				{ID: 0, Parent: -1, Status: "running", Op: "read", Pos: "bank.go:10", Stack: []schedule.Frame{
					{Func: "example.com/bank.TestTransfer.func1", File: "/src/bank/bank_test.go", Line: 30},
					{Func: "example.com/bank.run", File: "/src/bank/bank_test.go", Line: 12},
				}},
				{ID: 1, Parent: 0, Status: "done", Op: "lock", Pos: "bank.go:42", Created: "bank.go:20"},
			},
		},
		Source: map[string]schedule.Anchor{
			"bank.go:42": {Func: "Transfer", Line: 3, Nth: 1, Text: "a.mu.Lock()"},
			"bank.go:20": {Func: "TestTransfer", Line: 4, Text: "go transfer(a, b, 10)"},
		},
		Steps: []schedule.Step{
			{Kind: schedule.Run, G: 0, Op: "go", Pos: "bank.go:20"},
			{Kind: schedule.Run, G: 1, Op: "lock", Pos: "bank.go:42"},
			{Kind: schedule.Choice, G: 1, Value: 1, N: 3, Op: "select", Pos: "bank.go:61"},
			{Kind: schedule.Run, G: 1, Op: "unlock", Pos: "bank.go:50"},
			{Kind: schedule.Run, G: 0, Op: "read", Pos: "bank.go:10"},
		},
	}
}

func encode(t testing.TB, f *schedule.File) string {
	t.Helper()
	var b bytes.Buffer
	if err := f.Encode(&b); err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return b.String()
}

func TestScheduleFileRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    *schedule.File
	}{
		{"full", sampleFile()},
		{"minimal", &schedule.File{Test: schedule.Test{Package: "p", Name: "TestA"}}},
		{"no bug", func() *schedule.File { f := sampleFile(); f.Bug = nil; return f }()},
		{"built with flags", func() *schedule.File {
			f := sampleFile()
			f.Instrument, f.BuildFlags = []string{"example.com/dep", "example.com/other"}, []string{"-tags=integration", "-race"}
			return f
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := encode(t, tc.f)
			got, err := schedule.Decode(strings.NewReader(text))
			if err != nil {
				t.Fatalf("Decode: %v\n%s", err, text)
			}
			want := *tc.f
			if want.Steps == nil {
				want.Steps = []schedule.Step{}
			}
			if !reflect.DeepEqual(got, &want) {
				t.Errorf("round trip changed the file:\ngot  %+v\nwant %+v\n%s", got, &want, text)
			}
			if again := encode(t, got); again != text {
				t.Errorf("re-encoding differs:\n%s\n---\n%s", again, text)
			}
		})
	}
}

// TestScheduleFileLayout checks the readable layout: one line per step, no HTML escaping.
func TestScheduleFileLayout(t *testing.T) {
	text := encode(t, sampleFile())
	lines := strings.Split(text, "\n")
	for _, want := range []string{
		`  "format": "interleave-schedule",`,
		`  "version": 2,`,
		`    "bank.go:42": {"func":"Transfer","line":3,"nth":1,"text":"a.mu.Lock()"}`,
		`    {"step":2,"g":1,"op":"lock","pos":"bank.go:42"},`,
		`    {"choice":1,"n":3,"g":1,"op":"select","pos":"bank.go:61"},`,
		`    {"step":4,"g":0,"op":"read","pos":"bank.go:10"}`,
		`         {"func":"example.com/bank.run","file":"/src/bank/bank_test.go","line":12}`,
	} {
		found := false
		for _, l := range lines {
			if l == want {
				found = true
			}
		}
		if !found {
			t.Errorf("no line %q in\n%s", want, text)
		}
	}
	if !strings.Contains(text, `<\"quoted\">`) || !strings.Contains(text, "done & dusted") {
		t.Errorf("messages are escaped for HTML:\n%s", text)
	}
}

func TestScheduleFileSaveLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bug.json")
	f := sampleFile()
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	if f.Path != path {
		t.Errorf("Save set Path %q, want %q", f.Path, path)
	}
	got, err := schedule.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Path != path {
		t.Errorf("Load set Path %q, want %q", got.Path, path)
	}
	if !reflect.DeepEqual(got, f) {
		t.Errorf("Load(Save(f)) = %+v, want %+v", got, f)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("Save left %d files in its directory, want 1", len(entries))
	}

	_, err = schedule.Load(filepath.Join(t.TempDir(), "missing.json"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "load schedule ") {
		t.Errorf("Load of a missing file: %v", err)
	}
	bad := sampleFile()
	bad.Steps[0].G = -1
	if err := bad.Save(path); !errors.Is(err, schedule.ErrInvalid) {
		t.Errorf("Save of an invalid file: %v", err)
	}
	if _, err := schedule.Load(path); err != nil {
		t.Errorf("a failed Save damaged the existing file: %v", err)
	}
}

func TestScheduleFileErrors(t *testing.T) {
	valid := encode(t, sampleFile())
	lineOf := func(substr string) int {
		i := strings.Index(valid, substr)
		if i < 0 {
			t.Fatalf("no %q in the sample", substr)
		}
		return 1 + strings.Count(valid[:i], "\n")
	}
	replace := func(old, new string) string {
		if !strings.Contains(valid, old) {
			t.Fatalf("no %q in the sample", old)
		}
		return strings.Replace(valid, old, new, 1)
	}
	step2 := `{"step":2,"g":1,"op":"lock","pos":"bank.go:42"}`
	choice := `{"choice":1,"n":3,"g":1,"op":"select","pos":"bank.go:61"}`
	for _, tc := range []struct {
		name  string
		input string
		kind  error
		want  []string // substrings of the message
		line  int      // Error.Line, when not 0
	}{
		{"empty", "", schedule.ErrTruncated, []string{"schedule file is empty"}, 0},
		{"blank", " \n\t\n", schedule.ErrTruncated, []string{"is empty"}, 0},
		{"truncated", valid[:len(valid)/2], schedule.ErrTruncated, []string{"is truncated", "ends early"}, 0},
		{"truncated in steps", valid[:strings.Index(valid, step2)+10], schedule.ErrTruncated, []string{"is truncated"}, 0},
		{"corrupt", replace(`"execution": 17,`, `"execution": 17,,`), schedule.ErrSyntax,
			[]string{"invalid JSON", "invalid character ','"}, lineOf(`"execution": 17`)},
		{"corrupt step", replace(step2, `{"step":2,"g":1 "op":"lock"}`), schedule.ErrSyntax,
			[]string{"invalid JSON", "column 21", "invalid character '\"'"}, lineOf(step2)},
		{"not an object", "[1, 2, 3]", schedule.ErrNotSchedule, []string{"not an interleave schedule", "array"}, 0},
		{"null", "null", schedule.ErrNotSchedule, []string{"not an interleave schedule"}, 0},
		{"another JSON document", `{"name": "package.json"}`, schedule.ErrNotSchedule, []string{`no "format": "interleave-schedule" field`}, 0},
		{"newer version", replace(`"version": 2,`, `"version": 3,`), schedule.ErrVersion,
			[]string{"schedule file has format version 3; this interleave reads versions 1 to 2"}, 0},
		{"newer version, other layout", `{"format": "interleave-schedule", "version": 3, "steps": {"packed": "AAEC"}}`, schedule.ErrVersion,
			[]string{"format version 3; this interleave reads versions 1 to 2"}, 0},
		{"version 0", replace(`"version": 2,`, `"version": 0,`), schedule.ErrVersion, []string{"format version 0"}, 0},
		{"no version", replace(`"version": 2,`, ``), schedule.ErrMissing, []string{`missing required field "version"`}, 0},
		{"version not a number", replace(`"version": 2,`, `"version": "1",`), schedule.ErrInvalid, []string{`format version "1" is not an integer`}, 0},
		{"no test", replace(`"test": {"module":"example.com/bank","package":"example.com/bank","name":"TestTransfer/two_accounts","build":"5f2c9a"},`, ``),
			schedule.ErrMissing, []string{`missing required field "test"`}, 0},
		{"no test name", replace(`"name":"TestTransfer/two_accounts",`, ``), schedule.ErrMissing, []string{`missing required field "test.name"`}, 0},
		{"no package", replace(`"package":"example.com/bank",`, ``), schedule.ErrMissing, []string{`"test.package"`}, 0},
		{"no steps", replace(`"steps": [`, `"stepz": [`), schedule.ErrMissing, []string{`missing required field "steps"`}, 0},
		{"no bug kind", replace(`"kind": "fail",`, ``), schedule.ErrMissing, []string{`"bug.kind"`}, 0},
		{"negative goroutine", replace(step2, `{"step":2,"g":-2,"op":"lock","pos":"bank.go:42"}`), schedule.ErrInvalid,
			[]string{"step 2: negative goroutine -2"}, lineOf(step2)},
		{"choice out of range", replace(choice, `{"choice":3,"n":3,"g":1}`), schedule.ErrInvalid,
			[]string{"data choice after step 2: choice 3 is out of range: n = 3"}, lineOf(choice)},
		{"negative choice", replace(choice, `{"choice":-1,"n":3,"g":1}`), schedule.ErrInvalid, []string{"choice -1 is out of range"}, lineOf(choice)},
		{"one alternative", replace(choice, `{"choice":0,"n":1,"g":1}`), schedule.ErrInvalid, []string{"at least 2 alternatives, not n = 1"}, lineOf(choice)},
		{"choice without n", replace(choice, `{"choice":1,"g":1}`), schedule.ErrMissing, []string{`data choice after step 2: missing required field "n"`}, lineOf(choice)},
		{"n without choice", replace(choice, `{"n":3,"g":1}`), schedule.ErrMissing, []string{`has "n" but no "choice"`}, lineOf(choice)},
		{"step without g", replace(step2, `{"step":2,"op":"lock"}`), schedule.ErrMissing, []string{`step 2: missing required field "g"`}, lineOf(step2)},
		{"misnumbered step", replace(step2, `{"step":7,"g":1}`), schedule.ErrInvalid, []string{"step 2 is numbered 7"}, lineOf(step2)},
		{"numbered choice", replace(choice, `{"step":3,"choice":1,"n":3,"g":1}`), schedule.ErrInvalid, []string{`a data choice has no "step" number`}, lineOf(choice)},
		{"goroutine not a number", replace(step2, `{"step":2,"g":"one"}`), schedule.ErrInvalid,
			[]string{"field steps.g", "string", "int32"}, lineOf(step2)},
		{"goroutine too large", replace(step2, `{"step":2,"g":99999999999}`), schedule.ErrInvalid, []string{"field steps.g"}, lineOf(step2)},
		{"params not strings", replace(`"seed":"42"`, `"seed":42`), schedule.ErrInvalid, []string{"field strategy.params"}, 0},
		{"bug step beyond the schedule", replace(`"step": 4,`, `"step": 9,`), schedule.ErrInvalid, []string{"bug.step 9 is outside the schedule's 4 steps"}, 0},
		{"bad fingerprint", replace(`"fingerprint":"9f1c00e3a1b2c3d4"`, `"fingerprint":"xyz"`), schedule.ErrInvalid, []string{`result.fingerprint "xyz"`}, 0},
		{"negative execution", replace(`"execution": 17,`, `"execution": -1,`), schedule.ErrInvalid, []string{"execution -1 is negative"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := schedule.Decode(strings.NewReader(tc.input))
			if err == nil {
				t.Fatalf("Decode succeeded: %+v\ninput:\n%s", f, tc.input)
			}
			if !errors.Is(err, tc.kind) {
				t.Errorf("error %q is not %v", err, tc.kind)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			var se *schedule.Error
			if !errors.As(err, &se) {
				t.Fatalf("error %q is a %T, not a *schedule.Error", err, err)
			}
			if tc.line != 0 && se.Line != tc.line {
				t.Errorf("error %q is at line %d, want %d", err, se.Line, tc.line)
			}
		})
	}
}

// TestScheduleFileErrorNamesPath checks that Load's errors name the file.
func TestScheduleFileErrorNamesPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bug.json")
	text := strings.Replace(encode(t, sampleFile()), `"version": 2,`, `"version": 3,`, 1)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := schedule.Load(path)
	want := "schedule file " + path + " has format version 3; this interleave reads versions 1 to 2"
	if err == nil || err.Error() != want {
		t.Errorf("Load: %v\nwant %s", err, want)
	}
	var se *schedule.Error
	if !errors.As(err, &se) || se.Path != path {
		t.Errorf("error %#v does not carry the path", err)
	}
}

func TestScheduleFileCheck(t *testing.T) {
	f := sampleFile()
	f.Path = "bug.json"
	same := f.Test
	for _, tc := range []struct {
		name   string
		target schedule.Test
		kind   error
		want   string
	}{
		{"same", same, nil, ""},
		{"unknown build", schedule.Test{Module: same.Module, Package: same.Package, Name: same.Name}, nil, ""},
		{"other test", schedule.Test{Module: same.Module, Package: same.Package, Name: "TestB", Build: same.Build}, schedule.ErrOtherTest,
			"schedule file bug.json is for test TestTransfer/two_accounts in package example.com/bank, not TestB"},
		{"other package", schedule.Test{Module: same.Module, Package: "example.com/shop", Name: same.Name}, schedule.ErrOtherTest,
			"schedule file bug.json is for test TestTransfer/two_accounts in package example.com/bank, not TestTransfer/two_accounts in package example.com/shop"},
		{"other module", schedule.Test{Module: "example.com/fork", Package: same.Package, Name: same.Name}, schedule.ErrOtherTest,
			"schedule file bug.json is for module example.com/bank, not example.com/fork"},
		{"other build", schedule.Test{Module: same.Module, Package: same.Package, Name: same.Name, Build: "77aa01"}, schedule.ErrOtherBuild,
			"schedule file bug.json was recorded by build 5f2c9a, not by this build (77aa01): the code under test may have changed, and a replay may diverge"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := f.Check(tc.target)
			if tc.kind == nil {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			if !errors.Is(err, tc.kind) || err.Error() != tc.want {
				t.Errorf("Check: %v\nwant %s (%v)", err, tc.want, tc.kind)
			}
		})
	}
}

func TestScheduleFileEncodeRejectsInvalid(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(f *schedule.File)
		kind   error
	}{
		{"negative goroutine", func(f *schedule.File) { f.Steps[1].G = -3 }, schedule.ErrInvalid},
		{"choice out of range", func(f *schedule.File) { f.Steps[2].Value = 3 }, schedule.ErrInvalid},
		{"no test name", func(f *schedule.File) { f.Test.Name = "" }, schedule.ErrMissing},
		{"unknown step kind", func(f *schedule.File) { f.Steps[0].Kind = 7 }, schedule.ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := sampleFile()
			tc.mutate(f)
			var b bytes.Buffer
			err := f.Encode(&b)
			if !errors.Is(err, tc.kind) {
				t.Errorf("Encode: %v, want %v", err, tc.kind)
			}
			if b.Len() != 0 {
				t.Errorf("Encode wrote %d bytes of an invalid file", b.Len())
			}
		})
	}
}

func TestStepString(t *testing.T) {
	for _, tc := range []struct {
		s    schedule.Step
		want string
	}{
		{schedule.Step{Kind: schedule.Run, G: 3, Op: "lock", Pos: "bank.go:42"}, "G3 lock at bank.go:42"},
		{schedule.Step{Kind: schedule.Choice, G: 3, Value: 1, N: 2, Op: "select", Pos: "s.go:7"}, "choice 1 of 2 by G3 (select at s.go:7)"},
		{schedule.Step{Kind: schedule.Run, G: 0}, "G0 ?"},
	} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("%#v.String() = %q, want %q", tc.s, got, tc.want)
		}
	}
}

// FuzzDecode checks that Decode never panics, and that whatever it accepts Encode writes
// back, as a fixed point: decoding and encoding again gives the same text.
func FuzzDecode(f *testing.F) {
	valid := encode(f, sampleFile())
	f.Add(valid)
	f.Add(encode(f, &schedule.File{Test: schedule.Test{Package: "p", Name: "T"}}))
	for _, n := range []int{0, 1, 20, len(valid) / 3, len(valid) - 3} {
		f.Add(valid[:n])
	}
	for _, s := range []string{
		"null", "[]", "{}", `"x"`, "1e999",
		`{"format": "interleave-schedule", "version": 1}`,
		`{"format": "interleave-schedule", "version": 1, "test": {"package": "p", "name": "T"}, "steps": [{"g": 0}, {"choice": 1, "n": 2, "g": 0}]}`,
		`{"format": "interleave-schedule", "version": 1, "test": {"package": "p", "name": "T"}, "steps": [{"g": -1}]}`,
		`{"format": "interleave-schedule", "version": 1, "test": {"package": "p", "name": "T"}, "steps": [], "bug": {"kind": "panic", "step": 0, "goroutines": [{"id": 0, "parent": -1, "stack": []}]}}`,
		`{"format": "interleave-schedule", "version": 99999999999999999999}`,
		`{"format": "interleave-schedule", "version": 1, "test": {"package": "p", "name": "T"}, "steps": [{"g": 0, "op": "\ud800"}], "result": {"fingerprint": "ffffffffffffffff"}}`,
		strings.Replace(valid, `"g":1,`, `"g":1.5,`, 1),
		strings.Replace(valid, `"bug": {`, `"bug": [`, 1),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		file, err := schedule.Decode(strings.NewReader(input))
		if err != nil {
			var se *schedule.Error
			if !errors.As(err, &se) || se.Kind == nil {
				t.Fatalf("error %q is not a *schedule.Error with a kind", err)
			}
			return
		}
		var b bytes.Buffer
		if err := file.Encode(&b); err != nil {
			t.Fatalf("Decode accepted a file that Encode rejects: %v", err)
		}
		again, err := schedule.Decode(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatalf("Decode rejects what Encode wrote: %v\n%s", err, b.String())
		}
		var b2 bytes.Buffer
		if err := again.Encode(&b2); err != nil {
			t.Fatal(err)
		}
		if b.String() != b2.String() {
			t.Fatalf("encoding is not a fixed point:\n%s\n---\n%s", b.String(), b2.String())
		}
	})
}

// TestEncodeRefusesWhatLoadWouldRefuse: a schedule whose file would be larger than
// bounded.Schedule (a step bound far above the default) is not written, with an error that
// says why, since Load would refuse it; one within the limit is written and loads.
func TestEncodeRefusesWhatLoadWouldRefuse(t *testing.T) {
	f := sampleFile()
	var b bytes.Buffer
	if err := f.Encode(&b); err != nil {
		t.Fatal(err)
	}
	saved := bounded.Schedule
	t.Cleanup(func() { bounded.Schedule = saved })
	bounded.Schedule.Max = int64(b.Len())
	path := filepath.Join(t.TempDir(), "s.json")
	if err := f.Save(path); err != nil {
		t.Fatalf("a schedule of exactly the limit: %v", err)
	}
	if _, err := schedule.Load(path); err != nil {
		t.Fatalf("a schedule of exactly the limit: %v", err)
	}
	bounded.Schedule.Max--
	err := f.Encode(io.Discard)
	if !errors.Is(err, bounded.ErrTooLarge) || !strings.Contains(err.Error(), "the limit of a schedule file that interleave reads back") {
		t.Fatalf("a schedule one byte past the limit: %v, want it refused", err)
	}
	if _, err := schedule.Load(path); !errors.Is(err, bounded.ErrTooLarge) {
		t.Fatalf("Load of a file one byte past the limit: %v, want it refused", err)
	}
}

// A version 1 file, written before source anchors, still loads and replays as written: its
// positions are matched exactly, and a "source" field in it is not read (version 1 had none).
func TestScheduleFileReadsVersion1(t *testing.T) {
	v1 := `{
  "format": "interleave-schedule",
  "version": 1,
  "test": {"package": "example.com/bank", "name": "TestTransfer"},
  "result": {"steps": 2, "goroutines": 2, "preemptions": 0},
  "source": {"bank.go:20": {"func": "X", "line": 1, "text": "x"}},
  "steps": [
    {"step":1,"g":0,"op":"go","pos":"bank.go:20"},
    {"step":2,"g":1,"op":"lock","pos":"bank.go:42"}
  ]
}
`
	f, err := schedule.Decode(strings.NewReader(v1))
	if err != nil {
		t.Fatalf("a version 1 file: %v", err)
	}
	if len(f.Steps) != 2 || f.Steps[1].Pos != "bank.go:42" || f.Source != nil {
		t.Fatalf("decoded %+v, source %v", f.Steps, f.Source)
	}
	// Written again, it is a version 2 file.
	var b strings.Builder
	if err := f.Encode(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"version": 2,`) {
		t.Errorf("re-encoded:\n%s", b.String())
	}
}
