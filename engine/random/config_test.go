package random

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// goodConfig is the example of ConfigFile's documentation.
const goodConfig = `{
  "hang": "30s",
  "tests": {
    "TestTransfer": {
      "combine": true,
      "hang": "5s",
      "inputs": {
        "workers": {"kind": "uniform", "min": 1, "max": 8},
        "load":    {"kind": "gaussian", "mean": 10, "sd": 2},
        "delay":   {"kind": "exponential", "min": "1ms", "max": "50ms"},
        "size":    {"kind": "weighted", "intervals": [{"min": 1, "max": 10, "p": 0.9}, {"min": 100, "max": 1000, "p": 0.1}]}
      }
    },
    "TestAlone": {"combine": false, "fresh": true},
    "Test": {"inputs": {"my value": {"kind": "gaussian", "mean": "-1.5s", "sd": 0}}},
    "Test_x": {}
  }
}
`

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig("x/"+ConfigFile, []byte(goodConfig))
	if err != nil {
		t.Fatal(err)
	}
	yes, no := true, false
	want := &Config{
		Path: "x/" + ConfigFile,
		Hang: 30 * time.Second,
		Tests: map[string]TestConfig{
			"TestTransfer": {
				Combine: &yes,
				Hang:    5 * time.Second,
				Inputs: map[string]Spec{
					"workers": {Kind: KindUniform, Min: 1, Max: 8},
					"load":    {Kind: KindGaussian, Mean: 10, SD: 2},
					"delay":   {Kind: KindExponential, Min: 1e6, Max: 50e6},
					"size":    {Kind: KindWeighted, Intervals: []Interval{{1, 10, 0.9}, {100, 1000, 0.1}}},
				},
			},
			"TestAlone": {Combine: &no, Fresh: true, Inputs: map[string]Spec{}},
			"Test":      {Inputs: map[string]Spec{"my value": {Kind: KindGaussian, Mean: -1.5e9}}},
			"Test_x":    {Inputs: map[string]Spec{}},
		},
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("ParseConfig =\n%+v\nwant\n%+v", c, want)
	}

	// The inputs make distributions of the types a test uses.
	s, ok := c.Input("TestTransfer", "delay")
	if !ok {
		t.Fatal("no input delay")
	}
	if d, err := FromSpec[time.Duration](s); err != nil || d.String() != "exponential[1ms, 50ms]" {
		t.Errorf("FromSpec[time.Duration](%v) = %v, %v", s, d, err)
	}
	if s, ok := c.Input("TestTransfer", "size"); !ok || s.String() != "weighted{[1, 10] 0.9; [100, 1000] 0.1}" {
		t.Errorf("Input size = %v, %v", s, ok)
	}
	if _, ok := c.Input("TestTransfer", "none"); ok {
		t.Error("Input of a missing input reports one")
	}
	if _, ok := c.Input("TestNone", "delay"); ok {
		t.Error("Input of a missing test reports one")
	}
	if tc := c.Test("TestAlone"); tc.Combine == nil || *tc.Combine || tc.Hang != 0 {
		t.Errorf("Test(TestAlone) = %+v", tc)
	}
	if tc := c.Test("TestNone"); !reflect.DeepEqual(tc, TestConfig{}) {
		t.Errorf("Test of a missing test = %+v, want the zero TestConfig", tc)
	}

	// A nil *Config, as LoadConfig returns without a file, has nothing.
	var none *Config
	if _, ok := none.Input("TestTransfer", "delay"); ok {
		t.Error("nil Config: Input reports an input")
	}
	if tc := none.Test("TestTransfer"); !reflect.DeepEqual(tc, TestConfig{}) {
		t.Errorf("nil Config: Test = %+v", tc)
	}
}

