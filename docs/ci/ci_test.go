// Package ci holds the documents that run interleave test -shard and interleave merge on job
// engines (GitHub Actions, GitLab CI, Kubernetes), and the test that checks them against the
// engines' definitions and runs their commands as the jobs would.
package ci

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// The module the jobs explore: a lost update (a bug every shard may find) and a data race in
// a test that passes.
var fixture = map[string]string{
	"go.mod": "module example.com/ledger\n\ngo 1.22\n",
	"ledger_test.go": `package ledger

import (
	"sync"
	"testing"
)

func TestLostUpdate(t *testing.T) {
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			v := n
			mu.Unlock()
			mu.Lock()
			n = v + 1
			mu.Unlock()
		}()
	}
	wg.Wait()
	if n != 2 {
		t.Errorf("n = %d, want 2", n)
	}
}

func TestRacyFlag(t *testing.T) {
	done := false
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		done = true
	}()
	_ = done
	wg.Wait()
}
`,
}

// schedules is the budget the jobs run with here, instead of a night's.
const schedules = "400"

// tools is what stands in for the network: the interleave just built (for go install …
// interleave@…, which passes any other go command to the real go) and a git whose clone is
// a copy of the fixture.
type tools struct {
	bin     string // first on PATH
	fixture string // the module, for checkouts and clones
}

func setup(t *testing.T) *tools {
	t.Helper()
	if testing.Short() {
		t.Skip("builds interleave and explores a module")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the jobs' scripts are bash")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	dir := t.TempDir()
	tl := &tools{bin: filepath.Join(dir, "bin"), fixture: filepath.Join(dir, "fixture")}
	for name, text := range fixture {
		writeFile(t, filepath.Join(tl.fixture, name), text, 0o644)
	}
	build := exec.Command(goBin, "build", "-o", filepath.Join(tl.bin, "interleave"), "github.com/interleave-dev/interleave/cmd/interleave")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build interleave: %v\n%s", err, out)
	}
	writeFile(t, filepath.Join(tl.bin, "go"), fmt.Sprintf(`#!/bin/sh
# go install of interleave: the one built by the test is on PATH already.
if [ "$1" = install ] && [ "${2%%%%@*}" = github.com/interleave-dev/interleave/cmd/interleave ]; then
	echo "go install $2: standing in: $(command -v interleave)"; exit 0
fi
exec '%s' "$@"
`, goBin), 0o755)
	writeFile(t, filepath.Join(tl.bin, "git"), fmt.Sprintf(`#!/bin/sh
# git clone: the fixture module, into the last argument.
if [ "$1" = clone ]; then
	for dst; do :; done
	mkdir -p "$dst" && cp -R '%s'/. "$dst"/ && exit 0
fi
echo "git $*: not stood in for" >&2; exit 1
`, tl.fixture), 0o755)
	return tl
}

func writeFile(t *testing.T, name, text string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

// checkout makes dir a fresh copy of the module, as a job's checkout is (always at the same
// path, so that interleave's build cache serves the shards after the first).
func (tl *tools) checkout(t *testing.T, dir string) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS(tl.fixture)); err != nil {
		t.Fatal(err)
	}
}

// sh runs a script with bash and the given options in dir, with env added to the test's
// environment and the stand-ins first on PATH; it returns the exit status and the output.
func (tl *tools) sh(t *testing.T, dir string, opts []string, script string, env map[string]string) (int, string) {
	t.Helper()
	cmd := exec.Command("bash", append(slices.Clone(opts), script)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+tl.bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String()
	case err != nil:
		t.Fatalf("run bash: %v", err)
	}
	return 0, out.String()
}

// copyDir copies the tree at src into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
}

