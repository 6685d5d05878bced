package engine

import (
	"cmp"
	"iter"
	"reflect"
	"slices"
	"strings"
)

// MapRange is "range m" over a map, as the instrumenter rewrites it: for k, v := range
// MapRange(m, pos). Go randomizes the order of a map's iteration on every range, so a test
// whose goroutines or subtests come from ranging over a map would not be a function of its
// schedule: an execution could not be replayed, and a systematic strategy would see a
// different program each time. In a controlled execution, MapRange yields the entries in the
// order of their keys (numbers, strings and booleans by value, arrays and structs field by
// field, interfaces by dynamic type, then value). Keys with no order that is the same in every
// execution (pointers, channels, or values holding them) come in the order in which the
// execution first stored them into a map with MapStore (a server's connections, in the order
// it accepted them), which the schedule decides; when one of them was not stored so (the map
// was filled by code that was not instrumented, or by an earlier execution), they keep Go's
// order.
//
// The semantics of a map range are kept: the range expression is evaluated once; an entry
// deleted before it is reached is not produced; the value produced is the entry's value when it
// is reached; entries added during the range are not produced (Go may or may not produce them).
// The start of the range and each entry are reads of the map, so that a write by another
// goroutine in the middle of a range is a race, as Go's race detector reports it.
func MapRange[M ~map[K]V, K comparable, V any](m M, pos Pos) iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		Read(mapAddr(m), pos)
		if len(m) == 0 {
			return
		}
		type entry struct {
			k K
			v V
		}
		entries := make([]entry, 0, len(m))
		for k, v := range m {
			entries = append(entries, entry{k, v})
		}
		if e, _ := current(pos); e != nil {
			order := keyOrder[K]()
			if order != nil && reflect.TypeFor[K]().Kind() == reflect.Interface {
				for _, en := range entries {
					if k := any(en.k); k != nil && !orderable(reflect.TypeOf(k)) {
						order = nil // Go's order: this key has no stable place
						break
					}
				}
			}
			if order != nil {
				slices.SortFunc(entries, func(a, b entry) int { return order(a.k, b.k) })
			} else if seq := keySeqs(e, entries, func(en entry) K { return en.k }); seq != nil {
				// Keys with no order of their own, all stored in this execution: in the
				// order of their first store, which the schedule decides.
				slices.SortStableFunc(entries, func(a, b entry) int { return cmp.Compare(seq[any(a.k)], seq[any(b.k)]) })
			}
		}
		for i, en := range entries {
			if i > 0 {
				Read(mapAddr(m), pos)
			}
			v, ok := m[en.k]
			if !ok && en.k != en.k {
				v, ok = en.v, true // a NaN key is never found again, and is produced once
			}
			if !ok {
				continue // deleted during the range
			}
			if !yield(en.k, v) {
				return
			}
		}
	}
}

// unordered reports whether a map key of type t may have no order of its own (pointers,
// channels, interfaces, and arrays or structs of them): MapStore numbers those keys.
func unordered(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Chan, reflect.UnsafePointer, reflect.Interface:
		return true
	case reflect.Array:
		return unordered(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if unordered(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// noteKey numbers k, a key stored into a map at pos, when it may have no order of its own
// and the execution has not seen it before (Exec.keySeq).
func noteKey[K comparable](k K) {
	if !unordered(reflect.TypeFor[K]()) {
		return
	}
	e := active.Load()
	if e == nil || e.caller() == nil {
		return // uncontrolled: noted by the store's access
	}
	if e.keySeq == nil {
		e.keySeq = map[any]int{}
	}
	if _, ok := e.keySeq[any(k)]; !ok {
		e.keySeq[any(k)] = len(e.keySeq)
	}
}

// keySeqs returns the execution's numbers of the keys of entries when every key has one, or
// nil.
func keySeqs[E any, K comparable](e *Exec, entries []E, key func(E) K) map[any]int {
	if len(e.keySeq) == 0 {
		return nil
	}
	for _, en := range entries {
		if _, ok := e.keySeq[any(key(en))]; !ok {
			return nil
		}
	}
	return e.keySeq
}

// keyOrder returns a total order of K's values that is the same in every execution, or nil
// when K has none (its values hold pointers).
func keyOrder[K comparable]() func(a, b K) int {
	var zero K
	switch any(zero).(type) {
	case string:
		return func(a, b K) int { return strings.Compare(any(a).(string), any(b).(string)) }
	case int:
		return func(a, b K) int { return cmp.Compare(any(a).(int), any(b).(int)) }
	case int64:
		return func(a, b K) int { return cmp.Compare(any(a).(int64), any(b).(int64)) }
	case int32:
		return func(a, b K) int { return cmp.Compare(any(a).(int32), any(b).(int32)) }
	case uint64:
		return func(a, b K) int { return cmp.Compare(any(a).(uint64), any(b).(uint64)) }
	case uint32:
		return func(a, b K) int { return cmp.Compare(any(a).(uint32), any(b).(uint32)) }
	}
	t := reflect.TypeFor[K]()
	if t.Kind() != reflect.Interface && !orderable(t) {
		return nil
	}
	// With interface keys, whether the order holds depends on the dynamic values, which
	// MapRange checks.
	return func(a, b K) int {
		c, _ := compareValues(reflect.ValueOf(&a).Elem(), reflect.ValueOf(&b).Elem())
		return c
	}
}

// orderable reports whether every value of t has a place in compareValues's order.
func orderable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return true
	case reflect.Array:
		return orderable(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !orderable(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false // pointers, channels, unsafe pointers; interfaces are checked per value
}

// compareValues orders a and b, of the same type; ok is false when they hold values with no
// order that is the same in every execution (then the result is 0). Values of an orderable
// type always have one.
func compareValues(a, b reflect.Value) (c int, ok bool) {
	switch a.Kind() {
	case reflect.Bool:
		switch {
		case a.Bool() == b.Bool():
			return 0, true
		case !a.Bool():
			return -1, true
		}
		return 1, true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmp.Compare(a.Int(), b.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return cmp.Compare(a.Uint(), b.Uint()), true
	case reflect.Float32, reflect.Float64:
		return cmp.Compare(a.Float(), b.Float()), true
	case reflect.Complex64, reflect.Complex128:
		if c := cmp.Compare(real(a.Complex()), real(b.Complex())); c != 0 {
			return c, true
		}
		return cmp.Compare(imag(a.Complex()), imag(b.Complex())), true
	case reflect.String:
		return strings.Compare(a.String(), b.String()), true
	case reflect.Array:
		for i := range a.Len() {
			if c, ok := compareValues(a.Index(i), b.Index(i)); !ok || c != 0 {
				return c, ok
			}
		}
		return 0, true
	case reflect.Struct:
		for i := range a.NumField() {
			if c, ok := compareValues(a.Field(i), b.Field(i)); !ok || c != 0 {
				return c, ok
			}
		}
		return 0, true
	case reflect.Interface:
		switch {
		case a.IsNil() && b.IsNil():
			return 0, true
		case a.IsNil():
			return -1, true
		case b.IsNil():
			return 1, true
		}
		ae, be := a.Elem(), b.Elem()
		if ae.Type() != be.Type() {
			return strings.Compare(typeKey(ae.Type()), typeKey(be.Type())), true
		}
		return compareValues(ae, be)
	}
	return 0, false
}

// typeKey names a type for ordering: its package path and name, or its literal form.
func typeKey(t reflect.Type) string {
	if t.Name() != "" {
		return t.PkgPath() + "." + t.Name()
	}
	return t.String()
}
