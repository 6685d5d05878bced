package schedule

// Writing a schedule file: one line per step, written atomically.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/interleave-dev/interleave/engine/bounded"
)

// Encode writes f as a schedule file. It refuses a file that Decode would reject, larger
// than bounded.Schedule included.
func (f *File) Encode(w io.Writer) error {
	if err := f.check(); err != nil {
		return fmt.Errorf("encode schedule: %w", &Error{Kind: err.kind, msg: err.msg})
	}
	var b bytes.Buffer
	b.WriteString("{\n")
	fmt.Fprintf(&b, "  \"format\": %s,\n", marshal(FormatName))
	fmt.Fprintf(&b, "  \"version\": %d,\n", Version)
	fmt.Fprintf(&b, "  \"test\": %s,\n", marshal(f.Test))
	if len(f.Instrument) > 0 {
		fmt.Fprintf(&b, "  \"instrument\": %s,\n", marshal(f.Instrument))
	}
	if len(f.BuildFlags) > 0 {
		fmt.Fprintf(&b, "  \"buildFlags\": %s,\n", marshal(f.BuildFlags))
	}
	if f.Strategy.Name != "" || len(f.Strategy.Params) > 0 {
		fmt.Fprintf(&b, "  \"strategy\": %s,\n", marshal(f.Strategy))
	}
	if f.Execution > 0 {
		fmt.Fprintf(&b, "  \"execution\": %d,\n", f.Execution)
	}
	if f.Points != "" {
		fmt.Fprintf(&b, "  \"points\": %s,\n", marshal(f.Points))
	}
	if len(f.RacyPoints) > 0 {
		fmt.Fprintf(&b, "  \"racyPoints\": %s,\n", marshal(f.RacyPoints))
	}
	if f.DataSeed != 0 {
		fmt.Fprintf(&b, "  \"dataSeed\": \"%d\",\n", f.DataSeed)
	}
	if f.FairSteps != 0 {
		fmt.Fprintf(&b, "  \"fairSteps\": %d,\n", f.FairSteps)
	}
	if f.SleepDelays > 0 {
		fmt.Fprintf(&b, "  \"sleepDelays\": %d,\n  \"sleepDelayMax\": %s,\n", f.SleepDelays, marshal(f.SleepDelayMax.String()))
	}
	res := wireResult{Steps: f.Result.Steps, Goroutines: f.Result.Goroutines, Preemptions: f.Result.Preemptions}
	if f.Result.Fingerprint != 0 {
		res.Fingerprint = fmt.Sprintf("%016x", f.Result.Fingerprint)
	}
	fmt.Fprintf(&b, "  \"result\": %s,\n", marshal(res))
	if bug := f.Bug; bug != nil {
		b.WriteString("  \"bug\": {\n")
		fmt.Fprintf(&b, "    \"kind\": %s,\n", marshal(bug.Kind))
		fmt.Fprintf(&b, "    \"message\": %s,\n", marshal(bug.Message))
		fmt.Fprintf(&b, "    \"step\": %d,\n", bug.Step)
		fmt.Fprintf(&b, "    \"g\": %d,\n", bug.G)
		fmt.Fprintf(&b, "    \"pos\": %s", marshal(bug.Pos))
		if bug.Delayed != "" {
			fmt.Fprintf(&b, ",\n    \"delayed\": %s", marshal(bug.Delayed))
		}
		if len(bug.Logs) > 0 {
			b.WriteString(",\n    \"logs\": [")
			for i, l := range bug.Logs {
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, "\n      %s", marshal(l))
			}
			b.WriteString("\n    ]")
		}
		if len(bug.Goroutines) > 0 {
			b.WriteString(",\n    \"goroutines\": [")
			for i, g := range bug.Goroutines {
				if i > 0 {
					b.WriteByte(',')
				}
				stack := g.Stack
				g.Stack = nil
				head := marshal(g)
				if len(stack) == 0 {
					fmt.Fprintf(&b, "\n      %s", head)
					continue
				}
				// The goroutine's fields on one line, then one line per frame.
				fmt.Fprintf(&b, "\n      %s,\n       \"stack\": [", head[:len(head)-1])
				for j, fr := range stack {
					if j > 0 {
						b.WriteByte(',')
					}
					fmt.Fprintf(&b, "\n         %s", marshal(fr))
				}
				b.WriteString("\n       ]}")
			}
			b.WriteString("\n    ]")
		}
		b.WriteString("\n  },\n")
	}
	if len(f.Source) > 0 {
		// One line per position, in order.
		keys := make([]string, 0, len(f.Source))
		for k := range f.Source {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("  \"source\": {")
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "\n    %s: %s", marshal(k), marshal(f.Source[k]))
		}
		b.WriteString("\n  },\n")
	}
	b.WriteString("  \"steps\": [")
	run := 0
	for i, s := range f.Steps {
		if i > 0 {
			b.WriteByte(',')
		}
		ws := wireStep{G: &s.G, Op: s.Op, Pos: s.Pos}
		if s.Kind == Choice {
			ws.Choice, ws.N = &s.Value, &s.N
		} else {
			run++
			n := run
			ws.Step = &n
		}
		fmt.Fprintf(&b, "\n    %s", marshal(ws))
	}
	if len(f.Steps) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("]\n}\n")
	if limit := bounded.Schedule; int64(b.Len()) > limit.Max {
		// Only a step bound far above the default (-max-steps) makes one so long.
		return fmt.Errorf("encode schedule: its %d steps take %s, more than %s, the limit of %s that interleave reads back: %w",
			run, bounded.Size(int64(b.Len())), bounded.Size(limit.Max), limit.What, bounded.ErrTooLarge)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("encode schedule: %w", err)
	}
	return nil
}

// marshal is json.Marshal without HTML escaping (positions and messages stay readable), on
// values that cannot fail to marshal.
func marshal(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("schedule: marshal %T: %v", v, err)) // unreachable: plain data
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Save writes f to path, atomically: the file is replaced only once it is complete. It sets
// f.Path.
func (f *File) Save(path string) error {
	var b bytes.Buffer
	if err := f.Encode(&b); err != nil {
		return fmt.Errorf("save schedule %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("save schedule %s: %w", path, err)
	}
	_, err = tmp.Write(b.Bytes())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save schedule %s: %w", path, err)
	}
	f.Path = path
	return nil
}
