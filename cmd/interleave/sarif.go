package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"go.lsp.dev/uri"

	"github.com/interleave-dev/interleave/engine/findings"
)

// The SARIF 2.1.0 log of interleave test -sarif, for code-scanning systems (GitHub code
// scanning, Azure DevOps, the SARIF viewers): one run whose tool is interleave, a rule per kind
// of finding reported (each bug kind, and data-race), and a result per finding:
//
//   - a bug is an error-level result at the bug's position, with the test in its message and
//     properties, and the schedule file that replays it as an attachment;
//   - a data race (from the test's findings document) is a warning — an error under
//     -races=fail — located at its first access, with the second as a related location and a
//     code flow of two thread flows, one per goroutine, each the goroutine's stack at its access
//     from the outermost frame to the access. partialFingerprints hold a hash of the two
//     positions, in either order, so that a code-scanning system sees the same race in the next
//     run as the same alert.
//
// Positions in the module are relative to the uriBaseId %SRCROOT% (the module root, given in
// originalUriBaseIds); others are absolute file URIs.

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                      `json:"tool"`
	Invocations        []sarifInvocation              `json:"invocations,omitempty"`
	OriginalURIBaseIDs map[string]sarifArtifactLocURI `json:"originalUriBaseIds,omitempty"`
	Results            []sarifResult                  `json:"results"`
}

