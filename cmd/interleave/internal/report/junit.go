package report

import (
	"encoding/xml"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/atomicfile"
)

// The JUnit XML report of interleave test -junit, for CI systems that show test results from
// it (Jenkins, GitLab, Azure Pipelines, GitHub Actions' test reporters): one testsuite per
// package, one testcase per test explored. A bug is a failure whose type is its kind (deadlock,
// leak, race, …) and whose text is the report with the schedule to replay; a test that could not
// be explored is an error; a skipped test is skipped, and so is a test cut at the step bound or
// abandoned outside the engine, with its status and why as the message. Races, which are findings and not
// failures, and notices go to the test's system-out, with the exploration's summary. The
// format is the one JUnit's Ant task writes and CI systems read (testsuites/testsuite/testcase
// with failure, error, skipped, system-out).

type JUnitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []JUnitSuite `xml:"testsuite"`
}

type JUnitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Properties []JUnitProperty `xml:"properties>property"`
	Cases      []JUnitCase     `xml:"testcase"`
}

type JUnitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type JUnitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *JUnitProblem `xml:"failure"`
	Error     *JUnitProblem `xml:"error"`
	Skipped   *JUnitProblem `xml:"skipped"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type JUnitProblem struct {
	Message string `xml:"message,attr,omitempty"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// JUnit turns the outcomes of a run into the report.
func JUnit(cfg *Config, outcomes []Outcome, started time.Time) *JUnitSuites {
	seconds := func(s float64) string { return strconv.FormatFloat(s, 'f', 3, 64) }
	props := []JUnitProperty{{"strategy", cfg.Strategy}, {"seed", strconv.FormatUint(cfg.Seed, 10)}, {"schedules", strconv.Itoa(cfg.Schedules)}, {"points", cfg.Points}}
	for _, k := range slices.Sorted(maps.Keys(cfg.Params)) {
		props = append(props, JUnitProperty{cfg.Strategy + "." + k, cfg.Params[k]})
	}
	if cfg.Interrupted != "" {
		// A run a signal stopped is not a pass: its incomplete tests are errors.
		props = append(props, JUnitProperty{"interrupted", "signal: " + cfg.Interrupted})
	}
	r := &JUnitSuites{Name: "interleave test"}
	index := map[string]int{}
	var total float64
	for _, o := range outcomes {
		i, ok := index[o.Package]
		if !ok {
			i = len(r.Suites)
			index[o.Package] = i
			r.Suites = append(r.Suites, JUnitSuite{Name: o.Package, Timestamp: started.UTC().Format(time.RFC3339), Properties: props})
		}
		s := &r.Suites[i]
		c := JUnitCase{Name: o.Test, Classname: o.Package, Time: seconds(0)}
		e := o.Result
		switch {
		case o.Err != "" && o.Interrupted:
			c.Error = &JUnitProblem{Message: o.Err, Type: "interrupted"}
			s.Errors++
		case o.Err != "":
			c.Error = &JUnitProblem{Message: o.Err, Type: "interleave"}
			s.Errors++
		case e == nil:
			c.Error = &JUnitProblem{Message: "no result", Type: "interleave"}
			s.Errors++
		case e.Bug != nil:
			c.Failure = &JUnitProblem{Message: fmt.Sprintf("%s at %s: %s", e.Bug.Kind, e.Bug.Position, e.Bug.Message), Type: e.Bug.Kind,
				Text: strings.TrimRight(e.Report, "\n") + fmt.Sprintf("\n\nfound after %d schedule(s) by %s\nschedule: %s\nreplay:   interleave replay %s\n",
					e.Schedules, e.Strategy, e.Bug.Schedule, e.Bug.Schedule)}
			s.Failures++
		case e.Stopped == "skipped":
			c.Skipped = &JUnitProblem{Message: "the test skipped itself"}
			s.Skipped++
		case o.Status == StatusCut || o.Status == StatusAbandoned:
			// Not a pass: skipped, with why, as CI systems show a skipped test's message.
			c.Skipped = &JUnitProblem{Message: o.Status + ": " + o.Reason}
			s.Skipped++
		}
		if e != nil {
			c.Time = seconds(e.Elapsed)
			total += e.Elapsed
			var out strings.Builder
			if e.Bug == nil && e.Stopped != "skipped" {
				before := ""
				if o.Interrupted {
					before = " before the run was interrupted"
				}
				fmt.Fprintf(&out, "no bug in %d schedules%s, %d distinct interleavings (%s)", e.Schedules, before, e.Interleavings, e.Strategy)
				if e.Exhausted != "" {
					out.WriteString(": " + e.Exhausted)
				}
				if p := PlateauText(e); p != "" {
					out.WriteString(": " + p)
				}
				out.WriteString("\n")
			}
			if e.Races > 0 {
				fmt.Fprintf(&out, "%d data race(s), findings not failures: %s (interleave races shows them)\n", e.Races, e.Findings)
			}
			if e.Notice != "" {
				out.WriteString("notice: " + e.Notice + "\n")
			}
			c.SystemOut = out.String()
		}
		s.Cases = append(s.Cases, c)
		s.Tests++
	}
	for i := range r.Suites {
		s := &r.Suites[i]
		var t float64
		for _, c := range s.Cases {
			v, _ := strconv.ParseFloat(c.Time, 64)
			t += v
		}
		s.Time = seconds(t)
		r.Tests += s.Tests
		r.Failures += s.Failures
		r.Errors += s.Errors
		r.Skipped += s.Skipped
	}
	r.Time = seconds(total)
	return r
}

// WriteJUnit writes the report to path whole, so that a reader never sees half a report.
func WriteJUnit(path string, r *JUnitSuites) error {
	b, err := xml.MarshalIndent(r, "", "  ")
	if err == nil {
		err = atomicfile.Write(path, append([]byte(xml.Header), append(b, '\n')...))
	}
	if err != nil {
		return fmt.Errorf("-junit %s: %w", path, err)
	}
	return nil
}
