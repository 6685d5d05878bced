package report

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

	"github.com/interleave-dev/interleave/cmd/interleave/internal/atomicfile"
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

type SARIFLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []SARIFRun `json:"runs"`
}

type SARIFRun struct {
	Tool               SARIFTool                      `json:"tool"`
	Invocations        []SARIFInvocation              `json:"invocations,omitempty"`
	OriginalURIBaseIDs map[string]SARIFArtifactLocURI `json:"originalUriBaseIds,omitempty"`
	Results            []SARIFResult                  `json:"results"`
}

type SARIFArtifactLocURI struct {
	URI string `json:"uri"`
}

type SARIFTool struct {
	Driver SARIFDriver `json:"driver"`
}

type SARIFDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []SARIFRule `json:"rules"`
}

type SARIFRule struct {
	ID                   string           `json:"id"`
	ShortDescription     SARIFMessage     `json:"shortDescription"`
	FullDescription      SARIFMessage     `json:"fullDescription"`
	HelpURI              string           `json:"helpUri,omitempty"`
	DefaultConfiguration SARIFRuleConfig  `json:"defaultConfiguration"`
	Properties           *SARIFProperties `json:"properties,omitempty"`
}

type SARIFRuleConfig struct {
	Level string `json:"level"`
}

type SARIFProperties map[string]any

type SARIFInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	CommandLine                string              `json:"commandLine,omitempty"`
	ToolExecutionNotifications []SARIFNotification `json:"toolExecutionNotifications,omitempty"`
}

// SARIFNotification is a condition of the tool's run: an interrupted run, a test cut at the
// step bound or abandoned outside the engine.
type SARIFNotification struct {
	Level   string       `json:"level"`
	Message SARIFMessage `json:"message"`
}

type SARIFMessage struct {
	Text string `json:"text"`
}

type SARIFResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             SARIFMessage      `json:"message"`
	Locations           []SARIFLocation   `json:"locations"`
	RelatedLocations    []SARIFLocation   `json:"relatedLocations,omitempty"`
	CodeFlows           []SARIFCodeFlow   `json:"codeFlows,omitempty"`
	Attachments         []SARIFAttachment `json:"attachments,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints,omitempty"`
	Properties          SARIFProperties   `json:"properties,omitempty"`
}

type SARIFLocation struct {
	ID               *int                   `json:"id,omitempty"`
	PhysicalLocation SARIFPhysicalLocation  `json:"physicalLocation"`
	Message          *SARIFMessage          `json:"message,omitempty"`
	LogicalLocations []SARIFLogicalLocation `json:"logicalLocations,omitempty"`
}

type SARIFLogicalLocation struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind,omitempty"`
}

type SARIFPhysicalLocation struct {
	ArtifactLocation SARIFArtifactLocation `json:"artifactLocation"`
	Region           *SARIFRegion          `json:"region,omitempty"`
}

type SARIFArtifactLocation struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type SARIFRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

type SARIFCodeFlow struct {
	Message     *SARIFMessage     `json:"message,omitempty"`
	ThreadFlows []SARIFThreadFlow `json:"threadFlows"`
}

type SARIFThreadFlow struct {
	ID        string                    `json:"id,omitempty"`
	Message   *SARIFMessage             `json:"message,omitempty"`
	Locations []SARIFThreadFlowLocation `json:"locations"`
}

type SARIFThreadFlowLocation struct {
	Location     SARIFLocation `json:"location"`
	NestingLevel int           `json:"nestingLevel"`
}

