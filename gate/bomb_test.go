package gate_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/bomb"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/rails/evm"
)

// TestATRBombNeverDecoded: an ATR served as a brotli or gzip stream that
// would decode to 1 GiB is declined atr-unfetchable on its header, unread:
// no signer call, and the process allocates and holds no more than a few
// MiB meanwhile (the TLS exchange included).
func TestATRBombNeverDecoded(t *testing.T) {
	const allowance = 4 << 20
	for coding, stream := range map[string][]byte{"br": bomb.Brotli, "gzip": bomb.Gzip()} {
		t.Run(coding, func(t *testing.T) {
			g, doc, fetches := hostileSeller(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Encoding", coding)
				_, _ = w.Write(stream)
			})
			s := &counting{answer: realKey()}
			var err error
			allocated, obtained := cost.Memory(func() {
				_, err = g.Transact(context.Background(), doc, evm.ExactEIP3009ID, s, nil)
			})
			t.Logf("%s: %d bytes served; %d allocated, %d more held from the system", coding, len(stream), allocated, obtained)
			var d *gate.Decline
			if !errors.As(err, &d) || d.Code != gate.ATRUnfetchable {
				t.Fatalf("got %v, want %s", err, gate.ATRUnfetchable)
			}
			if s.calls.Load() != 0 || fetches.Load() != 1 {
				t.Fatalf("%d signer calls, %d fetches", s.calls.Load(), fetches.Load())
			}
			if allocated > allowance || obtained > allowance {
				t.Fatalf("%d bytes allocated, %d more held: over %d", allocated, obtained, allowance)
			}
		})
	}
}
