// Package vectors runs the shared conformance vectors (testdata/, copied
// unchanged from the reference repositories; see testdata/README.md) against
// termsgate. Every row in scope is a Go subtest named after the row; a row
// not yet supported is skipped with its reason, and the README's conformance
// table lists it. Nothing imports this package except tests.
//
// The files are embedded; TERMSGATE_VECTORS=DIR makes Load read DIR's copy
// instead, so that a CI job can run newer upstream files against termsgate
// and see which rows moved.
package vectors

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"

	"github.com/termsgate/termsgate/jsonv"
)

//go:embed testdata/*.json
var files embed.FS

// DirEnv names a directory holding another copy of the vector files, read
// instead of the embedded one when set.
const DirEnv = "TERMSGATE_VECTORS"

// Source says where Load reads the files: the directory DirEnv names, or
// "embedded".
func Source() string {
	if dir := os.Getenv(DirEnv); dir != "" {
		return dir
	}
	return "embedded"
}

// ReadFile returns one vector file's bytes, from DirEnv's directory when it
// is set, else from the embedded copy. A file missing from that directory
// is an error naming it: running fewer files than asked is not a pass.
func ReadFile(name string) ([]byte, error) {
	if dir := os.Getenv(DirEnv); dir != "" {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("%s=%s: %w", DirEnv, dir, err)
		}
		return b, nil
	}
	return files.ReadFile("testdata/" + name)
}

// Load parses one vector file. The files are trusted data, so the seller
// depth cap does not apply to them.
func Load(name string) (*jsonv.Object, error) {
	data, err := ReadFile(name)
	if err != nil {
		return nil, err
	}
	v, err := jsonv.ParseDepth(data, 1<<10)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, fmt.Errorf("%s: not an object", name)
	}
	return o, nil
}