type sarifArtifactLocURI struct {
	URI string `json:"uri"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string           `json:"id"`
	ShortDescription     sarifMessage     `json:"shortDescription"`
	FullDescription      sarifMessage     `json:"fullDescription"`
	HelpURI              string           `json:"helpUri,omitempty"`
	DefaultConfiguration sarifRuleConfig  `json:"defaultConfiguration"`
	Properties           *sarifProperties `json:"properties,omitempty"`
}

type sarifRuleConfig struct {
	Level string `json:"level"`
}

type sarifProperties map[string]any

type sarifInvocation struct {
	ExecutionSuccessful bool   `json:"executionSuccessful"`
	CommandLine         string `json:"commandLine,omitempty"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifMessage      `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	RelatedLocations    []sarifLocation   `json:"relatedLocations,omitempty"`
	CodeFlows           []sarifCodeFlow   `json:"codeFlows,omitempty"`
	Attachments         []sarifAttachment `json:"attachments,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints,omitempty"`
	Properties          sarifProperties   `json:"properties,omitempty"`
}

type sarifLocation struct {
	ID               *int                   `json:"id,omitempty"`
	PhysicalLocation sarifPhysicalLocation  `json:"physicalLocation"`
	Message          *sarifMessage          `json:"message,omitempty"`
	LogicalLocations []sarifLogicalLocation `json:"logicalLocations,omitempty"`
}

type sarifLogicalLocation struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegion          `json:"region,omitempty"`
}

type sarifArtifactLocation struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

type sarifCodeFlow struct {
	Message     *sarifMessage     `json:"message,omitempty"`
	ThreadFlows []sarifThreadFlow `json:"threadFlows"`
}

type sarifThreadFlow struct {
	ID        string                    `json:"id,omitempty"`
	Message   *sarifMessage             `json:"message,omitempty"`
	Locations []sarifThreadFlowLocation `json:"locations"`
}

type sarifThreadFlowLocation struct {
	Location     sarifLocation `json:"location"`
	NestingLevel int           `json:"nestingLevel"`
}

type sarifAttachment struct {
	Description      sarifMessage          `json:"description"`
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
}

// sarifRuleKind describes one kind of finding: its rule id, descriptions and level.
type sarifRuleKind struct{ id, short, full, level string }

// sarifRules describes every kind of finding interleave reports, by rule id.
var sarifRules = []sarifRuleKind{
	{"data-race", "Data race", "Two goroutines access the same memory, at least one of them writing, with no synchronization ordering the accesses (happens-before, vector clocks), in a schedule interleave explored.", "warning"},
	{"deadlock", "Deadlock", "Every goroutine of the test is blocked (or goroutines wait for each other's locks in a cycle) under a schedule interleave found; the schedule file replays it.", "error"},
	{"leak", "Goroutine leak", "The test returned while goroutines stayed blocked forever under a schedule interleave found; the schedule file replays it.", "error"},
	{"panic", "Panic", "A goroutine panicked under a schedule interleave found; the schedule file replays it.", "error"},
	{"fail", "Test failure", "The test failed (t.Error, t.Fatal) under a schedule interleave found; the schedule file replays it.", "error"},
	{"livelock", "Livelock", "Goroutines kept running without making progress under a schedule interleave found; the schedule file replays it.", "error"},
	{"race", "Data race (as a failure)", "A data race made the schedule fail (-races=fail); the schedule file replays it.", "error"},
}

// sarifReport makes the SARIF log of a run's outcomes; root is the module root (%SRCROOT%).
//
// command is the command line that made the outcomes (interleave test …, interleave merge …).
func sarifReport(f *testFlags, outcomes []testOutcome, root string, command []string, success bool) *sarifLog {
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{Name: "interleave", Version: toolVersion(),
			InformationURI: "https://github.com/interleave-dev/interleave"}},
		Invocations: []sarifInvocation{{ExecutionSuccessful: success, CommandLine: strings.Join(command, " ")}},
		Results:     []sarifResult{},
	}
	if root != "" {
		run.OriginalURIBaseIDs = map[string]sarifArtifactLocURI{"%SRCROOT%": {URI: fileURI(root) + "/"}}
	}
	// rule returns the index of rule id in the run, adding the rule when it is first used.
	ruleIndex := map[string]int{}
	rule := func(id string) int {
		if i, ok := ruleIndex[id]; ok {
			return i
		}
		r := sarifRule{ID: id, ShortDescription: sarifMessage{id},
			FullDescription: sarifMessage{"A bug of kind " + id + " interleave found."}, DefaultConfiguration: sarifRuleConfig{Level: "error"}}
		if i := slices.IndexFunc(sarifRules, func(k sarifRuleKind) bool { return k.id == id }); i >= 0 {
			k := sarifRules[i]
			r.ShortDescription, r.FullDescription, r.DefaultConfiguration.Level = sarifMessage{k.short}, sarifMessage{k.full}, k.level
			r.HelpURI = "https://github.com/interleave-dev/interleave#interleave-test"
			if id == "data-race" {
				r.HelpURI = "https://github.com/interleave-dev/interleave#data-races"
			}
		}
		ruleIndex[id] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, r)
		return ruleIndex[id]
	}
	raceLevel := "warning"
	if f.races == "fail" {
		raceLevel = "error"
	}
	for _, o := range outcomes {
		e := o.Result
		if e == nil {
			continue
		}
		if b := e.Bug; b != nil {
			r := sarifResult{RuleID: b.Kind, RuleIndex: rule(b.Kind), Level: "error",
				Message:    sarifMessage{fmt.Sprintf("%s in %s (%s): %s", b.Kind, o.Test, o.Package, firstLine(b.Message))},
				Locations:  []sarifLocation{sarifLoc(root, b.Position, "")},
				Properties: sarifProperties{"test": o.Test, "package": o.Package, "schedules": e.Schedules, "preemptions": b.Preemptions}}
			if b.Schedule != "" {
				r.Attachments = []sarifAttachment{{Description: sarifMessage{"the schedule; replay it with: interleave replay " + b.Schedule},
					ArtifactLocation: sarifArtifact(root, b.Schedule)}}
			}
			run.Results = append(run.Results, r)
		}
		if e.Findings == "" || e.Races == 0 {
			continue
		}
		doc, err := findings.Load(e.Findings)
		if err != nil {
			continue // said on the output already, by the races line
		}
		races := slices.Clone(doc.Races)
		slices.SortFunc(races, func(a, b findings.Race) int { return strings.Compare(a.Key(), b.Key()) })
		for _, rc := range races {
			one, two := 1, 2
			a := sarifLoc(root, rc.A.Pos, fmt.Sprintf("%s by G%d", rc.A.Op, rc.A.Goroutine))
			b := sarifLoc(root, rc.B.Pos, fmt.Sprintf("%s by G%d", rc.B.Op, rc.B.Goroutine))
			a.ID, b.ID = &one, &two
			sum := sha256.Sum256([]byte(rc.Key()))
			run.Results = append(run.Results, sarifResult{RuleID: "data-race", RuleIndex: rule("data-race"), Level: raceLevel,
				Message: sarifMessage{fmt.Sprintf("data race in %s (%s): %s at %s (G%d) and [%s at %s](2) (G%d), seen in %d schedule(s)",
					o.Test, o.Package, rc.A.Op, rc.A.Pos, rc.A.Goroutine, rc.B.Op, rc.B.Pos, rc.B.Goroutine, rc.Schedules)},
				Locations:           []sarifLocation{a},
				RelatedLocations:    []sarifLocation{b},
				CodeFlows:           []sarifCodeFlow{{ThreadFlows: []sarifThreadFlow{threadFlow(root, rc.A), threadFlow(root, rc.B)}}},
				PartialFingerprints: map[string]string{"interleave/racePair/v1": hex.EncodeToString(sum[:16])},
				Properties:          sarifProperties{"test": o.Test, "package": o.Package, "schedules": rc.Schedules, "firstSchedule": rc.FirstSchedule}})
		}
	}
	if run.Tool.Driver.Rules == nil {
		run.Tool.Driver.Rules = []sarifRule{}
	}
	return &sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}}
}

// threadFlow is one goroutine's side of a race: its stack at the access, outermost frame
// first, ending at the access.
func threadFlow(root string, a findings.Access) sarifThreadFlow {
	tf := sarifThreadFlow{ID: "G" + strconv.Itoa(a.Goroutine), Message: &sarifMessage{fmt.Sprintf("G%d %s", a.Goroutine, a.Op)}}
	if a.Created != "" {
		tf.Message.Text += ", started at " + a.Created
	}
	for i := len(a.Stack) - 1; i >= 0; i-- {
		fr := a.Stack[i]
		loc := sarifLocation{PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: sarifArtifact(root, fr.File), Region: &sarifRegion{StartLine: max(fr.Line, 1)}},
			LogicalLocations: []sarifLogicalLocation{{FullyQualifiedName: fr.Func, Kind: "function"}}}
		tf.Locations = append(tf.Locations, sarifThreadFlowLocation{Location: loc, NestingLevel: len(a.Stack) - 1 - i})
	}
	// The access itself ends the flow (the innermost frame names its line, the access its
	// column too).
	last := sarifLoc(root, a.Pos, fmt.Sprintf("%s by G%d", a.Op, a.Goroutine))
	tf.Locations = append(tf.Locations, sarifThreadFlowLocation{Location: last, NestingLevel: len(a.Stack)})
	return tf
}

// sarifLoc is the location of a "file:line[:col]" position, file relative to the module root
// or absolute.
func sarifLoc(root, pos, msg string) sarifLocation {
	file, line, col, _ := findings.ParsePos(pos)
	loc := sarifLocation{PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: sarifArtifact(root, file), Region: &sarifRegion{StartLine: max(line, 1)}}}
	if col > 0 {
		loc.PhysicalLocation.Region.StartColumn = col
	}
	if msg != "" {
		loc.Message = &sarifMessage{msg}
	}
	return loc
}

// sarifArtifact names a file: relative to %SRCROOT% when it is in the module, else by its
// absolute file URI.
func sarifArtifact(root, file string) sarifArtifactLocation {
	if filepath.IsAbs(file) {
		if rel, err := filepath.Rel(root, file); root != "" && err == nil && !strings.HasPrefix(rel, "..") {
			return sarifArtifactLocation{URI: (&url.URL{Path: filepath.ToSlash(rel)}).String(), URIBaseID: "%SRCROOT%"}
		}
		return sarifArtifactLocation{URI: fileURI(file)}
	}
	return sarifArtifactLocation{URI: (&url.URL{Path: filepath.ToSlash(file)}).String(), URIBaseID: "%SRCROOT%"}
}

// fileURI is the file URI of an absolute path.
func fileURI(path string) string { return string(uri.File(path)) }

// toolVersion is the interleave module's version, as the go command recorded it; a
// development build ("(devel)") is 0.0.0-devel, with its commit when the build recorded one, so
// that consumers that compare versions can (SARIF2005).
func toolVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "0.0.0-devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return strings.TrimPrefix(v, "v")
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "0.0.0-devel+" + s.Value[:12]
		}
	}
	return "0.0.0-devel"
}

// writeSARIF writes the log to path whole.
func writeSARIF(path string, l *sarifLog) error {
	b, err := json.MarshalIndent(l, "", "  ")
	if err == nil {
		err = writeFileAtomic(path, append(b, '\n'))
	}
	if err != nil {
		return fmt.Errorf("-sarif %s: %w", path, err)
	}
	return nil
}
