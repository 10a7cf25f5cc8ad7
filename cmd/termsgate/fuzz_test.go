package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
)

// FuzzDocumentReaders: what the CLI reads from files and standard input (a
// seller's document or its header value, the step commands' objects, an
// approved agreement payment): no input panics a reader or costs more than
// the fuzz bound.
func FuzzDocumentReaders(f *testing.F) {
	for _, s := range []string{
		`{"x402Version":2,"accepts":[]}`, "eyJ4NDAyVmVyc2lvbiI6Mn0=", `{"atrHash":"0x00","atr":"/w==","chosen":{}}`,
		`{"approve":{"url":"https://a.example/","option":{},"required":{}}}`, ` [ ] `, "\xef\xbb\xbf{}",
		`Payment id="x", realm="a", method="tempo", intent="charge", request="e30", expires="2030-01-01T00:00:00Z"`,
		"HTTP/2 402\r\nPAYMENT-REQUIRED: eyJ4NDAyVmVyc2lvbiI6Mn0=\r\nwww-authenticate: Payment id=\"x\"\r\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "in.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		cost.Bound(t, len(data), func() {
			if d, err := parseOffer(data); err == nil {
				_ = d.asks()
			}
			_, _ = parseObject(data, "in.json", "atrHash", "atr", "chosen", "request", "signature")
			_, _ = readApproved(path)
		})
	})
}
