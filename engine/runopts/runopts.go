// Package runopts is the one list of the exploration options an editor may set: the
// attributes of a launch configuration of the debug adapter (interleave dap) and the options
// of the language server's interleave.runTest command, which become flags of interleave test.
//
// Options come from a client — a launch.json, a code lens, any program that speaks the
// protocol — so none of them may run a program or write outside the module: each option has a
// type and a check, a key that is not an option is refused with the list of those that are, a
// value that fails its check is refused with an error naming the option and the value, no
// value may read as a flag, and a file an option writes must lie inside the module's results
// store (.interleave/), symbolic links and ".." resolved. Build flags are not options here:
// the debug adapter has its own rule for them (its buildFlags attribute).
//
// The package is used by the adapter and the language server; it is not compiled into test
// binaries.
package runopts

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// A Surface is where options come from.
type Surface uint8

const (
	// Launch is a launch configuration of the debug adapter.
	Launch Surface = 1 << iota
	// Test is the language server's interleave.runTest command: the options become flags of
	// interleave test.
	Test
)

// A Kind is the type of an option's value.
type Kind uint8

const (
	String   Kind = iota // a JSON string
	Int                  // a JSON number without a fraction
	Uint                 // a JSON number without a fraction, ≥ 0
	Bool                 // true or false
	Duration             // a string such as "30s"
	List                 // a JSON array of strings, or one comma-separated string
	Path                 // a string: the path of a file to write, inside the results store
)

var kindNames = [...]string{String: "a string", Int: "an integer", Uint: "an unsigned integer", Bool: "true or false",
	Duration: `a duration such as "30s"`, List: "a list of strings", Path: "the path of a file in the results store"}

func (k Kind) String() string { return kindNames[k] }

// An Option is one accepted option.
type Option struct {
	Name string
	Kind Kind
	// On are the surfaces that accept it.
	On  Surface
	Doc string
	// set checks the decoded value (of the Go type of Kind: string, int64, uint64, bool,
	// time.Duration, []string) and stores it.
	set func(o *Options, v any, c *Config) error
}

// Options are validated options.
type Options struct {
	// Strategy is the strategy's name ("" when not given); Params its parameters, given as
	// "name:key=value,..." or as options of their own.
	Strategy string
	Params   map[string]string
	// Schedules bounds the exploration (0: no bound); Time bounds its duration.
	Schedules int
	Time      time.Duration
	Seed      uint64
	// Points is the scheduling-points mode, Races the race detector's, Sleeps whether a
	// runnable goroutine may be delayed past a sleep (engine.SleepMode: order, notice, fail).
	Points, Races, Sleeps string
	// MaxSteps is the livelock bound, FairSteps the fairness bound.
	MaxSteps, FairSteps int
	// Tags are build tags.
	Tags []string
	// Skip is a regular expression of tests not to run.
	Skip                   string
	KeepGoing, StrictLeaks bool
	Minimize               time.Duration
	RaceRuns               int
	// JUnit and SARIF are the reports' paths: absolute, resolved, inside the store.
	JUnit, SARIF string

	given map[string]bool
}

// Has reports whether the option name was given.
func (o *Options) Has(name string) bool { return o.given[name] }

// Config says where options come from and what the caller sets itself.
type Config struct {
	// Surface is where the options come from.
	Surface Surface
	// DefaultStrategy is the strategy the parameters belong to when no strategy is given.
	DefaultStrategy string
	// Store is the module's results store (its .interleave directory): files written by
	// options must resolve inside it. "": no option may write a file.
	Store string
	// Dir resolves relative paths (the directory the command runs in).
	Dir string
	// Reserved are keys the caller sets itself, with why: they are refused with that reason.
	Reserved map[string]string
	// Also are the caller's own keys, named with the accepted options when a key is refused.
	Also []string
}