func TestParseConfigEmpty(t *testing.T) {
	c, err := ParseConfig(ConfigFile, []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Hang != 0 || c.Tests == nil || len(c.Tests) != 0 || c.Path != ConfigFile {
		t.Errorf("ParseConfig({}) = %+v", c)
	}
}

func TestParseConfigErrors(t *testing.T) {
	// test wraps the inputs of TestTransfer.
	test := func(inputs string) string {
		return `{"tests": {"TestTransfer": {"inputs": {` + inputs + `}}}}`
	}
	for _, tc := range []struct {
		name, data, want string
	}{
		{"syntax", "{\n  \"hang\": \"30s\",\n  \"tests\": {x}\n}", "x/interleave-stress.json:3:13: invalid character 'x' looking for beginning of object key string"},
		{"truncated", "{\"tests\": {\n", "x/interleave-stress.json:2:1: unexpected end of JSON input"},
		{"empty", "", "x/interleave-stress.json:1:1: unexpected end of JSON input"},
		{"trailing", "{}\n{}", "x/interleave-stress.json:2:1: invalid character '{' after top-level value"},
		{"not an object", "[1]", "x/interleave-stress.json:1:1: got an array, want an object"},
		{"unknown top-level field", `{"hang": "1s", "tset": {}}`, "x/interleave-stress.json:1:16: tset: unknown field, want hang or tests"},
		{"unknown test field", `{"tests": {"TestA": {"combined": true}}}`, "x/interleave-stress.json:1:22: tests.TestA.combined: unknown field, want combine, hang, fresh or inputs"},
		{"unknown input field", test(`"w": {"kind": "uniform", "min": 1, "max": 2, "step": 1}`), "x/interleave-stress.json:1:85: tests.TestTransfer.inputs.w.step: unknown field, want kind, min, max, mean, sd or intervals"},
		{"unknown interval field", test(`"w": {"kind": "weighted", "intervals": [{"min": 1, "max": 2, "p": 1, "q": 0}]}`), "tests.TestTransfer.inputs.w.intervals[0].q: unknown field, want min, max or p"},
		{"repeated field", `{"hang": "1s", "hang": "2s"}`, "x/interleave-stress.json:1:16: hang: repeated field"},
		{"repeated test", `{"tests": {"TestA": {}, "TestA": {}}}`, "x/interleave-stress.json:1:25: tests.TestA: repeated test"},
		{"repeated input", test(`"w": {"kind": "gaussian", "mean": 1, "sd": 1}, "w": {"kind": "gaussian", "mean": 1, "sd": 1}`), "tests.TestTransfer.inputs.w: repeated input"},
		{"wrong kind", test(`"w": {"kind": "poisson", "min": 1, "max": 2}`), "x/interleave-stress.json:1:54: tests.TestTransfer.inputs.w.kind: unknown kind \"poisson\", want uniform, gaussian, exponential or weighted"},
		{"kind not a string", test(`"w": {"kind": 1}`), "tests.TestTransfer.inputs.w.kind: got a number, want a string"},
		{"missing kind", test(`"w": {"min": 1, "max": 2}`), "x/interleave-stress.json: tests.TestTransfer.inputs.w: missing kind: want uniform, gaussian, exponential or weighted"},
		{"field of another kind", test(`"w": {"kind": "uniform", "min": 1, "max": 2, "mean": 1}`), "tests.TestTransfer.inputs.w.mean: a uniform distribution has no mean (it takes min and max)"},
		{"missing min", test(`"w": {"kind": "uniform", "max": 2}`), "x/interleave-stress.json: tests.TestTransfer.inputs.w: missing min (a uniform distribution takes min and max)"},
		{"missing sd", test(`"w": {"mean": 2, "kind": "gaussian"}`), "tests.TestTransfer.inputs.w: missing sd (a gaussian distribution takes mean and sd)"},
		{"missing p", test(`"w": {"kind": "weighted", "intervals": [{"min": 1, "max": 2}]}`), "x/interleave-stress.json: tests.TestTransfer.inputs.w.intervals[0]: missing p (an interval takes min, max and p)"},
		{"min > max", test(`"w": {"kind": "uniform", "min": 8, "max": 1}`), "x/interleave-stress.json: tests.TestTransfer.inputs.w: min 8 > max 1"},
		{"exponential min = max", test(`"w": {"kind": "exponential", "min": "1s", "max": "1000ms"}`), "tests.TestTransfer.inputs.w: min 1e+09 = max 1e+09: an exponential distribution needs min < max"},
		{"negative sd", test(`"w": {"kind": "gaussian", "mean": 1, "sd": -1}`), "tests.TestTransfer.inputs.w: sd -1 < 0"},
		{"probabilities", test(`"size": {"kind": "weighted", "intervals": [{"min": 1, "max": 10, "p": 0.9}, {"min": 100, "max": 1000, "p": 0.05}]}`), "x/interleave-stress.json: tests.TestTransfer.inputs.size: probabilities sum to 0.95, want 1"},
		{"no intervals", test(`"w": {"kind": "weighted", "intervals": []}`), "tests.TestTransfer.inputs.w: no intervals"},
		{"interval min > max", test(`"w": {"kind": "weighted", "intervals": [{"min": 10, "max": 1, "p": 1}]}`), "tests.TestTransfer.inputs.w: intervals[0]: min 10 > max 1"},
		{"p a string", test(`"w": {"kind": "weighted", "intervals": [{"min": 1, "max": 2, "p": "1"}]}`), "tests.TestTransfer.inputs.w.intervals[0].p: got a string, want a number in [0, 1]"},
		{"bad duration", test(`"w": {"kind": "exponential", "min": "1ms", "max": "50 ms"}`), "x/interleave-stress.json:1:90: tests.TestTransfer.inputs.w.max: time: unknown unit \" ms\" in duration \"50 ms\", want a number or a duration such as \"1ms\""},
		{"bool parameter", test(`"w": {"kind": "uniform", "min": true, "max": 1}`), "tests.TestTransfer.inputs.w.min: got a bool, want a number or a duration string such as \"1ms\""},
		{"number out of range", test(`"w": {"kind": "uniform", "min": 1, "max": 1e999}`), "tests.TestTransfer.inputs.w.max: number 1e999 is out of the range of float64"},
		{"bad hang", `{"hang": "30"}`, "x/interleave-stress.json:1:10: hang: time: missing unit in duration \"30\", want a duration such as \"30s\""},
		{"hang a number", `{"tests": {"TestA": {"hang": 30}}}`, "x/interleave-stress.json:1:30: tests.TestA.hang: got a number, want a duration string such as \"30s\""},
		{"hang not positive", `{"hang": "-1s"}`, "hang: -1s is not a positive duration"},
		{"combine on line 3", "{\n  \"tests\": {\n    \"TestA\": {\"combine\": 1}\n  }\n}", "x/interleave-stress.json:3:26: tests.TestA.combine: got a number, want true or false"},
		{"combine not a bool", `{"tests": {"TestA": {"combine": "yes"}}}`, "x/interleave-stress.json:1:33: tests.TestA.combine: got a string, want true or false"},
		{"fresh not a bool", `{"tests": {"TestA": {"fresh": "yes"}}}`, "x/interleave-stress.json:1:31: tests.TestA.fresh: got a string, want true or false"},
		{"tests not an object", `{"tests": ["TestA"]}`, "x/interleave-stress.json:1:11: tests: got an array, want an object of tests by name"},
		{"test not an object", `{"tests": {"TestA": null}}`, "tests.TestA: got null, want an object"},
		{"input not an object", test(`"w": "uniform"`), "tests.TestTransfer.inputs.w: got a string, want an object"},
		{"intervals not an array", test(`"w": {"kind": "weighted", "intervals": {}}`), "tests.TestTransfer.inputs.w.intervals: got an object, want an array"},
		{"bad test name", `{"tests": {"Transfer": {}}}`, "x/interleave-stress.json:1:12: tests.Transfer: \"Transfer\" is not the name of a Go test"},
		{"lower-case test name", `{"tests": {"Testtransfer": {}}}`, "tests.Testtransfer: \"Testtransfer\" is not the name of a Go test"},
		{"subtest name", `{"tests": {"TestA/b": {}}}`, "tests.\"TestA/b\": \"TestA/b\" is not the name of a Go test"},
		{"empty input name", test(`"": {"kind": "gaussian", "mean": 1, "sd": 1}`), "tests.TestTransfer.inputs.\"\": an input needs a name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseConfig("x/"+ConfigFile, []byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseConfig(%s) = %+v, %v\nwant error %q", tc.data, c, err, tc.want)
			}
			if c != nil {
				t.Errorf("ParseConfig returned a Config with its error")
			}
		})
	}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	c, err := LoadConfig(dir)
	if c != nil || err != nil {
		t.Fatalf("LoadConfig without a file = %v, %v, want nil, nil", c, err)
	}
	path := filepath.Join(dir, ConfigFile)
	if err := os.WriteFile(path, []byte(goodConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err = LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.Path != path || c.Hang != 30*time.Second || len(c.Tests) != 4 {
		t.Errorf("LoadConfig = %+v", c)
	}
	if err := os.WriteFile(path, []byte(`{"hang": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(dir); err == nil || !strings.HasPrefix(err.Error(), path+":1:10: hang: ") {
		t.Errorf("LoadConfig of a bad file: %v, want an error at %s:1:10", err, path)
	}
}
