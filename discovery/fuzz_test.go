package discovery_test

import (
	"bytes"
	"testing"

	"github.com/termsgate/termsgate/discovery"
)

// FuzzDiscoveryParse: whatever a seller serves, Parse answers a document or
// a refusal, never a panic; an accepted document writes back to bytes that
// read as the same document.
func FuzzDiscoveryParse(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte(`{"terms":"https://s.example/t","disputeResolution":{"clauseId":"sha256:0x9d96e17fd46eb91085fe8e47f714bd58f95300e1a6eb7792fb30d3efdf85446c","x":[]},"contact":{"legal":"l"},"acceptanceRequired":true}`))
	f.Add([]byte(`[{"terms":1}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, ignored, err := discovery.Parse(b)
		if err != nil {
			return
		}
		if ignored == nil {
			t.Fatal("nil ignored list")
		}
		out, err := d.Bytes()
		if err != nil {
			t.Fatalf("accepted %q but cannot write it back: %v", b, err)
		}
		d2, _, err := discovery.Parse(out)
		if err != nil {
			t.Fatalf("wrote %q, which does not read back: %v", out, err)
		}
		if out2, _ := d2.Bytes(); !bytes.Equal(out, out2) {
			t.Fatalf("%q and %q differ", out, out2)
		}
	})
}
