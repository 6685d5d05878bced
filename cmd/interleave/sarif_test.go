package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/report"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.lsp.dev/uri"
)

// TestSARIF runs interleave test -sarif on a package with a bug and a race, validates the log
// against the official SARIF 2.1.0 schema, and checks what a code-scanning system reads: the
// bug at its position with its schedule attached, the race with both accesses and a thread flow
// per goroutine, a rule for every rule id, module files relative to %SRCROOT%.
func TestSARIF(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	dir := writeModule(t, map[string]string{"m_test.go": junitTests})
	logPath := filepath.Join(t.TempDir(), "results.sarif")
	code, out, errOut := interleaveIn(t, dir, nil, "test", "-sarif", logPath, "-schedules", "500", "-minimize", "0", ".")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a bug)\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	l := readSARIF(t, logPath)
	if l.Version != "2.1.0" || len(l.Runs) != 1 {
		t.Fatalf("version %q, %d runs", l.Version, len(l.Runs))
	}
	run := l.Runs[0]
	if root := run.OriginalURIBaseIDs["%SRCROOT%"].URI; root != string(uri.File(dir))+"/" {
		t.Errorf("%%SRCROOT%% is %q, want the module root %q", root, string(uri.File(dir))+"/")
	}
	rules := map[string]int{}
	for i, r := range run.Tool.Driver.Rules {
		rules[r.ID] = i
	}
	var bug, race *report.SARIFResult
	for i := range run.Results {
		r := &run.Results[i]
		if i, ok := rules[r.RuleID]; !ok || i != r.RuleIndex {
			t.Errorf("result of rule %s: index %d, rules %v", r.RuleID, r.RuleIndex, rules)
		}
		switch {
		case r.RuleID == "fail" && r.Properties["test"] == "TestLostUpdate":
			bug = r
		case r.RuleID == "data-race" && r.Properties["test"] == "TestRacyFlag":
			race = r
		}
	}
	if bug == nil || race == nil {
		t.Fatalf("want a fail result of TestLostUpdate and a data-race result of TestRacyFlag:\n%+v", run)
	}
	if loc := bug.Locations[0].PhysicalLocation; bug.Level != "error" || loc.ArtifactLocation.URI != "m_test.go" ||
		loc.ArtifactLocation.URIBaseID != "%SRCROOT%" || loc.Region.StartLine < 1 || !strings.Contains(bug.Message.Text, "n = 1, want 2") {
		t.Errorf("the bug: %+v", bug)
	}
	if len(bug.Attachments) != 1 || !strings.Contains(bug.Attachments[0].Description.Text, "interleave replay ") ||
		!strings.HasPrefix(bug.Attachments[0].ArtifactLocation.URI, ".interleave/schedules/") {
		t.Errorf("the bug's schedule attachment: %+v", bug.Attachments)
	} else if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(bug.Attachments[0].ArtifactLocation.URI))); err != nil {
		t.Errorf("the attached schedule: %v", err)
	}
	if race.Level != "warning" || len(race.Locations) != 1 || len(race.RelatedLocations) != 1 || race.PartialFingerprints["interleave/racePair/v1"] == "" {
		t.Errorf("the race: %+v", race)
	}
	if len(race.CodeFlows) != 1 || len(race.CodeFlows[0].ThreadFlows) != 2 {
		t.Fatalf("the race's code flows: %+v", race.CodeFlows)
	}
	for i, tf := range race.CodeFlows[0].ThreadFlows {
		access := []report.SARIFLocation{race.Locations[0], race.RelatedLocations[0]}[i]
		if len(tf.Locations) < 2 {
			t.Errorf("thread flow %s: %d locations, want the stack and the access", tf.ID, len(tf.Locations))
			continue
		}
		last := tf.Locations[len(tf.Locations)-1].Location.PhysicalLocation
		if last.ArtifactLocation != access.PhysicalLocation.ArtifactLocation || last.Region.StartLine != access.PhysicalLocation.Region.StartLine {
			t.Errorf("thread flow %s ends at %+v, want its access %+v", tf.ID, last, access.PhysicalLocation)
		}
	}
}

// readSARIF reads a SARIF log and validates it against the OASIS SARIF 2.1.0 schema.
func readSARIF(t *testing.T, path string) *report.SARIFLog {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	schema, err := c.Compile("testdata/sarif/sarif-2.1.0-rtm.5.json")
	if err != nil {
		t.Fatalf("the SARIF schema: %v", err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(inst); err != nil {
		t.Fatalf("%s does not validate against SARIF 2.1.0:\n%v\n%s", path, err, data)
	}
	var l report.SARIFLog
	if err := json.Unmarshal(data, &l); err != nil {
		t.Fatal(err)
	}
	return &l
}
