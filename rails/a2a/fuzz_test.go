package a2a

import (
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// FuzzA2ARead: any JSON as an A2A task, and any A2A-Extensions value. No
// input panics or passes the fuzz bound; every refusal is one of the
// package's codes; an H read is 0x and 64 lower-case hex digits with an
// https link, and placing what was read on the task without it reads back the same.
func FuzzA2ARead(f *testing.F) {
	f.Add(`{"id":"task-1","metadata":{"https://integraledger.com/lcp/a2a/legal-context/v1":{"type":"sha256","value":"0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad","legalContextUrl":"https://atr.seller.example/x"}}}`, "https://integraledger.com/lcp/a2a/legal-context/v1")
	f.Add(`{"metadata":{"legalContext":{}}}`, ",,")
	f.Add(`[]`, "")
	f.Fuzz(func(t *testing.T, text, ext string) {
		cost.Bound(t, len(text)+len(ext), func() {
			_ = Requested(ext, true)
			v, err := jsonv.ParseDepth([]byte(text), 64)
			if err != nil {
				return
			}
			h, link, err := Read(v)
			if err != nil {
				r, ok := err.(*rails.Refusal)
				if !ok || len(r.Code) < 5 || r.Code[:4] != "a2a/" {
					t.Fatalf("refusal %v", err)
				}
				return
			}
			if !rails.IsHex(h, 64) || h != lower(h) {
				t.Fatalf("H %q", h)
			}
			// The extension's keys removed, placing what was read gives it back.
			t0, _ := jsonv.AsObject(v)
			fresh := t0.Clone()
			md, _ := fresh.GetObject("metadata")
			md = md.Clone()
			for _, u := range URIs {
				md.Delete(u)
			}
			fresh.Set("metadata", md)
			again, err := Place(fresh, h, link, ext, true)
			if err != nil {
				t.Fatalf("placing what was read: %v", err)
			}
			h2, link2, err := Read(again)
			if err != nil || h2 != h || link2 != link {
				t.Fatalf("read back %s %s %v", h2, link2, err)
			}
		})
	})
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'F' {
			b[i] = c + 32
		}
	}
	return string(b)
}
