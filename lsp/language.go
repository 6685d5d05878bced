package lsp

import (
	"context"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/interleave-dev/interleave/engine/bounded"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/lsp/diagnose"
	"github.com/interleave-dev/interleave/lsp/lens"
	"github.com/interleave-dev/interleave/lsp/store"
)

// hover shows the Markdown of the findings at the position.
func (s *Server) hover(ctx context.Context, req jsonrpc2.Request) (any, error) {
	var p protocol.HoverParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	path, ok := docPath(p.TextDocument.URI)
	if !ok {
		return nil, nil
	}
	var parts []string
	var rng *protocol.Range
	for _, r := range s.resolved(path) {
		if !diagnose.Contains(r.Range, p.Position) || r.Hover == nil {
			continue
		}
		h := r.Hover(r.Operand)
		if r.Stale {
			h = "_" + strings.TrimSpace(diagnose.StaleSuffix) + "_\n\n" + h
		}
		parts = append(parts, h)
		if rng == nil {
			rr := r.Range
			rng = &rr
		}
	}
	if len(parts) == 0 {
		return nil, nil
	}
	return &protocol.Hover{
		Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: strings.Join(parts, "\n\n---\n\n")},
		Range:    rng,
	}, nil
}

// codeLens puts Explore and Replay above the tests of a _test.go file.
func (s *Server) codeLens(ctx context.Context, req jsonrpc2.Request) (any, error) {
	var p protocol.CodeLensParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	path, ok := docPath(p.TextDocument.URI)
	if !ok || !strings.HasSuffix(path, "_test.go") {
		return []protocol.CodeLens{}, nil
	}
	s.mu.Lock()
	var src []byte
	if doc := s.docs[path]; doc != nil {
		src = []byte(doc.Text())
	}
	s.mu.Unlock()
	if src == nil {
		var err error
		if src, err = bounded.Source.ReadFile(path); err != nil {
			return []protocol.CodeLens{}, nil
		}
	}
	tests := lens.Tests(src)
	if len(tests) == 0 {
		return []protocol.CodeLens{}, nil
	}
	dir := filepath.Dir(path)
	m, ok := store.FindModule(dir)
	if !ok {
		return []protocol.CodeLens{}, nil
	}
	pkg := m.Path
	if rel, err := filepath.Rel(m.Root, dir); err == nil && rel != "." {
		pkg += "/" + filepath.ToSlash(rel)
	}
	s.mu.Lock()
	st := s.stores[m.Root]
	s.mu.Unlock()
	var snap *store.Snapshot
	if st != nil {
		snap = st.Snapshot()
	}
	latest := func(test string) *schedule.File {
		if snap == nil {
			return nil
		}
		return snap.LatestSchedule(pkg, test)
	}
	return lens.Lenses(tests, m.Root, dir, latest), nil
}

// codeAction offers the commands of the findings in the range.
func (s *Server) codeAction(ctx context.Context, req jsonrpc2.Request) (any, error) {
	var p protocol.CodeActionParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	out := []protocol.CodeAction{}
	if len(p.Context.Only) > 0 {
		ok := false
		for _, k := range p.Context.Only {
			if k == protocol.QuickFix || k == "" {
				ok = true
			}
		}
		if !ok {
			return out, nil
		}
	}
	path, ok := docPath(p.TextDocument.URI)
	if !ok {
		return out, nil
	}
	for _, r := range s.resolved(path) {
		if !diagnose.Overlaps(r.Range, p.Range) {
			continue
		}
		s.mu.Lock()
		d := s.resolver.Diagnostic(r, s.docsLocked)
		s.mu.Unlock()
		for _, c := range r.Actions {
			c := c
			out = append(out, protocol.CodeAction{
				Title: c.Title, Kind: protocol.QuickFix, Diagnostics: []protocol.Diagnostic{d}, Command: &c,
			})
		}
	}
	return out, nil
}
