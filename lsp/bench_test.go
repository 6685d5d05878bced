package lsp_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/interleave-dev/interleave/engine/findings"
	"github.com/interleave-dev/interleave/lsp"
	"github.com/interleave-dev/interleave/lsp/lsptest"
)

// benchModule makes a module of files Go files with n races among them, in 100 findings
// documents (fewer when n is smaller), and returns its root and the documents.
func benchModule(b *testing.B, files, n int) (string, []*findings.File) {
	root := b.TempDir()
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module bench\n\ngo 1.22\n"), 0o644)
	var src strings.Builder
	src.WriteString("package p\n\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&src, "func f%d(c *C) {\n\tc.n%d++\n}\n", i, i)
	}
	hashes := make(map[string]string)
	for i := 0; i < files; i++ {
		dir := filepath.Join(root, fmt.Sprintf("p%d", i/50))
		os.MkdirAll(dir, 0o755)
		name := fmt.Sprintf("p%d/f%d.go", i/50, i)
		os.WriteFile(filepath.Join(root, name), []byte(src.String()), 0o644)
		hashes[name] = findings.Hash([]byte(src.String()))
	}
	docs := 100
	if n < docs {
		docs = n
	}
	var out []*findings.File
	for d := 0; d < docs; d++ {
		f := &findings.File{Test: findings.Test{Module: "bench", Package: "bench/p0", Name: fmt.Sprintf("Test%d", d)},
			Points: "all", Schedules: 10000, Files: make(map[string]string)}
		out = append(out, f)
	}
	for k := 0; k < n; k++ {
		file := k * files / n
		name := fmt.Sprintf("p%d/f%d.go", file/50, file)
		line := 4 + 3*((k/files)%40)
		acc := func(op string, g int) findings.Access {
			return findings.Access{Pos: fmt.Sprintf("%s:%d:2", name, line), File: name, Line: line, Col: 2, Op: op, Goroutine: g,
				Created: fmt.Sprintf("%s:%d:2", name, 2)}
		}
		f := out[k%docs]
		f.Races = append(f.Races, findings.Race{A: acc("write", 1), B: acc("read", 2), FirstSchedule: 1, Schedules: 10})
		f.Files[name] = hashes[name]
	}
	for _, f := range out {
		if err := f.Save(root); err != nil {
			b.Fatal(err)
		}
	}
	return root, out
}

// BenchmarkStoreToDiagnostics measures the time from a write of a findings document to the
// publishDiagnostics it causes (the client watching the store, as VS Code does), with 1, 100
// and 10,000 races across 1,000 files, and the heap in use after it (MB).
func BenchmarkStoreToDiagnostics(b *testing.B) {
	for _, n := range []int{1, 100, 10000} {
		b.Run(fmt.Sprintf("findings=%d", n), func(b *testing.B) {
			root, docs := benchModule(b, 1000, n)
			sr, cw := io.Pipe()
			cr, sw := io.Pipe()
			exit := make(chan error, 1)
			srv := lsp.NewServer(lsp.Config{PollInterval: time.Hour})
			go func() {
				code := srv.Serve(context.Background(), sr, sw)
				sw.Close()
				if code != 0 {
					exit <- fmt.Errorf("exit status %d", code)
					return
				}
				exit <- nil
			}()
			c := lsptest.Connect(b, cr, cw, exit)
			start := time.Now()
			c.Initialize(lsptest.VSCodeInitialize([]string{root}, nil))
			files := 1000
			if n < files {
				files = n
			}
			c.Await("the first diagnostics", func(r *lsptest.Records) bool { return len(r.All()) == files })
			initial := time.Since(start)
			doc := docs[0]
			target := filepath.Join(root, filepath.FromSlash(doc.Races[0].A.File))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				count := 1000 + i
				for j := range doc.Races {
					doc.Races[j].Schedules = count
				}
				if err := doc.Save(root); err != nil {
					b.Fatal(err)
				}
				c.Notify(protocol.MethodWorkspaceDidChangeWatchedFiles, &protocol.DidChangeWatchedFilesParams{Changes: []*protocol.FileEvent{
					{Type: protocol.FileChangeTypeChanged, URI: uri.File(doc.Path)}}})
				want := fmt.Sprintf("seen in %s of", commas(count))
				c.Await("the new count", func(r *lsptest.Records) bool {
					for _, d := range r.Diagnostics(target) {
						if strings.Contains(d.Message, want) {
							return true
						}
					}
					return false
				})
			}
			b.StopTimer()
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "MB-heap")
			b.ReportMetric(float64(initial.Milliseconds()), "ms-initial")
			c.Shutdown()
		})
	}
}

// commas formats n as the diagnostics do: 10,000.
func commas(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