// options is the table of options.
var options = []Option{
	{Name: "strategy", Kind: String, On: Launch | Test, Doc: `the strategy, "name" or "name:key=value,...": ` + strings.Join(strategy.Names, ", "),
		set: func(o *Options, v any, c *Config) error {
			name, params, err := strategy.Parse(v.(string))
			if err != nil {
				return err
			}
			if !contains(strategy.Names, name) {
				return fmt.Errorf("unknown strategy %q (known: %s)", name, strings.Join(strategy.Names, ", "))
			}
			o.Strategy = name
			for k, p := range params {
				if err := checkText(p); err != nil {
					return fmt.Errorf("parameter %s: %w", k, err)
				}
				if _, dup := o.Params[k]; dup {
					return fmt.Errorf("parameter %s is given twice, here and as an option", k)
				}
				o.Params[k] = p
			}
			return nil
		}},
	{Name: "schedules", Kind: Int, On: Launch | Test, Doc: "the number of schedules to explore (0: no limit)",
		set: func(o *Options, v any, _ *Config) error {
			n, err := intIn(v.(int64), 0, math.MaxInt32, "a number of schedules ≥ 0 (0: no limit)")
			o.Schedules = n
			return err
		}},
	{Name: "seed", Kind: Uint, On: Launch | Test, Doc: "the seed of the randomized strategies",
		set: func(o *Options, v any, _ *Config) error { o.Seed = v.(uint64); return nil }},
	{Name: "time", Kind: Duration, On: Launch | Test, Doc: "bounds the exploration's duration (0: no limit)",
		set: func(o *Options, v any, _ *Config) error { o.Time = v.(time.Duration); return nil }},
	{Name: "points", Kind: String, On: Launch | Test, Doc: "the scheduling points: all, sync, or (interleave.runTest) racy",
		set: func(o *Options, v any, c *Config) error {
			s := v.(string)
			if _, err := engine.ParsePoints(s); err != nil || (s == "racy" && c.Surface == Launch) {
				if c.Surface == Launch {
					return errors.New(`want "all" or "sync"`)
				}
				return errors.New(`want "all", "sync" or "racy"`)
			}
			o.Points = s
			return nil
		}},
	{Name: "races", Kind: String, On: Launch | Test, Doc: "the race detector: report, fail or off",
		set: func(o *Options, v any, _ *Config) error {
			switch s := v.(string); s {
			case "report", "fail", "off":
				o.Races = s
				return nil
			}
			return errors.New(`want "report", "fail" or "off"`)
		}},
	{Name: "sleeps", Kind: String, On: Test, Doc: "whether a runnable goroutine may be delayed past a sleep of up to 10ms, and what a bug that needs it is: order (no delay), notice (the default) or fail",
		set: func(o *Options, v any, _ *Config) error {
			if _, err := engine.ParseSleepMode(v.(string)); err != nil {
				return errors.New(`want "order", "notice" or "fail"`)
			}
			o.Sleeps = v.(string)
			return nil
		}},
	{Name: "max-steps", Kind: Int, On: Launch | Test, Doc: fmt.Sprintf("the livelock bound in steps (0: adaptive, from %d up to %d while executions still change state)", engine.DefaultMaxSteps, engine.MaxAdaptiveSteps),
		set: func(o *Options, v any, _ *Config) error {
			n, err := intIn(v.(int64), 0, math.MaxInt32, "a number of steps ≥ 0 (0: the default)")
			o.MaxSteps = n
			return err
		}},
	{Name: "tags", Kind: List, On: Launch | Test, Doc: "build tags",
		set: func(o *Options, v any, _ *Config) error {
			for _, t := range v.([]string) {
				if !tagRE.MatchString(t) {
					return fmt.Errorf("tag %q: want letters, digits, '_' and '.'", t)
				}
			}
			o.Tags = v.([]string)
			return nil
		}},
	{Name: "skip", Kind: String, On: Test, Doc: "a regular expression of tests not to run",
		set: func(o *Options, v any, _ *Config) error {
			if _, err := regexp.Compile(v.(string)); err != nil {
				return err
			}
			o.Skip = v.(string)
			return nil
		}},
	{Name: "fair-steps", Kind: Int, On: Test, Doc: fmt.Sprintf("the fairness bound in steps (0: the default, %d; negative: no fairness)", engine.DefaultFairSteps),
		set: func(o *Options, v any, _ *Config) error {
			n, err := intIn(v.(int64), math.MinInt32, math.MaxInt32, "a number of steps")
			o.FairSteps = n
			return err
		}},
	{Name: "keep-going", Kind: Bool, On: Test, Doc: "explore on after the first bug",
		set: func(o *Options, v any, _ *Config) error { o.KeepGoing = v.(bool); return nil }},
	{Name: "strict-leaks", Kind: Bool, On: Launch | Test, Doc: "report every goroutine left after the test as a leak (a worker never stopped, a ticker's)",
		set: func(o *Options, v any, _ *Config) error { o.StrictLeaks = v.(bool); return nil }},
	{Name: "minimize", Kind: Duration, On: Test, Doc: "time spent minimizing a bug's schedule (0: none)",
		set: func(o *Options, v any, _ *Config) error { o.Minimize = v.(time.Duration); return nil }},
	{Name: "race-runs", Kind: Int, On: Test, Doc: "schedules of the race-detection pass of points racy",
		set: func(o *Options, v any, _ *Config) error {
			n, err := intIn(v.(int64), 1, math.MaxInt32, "a number of schedules ≥ 1")
			o.RaceRuns = n
			return err
		}},
	{Name: "junit", Kind: Path, On: Test, Doc: "the JUnit XML report to write, in the results store",
		set: func(o *Options, v any, _ *Config) error { o.JUnit = v.(string); return nil }},
	{Name: "sarif", Kind: Path, On: Test, Doc: "the SARIF log to write, in the results store",
		set: func(o *Options, v any, _ *Config) error { o.SARIF = v.(string); return nil }},
}

