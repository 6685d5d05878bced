// Package docs holds Interleave's documentation pages — the reference the README links to, one
// page per topic — and the tests that keep them honest: the README short and starting with the
// two commands CI runs, every page linked from it, every relative link and every link into the
// repository from the code resolving, and every command a page shows one the tool accepts.
package docs

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// root is the module's root, from this package's directory.
const root = ".."

// The README's two commands, in this order, which .ci/run runs.
const (
	mainCommand = "go run ./cmd/interleave test ./testdata/examples/counter"
	testCommand = "go test -timeout 20m ./... && npm ci && npm test"
)

// maxREADMELines is the README's length: a page a newcomer reads in five minutes.
const maxREADMELines = 300

// quickStartLines is how far into the README the VS Code quick start and its first
// screenshot must begin.
const quickStartLines = 120

// A page is a Markdown document of the README's set: the README and every page under docs/.
type page struct {
	path string // slash-separated, relative to the module's root
	text string
}

// pages returns the README and every Markdown page under docs/.
func pages(t *testing.T) []page {
	t.Helper()
	ps := []page{{path: "README.md", text: read(t, "README.md")}}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		ps = append(ps, page{path: rel, text: read(t, rel)})
		return nil
	})
	if err != nil {
		t.Fatalf("walk docs: %v", err)
	}
	return ps
}

// read returns the text of the file at the module-relative path rel.
func read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatalf("read %s: %v", rel, err)
	}
	return string(b)
}

// A block is a fenced code block of a page.
type block struct {
	lang  string
	lines []string
	line  int // the line of its opening fence, 1-based
}

// split returns a page's fenced code blocks and its prose: the text outside them, with each
// block's lines left empty so that line numbers stay.
func split(text string) (blocks []block, prose []string) {
	var cur *block
	for i, l := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(l)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			cur = &block{lang: strings.TrimPrefix(trimmed, "```"), line: i + 1}
			prose = append(prose, "")
		case cur != nil && trimmed == "```":
			blocks = append(blocks, *cur)
			cur = nil
			prose = append(prose, "")
		case cur != nil:
			cur.lines = append(cur.lines, l)
			prose = append(prose, "")
		default:
			prose = append(prose, l)
		}
	}
	return blocks, prose
}

var (
	codeSpan = regexp.MustCompile("`[^`]*`")
	mdLink   = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)\)`)
	heading  = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*$`)
)

// links returns the link targets of a page's prose (not of code), with their lines.
func links(text string) (targets []string, lines []int) {
	_, prose := split(text)
	for i, l := range prose {
		l = codeSpan.ReplaceAllString(l, "")
		for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
			targets = append(targets, m[1])
			lines = append(lines, i+1)
		}
	}
	return targets, lines
}

// anchors returns the anchors GitHub gives a Markdown page's headings: the heading's text
// without its formatting, lower case, with every character but letters, digits, '-', '_'
// and spaces dropped and spaces made '-'; a repeated anchor gets -1, -2, ...
func anchors(text string) map[string]bool {
	_, prose := split(text)
	seen := map[string]int{}
	out := map[string]bool{}
	for _, l := range prose {
		m := heading.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		h := mdLink.ReplaceAllStringFunc(m[2], func(s string) string { // a link's text stays
			return s[strings.Index(s, "[")+1 : strings.Index(s, "]")]
		})
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// resolve checks that target, a link of the page at from (module-relative), names a file or
// directory of the module, and an anchor of it when it is a Markdown page; it returns what is
// wrong, or "".
func resolve(t *testing.T, from, target string) string {
	p, anchor, _ := strings.Cut(target, "#")
	file := from
	if p != "" {
		file = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(from), p)))
	}
	if strings.HasPrefix(file, "../") {
		return "leaves the module"
	}
	info, err := os.Stat(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		return "no such file or directory: " + file
	}
	if anchor != "" && !info.IsDir() && strings.HasSuffix(file, ".md") && !anchors(read(t, file))[anchor] {
		return "no heading of " + file + " has the anchor #" + anchor
	}
	return ""
}

