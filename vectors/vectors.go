// Package vectors runs the shared conformance vectors (testdata/, copied
// unchanged from the reference repositories; see testdata/README.md) against
// termsgate. Every row in scope is a Go subtest named after the row; a row
// not yet supported is skipped with its reason, and the README's conformance
// table lists it. Nothing imports this package except its tests.
package vectors

import (
	"embed"
	"fmt"

	"github.com/termsgate/termsgate/jsonv"
)

//go:embed testdata/*.json
var files embed.FS

// Load parses one vector file. The files are trusted data, so the seller
// depth cap does not apply to them.
func Load(name string) (*jsonv.Object, error) {
	data, err := files.ReadFile("testdata/" + name)
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
