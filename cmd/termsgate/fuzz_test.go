package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/vectors"
)

// FuzzDocumentReaders: what the CLI reads from files and standard input (a
// seller's document or its header value, the step commands' objects, an
// approved agreement payment, a payment for inspect in any of its forms): no
// input panics a reader or costs more than the fuzz bound. inspect's readers
// run under rails.Guard, so a panic there is a *rails.PanicError, which
// fails the target.
func FuzzDocumentReaders(f *testing.F) {
	for _, s := range []string{
		`{"x402Version":2,"accepts":[]}`, "eyJ4NDAyVmVyc2lvbiI6Mn0=", `{"atrHash":"0x00","atr":"/w==","chosen":{}}`,
		`{"approve":{"url":"https://a.example/","option":{},"required":{}}}`, ` [ ] `, "\xef\xbb\xbf{}",
		`Payment id="x", realm="a", method="tempo", intent="charge", request="e30", expires="2030-01-01T00:00:00Z"`,
		"HTTP/2 402\r\nPAYMENT-REQUIRED: eyJ4NDAyVmVyc2lvbiI6Mn0=\r\nwww-authenticate: Payment id=\"x\"\r\n",
		`{"from":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","to":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C","value":"10000","validAfter":"0","validBefore":"1790000060","nonce":"0x8b1e122580ae3f6a8c3d36a24294e1260a87bde70f597279b973e39310072938"}`,
		"0x76c0", "Payment e30", "12000022",
	} {
		f.Add([]byte(s))
	}
	payments, err := vectors.Payments()
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range payments {
		f.Add(jsonv.Marshal(p))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "in.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		cost.Bound(t, len(data), func() {
			if d, err := readOffer(data); err == nil { // parseOffer without its guard
				_ = d.asks()
			}
			var pe *rails.PanicError
			if _, err := parseObject(data, "in.json", "atrHash", "atr", "chosen", "request", "signature"); errors.As(err, &pe) {
				t.Fatal(err)
			}
			_, _ = readApproved(path)
			if _, err := inspect(bytes.TrimSpace(data), "in.json", ""); errors.As(err, &pe) {
				t.Fatal(err)
			}
		})
	})
}