// TestREADME checks the README: at most 300 lines, starting with the two commands CI runs
// (the main job on a bundled example, then the tests), a VS Code quick start with a
// screenshot within its first 120 lines, and a link to every page under docs/.
func TestREADME(t *testing.T) {
	text := read(t, "README.md")
	if n := strings.Count(text, "\n"); n > maxREADMELines {
		t.Errorf("README.md has %d lines, want at most %d: the reference belongs in docs/", n, maxREADMELines)
	}
	blocks, prose := split(text)
	if len(blocks) == 0 {
		t.Fatal("README.md has no code block: it starts with the two commands")
	}
	first := blocks[0]
	var cmds []string
	for _, l := range first.lines {
		cmd, _, _ := strings.Cut(l, " #")
		cmds = append(cmds, strings.TrimSpace(cmd))
	}
	if want := []string{mainCommand, testCommand}; !slices.Equal(cmds, want) {
		t.Errorf("README.md's first code block has the commands %q, want %q", cmds, want)
	}
	for i, l := range prose[:first.line-1] {
		if strings.HasPrefix(l, "## ") {
			t.Errorf("README.md:%d: a section before the two commands: %s", i+1, l)
		}
	}
	ci := read(t, ".ci/run")
	for _, c := range []string{mainCommand, "go test -timeout 20m ./...", "npm ci ", "npm test"} {
		if !strings.Contains(ci, c) {
			t.Errorf(".ci/run does not run %q, a command of the README", c)
		}
	}

	head := strings.Join(prose[:min(quickStartLines, len(prose))], "\n")
	if !regexp.MustCompile(`(?m)^## .*VS Code`).MatchString(head) {
		t.Errorf("README.md: no VS Code section begins in its first %d lines", quickStartLines)
	}
	if !regexp.MustCompile(`!\[[^\]]*\]\(docs/images/[^)]+\.png\)`).MatchString(head) {
		t.Errorf("README.md: no screenshot (docs/images/*.png) in its first %d lines", quickStartLines)
	}

	linked := map[string]bool{}
	targets, _ := links(text)
	for _, target := range targets {
		p, _, _ := strings.Cut(target, "#")
		linked[filepath.ToSlash(filepath.Clean(p))] = true
	}
	for _, p := range pages(t)[1:] {
		if !linked[p.path] {
			t.Errorf("README.md does not link to %s", p.path)
		}
	}
}

// TestLinks checks that every relative link of the README and of the docs pages names a file of
// the module, and a heading of it when it has an anchor.
func TestLinks(t *testing.T) {
	for _, p := range pages(t) {
		targets, lines := links(p.text)
		for i, target := range targets {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if problem := resolve(t, p.path, target); problem != "" {
				t.Errorf("%s:%d: link %s: %s", p.path, lines[i], target, problem)
			}
		}
	}
}

// repoURL is how the code links to a page of this repository: the README's sections moved to
// docs/, so a link to a section of the README (…/interleave#section) is an error.
var repoURL = regexp.MustCompile(`https://github\.com/interleave-dev/interleave(?:/blob/main/([^"'\s)#]+))?(#[A-Za-z0-9_-]+)?`)

