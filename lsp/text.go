package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/interleave-dev/interleave/lsp/diagnose"
)

// docPath converts a document URI to a file path; ok is false for a URI that is not file:.
func docPath(u protocol.DocumentURI) (string, bool) {
	return folderPath(string(u))
}

// didOpen: the findings of the file are placed on its text as opened, and follow its edits.
func (s *Server) didOpen(ctx context.Context, req jsonrpc2.Request) (any, error) {
	var p protocol.DidOpenTextDocumentParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	path, ok := docPath(p.TextDocument.URI)
	if !ok {
		return nil, nil
	}
	s.mu.Lock()
	doc := diagnose.NewDoc(path, p.TextDocument.Text, p.TextDocument.Version)
	if old := s.closed[path]; old != nil && old.Hash() == doc.Hash() {
		// Reopened as it was closed: its edits still carry the findings.
		old.Reopen(p.TextDocument.Version)
		doc = old
	}
	delete(s.closed, path)
	s.docs[path] = doc
	s.mu.Unlock()
	s.publish([]string{path})
	return nil, nil
}

// didChangeParams is protocol.DidChangeTextDocumentParams with the range of a change
// optional, as the protocol has it: a change without one replaces the whole text.
type didChangeParams struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []struct {
		Range *protocol.Range `json:"range"`
		Text  string          `json:"text"`
	} `json:"contentChanges"`
}

// didChange carries the findings' ranges through the edits (incremental synchronization).
func (s *Server) didChange(ctx context.Context, req jsonrpc2.Request) (any, error) {
	var p didChangeParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	path, ok := docPath(p.TextDocument.URI)
	if !ok {
		return nil, nil
	}
	changes := make([]diagnose.Change, len(p.ContentChanges))
	for i, c := range p.ContentChanges {
		changes[i] = diagnose.Change{Range: c.Range, Text: c.Text}
	}
	s.mu.Lock()
	doc := s.docs[path]
	var err error
	if doc == nil {
		err = fmt.Errorf("change to %s, which is not open", path)
	} else {
		err = doc.Apply(p.TextDocument.Version, changes)
	}
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	s.publish([]string{path})
	return nil, nil
}

// didClose: the file's findings are placed on the file on disk again — through the edits
// made while it was open, as long as the file on disk is the text they made (it was saved).
func (s *Server) didClose(ctx context.Context, req jsonrpc2.Request) (any, error) {
	var p protocol.DidCloseTextDocumentParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	path, ok := docPath(p.TextDocument.URI)
	if !ok {
		return nil, nil
	}
	s.mu.Lock()
	if doc := s.docs[path]; doc != nil && doc.Edited() {
		s.closed[path] = doc
	}
	delete(s.docs, path)
	s.mu.Unlock()
	s.publish([]string{path})
	return nil, nil
}

// fileURI is the URI of a file.
func fileURI(path string) protocol.DocumentURI { return uri.File(path) }
