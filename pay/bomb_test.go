package pay_test

import (
	"net/http"
	"testing"

	"github.com/termsgate/termsgate/internal/bomb"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/pay"
)

// TestPaymentRequiredBodyBomb: a 402 whose body is a brotli or gzip stream
// that would decode to 1 GiB is paid from its headers alone: the body is
// never decoded (the transport discards at most Max402Body raw bytes), one
// signature is made, and the process allocates and holds no more than a few
// MiB meanwhile (two TLS exchanges and a signature included).
func TestPaymentRequiredBodyBomb(t *testing.T) {
	const allowance = 4 << 20
	for coding, stream := range map[string][]byte{"br": bomb.Brotli, "gzip": bomb.Gzip()} {
		e := newEnv(t, func(e *env, next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Host != e.seller.APIHost || r.Header.Get(pay.HeaderSignature) != "" {
					next.ServeHTTP(w, r)
					return
				}
				rec := asResource(next, r, r.URL.Path)
				copyHeaders(w, rec)
				w.Header().Set("Content-Encoding", coding)
				w.Header().Del("Content-Length")
				w.WriteHeader(rec.Code)
				_, _ = w.Write(stream)
			})
		})
		var resp *http.Response
		var body []byte
		var err error
		allocated, obtained := cost.Memory(func() {
			resp, body, err = get(t, e.client, e.seller.ResourceURL())
		})
		t.Logf("%s: %d bytes served; %d allocated, %d more held from the system", coding, len(stream), allocated, obtained)
		if err != nil || resp.StatusCode != http.StatusOK || string(body) != paidBody || e.signer.calls.Load() != 1 {
			t.Fatalf("%s: %v %v %q, %d signatures", coding, err, resp, body, e.signer.calls.Load())
		}
		if allocated > allowance || obtained > allowance {
			t.Fatalf("%s: %d bytes allocated, %d more held: over %d", coding, allocated, obtained, allowance)
		}
	}
}