// TestCodeLinks checks the links the code gives users into the documentation (a diagnostic's
// code description, a SARIF rule's help): each names a page of the repository, and a heading
// of it.
func TestCodeLinks(t *testing.T) {
	found := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".interleave")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !(strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".ts")) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for i, l := range strings.Split(string(b), "\n") {
			for _, m := range repoURL.FindAllStringSubmatch(l, -1) {
				file, anchor := m[1], m[2]
				switch {
				case file == "" && anchor != "":
					t.Errorf("%s:%d: %s links to a section of the README; the reference is in docs/", rel, i+1, m[0])
				case file != "":
					found++
					if problem := resolve(t, "README.md", file+anchor); problem != "" {
						t.Errorf("%s:%d: %s: %s", rel, i+1, m[0], problem)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk the module: %v", err)
	}
	if found == 0 {
		t.Error("no link into the documentation found in the code: the race diagnostics and SARIF rules link to it")
	}
}

// A command is a command line a page shows, in a shell block or a code span.
type command struct {
	where string // page:line
	args  []string
	text  string
}

// commands returns the command lines of a page: the lines of its shell blocks (comments cut,
// a synopsis's indented continuation lines joined) and its code spans, split at && and |.
func commands(p page) (cmds []command, synopses []command) {
	blocks, prose := split(p.text)
	add := func(line int, text string, synopsis bool) {
		parts := []string{text} // a synopsis's | separates a flag's values
		if !synopsis {
			parts = regexp.MustCompile(`&&|\|\||\||;`).Split(text, -1)
		}
		for _, part := range parts {
			args := strings.Fields(part)
			if len(args) == 0 {
				continue
			}
			for i, a := range args {
				args[i] = strings.Trim(a, `'"`)
			}
			c := command{where: p.path + ":" + strconv.Itoa(line), args: args, text: strings.TrimSpace(part)}
			if synopsis {
				synopses = append(synopses, c)
			} else {
				cmds = append(cmds, c)
			}
		}
	}
	for _, b := range blocks {
		if b.lang != "sh" && b.lang != "bash" {
			continue
		}
		var cur string
		var curLine int
		flush := func() {
			if cur != "" {
				add(curLine, cur, strings.Contains(cur, "["))
			}
			cur = ""
		}
		for i, l := range b.lines {
			l, _, _ = strings.Cut(l, " #")
			if strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") {
				cur += " " + strings.TrimSpace(l)
				continue
			}
			flush()
			cur, curLine = strings.TrimSpace(l), b.line+1+i
		}
		flush()
	}
	for i, l := range prose {
		for _, s := range codeSpan.FindAllString(l, -1) {
			s = strings.Trim(s, "`")
			if strings.HasPrefix(s, "interleave ") || strings.HasPrefix(s, "go ") || strings.HasPrefix(s, "npm ") {
				add(i+1, s, false)
			}
		}
	}
	return cmds, synopses
}

// help is what a command says of itself with -h.
type help struct {
	usage    string          // its usage lines, whitespace collapsed ("" when it prints none)
	declared map[string]bool // its flags, from the flag list
	named    map[string]bool // every -flag its help names (strategy parameters too)
}

var (
	declaredFlag = regexp.MustCompile(`(?m)^\s+-([a-zA-Z][a-zA-Z0-9-]*)`)
	namedFlag    = regexp.MustCompile(`(?:^|[\s\[(,])-([a-zA-Z][a-zA-Z0-9-]*)`)
	synopsisFlag = regexp.MustCompile(`\[-([a-zA-Z][a-zA-Z0-9-]*)`)
)

// helpOf runs bin with args and -h, and reads what it prints.
func helpOf(t *testing.T, bin string, args ...string) help {
	t.Helper()
	out, _ := exec.Command(bin, append(args, "-h")...).CombinedOutput()
	text := string(out)
	h := help{declared: map[string]bool{}, named: map[string]bool{}}
	if u, ok := strings.CutPrefix(text, "usage: "); ok {
		u, _, _ = strings.Cut(u, "\n\n")
		h.usage = strings.Join(strings.Fields(u), " ")
	}
	for _, m := range declaredFlag.FindAllStringSubmatch(text, -1) {
		h.declared[m[1]] = true
		h.named[m[1]] = true
	}
	for _, m := range namedFlag.FindAllStringSubmatch(text, -1) {
		h.named[m[1]] = true
	}
	return h
}

// build builds the main package at the module-relative directory pkg into dir.
func build(t *testing.T, dir, pkg string) string {
	t.Helper()
	bin := filepath.Join(dir, strings.ReplaceAll(strings.Trim(pkg, "./"), "/", "_"))
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// exists reports whether a module-relative path a command names exists: a package pattern's
// directory (./x/... is ./x), a glob's matches.
func exists(p string) bool {
	p = strings.TrimSuffix(strings.TrimSuffix(p, "..."), "/")
	if p == "." || p == "" {
		return true
	}
	matches, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(p)))
	return len(matches) > 0
}

