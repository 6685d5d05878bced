package lsp_test

import (
	"path/filepath"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/interleave-dev/interleave/lsp/lsptest"
)

// TestWorkspaceFolders: a folder that is a subdirectory of a module shows the module's
// findings; a folder added during the session shows its own, and a removed one's go.
func TestWorkspaceFolders(t *testing.T) {
	races := racesModule(t)
	lockorder := filepath.Join(examplesDir(t), "lockorder")
	sub := filepath.Join(races, "racy", "counter")
	c := lsptest.Start(t, exe, sub)
	c.Initialize(lsptest.VSCodeInitialize([]string{sub}, nil))
	counter := filepath.Join(sub, "counter.go")
	config := filepath.Join(races, "racy/lazyinit/config.go")
	bank := filepath.Join(lockorder, "bank_test.go")
	c.Await("the module's races from a subdirectory", func(r *lsptest.Records) bool {
		return len(r.Diagnostics(counter)) == 1 && len(r.Diagnostics(config)) > 0
	})
	folder := func(dir string) protocol.WorkspaceFolder {
		return protocol.WorkspaceFolder{URI: string(uri.File(dir)), Name: filepath.Base(dir)}
	}
	c.Notify(protocol.MethodWorkspaceDidChangeWorkspaceFolders, &protocol.DidChangeWorkspaceFoldersParams{Event: protocol.WorkspaceFoldersChangeEvent{
		Added: []protocol.WorkspaceFolder{folder(lockorder)}}})
	c.Await("the added folder's deadlock", func(r *lsptest.Records) bool { return len(r.Diagnostics(bank)) == 1 })
	c.Notify(protocol.MethodWorkspaceDidChangeWorkspaceFolders, &protocol.DidChangeWorkspaceFoldersParams{Event: protocol.WorkspaceFoldersChangeEvent{
		Removed: []protocol.WorkspaceFolder{folder(sub)}}})
	c.Await("the removed folder's races gone", func(r *lsptest.Records) bool {
		return len(r.Diagnostics(counter)) == 0 && len(r.Diagnostics(config)) == 0 && len(r.Diagnostics(bank)) == 1
	})
	c.Shutdown()
}