type SARIFAttachment struct {
	Description      SARIFMessage          `json:"description"`
	ArtifactLocation SARIFArtifactLocation `json:"artifactLocation"`
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

// SARIF makes the SARIF log of a run's outcomes; root is the module root (%SRCROOT%).
//
// command is the command line that made the outcomes (interleave test …, interleave merge …).
func SARIF(cfg *Config, outcomes []Outcome, root string, command []string, success bool) *SARIFLog {
	run := SARIFRun{
		Tool: SARIFTool{Driver: SARIFDriver{Name: "interleave", Version: toolVersion(),
			InformationURI: "https://github.com/interleave-dev/interleave"}},
		Invocations: []SARIFInvocation{{ExecutionSuccessful: success, CommandLine: strings.Join(command, " ")}},
		Results:     []SARIFResult{},
	}
	if cfg.Interrupted != "" {
		// Not a run that found nothing: a run stopped before it explored everything.
		incomplete := 0
		for _, o := range outcomes {
			if o.Interrupted {
				incomplete++
			}
		}
		inv := &run.Invocations[0]
		inv.ExecutionSuccessful = false
		inv.ToolExecutionNotifications = []SARIFNotification{{Level: "error", Message: SARIFMessage{fmt.Sprintf(
			"interrupted (signal: %s): %d test(s) not explored to the end; the results are incomplete", cfg.Interrupted, incomplete)}}}
	}
	// A test cut at the step bound or abandoned outside the engine found nothing because it
	// was not explored as asked: a warning of the run, with why.
	for _, o := range outcomes {
		if o.Status == StatusCut || o.Status == StatusAbandoned {
			inv := &run.Invocations[0]
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, SARIFNotification{Level: "warning",
				Message: SARIFMessage{fmt.Sprintf("%s (%s) %s: %s", o.Test, o.Package, o.Status, o.Reason)}})
		}
	}
	if root != "" {
		run.OriginalURIBaseIDs = map[string]SARIFArtifactLocURI{"%SRCROOT%": {URI: fileURI(root) + "/"}}
	}
	// rule returns the index of rule id in the run, adding the rule when it is first used.
	ruleIndex := map[string]int{}
	rule := func(id string) int {
		if i, ok := ruleIndex[id]; ok {
			return i
		}
		r := SARIFRule{ID: id, ShortDescription: SARIFMessage{id},
			FullDescription: SARIFMessage{"A bug of kind " + id + " interleave found."}, DefaultConfiguration: SARIFRuleConfig{Level: "error"}}
		if i := slices.IndexFunc(sarifRules, func(k sarifRuleKind) bool { return k.id == id }); i >= 0 {
			k := sarifRules[i]
			r.ShortDescription, r.FullDescription, r.DefaultConfiguration.Level = SARIFMessage{k.short}, SARIFMessage{k.full}, k.level
			r.HelpURI = "https://github.com/interleave-dev/interleave/blob/main/docs/bugs.md"
			if id == "data-race" {
				r.HelpURI = "https://github.com/interleave-dev/interleave/blob/main/docs/races.md#data-races"
			}
		}
		ruleIndex[id] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, r)
		return ruleIndex[id]
	}
	raceLevel := "warning"
	if cfg.Races == "fail" {
		raceLevel = "error"
	}
	for _, o := range outcomes {
		e := o.Result
		if e == nil {
			continue
		}
		if b := e.Bug; b != nil {
			r := SARIFResult{RuleID: b.Kind, RuleIndex: rule(b.Kind), Level: "error",
				Message:    SARIFMessage{fmt.Sprintf("%s in %s (%s): %s", b.Kind, o.Test, o.Package, firstLine(b.Message))},
				Locations:  []SARIFLocation{sarifLoc(root, b.Position, "")},
				Properties: SARIFProperties{"test": o.Test, "package": o.Package, "schedules": e.Schedules, "preemptions": b.Preemptions}}
			if b.Schedule != "" {
				r.Attachments = []SARIFAttachment{{Description: SARIFMessage{"the schedule; replay it with: interleave replay " + b.Schedule},
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
			run.Results = append(run.Results, SARIFResult{RuleID: "data-race", RuleIndex: rule("data-race"), Level: raceLevel,
				Message: SARIFMessage{fmt.Sprintf("data race in %s (%s): %s at %s (G%d) and [%s at %s](2) (G%d), seen in %d schedule(s)",
					o.Test, o.Package, rc.A.Op, rc.A.Pos, rc.A.Goroutine, rc.B.Op, rc.B.Pos, rc.B.Goroutine, rc.Schedules)},
				Locations:           []SARIFLocation{a},
				RelatedLocations:    []SARIFLocation{b},
				CodeFlows:           []SARIFCodeFlow{{ThreadFlows: []SARIFThreadFlow{threadFlow(root, rc.A), threadFlow(root, rc.B)}}},
				PartialFingerprints: map[string]string{"interleave/racePair/v1": hex.EncodeToString(sum[:16])},
				Properties:          SARIFProperties{"test": o.Test, "package": o.Package, "schedules": rc.Schedules, "firstSchedule": rc.FirstSchedule}})
		}
	}
	if run.Tool.Driver.Rules == nil {
		run.Tool.Driver.Rules = []SARIFRule{}
	}
	return &SARIFLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []SARIFRun{run}}
}

// threadFlow is one goroutine's side of a race: its stack at the access, outermost frame
// first, ending at the access.
func threadFlow(root string, a findings.Access) SARIFThreadFlow {
	tf := SARIFThreadFlow{ID: "G" + strconv.Itoa(a.Goroutine), Message: &SARIFMessage{fmt.Sprintf("G%d %s", a.Goroutine, a.Op)}}
	if a.Created != "" {
		tf.Message.Text += ", started at " + a.Created
	}
	for i := len(a.Stack) - 1; i >= 0; i-- {
		fr := a.Stack[i]
		loc := SARIFLocation{PhysicalLocation: SARIFPhysicalLocation{ArtifactLocation: sarifArtifact(root, fr.File), Region: &SARIFRegion{StartLine: max(fr.Line, 1)}},
			LogicalLocations: []SARIFLogicalLocation{{FullyQualifiedName: fr.Func, Kind: "function"}}}
		tf.Locations = append(tf.Locations, SARIFThreadFlowLocation{Location: loc, NestingLevel: len(a.Stack) - 1 - i})
	}
	// The access itself ends the flow (the innermost frame names its line, the access its
	// column too).
	last := sarifLoc(root, a.Pos, fmt.Sprintf("%s by G%d", a.Op, a.Goroutine))
	tf.Locations = append(tf.Locations, SARIFThreadFlowLocation{Location: last, NestingLevel: len(a.Stack)})
	return tf
}

// sarifLoc is the location of a "file:line[:col]" position, file relative to the module root
// or absolute.
func sarifLoc(root, pos, msg string) SARIFLocation {
	file, line, col, _ := findings.ParsePos(pos)
	loc := SARIFLocation{PhysicalLocation: SARIFPhysicalLocation{ArtifactLocation: sarifArtifact(root, file), Region: &SARIFRegion{StartLine: max(line, 1)}}}
	if col > 0 {
		loc.PhysicalLocation.Region.StartColumn = col
	}
	if msg != "" {
		loc.Message = &SARIFMessage{msg}
	}
	return loc
}

// sarifArtifact names a file: relative to %SRCROOT% when it is in the module, else by its
// absolute file URI.
func sarifArtifact(root, file string) SARIFArtifactLocation {
	if filepath.IsAbs(file) {
		if rel, err := filepath.Rel(root, file); root != "" && err == nil && !strings.HasPrefix(rel, "..") {
			return SARIFArtifactLocation{URI: (&url.URL{Path: filepath.ToSlash(rel)}).String(), URIBaseID: "%SRCROOT%"}
		}
		return SARIFArtifactLocation{URI: fileURI(file)}
	}
	return SARIFArtifactLocation{URI: (&url.URL{Path: filepath.ToSlash(file)}).String(), URIBaseID: "%SRCROOT%"}
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

// WriteSARIF writes the log to path whole.
func WriteSARIF(path string, l *SARIFLog) error {
	b, err := json.MarshalIndent(l, "", "  ")
	if err == nil {
		err = atomicfile.Write(path, append(b, '\n'))
	}
	if err != nil {
		return fmt.Errorf("-sarif %s: %w", path, err)
	}
	return nil
}

// firstLine is the first line of s, without the spaces around it.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