// checkMerged checks what a merge left: the module's store with the bug and the race, the
// SARIF log (valid SARIF 2.1.0, with both) and the JUnit report (two tests, one failure).
func checkMerged(t *testing.T, module, sarifPath, junitPath string) {
	t.Helper()
	docs, _ := filepath.Glob(filepath.Join(module, ".interleave", "findings", "*.json"))
	if len(docs) != 2 {
		t.Errorf("the merged store has %d findings documents, want 2 (one per test): %v", len(docs), docs)
	}
	data, err := os.ReadFile(sarifPath)
	if err != nil {
		t.Fatalf("the merged SARIF log: %v", err)
	}
	c := jsonschema.NewCompiler()
	schema, err := c.Compile("../../cmd/interleave/testdata/sarif/sarif-2.1.0-rtm.5.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(inst); err != nil {
		t.Fatalf("%s is not valid SARIF 2.1.0: %v", sarifPath, err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID     string
				Properties map[string]any
			}
		}
	}
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, r := range log.Runs[0].Results {
		found[r.RuleID+" "+fmt.Sprint(r.Properties["test"])] = true
	}
	if !found["fail TestLostUpdate"] || !found["data-race TestRacyFlag"] {
		t.Errorf("the merged SARIF log has %v, want the lost update (fail) and the race", found)
	}
	junit, err := os.ReadFile(junitPath)
	if err != nil {
		t.Fatalf("the merged JUnit report: %v", err)
	}
	if n, f := strings.Count(string(junit), "<testcase "), strings.Count(string(junit), "<failure "); n != 2 || f != 1 {
		t.Errorf("the merged JUnit report has %d test cases and %d failures, want 2 and 1:\n%s", n, f, junit)
	}
}

// shardStatuses checks the shards' exit statuses: each 0 or 1 (a bug), and some shard found it.
func shardStatuses(t *testing.T, statuses []int, outputs []string) {
	t.Helper()
	bug := false
	for i, s := range statuses {
		if s != 0 && s != 1 {
			t.Fatalf("shard %d: exit %d, want 0 or 1 (a bug)\n%s", i, s, outputs[i])
		}
		bug = bug || s == 1
	}
	if !bug {
		t.Fatalf("no shard found the lost update:\n%s", strings.Join(outputs, "\n---\n"))
	}
}

// --- GitHub Actions ---

type ghStep struct {
	Name string
	Uses string
	Run  string
	If   string
	With map[string]any
	Env  map[string]any
}

type ghJob struct {
	Needs    any
	If       string
	Strategy struct {
		Matrix map[string][]any
	}
	Env   map[string]any
	Steps []ghStep
}

var ghExpr = regexp.MustCompile(`\$\{\{\s*([\w.-]+)\s*\}\}`)

// ghEval substitutes the workflow's expressions from vars; an unknown one fails the test.
func ghEval(t *testing.T, v any, vars map[string]string) string {
	t.Helper()
	return ghExpr.ReplaceAllStringFunc(fmt.Sprint(v), func(m string) string {
		name := ghExpr.FindStringSubmatch(m)[1]
		val, ok := vars[name]
		if !ok {
			t.Fatalf("the workflow uses ${{ %s }}, which the test does not stand in for", name)
		}
		return val
	})
}

