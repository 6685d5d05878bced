package main

import (
	"encoding/xml"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The JUnit XML report of interleave test -junit, for CI systems that show test results from
// it (Jenkins, GitLab, Azure Pipelines, GitHub Actions' test reporters): one testsuite per
// package, one testcase per test explored. A bug is a failure whose type is its kind (deadlock,
// leak, race, …) and whose text is the report with the schedule to replay; a test that could not
// be explored is an error; a skipped test is skipped. Races, which are findings and not
// failures, and notices go to the test's system-out, with the exploration's summary. The
// format is the one JUnit's Ant task writes and CI systems read (testsuites/testsuite/testcase
// with failure, error, skipped, system-out).

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure"`
	Error     *junitProblem `xml:"error"`
	Skipped   *junitProblem `xml:"skipped"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr,omitempty"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// junitReport turns the outcomes of a run into the report.
func junitReport(f *testFlags, outcomes []testOutcome, started time.Time) *junitSuites {
	seconds := func(s float64) string { return strconv.FormatFloat(s, 'f', 3, 64) }
	props := []junitProperty{{"strategy", f.strategy}, {"seed", strconv.FormatUint(f.seed, 10)}, {"schedules", strconv.Itoa(f.schedules)}, {"points", f.points}}
	for _, k := range slices.Sorted(maps.Keys(f.params)) {
		props = append(props, junitProperty{f.strategy + "." + k, f.params[k]})
	}
	r := &junitSuites{Name: "interleave test"}
	index := map[string]int{}
	var total float64
	for _, o := range outcomes {
		i, ok := index[o.Package]
		if !ok {
			i = len(r.Suites)
			index[o.Package] = i
			r.Suites = append(r.Suites, junitSuite{Name: o.Package, Timestamp: started.UTC().Format(time.RFC3339), Properties: props})
		}
		s := &r.Suites[i]
		c := junitCase{Name: o.Test, Classname: o.Package, Time: seconds(0)}
		e := o.Result
		switch {
		case o.Err != "":
			c.Error = &junitProblem{Message: o.Err, Type: "interleave"}
			s.Errors++
		case e == nil:
			c.Error = &junitProblem{Message: "no result", Type: "interleave"}
			s.Errors++
		case e.Bug != nil:
			c.Failure = &junitProblem{Message: fmt.Sprintf("%s at %s: %s", e.Bug.Kind, e.Bug.Position, e.Bug.Message), Type: e.Bug.Kind,
				Text: strings.TrimRight(e.Report, "\n") + fmt.Sprintf("\n\nfound after %d schedule(s) by %s\nschedule: %s\nreplay:   interleave replay %s\n",
					e.Schedules, e.Strategy, e.Bug.Schedule, e.Bug.Schedule)}
			s.Failures++
		case e.Stopped == "skipped":
			c.Skipped = &junitProblem{Message: "the test skipped itself"}
			s.Skipped++
		}
		if e != nil {
			c.Time = seconds(e.Elapsed)
			total += e.Elapsed
			var out strings.Builder
			if e.Bug == nil && e.Stopped != "skipped" {
				fmt.Fprintf(&out, "no bug in %d schedules, %d distinct interleavings (%s)", e.Schedules, e.Interleavings, e.Strategy)
				if e.Exhausted != "" {
					out.WriteString(": " + e.Exhausted)
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

// writeJUnit writes the report to path whole, so that a reader never sees half a report.
func writeJUnit(path string, r *junitSuites) error {
	b, err := xml.MarshalIndent(r, "", "  ")
	if err == nil {
		err = writeFileAtomic(path, append([]byte(xml.Header), append(b, '\n')...))
	}
	if err != nil {
		return fmt.Errorf("-junit %s: %w", path, err)
	}
	return nil
}
