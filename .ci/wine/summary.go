// Command summary reads the test2json events of Windows test binaries run under Wine (on
// stdin, one package after another, each ending with its package-level pass or fail) and
// prints one line per package and a summary line. A test whose only errors are the testing
// package's "TempDir RemoveAll cleanup: unlinkat …: Invalid function." is counted apart:
// Wine 8 does not implement the POSIX-semantics delete (FileDispositionInformationEx) that
// os.RemoveAll uses since Go 1.25, so every test that writes a file in t.TempDir fails its
// cleanup there, on Windows it does not. The tests listed in the known-failures file (with
// why) are counted apart too. Exit status 1 if any other test failed, or a listed one passed.
//
// Usage: go run .ci/wine/summary.go .ci/wine/known-failures.txt < events.json
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

var (
	message = regexp.MustCompile(`^\s+\S+\.go:\d+: `)
	cleanup = regexp.MustCompile(`^\s+testing\.go:\d+: TempDir RemoveAll cleanup: .*: Invalid function\.`)
	crash   = regexp.MustCompile(`^(panic: |fatal error: |\*\*\* Test killed|panic: test timed out)`)
)

// readKnown reads the known-failures file: "package test  # reason" per line.
func readKnown(path string) map[string]bool {
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	known := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		line, _, _ = strings.Cut(line, "#")
		if f := strings.Fields(line); len(f) == 2 {
			known[f[0]+" "+f[1]] = true
		}
	}
	return known
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run .ci/wine/summary.go known-failures.txt < events.json")
		os.Exit(2)
	}
	known := readKnown(os.Args[1])
	type pkgState struct {
		pass, skip, fail, wineOnly, known int
		failed                            []string
		output                            map[string][]string
		crashed                           bool
		done                              bool
		result                            string
	}
	pkgs := map[string]*pkgState{}
	var order []string
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	for in.Scan() {
		var e event
		if json.Unmarshal(in.Bytes(), &e) != nil {
			continue
		}
		p := pkgs[e.Package]
		if p == nil {
			p = &pkgState{output: map[string][]string{}}
			pkgs[e.Package] = p
			order = append(order, e.Package)
		}
		switch e.Action {
		case "output":
			p.output[e.Test] = append(p.output[e.Test], e.Output)
			if crash.MatchString(e.Output) {
				p.crashed = true
			}
		case "pass", "skip", "fail":
			if e.Test == "" {
				p.done, p.result = true, e.Action
				continue
			}
			if strings.Contains(e.Test, "/") {
				continue // counted with its top-level test
			}
			switch e.Action {
			case "pass":
				p.pass++
				if known[e.Package+" "+e.Test] {
					p.failed = append(p.failed, e.Test+" (listed as a known failure, passed)")
				}
			case "skip":
				p.skip++
			case "fail":
				p.fail++
				p.failed = append(p.failed, e.Test)
			}
		}
	}
	var total struct{ pkgs, ok, pass, skip, wineOnly, known, fail int }
	var realFailures []string
	for _, name := range order {
		p := pkgs[name]
		total.pkgs++
		var real []string
		for _, t := range p.failed {
			if known[name+" "+t] {
				p.known++
				continue
			}
			if strings.HasSuffix(t, "passed)") {
				real = append(real, t)
				continue
			}
			onlyCleanup, why := true, ""
			for test, lines := range p.output {
				if test != t && !strings.HasPrefix(test, t+"/") {
					continue
				}
				for _, l := range lines {
					if message.MatchString(l) && !cleanup.MatchString(l) {
						if onlyCleanup {
							why = " (" + strings.TrimSpace(l) + ")"
						}
						onlyCleanup = false
					}
				}
			}
			if onlyCleanup {
				p.wineOnly++
			} else {
				real = append(real, t+why)
			}
		}
		status := "ok"
		switch {
		case p.crashed || !p.done:
			status = "CRASHED"
			realFailures = append(realFailures, name+" (crashed or did not finish)")
		case len(real) > 0:
			status = "FAIL"
			sort.Strings(real)
			realFailures = append(realFailures, name+": "+strings.Join(real, ", "))
		default:
			total.ok++
		}
		fmt.Printf("%-8s %s: %d passed, %d skipped, %d failed only by Wine's file deletion, %d known failures, %d failed\n", status, name, p.pass, p.skip, p.wineOnly, p.known, len(real))
		total.pass += p.pass
		total.skip += p.skip
		total.wineOnly += p.wineOnly
		total.known += p.known
		total.fail += len(real)
	}
	fmt.Printf("Windows tests under Wine: %d of %d packages ok; %d tests passed, %d skipped, %d failed only by Wine's file deletion (TempDir cleanup), %d known failures (.ci/wine/known-failures.txt), %d failed\n",
		total.ok, total.pkgs, total.pass, total.skip, total.wineOnly, total.known, total.fail)
	for _, f := range realFailures {
		fmt.Println("  failed:", f)
	}
	if len(realFailures) > 0 {
		os.Exit(1)
	}
}