// runGHJob runs a job's steps as the runner does: run steps with bash -eo pipefail, the
// actions the workflow uses emulated; after a failed step only steps with if: always() run.
// It returns the exit status of the first failed run step (0 when none failed).
func (tl *tools) runGHJob(t *testing.T, job ghJob, work, artifacts string, vars map[string]string) (int, string) {
	t.Helper()
	env := map[string]string{}
	for k, v := range job.Env {
		env[k] = ghEval(t, v, vars)
	}
	status, log := 0, ""
	for _, st := range job.Steps {
		if status != 0 && !strings.Contains(st.If, "always()") {
			continue
		}
		with := map[string]string{}
		for k, v := range st.With {
			with[k] = ghEval(t, v, vars)
		}
		action, _, _ := strings.Cut(st.Uses, "@")
		switch {
		case st.Run != "":
			stepEnv := maps.Clone(env)
			for k, v := range st.Env {
				stepEnv[k] = ghEval(t, v, vars)
			}
			code, out := tl.sh(t, work, []string{"--noprofile", "--norc", "-eo", "pipefail", "-c"}, ghEval(t, st.Run, vars), stepEnv)
			log += fmt.Sprintf("$ %s\n%s", st.Run, out)
			if code != 0 && status == 0 {
				status = code
			}
		case action == "actions/checkout":
			tl.checkout(t, work)
		case action == "actions/setup-go":
			if f := with["go-version-file"]; f != "" {
				if _, err := os.Stat(filepath.Join(work, f)); err != nil {
					t.Fatalf("setup-go: go-version-file: %v", err)
				}
			}
		case action == "actions/upload-artifact":
			// One directory: its contents at the artifact's root; several paths: each under
			// their common ancestor, the workspace here.
			dst := filepath.Join(artifacts, with["name"])
			paths := strings.Fields(with["path"])
			for _, p := range paths {
				src := filepath.Join(work, p)
				fi, err := os.Stat(src)
				switch {
				case err != nil && with["if-no-files-found"] == "error":
					t.Fatalf("upload-artifact %s: %v", with["name"], err)
				case err != nil:
				case len(paths) == 1 && fi.IsDir():
					if with["include-hidden-files"] != "true" && strings.HasPrefix(filepath.Base(p), ".") {
						t.Fatalf("upload-artifact %s: %s is hidden, and include-hidden-files is not set", with["name"], p)
					}
					copyDir(t, src, dst)
				case fi.IsDir():
					copyDir(t, src, filepath.Join(dst, p))
				default:
					b, _ := os.ReadFile(src)
					writeFile(t, filepath.Join(dst, p), string(b), 0o644)
				}
			}
		case action == "actions/download-artifact":
			// A pattern: each artifact that matches into path/<its name>.
			names, _ := os.ReadDir(artifacts)
			for _, n := range names {
				if ok, _ := path.Match(with["pattern"], n.Name()); ok {
					copyDir(t, filepath.Join(artifacts, n.Name()), filepath.Join(work, with["path"], n.Name()))
				}
			}
		case action == "github/codeql-action/upload-sarif":
			if _, err := os.Stat(filepath.Join(work, with["sarif_file"])); err != nil {
				t.Fatalf("upload-sarif: %v", err)
			}
		default:
			t.Fatalf("the workflow uses %s, which the test does not emulate", st.Uses)
		}
	}
	return status, log
}

func TestGitHubActions(t *testing.T) {
	tl := setup(t)
	data, err := os.ReadFile("github-actions.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]ghJob
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("github-actions.yml: %v", err)
	}
	explore, merge := wf.Jobs["explore"], wf.Jobs["merge"]
	if fmt.Sprint(merge.Needs) != "explore" || merge.If != "always()" {
		t.Fatalf("the merge job needs %v if %q: want the explore job, always", merge.Needs, merge.If)
	}
	shards := explore.Strategy.Matrix["shard"]
	if len(shards) < 2 || fmt.Sprint(explore.Env["SHARDS"]) != strconv.Itoa(len(shards)) {
		t.Fatalf("matrix.shard %v, SHARDS %v: want the shards 1…SHARDS", shards, explore.Env["SHARDS"])
	}
	explore.Env["SCHEDULES"] = schedules
	dir := t.TempDir()
	work, artifacts := filepath.Join(dir, "work"), filepath.Join(dir, "artifacts")
	var statuses []int
	var outputs []string
	for _, shard := range shards {
		code, out := tl.runGHJob(t, explore, work, artifacts, map[string]string{"matrix.shard": fmt.Sprint(shard), "github.run_number": "7"})
		statuses, outputs = append(statuses, code), append(outputs, out)
	}
	shardStatuses(t, statuses, outputs)
	code, out := tl.runGHJob(t, merge, work, artifacts, nil)
	if code != 0 {
		t.Fatalf("the merge job: exit %d\n%s", code, out)
	}
	if !strings.Contains(out, fmt.Sprintf("merged %d store(s)", len(shards))) {
		t.Errorf("the merge job did not merge every shard:\n%s", out)
	}
	checkMerged(t, work, filepath.Join(work, "interleave.sarif"), filepath.Join(work, "interleave.xml"))
	if _, err := os.Stat(filepath.Join(artifacts, "interleave-results", ".interleave", "findings")); err != nil {
		t.Errorf("the merged store was not uploaded: %v", err)
	}
}

// --- GitLab CI ---

