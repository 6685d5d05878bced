package instrument

// Builtins: close, len and cap of channels, delete, clear, and the map and slice operations
// that touch shared memory.

import (
	"go/ast"
	"go/types"
)

func (r *fileRewriter) builtin(c *ast.CallExpr, name string) {
	one := func(fn string) {
		r.rv(c.Args[0])
		r.set(c, func() string { return r.eng(fn) + "(" + r.text(c.Args[0]) + ", " + r.pos(c.Pos()) + ")" })
	}
	switch name {
	case "len", "cap":
		if len(c.Args) != 1 {
			break
		}
		switch t := r.under(c.Args[0]).(type) {
		case *types.Chan:
			if t.Dir() == types.SendOnly {
				// Len and Cap take a <-chan T, which a chan<- T does not convert to. A
				// capacity never changes: cap needs no scheduling point.
				if name == "len" {
					r.problem(c.Pos(), "len of a send-only channel is not instrumented")
				}
				break
			}
			if name == "len" {
				one("Len")
			} else {
				one("Cap")
			}
			return
		case *types.Map:
			r.rv(c.Args[0])
			if r.syncOnly {
				return
			}
			a := c.Args[0]
			r.wrap(a, func(s string) string { return r.eng("MapRead") + "(" + s + ", " + r.pos(a.Pos()) + ")" })
			return
		}
	case "close":
		if len(c.Args) == 1 {
			one("Close")
			return
		}
	case "delete":
		if len(c.Args) == 2 && !r.syncOnly {
			r.rv(c.Args[0])
			r.rv(c.Args[1])
			r.set(c, func() string {
				return r.eng("MapDelete") + "(" + r.text(c.Args[0]) + ", " + r.conv(r.text(c.Args[1]), r.typeOf(c.Args[1]), r.keyType(c.Args[0])) + ", " + r.pos(c.Pos()) + ")"
			})
			return
		}
	case "clear":
		if len(c.Args) == 1 && !r.syncOnly {
			if _, ok := r.under(c.Args[0]).(*types.Map); ok {
				one("MapClear")
				return
			}
		}
	case "make":
		if ch, ok := r.under(c.Args[0]).(*types.Chan); ok {
			if ch.Dir() != types.SendRecv {
				r.problem(c.Pos(), "make of a directional channel type is not instrumented")
				break
			}
			if len(c.Args) > 1 {
				r.rv(c.Args[1])
			}
			r.set(c, func() string {
				size := "0"
				if len(c.Args) > 1 {
					size = r.conv(r.text(c.Args[1]), r.typeOf(c.Args[1]), types.Typ[types.Int])
				}
				return r.eng("MakeChanOf") + "[" + r.orig(c.Args[0]) + "](" + size + ", " + r.pos(c.Pos()) + ")"
			})
			return
		}
		for _, a := range c.Args[1:] {
			r.rv(a)
		}
		return
	case "new":
		if len(c.Args) == 1 {
			if tv, ok := r.info.Types[c.Args[0]]; ok && tv.IsType() {
				return
			}
		}
	case "Sizeof", "Alignof", "Offsetof":
		return // unsafe: the argument is not evaluated
	}
	for _, a := range c.Args {
		if tv, ok := r.info.Types[a]; ok && tv.IsType() {
			continue
		}
		r.rv(a)
	}
}
