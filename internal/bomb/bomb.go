// Package bomb holds decompression bombs for tests: streams of a few KiB
// that would decode to 1 GiB of zeros, to show that nothing a seller sends
// is ever decoded (the gate asks for identity and refuses any other coding,
// unread).
package bomb

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"sync"
)

// Size is what each bomb decodes to: 1 GiB.
const Size = 1 << 30

// Brotli is a brotli stream (RFC 7932) of Size zero bytes, 1617 bytes long.
// It was made with github.com/andybalholm/brotli v1.3.0 at quality 5 from
// Size zeros; bomb_test.go decodes it back.
//
//go:embed testdata/zeros-1GiB.br
var Brotli []byte

var (
	gzipOnce sync.Once
	gzipped  []byte
)

// Gzip is a gzip stream of Size zero bytes: 1024 members (RFC 1952 allows
// a file of several, and readers decode them all as one stream) of 1 MiB
// each, about 1 KiB apiece, so about 1 MiB in all (deflate cannot compress
// past about 1:1032).
func Gzip() []byte {
	gzipOnce.Do(func() {
		var member bytes.Buffer
		w, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
		_, _ = w.Write(make([]byte, 1<<20))
		_ = w.Close()
		gzipped = bytes.Repeat(member.Bytes(), Size/(1<<20))
	})
	return gzipped
}
