package findings

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/interleave-dev/interleave/engine/bounded"
)

// InstrumentFormatName is the value of the "format" field of every instrumentation document.
const InstrumentFormatName = "interleave-instrument"

// InstrumentDir is the directory of the instrumentation documents at a module root: one per
// package, what the rewriter left as it was the last time it instrumented the package.
const InstrumentDir = StoreDir + "/instrument"

// Instrumentation is the instrumentation document of one package: the constructs the
// rewriter reported and left uninstrumented when it last rewrote the package.
type Instrumentation struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Package is the package's import path.
	Package string `json:"package"`
	// Time is when the package was instrumented.
	Time time.Time `json:"time"`
	// Problems are the constructs left uninstrumented.
	Problems []Problem `json:"problems"`
	// Files are the content hashes (Hash) of the package's files that Problems name, by
	// file relative to the module root (slash-separated).
	Files map[string]string `json:"files,omitempty"`

	// Path is where the document was read from or written to; not part of it.
	Path string `json:"-"`
}

// Problem is a construct the rewriter left as it was.
type Problem struct {
	// Pos is "file:line:col" with file relative to the module root, as File, Line and Col
	// say separately.
	Pos     string `json:"pos"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Message string `json:"message"`
}

// Hash is the content hash the store records for a source file: the first 16 bytes of its
// SHA-256, in hexadecimal. A reader compares it with the file it has to tell whether the
// positions of a document still point into the same source.
func Hash(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:16])
}

// HashFiles returns the content hashes of the files (relative to root, slash-separated)
// that can be read — regular files of at most bounded.Source's size; the others are left out.
func HashFiles(root string, files []string) map[string]string {
	out := make(map[string]string)
	for _, f := range files {
		if _, ok := out[f]; ok || f == "" {
			continue
		}
		data, err := bounded.Source.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			continue
		}
		out[f] = Hash(data)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// InstrumentPath is the instrumentation document of a package in the store of the module root:
// named by FileStem of the import path, so that packages whose paths flatten alike (a/b and
// a_b) never share a document.
func InstrumentPath(root, pkg string) string {
	return filepath.Join(root, filepath.FromSlash(InstrumentDir), FileStem(pkg)+".json")
}

// legacyInstrumentPath is the name earlier versions gave a package's document, which two
// packages could share; such a document is still read, and removed when its package's
// document is written again.
func legacyInstrumentPath(root, pkg string) string {
	return filepath.Join(root, filepath.FromSlash(InstrumentDir), unsafeName.ReplaceAllString(pkg, "_")+".json")
}

// Save writes the document into the store of the module root, atomically, replacing the
// package's previous one (under the earlier name too), and sets d.Path.
func (d *Instrumentation) Save(root string) error {
	d.Format, d.Version = InstrumentFormatName, Version
	if d.Problems == nil {
		d.Problems = []Problem{}
	}
	data, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return fmt.Errorf("save instrumentation of %s: %w", d.Package, err)
	}
	path := InstrumentPath(root, d.Package)
	if err := writeAtomic(path, append(data, '\n')); err != nil {
		return fmt.Errorf("save instrumentation of %s: %w", d.Package, err)
	}
	d.Path = path
	// A document this package had under the earlier name is replaced by this one (one of
	// another package that flattens alike stays).
	legacy := legacyInstrumentPath(root, d.Package)
	if data, err := os.ReadFile(legacy); err == nil {
		if old, err := DecodeInstrumentation(data, legacy); err == nil && old.Package == d.Package {
			os.Remove(legacy)
		}
	}
	return nil
}

// DecodeInstrumentation reads an instrumentation document; path names it in errors.
func DecodeInstrumentation(data []byte, path string) (*Instrumentation, error) {
	var head struct {
		Format  string `json:"format"`
		Version *int   `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("instrumentation %s: %w", path, err)
	}
	switch {
	case head.Format != InstrumentFormatName:
		return nil, fmt.Errorf("instrumentation %s: format %q, want %q: %w", path, head.Format, InstrumentFormatName, ErrFormat)
	case head.Version == nil || *head.Version != Version:
		v := "none"
		if head.Version != nil {
			v = strconv.Itoa(*head.Version)
		}
		return nil, fmt.Errorf("instrumentation %s: version %s, this interleave reads version %d: %w", path, v, Version, ErrFormat)
	}
	d := new(Instrumentation)
	if err := json.Unmarshal(data, d); err != nil {
		return nil, fmt.Errorf("instrumentation %s: %w", path, err)
	}
	for i, p := range d.Problems {
		if p.File == "" || p.Line <= 0 {
			return nil, fmt.Errorf("instrumentation %s: problem %d has no position", path, i+1)
		}
	}
	d.Path = path
	return d, nil
}

// writeAtomic writes data to path through a temporary file in the same directory, so that a
// reader never sees half a document.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
