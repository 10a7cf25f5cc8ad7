package signer

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
)

// FuzzClefAnswer: whatever body Clef answers with, Sign returns an error or
// a signature that recovers to the account, within the fuzz bound.
func FuzzClefAnswer(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":"0x00"}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Request denied"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"raw":"0x"}}`, `[]`, `{"jsonrpc":"2.0","id":1,"result":"0x` + string(make([]byte, 0)) + `"}`, "\x00",
	} {
		f.Add([]byte(s))
	}
	fc := &fakeClef{}
	f.Fuzz(func(t *testing.T, body []byte) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
		}))
		defer srv.Close()
		key := newFakeClef(t)
		fc.key = key.key
		c, err := NewClef(srv.URL, fc.address().Hex(), "eip155:84532")
		if err != nil {
			t.Fatal(err)
		}
		req := transferRequest(fc.address().Hex())
		cost.Bound(t, len(body), func() {
			got, err := c.Sign(context.Background(), req)
			if err == nil {
				checkSignature(t, req, got, fc.address())
			}
		})
	})
}
