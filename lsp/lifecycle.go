package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Version is the server's version in initialize's serverInfo.
const Version = "0.1.0"

// Capabilities are exactly what the server implements.
func Capabilities() protocol.ServerCapabilities {
	return protocol.ServerCapabilities{
		TextDocumentSync: &protocol.TextDocumentSyncOptions{
			OpenClose: true,
			Change:    protocol.TextDocumentSyncKindIncremental,
		},
		HoverProvider:      true,
		CodeLensProvider:   &protocol.CodeLensOptions{},
		CodeActionProvider: &protocol.CodeActionOptions{CodeActionKinds: []protocol.CodeActionKind{protocol.QuickFix}},
		ExecuteCommandProvider: &protocol.ExecuteCommandOptions{
			Commands: []string{CommandRunTest},
		},
		Workspace: &protocol.ServerCapabilitiesWorkspace{
			WorkspaceFolders: &protocol.ServerCapabilitiesWorkspaceFolders{Supported: true, ChangeNotifications: true},
		},
	}
}

// initializeParams is the part of initialize's parameters the server reads.
type initializeParams struct {
	ProcessID        int32                       `json:"processId"`
	RootURI          string                      `json:"rootUri"`
	RootPath         string                      `json:"rootPath"`
	Capabilities     protocol.ClientCapabilities `json:"capabilities"`
	WorkspaceFolders []protocol.WorkspaceFolder  `json:"workspaceFolders"`
}

// initialize: textDocument and workspace folders (or the root) are where the modules are.
func (s *Server) initialize(ctx context.Context, req jsonrpc2.Request) (any, error) {
	var p initializeParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.state != stateNew {
		s.mu.Unlock()
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "initialize: the server is already initialized")
	}
	s.state = stateInitialized
	s.caps = p.Capabilities
	var folders []string
	for _, f := range p.WorkspaceFolders {
		if dir, ok := folderPath(f.URI); ok {
			folders = append(folders, dir)
		}
	}
	if len(folders) == 0 {
		if dir, ok := folderPath(p.RootURI); ok {
			folders = append(folders, dir)
		} else if p.RootPath != "" {
			folders = append(folders, filepath.Clean(p.RootPath))
		}
	}
	s.folders = folders
	s.mu.Unlock()
	if p.ProcessID > 0 {
		go s.watchParent(int(p.ProcessID))
	}
	return &protocol.InitializeResult{
		Capabilities: Capabilities(),
		ServerInfo:   &protocol.ServerInfo{Name: "interleave", Version: Version},
	}, nil
}

// folderPath converts a file: URI to a directory.
func folderPath(u string) (string, bool) {
	if u == "" {
		return "", false
	}
	parsed, err := uri.Parse(u)
	if err != nil || parsed == "" {
		return "", false
	}
	defer func() { recover() }() // Filename panics on a URI that is not file:
	return filepath.Clean(parsed.Filename()), true
}

// watchParent ends the session when the client's process is gone, so that a client that
// dies leaves no server behind (the stream usually ends first).
func (s *Server) watchParent(pid int) {
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		if processGone(pid) {
			close(s.parentGone())
			return
		}
	}
}

// initialized: read the stores, publish, and ask the client to watch them (or poll).
func (s *Server) initialized(ctx context.Context, req jsonrpc2.Request) (any, error) {
	s.mu.Lock()
	folders := s.folders
	dynamic := s.caps.Workspace != nil && s.caps.Workspace.DidChangeWatchedFiles != nil && s.caps.Workspace.DidChangeWatchedFiles.DynamicRegistration
	s.mu.Unlock()
	s.setFolders(folders)
	if dynamic {
		go func() {
			if err := s.registerWatchers(); err != nil {
				s.logMessage(protocol.MessageTypeWarning, fmt.Sprintf("interleave: the client did not register the results-store watcher (%v): polling instead", err))
			}
			// Polled as well: the stores' directories, which a client's watcher can miss.
			s.startPolling()
		}()
	} else {
		s.startPolling()
	}
	return nil, nil
}

// shutdown stops the runs; exit ends the session.
func (s *Server) shutdown(ctx context.Context, req jsonrpc2.Request) (any, error) {
	s.mu.Lock()
	s.state = stateShutdown
	s.mu.Unlock()
	s.cancelRuns() // Serve waits for them when the session ends
	return nil, nil
}

func (s *Server) exit(ctx context.Context, req jsonrpc2.Request) (any, error) {
	s.mu.Lock()
	code := 1
	if s.state == stateShutdown {
		code = 0
	}
	s.mu.Unlock()
	select {
	case s.exitCode <- code:
	default:
	}
	return nil, nil
}

// cancelRuns cancels the interleave.runTest runs, and the ones started from now on.
func (s *Server) cancelRuns() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopping = true
	for _, r := range s.runs {
		r.cancel()
	}
}

// stopRuns cancels the interleave.runTest runs and waits (a while) for their processes to
// end, so that a session that ends leaves none behind. It must not run on the connection's
// read loop: a run may wait for a reply from the client.
func (s *Server) stopRuns() {
	s.cancelRuns()
	done := make(chan struct{})
	go func() {
		s.running.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		s.log.Printf("interleave.runTest runs still running after 15s")
	}
}