// tagRE is a build tag.
var tagRE = regexp.MustCompile(`^[A-Za-z0-9_.]+$`)

// Accepted returns the options the surface accepts, in the table's order.
func Accepted(s Surface) []Option {
	var out []Option
	for _, o := range options {
		if o.On&s != 0 {
			out = append(out, o)
		}
	}
	return out
}

func lookup(name string, s Surface) (Option, bool) {
	for _, o := range options {
		if o.Name == name && o.On&s != 0 {
			return o, true
		}
	}
	return Option{}, false
}

// Parse checks the options of a client: opts as decoded from JSON (numbers as float64 or
// json.Number). Keys that are neither options of the surface nor parameters of a strategy
// are refused, and so is any value that fails its option's check; the strategy and its
// parameters are checked by constructing the strategy.
func Parse(opts map[string]any, c Config) (*Options, error) {
	o := &Options{Params: map[string]string{}, given: map[string]bool{}}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	// The strategy's own parameters first, so that "strategy": "pct:d=3" and "d": 3 are
	// refused as given twice whatever the order.
	sort.Slice(keys, func(i, j int) bool {
		if (keys[i] == "strategy") != (keys[j] == "strategy") {
			return keys[j] == "strategy"
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys {
		v := opts[k]
		if why, ok := c.Reserved[k]; ok {
			return nil, fmt.Errorf("option %s: %s", k, why)
		}
		opt, ok := lookup(k, c.Surface)
		if !ok {
			if strategy.IsParam(k) && k != "seed" {
				p, err := paramValue(v)
				if err != nil {
					return nil, fmt.Errorf("option %s (a strategy's parameter): %s: %w", k, show(v), err)
				}
				o.Params[k] = p
				o.given[k] = true
				continue
			}
			return nil, fmt.Errorf("option %q is not accepted (accepted: %s)", k, acceptedList(c))
		}
		if s, isString := v.(string); isString && s == "" && opt.Kind != Bool {
			continue // "": the default
		}
		dv, err := decode(opt.Kind, v, &c)
		if err == nil {
			err = opt.set(o, dv, &c)
		}
		if err != nil {
			return nil, fmt.Errorf("option %s: %s: %w", k, show(v), err)
		}
		o.given[k] = true
	}
	if o.Strategy != "" || len(o.Params) > 0 {
		name := o.Strategy
		if name == "" {
			name = c.DefaultStrategy
		}
		seed := o.Seed
		if seed == 0 {
			seed = 1
		}
		if _, err := strategy.New(name, o.Params, seed); err != nil {
			return nil, fmt.Errorf("option strategy: %w", err)
		}
	}
	return o, nil
}

// acceptedList names the accepted keys for an error message.
func acceptedList(c Config) string {
	names := append([]string(nil), c.Also...)
	for _, o := range Accepted(c.Surface) {
		names = append(names, o.Name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ") + ", and the strategies' parameters (" + strings.Join(strategyParams(), ", ") + ")"
}

// strategyParams lists the parameters of the strategies that are options of their own.
func strategyParams() []string {
	seen := map[string]bool{}
	var out []string
	for _, name := range strategy.Names {
		for _, p := range strategy.ParamNames(name) {
			if p != "seed" && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out
}

// show quotes a value for an error message.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}

// decode checks v's type against k and returns it as k's Go type.
func decode(k Kind, v any, c *Config) (any, error) {
	want := fmt.Errorf("want %s", k)
	switch k {
	case String:
		s, ok := v.(string)
		if !ok {
			return nil, want
		}
		return s, checkText(s)
	case Int:
		n, ok := integer(v)
		if !ok {
			return nil, want
		}
		i, err := strconv.ParseInt(n, 10, 64)
		if err != nil {
			return nil, want
		}
		return i, nil
	case Uint:
		n, ok := integer(v)
		if !ok {
			return nil, want
		}
		u, err := strconv.ParseUint(n, 10, 64)
		if err != nil {
			return nil, want
		}
		return u, nil
	case Bool:
		b, ok := v.(bool)
		if !ok {
			return nil, want
		}
		return b, nil
	case Duration:
		s, ok := v.(string)
		if !ok {
			return nil, want
		}
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return nil, fmt.Errorf(`want a duration ≥ 0 such as "30s" (0: no limit)`)
		}
		return d, nil
	case List:
		var list []string
		switch x := v.(type) {
		case string:
			list = strings.Split(x, ",")
		case []any:
			for _, e := range x {
				s, ok := e.(string)
				if !ok {
					return nil, want
				}
				list = append(list, s)
			}
		case []string:
			list = x
		default:
			return nil, want
		}
		for _, s := range list {
			if err := checkText(s); err != nil {
				return nil, err
			}
		}
		return list, nil
	case Path:
		s, ok := v.(string)
		if !ok {
			return nil, want
		}
		if err := checkText(s); err != nil {
			return nil, err
		}
		return InStore(c.Store, c.Dir, s)
	}
	return nil, fmt.Errorf("unknown kind %d", k)
}

// integer returns the decimal digits of an integral JSON number.
func integer(v any) (string, bool) {
	switch x := v.(type) {
	case float64:
		switch {
		case x != math.Trunc(x) || x < -(1<<63) || x >= 1<<64: // also ±Inf and NaN
			return "", false
		case x < 0:
			return strconv.FormatInt(int64(x), 10), true
		}
		return strconv.FormatUint(uint64(x), 10), true
	case json.Number:
		if _, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return string(x), true
		}
		if _, err := strconv.ParseUint(string(x), 10, 64); err == nil {
			return string(x), true
		}
		f, err := x.Float64() // 1.0, 1e3: as a float64 from encoding/json would be
		if err != nil {
			return "", false
		}
		return integer(f)
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	}
	return "", false
}

// paramValue is a strategy parameter's value: a string or a number.
func paramValue(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, checkText(x)
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return "", errors.New("want a finite number")
		}
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case json.Number:
		if _, err := x.Float64(); err != nil {
			return "", errors.New("want a number")
		}
		return string(x), nil
	case int, int64, uint64:
		return fmt.Sprint(x), nil
	}
	return "", errors.New("want a string or a number")
}

// checkText refuses a string value that would read as a flag (a leading '-' that does not
// start a number) or that holds control characters.
func checkText(s string) error {
	if strings.HasPrefix(s, "-") {
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			return errors.New("a value may not start with '-': it would read as a flag")
		}
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("control character %q in the value", r)
		}
	}
	return nil
}

func intIn(n, min, max int64, want string) (int, error) {
	if n < min || n > max {
		return 0, fmt.Errorf("want %s", want)
	}
	return int(n), nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// InStore resolves p (relative to dir) and returns it when it names a file inside the results
// store directory store: symbolic links and ".." are resolved in p and in store's parents, a
// store that is itself a symbolic link or a symbolic link that leads nowhere is refused, and
// so is anything that exists but is not a regular file.
func InStore(store, dir, p string) (string, error) {
	if store == "" {
		return "", errors.New("no results store to write it in")
	}
	if !filepath.IsAbs(p) {
		if dir == "" {
			return "", errors.New("a relative path without a directory to resolve it in")
		}
		p = filepath.Join(dir, p)
	}
	target, err := resolve(p)
	if err != nil {
		return "", err
	}
	if st, err := os.Lstat(store); err == nil && st.Mode()&os.ModeSymlink != 0 {
		// A store that a checked-out repository can make point anywhere (.interleave ->
		// ~/.ssh) is no place to write.
		return "", fmt.Errorf("the results store %s is a symbolic link: reports are written only into a directory", store)
	}
	root, err := resolve(store)
	if err != nil {
		return "", fmt.Errorf("results store %s: %w", store, err)
	}
	rel, err := filepath.Rel(root, target)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the results store %s: reports are written only there", target, store)
	}
	if st, err := os.Lstat(target); err == nil && !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s exists and is not a regular file", target)
	}
	return target, nil
}