func TestGitLabCI(t *testing.T) {
	tl := setup(t)
	data, err := os.ReadFile("gitlab-ci.yml")
	if err != nil {
		t.Fatal(err)
	}
	type glJob struct {
		Stage    string
		Image    string
		Parallel int
		Script   []string
		When     string
		Needs    []struct {
			Job       string
			Artifacts bool
		}
		Artifacts struct {
			When    string
			Paths   []string
			Reports struct{ Junit string }
		}
	}
	var ci struct {
		Stages    []string
		Variables map[string]string
		Explore   glJob `json:"interleave"`
		Merge     glJob `json:"interleave-merge"`
	}
	if err := yaml.UnmarshalStrict(data, &ci); err != nil {
		t.Fatalf("gitlab-ci.yml: %v", err)
	}
	if !slices.Equal(ci.Stages, []string{ci.Explore.Stage, ci.Merge.Stage}) || ci.Explore.Parallel < 2 ||
		len(ci.Merge.Needs) != 1 || ci.Merge.Needs[0].Job != "interleave" || ci.Merge.When != "always" || ci.Explore.Artifacts.When != "always" {
		t.Fatalf("want the shards (parallel) in a stage before the merge, which needs them and runs always; their artifacts kept always: %+v", ci)
	}
	ci.Variables["SCHEDULES"] = schedules
	dir := t.TempDir()
	work, artifacts := filepath.Join(dir, "work"), filepath.Join(dir, "artifacts")
	// The runner runs a job's script lines in one shell that stops at the first failure.
	script := func(lines []string) string { return strings.Join(lines, "\n") }
	var statuses []int
	var outputs []string
	for i := 1; i <= ci.Explore.Parallel; i++ {
		tl.checkout(t, work)
		env := maps.Clone(ci.Variables)
		env["CI_NODE_INDEX"], env["CI_NODE_TOTAL"], env["CI_PIPELINE_IID"] = strconv.Itoa(i), strconv.Itoa(ci.Explore.Parallel), "7"
		code, out := tl.sh(t, work, []string{"-eo", "pipefail", "-c"}, script(ci.Explore.Script), env)
		statuses, outputs = append(statuses, code), append(outputs, out)
		for _, p := range ci.Explore.Artifacts.Paths {
			copyDir(t, filepath.Join(work, p), filepath.Join(artifacts, strconv.Itoa(i), p))
		}
	}
	shardStatuses(t, statuses, outputs)
	// The merge job: a fresh checkout with the artifacts of the jobs it needs extracted in it.
	tl.checkout(t, work)
	for i := 1; i <= ci.Explore.Parallel; i++ {
		if err := os.CopyFS(work, os.DirFS(filepath.Join(artifacts, strconv.Itoa(i)))); err != nil {
			t.Fatalf("extract the artifacts of shard %d: %v", i, err)
		}
	}
	code, out := tl.sh(t, work, []string{"-eo", "pipefail", "-c"}, script(ci.Merge.Script), maps.Clone(ci.Variables))
	if code != 0 || !strings.Contains(out, fmt.Sprintf("merged %d store(s)", ci.Explore.Parallel)) {
		t.Fatalf("the merge job: exit %d\n%s", code, out)
	}
	checkMerged(t, work, filepath.Join(work, "interleave.sarif"), filepath.Join(work, ci.Merge.Artifacts.Reports.Junit))
	for _, p := range ci.Merge.Artifacts.Paths {
		if _, err := os.Stat(filepath.Join(work, p)); err != nil {
			t.Errorf("the merge job's artifact %s: %v", p, err)
		}
	}
}

// --- Kubernetes ---

// readJob decodes a manifest strictly into the Job type of k8s.io/api: a field the type does not
// have is an error.
func readJob(t *testing.T, name string) *batchv1.Job {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict(data, &job); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || len(job.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("%s: %s %s with %d containers, want a batch/v1 Job with one container", name, job.APIVersion, job.Kind, len(job.Spec.Template.Spec.Containers))
	}
	return &job
}

