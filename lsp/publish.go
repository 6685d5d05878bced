package lsp

import (
	"bytes"
	"encoding/json"
	"sort"

	"go.lsp.dev/protocol"

	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/lsp/diagnose"
	"github.com/interleave-dev/interleave/lsp/store"
)

// rebuild makes the items of every store's current content and publishes the files whose
// diagnostics changed (those that lost all theirs get an empty list).
func (s *Server) rebuild() {
	var snaps []*store.Snapshot
	for _, st := range s.storeList() {
		snaps = append(snaps, st.Snapshot())
	}
	items := diagnose.Build(snaps, loadSchedule)
	s.mu.Lock()
	files := make(map[string]bool)
	for f := range s.items {
		files[f] = true
	}
	for f := range items {
		files[f] = true
	}
	for f := range s.published {
		files[f] = true
	}
	s.items = items
	refresh := s.caps.Workspace != nil && s.caps.Workspace.CodeLens != nil && s.caps.Workspace.CodeLens.RefreshSupport
	s.mu.Unlock()
	list := make([]string, 0, len(files))
	for f := range files {
		list = append(list, f)
	}
	sort.Strings(list)
	s.publish(list)
	if refresh {
		// The Replay lenses depend on the store.
		go func() {
			if err := s.call(protocol.MethodCodeLensRefresh, nil, nil); err != nil {
				s.log.Printf("%v", err)
			}
		}()
	}
}

// loadSchedule reads a schedule file a findings document names outside its store.
func loadSchedule(path string) *schedule.File {
	f, err := schedule.Load(path)
	if err != nil {
		return nil
	}
	return f
}

// docsLocked returns the document that places the findings of a file; the caller holds s.mu.
func (s *Server) docsLocked(path string) *diagnose.Doc { return s.placement(path) }

// placement returns the document whose text and edits place the findings of a file: the open
// document, or a closed one whose text is the file on disk; nil when the file on disk is all
// there is. The caller holds s.mu.
func (s *Server) placement(path string) *diagnose.Doc {
	if doc := s.docs[path]; doc != nil {
		return doc
	}
	if doc := s.closed[path]; doc != nil {
		if s.resolver.DiskHash(path) == doc.Hash() {
			return doc
		}
		delete(s.closed, path) // the file changed since: its edits say nothing of it
	}
	return nil
}

// publish sends the diagnostics of files whose diagnostics changed since last sent.
func (s *Server) publish(files []string) {
	s.pubMu.Lock()
	defer s.pubMu.Unlock()
	for _, f := range files {
		s.mu.Lock()
		doc := s.docs[f]
		placed := s.placement(f)
		resolved := s.resolver.Resolve(s.items[f], placed)
		diags := make([]protocol.Diagnostic, 0, len(resolved))
		for _, r := range resolved {
			diags = append(diags, s.resolver.Diagnostic(r, s.docsLocked))
		}
		data, _ := json.Marshal(diags)
		prev, sent := s.published[f]
		if (!sent && len(diags) == 0) || bytes.Equal(prev, data) {
			s.mu.Unlock()
			continue
		}
		if len(diags) == 0 {
			delete(s.published, f)
		} else {
			s.published[f] = data
		}
		params := &protocol.PublishDiagnosticsParams{URI: fileURI(f), Diagnostics: diags}
		if doc != nil {
			params.Version = uint32(doc.Version)
		}
		s.mu.Unlock()
		s.notify(protocol.MethodTextDocumentPublishDiagnostics, params)
	}
}

// resolved returns the items of a file placed on its current text.
func (s *Server) resolved(path string) []diagnose.Resolved {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resolver.Resolve(s.items[path], s.placement(path))
}
