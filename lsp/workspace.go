package lsp

import (
	"context"
	"path/filepath"
	"sort"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/interleave-dev/interleave/lsp/store"
)

// StoreGlob is the pattern of the results-store documents the server asks the client to
// watch.
const StoreGlob = "**/.interleave/**/*.json"

// StoreDirGlobs are the patterns of the results stores' directories the server asks the
// client to watch for their creation and deletion.
var StoreDirGlobs = []string{"**/.interleave", "**/.interleave/*"}

// setFolders makes the workspace folders' modules the ones the server reads, then reads
// their stores and publishes.
func (s *Server) setFolders(folders []string) {
	var mods []store.Module
	seen := make(map[string]bool)
	for _, f := range folders {
		for _, m := range store.Modules(f) {
			if !seen[m.Root] {
				seen[m.Root] = true
				mods = append(mods, m)
			}
		}
	}
	s.mu.Lock()
	s.folders = folders
	stores := make(map[string]*store.Store, len(mods))
	for _, m := range mods {
		if st, ok := s.stores[m.Root]; ok {
			stores[m.Root] = st
		} else {
			stores[m.Root] = store.New(m)
		}
	}
	s.stores = stores
	s.mu.Unlock()
	s.log.Printf("workspace: %d folders, %d modules", len(folders), len(mods))
	s.refresh()
}

// storeList returns the stores, sorted by module root.
func (s *Server) storeList() []*store.Store {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*store.Store, 0, len(s.stores))
	for _, st := range s.stores {
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Module.Root < out[j].Module.Root })
	return out
}

// refresh reads every store again and publishes what changed.
func (s *Server) refresh() {
	for _, st := range s.storeList() {
		_, errs := st.Refresh()
		s.reportStoreErrors(errs)
	}
	s.rebuild()
}

func (s *Server) reportStoreErrors(errs []error) {
	for _, err := range errs {
		s.logMessage(protocol.MessageTypeWarning, "interleave: skipped a results-store document: "+err.Error())
	}
}

// registerWatchers asks the client to watch the results stores (dynamic registration of
// workspace/didChangeWatchedFiles).
func (s *Server) registerWatchers() error {
	params := &protocol.RegistrationParams{Registrations: []protocol.Registration{{
		ID:     "interleave-results-store",
		Method: protocol.MethodWorkspaceDidChangeWatchedFiles,
		RegisterOptions: protocol.DidChangeWatchedFilesRegistrationOptions{Watchers: []protocol.FileSystemWatcher{{
			GlobPattern: StoreGlob,
			Kind:        protocol.WatchKindCreate + protocol.WatchKindChange + protocol.WatchKindDelete,
		}, {
			// A directory deleted or made (the whole store removed): VS Code reports the
			// directory alone, not the documents it held.
			GlobPattern: StoreDirGlobs[0],
			Kind:        protocol.WatchKindCreate + protocol.WatchKindDelete,
		}, {
			GlobPattern: StoreDirGlobs[1],
			Kind:        protocol.WatchKindCreate + protocol.WatchKindDelete,
		}}},
	}}}
	if err := s.call(protocol.MethodClientRegisterCapability, params, nil); err != nil {
		return err
	}
	s.mu.Lock()
	s.watching = true
	s.mu.Unlock()
	s.log.Printf("the client watches %s", StoreGlob)
	return nil
}

// fullEvery is how many polls of a watched store's directories come for one of its
// documents' stamps.
const fullEvery = 20

// startPolling reads the stores every PollInterval. For a client that cannot watch them it
// reads every document's stamp; for one that watches them it looks at the stores'
// directories only, and reads a store again when one changed: a client's watcher can miss
// the documents of a directory just made (VS Code adds its watch on a new directory after
// reporting it) and reports a deleted directory without the documents it held, so that
// without this a store deleted, or written into a new directory, stayed as it was in the
// Problems panel until a restart.
func (s *Server) startPolling() {
	s.mu.Lock()
	if s.polling {
		s.mu.Unlock()
		return
	}
	s.polling = true
	s.mu.Unlock()
	s.log.Printf("polling the results stores every %v", s.cfg.PollInterval)
	go func() {
		t := time.NewTicker(s.cfg.PollInterval)
		defer t.Stop()
		for n := 1; ; n++ {
			select {
			case <-s.ctx.Done():
				return
			case <-t.C:
			}
			s.mu.Lock()
			watching := s.watching
			s.mu.Unlock()
			// Every fullEvery-th time every document's stamp as well, in case the client
			// missed a document rewritten in place (no directory changes then).
			full := !watching || n%fullEvery == 0
			changed := false
			for _, st := range s.storeList() {
				if !full && !st.DirsChanged() {
					continue
				}
				c, errs := st.Refresh()
				changed = changed || c
				s.reportStoreErrors(errs)
			}
			if changed {
				s.rebuild()
			}
		}
	}()
}

// didChangeWatchedFiles reads the documents that changed.
func (s *Server) didChangeWatchedFiles(ctx context.Context, req jsonrpc2.Request) (any, error) {
	var p protocol.DidChangeWatchedFilesParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	changed := false
	stores := s.storeList()
	for _, ev := range p.Changes {
		if ev == nil {
			continue
		}
		path, ok := docPath(ev.URI)
		if !ok {
			continue
		}
		for _, st := range stores {
			if st.IsDir(path) {
				// The store or one of its directories made or deleted.
				c, errs := st.Refresh()
				changed = changed || c
				s.reportStoreErrors(errs)
				continue
			}
			if !st.Owns(path) {
				continue
			}
			c, err := st.Update(path)
			changed = changed || c
			if err != nil {
				s.reportStoreErrors([]error{err})
			}
		}
	}
	if changed {
		s.rebuild()
	}
	return nil, nil
}

// didChangeWorkspaceFolders adds and removes folders.
func (s *Server) didChangeWorkspaceFolders(ctx context.Context, req jsonrpc2.Request) (any, error) {
	var p protocol.DidChangeWorkspaceFoldersParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	folders := append([]string(nil), s.folders...)
	s.mu.Unlock()
	removed := make(map[string]bool)
	for _, f := range p.Event.Removed {
		if dir, ok := folderPath(f.URI); ok {
			removed[dir] = true
		}
	}
	var next []string
	for _, f := range folders {
		if !removed[f] {
			next = append(next, f)
		}
	}
	for _, f := range p.Event.Added {
		if dir, ok := folderPath(f.URI); ok {
			next = append(next, filepath.Clean(dir))
		}
	}
	s.setFolders(next)
	return nil, nil
}
