package strategy

import (
	"fmt"
	"strings"
)

// Default is the strategy of an exploration that names none: PCT with d=3, which found the
// most bugs in the SCTBench study (seed 004, Table IV).
const Default = "pct"

// Parse parses a strategy written as "name" or "name:key=value,key=value" (as in
// INTERLEAVE_STRATEGY and the debug adapter's then strategy) into the arguments of New.
func Parse(s string) (name string, params map[string]string, err error) {
	name, rest, _ := strings.Cut(s, ":")
	if name == "" {
		return "", nil, fmt.Errorf("empty strategy name in %q", s)
	}
	if rest == "" {
		return name, nil, nil
	}
	params = make(map[string]string)
	for _, kv := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return "", nil, fmt.Errorf("strategy parameter %q in %q: want key=value", kv, s)
		}
		params[k] = v
	}
	return name, params, nil
}

// IsParam reports whether name is a parameter of any strategy (see New), so that a command
// line can tell a strategy parameter written as a flag (-d 3) from a mistyped flag.
func IsParam(name string) bool {
	for _, params := range paramNames {
		for _, p := range params {
			if p == name {
				return true
			}
		}
	}
	return false
}

// ParamNames lists the parameters the strategy called name accepts (none for an unknown
// name).
func ParamNames(name string) []string {
	return append([]string(nil), paramNames[name]...)
}
