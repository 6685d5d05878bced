package diagnose

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"go.lsp.dev/uri"

	"github.com/interleave-dev/interleave/engine/findings"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/lsp/store"
)

// link is a Markdown link to a line of a file, which the editor opens on a click. The file
// comes from the store: its name is escaped, and its URI has every character that could end
// the destination percent-encoded.
func link(file string, line int) string {
	return fmt.Sprintf("[%s](%s#L%d)", mdText(fmt.Sprintf("%s:%d", filepath.Base(file), line)), linkDest.Replace(string(uri.File(file))), line)
}

// linkDest percent-encodes what a URI may still hold that would end a Markdown link's
// destination or open another construct (url.URL.String already encodes most of them).
var linkDest = strings.NewReplacer("(", "%28", ")", "%29", "<", "%3C", ">", "%3E", " ", "%20", "\\", "%5C", "`", "%60", "\n", "%0A", "\r", "%0D")

// commandLink is a Markdown link that runs a client command (if the client trusts the
// hover's Markdown with it: the VS Code extension does not). Its title is the caller's text;
// its arguments are JSON, query-escaped, which leaves no character that ends the link.
func commandLink(title, command string, args ...any) string {
	b, _ := json.Marshal(args)
	return fmt.Sprintf("[%s](command:%s?%s)", title, command, url.QueryEscape(string(b)))
}

// posLink links a store position of module m.
func posLink(m store.Module, pos string) string {
	p, ok := posOf(m.Root, pos)
	if !ok {
		return mdCode(pos)
	}
	return link(p.File, p.Line)
}

func writeStack(b *strings.Builder, frames []schedule.Frame) {
	if len(frames) == 0 {
		b.WriteString("\n_(stack not recovered)_\n")
		return
	}
	b.WriteString("\n")
	for _, fr := range frames {
		// The instrumenter renames TestXxx to __ilTestXxx.
		fn := strings.Replace(fr.Func, ".__ilTest", ".Test", 1)
		fmt.Fprintf(b, "- %s %s\n", mdCode(fn), link(fr.File, fr.Line))
	}
}

func goroutineDesc(m store.Module, a findings.Access) string {
	if a.Goroutine == 0 || a.Created == "" {
		return fmt.Sprintf("G%d, the test's goroutine", a.Goroutine)
	}
	return fmt.Sprintf("G%d, started at %s", a.Goroutine, posLink(m, a.Created))
}

// raceHover describes a race from one of its accesses (this).
func raceHover(m store.Module, runs []testRun, this, other findings.Access, operand, seen string) string {
	var b strings.Builder
	b.WriteString("**Data race**")
	if operand != "" {
		b.WriteString(" on " + mdCode(operand))
	}
	fmt.Fprintf(&b, " — seen in %s\n\n", mdText(seen))
	fmt.Fprintf(&b, "- this access: **%s** at %s by %s\n", mdText(this.Op), posLink(m, this.Pos), goroutineDesc(m, this))
	fmt.Fprintf(&b, "- the other access: **%s** at %s by %s\n", mdText(other.Op), posLink(m, other.Pos), goroutineDesc(m, other))
	for _, a := range []findings.Access{this, other} {
		fmt.Fprintf(&b, "\n**G%d** (%s) stack:\n", a.Goroutine, mdText(a.Op))
		writeStack(&b, a.Stack)
	}
	b.WriteString("\n")
	for _, r := range runs {
		first := "only in the race-detection phase"
		if r.race.FirstSchedule > 0 {
			first = fmt.Sprintf("first in schedule %s", thousands(r.race.FirstSchedule))
		}
		fmt.Fprintf(&b, "%s: %s of %s schedules (%s, strategy %s, points %s)\n\n", mdCode(r.f.Test.Name),
			thousands(r.race.Schedules), thousands(r.f.Schedules+r.f.DetectionSchedules), first, mdText(r.f.Strategy), mdText(r.f.Points))
	}
	r := runs[0]
	args := []any{m.Root, pkgDir(m, r.f.Test.Package), r.f.Test.Name}
	b.WriteString(commandLink("Replay in debugger", CommandExplore, append(args[:3:3], map[string]string{"races": "fail", "points": "all"})...))
	b.WriteString(" · ")
	b.WriteString(commandLink("Explore again", CommandExplore, args...))
	b.WriteString("\n")
	return b.String()
}

// bugHover describes a bug, with every goroutine of its schedule.
func bugHover(m store.Module, f *findings.File, bug findings.Bug, sched *schedule.File) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** in %s\n\n", mdText(bug.Kind), mdCode(f.Test.Name))
	b.WriteString(mdFence("text", strings.TrimSpace(bug.Message)))
	if sched != nil {
		fmt.Fprintf(&b, "\nSchedule %s: %d steps, %d goroutines, %d preemptions (strategy %s)\n",
			mdCode(filepath.Base(sched.Path)), sched.Result.Steps, sched.Result.Goroutines, sched.Result.Preemptions, mdText(sched.Strategy.Name))
		if sched.Bug != nil {
			for _, g := range sched.Bug.Goroutines {
				fmt.Fprintf(&b, "\n**G%d** %s", g.ID, mdText(g.Status))
				if g.Op != "" {
					fmt.Fprintf(&b, ": %s at %s", mdText(g.Op), posLink(m, g.Pos))
				}
				if g.Created != "" {
					fmt.Fprintf(&b, " (started at %s)", posLink(m, g.Created))
				}
				b.WriteString("\n")
				if len(g.Stack) > 0 {
					writeStack(&b, g.Stack)
				}
			}
		}
	}
	fmt.Fprintf(&b, "\n%d schedules explored.\n\n", f.Schedules)
	args := []any{m.Root, pkgDir(m, f.Test.Package), f.Test.Name}
	if bug.Schedule != "" {
		b.WriteString(commandLink("Replay in debugger", CommandReplay, append(args[:3:3], bug.Schedule)...))
		b.WriteString(" · ")
	}
	b.WriteString(commandLink("Explore again", CommandExplore, args...))
	b.WriteString("\n")
	return b.String()
}
