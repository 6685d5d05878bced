package control

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/interleave-dev/interleave/engine"
)

// goroutineStack is one goroutine of a traceback.
type goroutineStack struct {
	goid   int64
	frames []engine.Frame
}

// engineFrame is the prefix of the engine's frames whose second argument is the engine's
// record of the goroutine ((*Exec).wait(e, g), (*Exec).yield(e, g), ...).
const engineFrame = "github.com/interleave-dev/interleave/engine.(*Exec)."

// goroutineStacks takes a traceback of every goroutine and returns the user frames of the
// engine's goroutines, by the address of their engine record (GoroutineView.Handle).
func goroutineStacks() map[uintptr]goroutineStack {
	return parseStacks(string(engine.AllStacks()))
}

// parseStacks parses a traceback of every goroutine (runtime.Stack(buf, true)).
func parseStacks(text string) map[uintptr]goroutineStack {
	out := make(map[uintptr]goroutineStack)
	for _, block := range strings.Split(text, "\n\n") {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		if len(lines) == 0 || !strings.HasPrefix(lines[0], "goroutine ") {
			continue
		}
		f := strings.Fields(lines[0])
		goid, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		var handle uintptr
		var frames []engine.Frame
		fn, args := "", ""
		for _, l := range lines[1:] {
			switch {
			case strings.HasPrefix(l, "created by "):
				fn = ""
			case strings.HasPrefix(l, "\t"):
				// The location of the function on the line before.
				if fn == "" {
					continue
				}
				loc := strings.TrimSpace(l)
				if j := strings.LastIndex(loc, " +0x"); j > 0 {
					loc = loc[:j]
				}
				file, line := loc, 0
				if j := strings.LastIndexByte(loc, ':'); j > 0 {
					file = loc[:j]
					line, _ = strconv.Atoi(loc[j+1:])
				}
				if handle == 0 && strings.HasPrefix(fn, engineFrame) {
					handle = handleArg(args)
				}
				if !hiddenFrame(fn) {
					frames = append(frames, engine.Frame{Func: strings.Replace(fn, ".__ilTest", ".Test", 1), File: file, Line: line})
				}
				fn = ""
			case strings.HasPrefix(l, "..."):
				fn = "" // "...additional frames elided..."
			default:
				fn, args = l, ""
				if j := strings.LastIndexByte(l, '('); j > 0 {
					fn, args = l[:j], l[j+1:]
				}
			}
		}
		if handle != 0 {
			out[handle] = goroutineStack{goid: goid, frames: frames}
		}
	}
	return out
}

// handleArg returns the second argument of a traceback's argument list ("0xc0001, 0xc0002)"),
// the engine's record of the goroutine, or 0.
func handleArg(args string) uintptr {
	a := strings.Split(strings.TrimSuffix(args, ")"), ", ")
	if len(a) < 2 {
		return 0
	}
	v, err := strconv.ParseUint(strings.TrimSuffix(a[1], "?"), 0, 64)
	if err != nil {
		return 0
	}
	return uintptr(v)
}

// hiddenFrame reports whether a frame belongs to the machinery (the engine, this
// package, the runtime, testing) rather than the program.
func hiddenFrame(fn string) bool {
	for _, p := range []string{"github.com/interleave-dev/interleave/engine", "runtime.", "testing.", "sync.", "reflect."} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

func userFrames(fs []engine.Frame) []engine.Frame {
	var out []engine.Frame
	for _, f := range fs {
		if !hiddenFrame(f.Func) {
			f.Func = strings.Replace(f.Func, ".__ilTest", ".Test", 1)
			out = append(out, f)
		}
	}
	return out
}

// formatValue formats a value without calling its methods (a String method of instrumented
// code would reach scheduling points from inside the scheduler).
func formatValue(v reflect.Value, depth int) string {
	if !v.IsValid() {
		return "nil"
	}
	switch v.Kind() {
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.Complex64, reflect.Complex128:
		return fmt.Sprint(v.Complex())
	case reflect.String:
		return strconv.Quote(v.String())
	case reflect.Pointer, reflect.Chan, reflect.Func, reflect.UnsafePointer, reflect.Map:
		if v.IsNil() {
			return "nil"
		}
		return fmt.Sprintf("%s(%#x)", v.Type(), v.Pointer())
	case reflect.Interface:
		if v.IsNil() {
			return "nil"
		}
		return formatValue(v.Elem(), depth)
	}
	if depth == 0 {
		return v.Type().String() + "{…}"
	}
	var parts []string
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			parts = append(parts, v.Type().Field(i).Name+": "+formatValue(v.Field(i), depth-1))
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return "nil"
		}
		for i := 0; i < v.Len() && i < 8; i++ {
			parts = append(parts, formatValue(v.Index(i), depth-1))
		}
		if v.Len() > 8 {
			parts = append(parts, fmt.Sprintf("… %d more", v.Len()-8))
		}
	}
	return v.Type().String() + "{" + strings.Join(parts, ", ") + "}"
}