// testFuncs returns the names of the functions of a package's _test.go files.
func testFuncs(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(dir), "*_test.go"))
	var names []string
	fn := regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz)\w*)\(`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range fn.FindAllStringSubmatch(string(b), -1) {
			names = append(names, m[1])
		}
	}
	return names
}

// TestCommands checks every command the README and the docs pages show against the tool
// itself: an interleave subcommand exists and knows each flag it is given; a synopsis is the
// command's own usage (when it prints one) and names every flag the command has; a go run of
// this module runs a main package that knows its flags, on paths that exist; a go test of
// this module names a package that exists and benchmarks and fuzz targets it has; an npm
// run names a script of package.json.
func TestCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds interleave and the module's tools")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	bin := build(t, dir, "./cmd/interleave")
	out, _ := exec.Command(bin, "-h").CombinedOutput()
	subcommands := map[string]help{}
	for _, m := range regexp.MustCompile(`(?m)^\tinterleave (\w+)`).FindAllStringSubmatch(string(out), -1) {
		subcommands[m[1]] = helpOf(t, bin, m[1])
	}
	if len(subcommands) < 10 {
		t.Fatalf("interleave -h lists %d commands:\n%s", len(subcommands), out)
	}
	tools := map[string]help{} // go run ./path, other than the command
	var scripts struct{ Scripts map[string]string }
	if err := json.Unmarshal([]byte(read(t, "package.json")), &scripts); err != nil {
		t.Fatalf("package.json: %v", err)
	}

	// checkInterleave checks the arguments of an interleave command; paths are checked when
	// the command runs on this module (go run ./cmd/interleave).
	checkInterleave := func(c command, args []string, here bool) {
		if len(args) == 0 || !regexp.MustCompile(`^[a-z]+$`).MatchString(args[0]) {
			return // interleave COMMAND -h, a placeholder
		}
		h, ok := subcommands[args[0]]
		if !ok {
			t.Errorf("%s: %s: interleave has no command %q", c.where, c.text, args[0])
			return
		}
		for _, a := range args[1:] {
			if name, ok := flagName(a); ok && name != "h" && !h.named[name] {
				t.Errorf("%s: %s: interleave %s has no flag -%s", c.where, c.text, args[0], name)
			}
			if here && (strings.HasPrefix(a, "./") || strings.HasPrefix(a, "testdata/")) && !exists(a) {
				t.Errorf("%s: %s: %s does not exist", c.where, c.text, a)
			}
		}
	}

	checked := 0
	for _, p := range pages(t) {
		cmds, synopses := commands(p)
		for _, s := range synopses {
			if s.args[0] != "interleave" || len(s.args) < 2 {
				continue
			}
			checked++
			name := s.args[1]
			h, ok := subcommands[name]
			if !ok {
				t.Errorf("%s: synopsis %s: interleave has no command %q", s.where, s.text, name)
				continue
			}
			norm := strings.Join(strings.Fields(s.text), " ")
			if h.usage != "" && !strings.Contains(h.usage, norm) {
				t.Errorf("%s: synopsis\n\t%s\nis not the usage interleave %s -h prints:\n\t%s", s.where, norm, name, h.usage)
			}
			inSynopsis := map[string]bool{}
			for _, m := range synopsisFlag.FindAllStringSubmatch(s.text, -1) {
				inSynopsis[m[1]] = true
				if !h.named[m[1]] {
					t.Errorf("%s: synopsis of interleave %s: no flag -%s", s.where, name, m[1])
				}
			}
			if strings.Contains(s.text, "[flags]") {
				continue // the page lists them
			}
			for f := range h.declared {
				if f == "tags" && otherSynopsisHas(synopses, name, "build flags]") {
					continue // -tags is a build flag
				}
				// A command's other synopsis lines (interleave stress -repro) have the rest.
				if !inSynopsis[f] && !otherSynopsisHas(synopses, name, f) {
					t.Errorf("%s: synopsis of interleave %s leaves out its flag -%s", s.where, name, f)
				}
			}
		}
		for _, c := range cmds {
			args := c.args
			for len(args) > 0 && strings.Contains(args[0], "=") && !strings.HasPrefix(args[0], "-") {
				args = args[1:] // VAR=value before the command
			}
			if len(args) == 0 {
				continue
			}
			checked++
			switch {
			case args[0] == "interleave":
				checkInterleave(c, args[1:], false)
			case len(args) > 2 && args[0] == "go" && args[1] == "run" && args[2] == "./cmd/interleave":
				checkInterleave(c, args[3:], true)
			case len(args) > 2 && args[0] == "go" && (args[1] == "run" || args[1] == "build") && strings.HasPrefix(args[2], "./"):
				if !exists(args[2]) {
					t.Errorf("%s: %s: %s does not exist", c.where, c.text, args[2])
					continue
				}
				if args[1] == "build" || args[2] == "./cmd/interleave" {
					continue
				}
				h, ok := tools[args[2]]
				if !ok {
					h = helpOf(t, build(t, dir, args[2]))
					tools[args[2]] = h
				}
				for _, a := range args[3:] {
					if name, ok := flagName(a); ok && !h.named[name] {
						t.Errorf("%s: %s: %s has no flag -%s", c.where, c.text, args[2], name)
					}
				}
			case len(args) > 1 && args[0] == "go" && args[1] == "test":
				checkGoTest(t, c, args[2:])
			case len(args) > 1 && args[0] == "npm" && (args[1] == "test" || args[1] == "run"):
				script := "test"
				if args[1] == "run" {
					if len(args) < 3 {
						continue
					}
					script = args[2]
				}
				if _, ok := scripts.Scripts[script]; !ok {
					t.Errorf("%s: %s: package.json has no script %q", c.where, c.text, script)
				}
			}
		}
	}
	t.Logf("%d commands checked", checked)
	if checked < 50 {
		t.Errorf("only %d commands found in the pages: the extraction is broken", checked)
	}
}

// otherSynopsisHas reports whether another synopsis line of the command name has flag f.
func otherSynopsisHas(synopses []command, name, f string) bool {
	for _, s := range synopses {
		if len(s.args) > 1 && s.args[0] == "interleave" && s.args[1] == name && (strings.Contains(s.text, "[-"+f) || strings.Contains(s.text, "["+f) || slices.Contains(s.args, "-"+f)) {
			return true
		}
	}
	return false
}

// flagName returns the name of a flag argument (-name, --name, -name=value).
func flagName(a string) (string, bool) {
	if !strings.HasPrefix(a, "-") || len(a) < 2 {
		return "", false
	}
	name := strings.TrimLeft(a, "-")
	name, _, _ = strings.Cut(name, "=")
	if name == "" || !unicode.IsLetter(rune(name[0])) {
		return "", false
	}
	return name, true
}

// checkGoTest checks a go test command of this module: its package patterns exist, and its
// -bench, -fuzz and -run patterns (but XXX, which runs nothing) match functions of them.
func checkGoTest(t *testing.T, c command, args []string) {
	t.Helper()
	var pkgs []string
	pattern := map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-bench" || a == "-fuzz" || a == "-run":
			if i+1 < len(args) {
				pattern[a] = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "./"):
			pkgs = append(pkgs, a)
		}
	}
	var funcs []string
	for _, p := range pkgs {
		if !exists(p) {
			t.Errorf("%s: %s: %s does not exist", c.where, c.text, p)
			continue
		}
		if !strings.HasSuffix(p, "...") {
			funcs = append(funcs, testFuncs(t, p)...)
		}
	}
	if len(pkgs) == 0 || len(funcs) == 0 {
		return
	}
	prefix := map[string]string{"-bench": "Benchmark", "-fuzz": "Fuzz", "-run": "Test"}
	for flag, pat := range pattern {
		if pat == "XXX" {
			continue
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			t.Errorf("%s: %s: %s %s: %v", c.where, c.text, flag, pat, err)
			continue
		}
		if !slices.ContainsFunc(funcs, func(f string) bool { return strings.HasPrefix(f, prefix[flag]) && re.MatchString(f) }) {
			t.Errorf("%s: %s: no %s function of %v matches %s", c.where, c.text, prefix[flag], pkgs, pat)
		}
	}
}

// TestAnchors checks the anchors GitHub gives headings, which the links rely on.
func TestAnchors(t *testing.T) {
	text := "# The command line\n## Several processes: -p\n## The test's *testing.T\n## `interleave test`\n## Data races\n## Data races\n```sh\n# not a heading\n```\n"
	got := anchors(text)
	for _, want := range []string{"the-command-line", "several-processes--p", "the-tests-testingt", "interleave-test", "data-races", "data-races-1"} {
		if !got[want] {
			t.Errorf("anchors: no %q in %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Errorf("anchors: a comment in a code block taken for a heading: %v", got)
	}
}
