package instrument

// Reporting what is not rewritten: a construct the rewriter cannot handle keeps its code and
// is reported once, with its position.

import (
	"fmt"
	"go/token"
)

// A Problem is a construct the rewriter left as it was, with why. Each is reported once.
type Problem struct {
	Pos token.Position
	Msg string
}

func (p Problem) String() string { return fmt.Sprintf("%s: %s", p.Pos, p.Msg) }

func (r *fileRewriter) problem(p token.Pos, format string, args ...any) {
	pr := Problem{r.fset.Position(p), fmt.Sprintf(format, args...)}
	for _, q := range r.problems {
		if q == pr {
			return
		}
	}
	r.problems = append(r.problems, pr)
}