// containerScript is the script a Job's container runs (command bash -ec, the script its
// argument) and its environment.
func containerScript(t *testing.T, job *batchv1.Job) (opts []string, script string, env map[string]string) {
	t.Helper()
	c := job.Spec.Template.Spec.Containers[0]
	if len(c.Command) != 2 || c.Command[0] != "bash" || len(c.Args) != 1 {
		t.Fatalf("%s: command %q args %d: want bash with one option and the script as its argument", job.Name, c.Command, len(c.Args))
	}
	env = map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	return c.Command[1:], c.Args[0], env
}

func TestKubernetes(t *testing.T) {
	tl := setup(t)
	data, err := os.ReadFile("kubernetes/results.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var pvc corev1.PersistentVolumeClaim
	if err := yaml.UnmarshalStrict(data, &pvc); err != nil {
		t.Fatalf("kubernetes/results.yaml: %v", err)
	}
	if pvc.Kind != "PersistentVolumeClaim" || !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteMany) {
		t.Fatalf("results.yaml: a %s with access modes %v: want a claim every shard's pod can write (ReadWriteMany)", pvc.Kind, pvc.Spec.AccessModes)
	}
	shards, merge := readJob(t, "kubernetes/shards.yaml"), readJob(t, "kubernetes/merge.yaml")
	for _, job := range []*batchv1.Job{shards, merge} {
		spec := job.Spec.Template.Spec
		if spec.RestartPolicy != corev1.RestartPolicyNever {
			t.Errorf("%s: restartPolicy %q: a shard run again explores the same schedules again", job.Name, spec.RestartPolicy)
		}
		claimed := false
		for _, v := range spec.Volumes {
			claimed = claimed || (v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == pvc.Name)
		}
		if !claimed {
			t.Errorf("%s does not mount the claim %s", job.Name, pvc.Name)
		}
	}
	opts, script, env := containerScript(t, shards)
	n := int(*shards.Spec.Completions)
	if shards.Spec.CompletionMode == nil || *shards.Spec.CompletionMode != batchv1.IndexedCompletion ||
		shards.Spec.Parallelism == nil || int(*shards.Spec.Parallelism) != n || env["SHARDS"] != strconv.Itoa(n) {
		t.Fatalf("shards.yaml: want an Indexed Job whose completions, parallelism and SHARDS are equal")
	}
	dir := t.TempDir()
	results := filepath.Join(dir, "results")
	env["RESULTS"], env["SCHEDULES"] = results, schedules
	var statuses []int
	var outputs []string
	for i := 0; i < n; i++ {
		// The pod's working directory is an empty volume it clones the module into.
		work := filepath.Join(dir, "src")
		if err := os.RemoveAll(work); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(work, 0o755); err != nil {
			t.Fatal(err)
		}
		podEnv := maps.Clone(env)
		podEnv["JOB_COMPLETION_INDEX"] = strconv.Itoa(i)
		code, out := tl.sh(t, work, append(opts, "-c"), script, podEnv)
		if code != 0 {
			t.Fatalf("shard pod %d: exit %d; a pod completes when its shard ran, bug or not\n%s", i, code, out)
		}
		status, err := os.ReadFile(filepath.Join(results, fmt.Sprintf("shard-%d", i), "exit-status"))
		if err != nil {
			t.Fatalf("shard pod %d: %v\n%s", i, err, out)
		}
		s, _ := strconv.Atoi(strings.TrimSpace(string(status)))
		statuses, outputs = append(statuses, s), append(outputs, out)
	}
	shardStatuses(t, statuses, outputs)
	opts, script, env = containerScript(t, merge)
	env["RESULTS"] = results
	work := filepath.Join(dir, "merge")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	code, out := tl.sh(t, work, append(opts, "-c"), script, env)
	if code != 1 || !strings.Contains(out, fmt.Sprintf("merged %d store(s)", n)) || !strings.Contains(out, "a bug was found") {
		t.Fatalf("the merge pod: exit %d, want 1 after merging every shard, as a shard found a bug\n%s", code, out)
	}
	checkMerged(t, work, filepath.Join(results, "interleave.sarif"), filepath.Join(results, "interleave.xml"))
	if _, err := os.Stat(filepath.Join(results, "merged", "findings")); err != nil {
		t.Errorf("the merged store was not kept on the volume: %v", err)
	}
}