// resolve returns the absolute path p with the symbolic links of its existing part resolved
// (the rest does not exist yet); a symbolic link that leads nowhere is an error.
func resolve(p string) (string, error) {
	p, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	var rest []string
	for cur := p; ; {
		r, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(append([]string{r}, rest...)...), nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		if _, lerr := os.Lstat(cur); lerr == nil {
			return "", fmt.Errorf("%s is a symbolic link that leads nowhere", cur)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", err
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
		cur = parent
	}
}

// Flags are interleave test's flags for the options, each -name=value, in a stable order.
// The strategy's parameters go into -strategy=name:key=value,...; one whose value holds a
// comma (stride's lengths, portfolio's members) is a flag of its own.
func (o *Options) Flags(defaultStrategy string) []string {
	var out []string
	if o.Strategy != "" || len(o.Params) > 0 {
		name := o.Strategy
		if name == "" {
			name = defaultStrategy
		}
		var inline, own []string
		for _, k := range sortedKeys(o.Params) {
			if strings.Contains(o.Params[k], ",") {
				own = append(own, "-"+k+"="+o.Params[k])
			} else {
				inline = append(inline, k+"="+o.Params[k])
			}
		}
		if len(inline) > 0 {
			name += ":" + strings.Join(inline, ",")
		}
		out = append(append(out, "-strategy="+name), own...)
	}
	for _, opt := range options {
		if opt.Name == "strategy" || !o.given[opt.Name] || (opt.Name == "tags" && len(o.Tags) == 0) {
			continue
		}
		var v string
		switch opt.Name {
		case "schedules":
			v = strconv.Itoa(o.Schedules)
		case "seed":
			v = strconv.FormatUint(o.Seed, 10)
		case "time":
			v = o.Time.String()
		case "points":
			v = o.Points
		case "races":
			v = o.Races
		case "sleeps":
			v = o.Sleeps
		case "max-steps":
			v = strconv.Itoa(o.MaxSteps)
		case "fair-steps":
			v = strconv.Itoa(o.FairSteps)
		case "tags":
			v = strings.Join(o.Tags, ",")
		case "skip":
			v = o.Skip
		case "keep-going":
			v = strconv.FormatBool(o.KeepGoing)
		case "strict-leaks":
			v = strconv.FormatBool(o.StrictLeaks)
		case "minimize":
			v = o.Minimize.String()
		case "race-runs":
			v = strconv.Itoa(o.RaceRuns)
		case "junit":
			v = o.JUnit
		case "sarif":
			v = o.SARIF
		default:
			panic("runopts: no flag for option " + opt.Name)
		}
		out = append(out, "-"+opt.Name+"="+v)
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestStrategy is interleave test's default strategy, which a strategy's parameters given
// without a strategy belong to.
const TestStrategy = "portfolio"
