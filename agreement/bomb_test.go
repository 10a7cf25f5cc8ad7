package agreement

import (
	"context"
	"encoding/base64"
	"net/http"
	"testing"

	"github.com/termsgate/termsgate/internal/bomb"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/signer"
)

// TestReceiptBombNeverDecoded: an agreement URL that answers with a receipt
// (200), or with its 402 body, as a brotli or gzip stream that would decode
// to 1 GiB is refused agreement-failed on its Content-Encoding, unread: no
// signature, and the process allocates and holds no more than a few MiB
// meanwhile. After a payment, a bomb for a receipt fails the same way and
// keeps the payment in Moved.
func TestReceiptBombNeverDecoded(t *testing.T) {
	const allowance = 4 << 20
	url := "https://api.seller.example/agreement/x"
	l, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	required := base64.StdEncoding.EncodeToString(jsonv.Marshal(agreementDoc(t, url)))
	for coding, stream := range map[string][]byte{"br": bomb.Brotli, "gzip": bomb.Gzip()} {
		for _, status := range []int{200, 402} {
			srv := start(t, &server{handle: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Encoding", coding)
				if status == 402 {
					w.Header().Set("PAYMENT-REQUIRED", required)
				}
				w.WriteHeader(status)
				_, _ = w.Write(stream)
			}})
			calls := 0
			x := &Exchange{Client: srv.Client(), Pairings: rails.NewRegistry(evm.ExactEIP3009{}), Pay: directPay(&calls)}
			var err error
			allocated, obtained := cost.Memory(func() {
				_, err = x.Run(context.Background(), atrBytes, url, l, Options{})
			})
			t.Logf("%s %d: %d bytes served; %d allocated, %d more held from the system", coding, status, len(stream), allocated, obtained)
			f, ok := err.(*Failure)
			if !ok || f.Code != CodeFailed || f.Detail != DetailCoding || calls != 0 {
				t.Fatalf("%s %d: got %v, %d signatures", coding, status, err, calls)
			}
			if allocated > allowance || obtained > allowance {
				t.Fatalf("%s %d: %d bytes allocated, %d more held: over %d", coding, status, allocated, obtained, allowance)
			}
		}

		// The receipt after the payment: the payment is kept, never re-signed.
		s := &server{}
		s.handle = func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", coding)
			_, _ = w.Write(stream)
		}
		srv := start(t, s)
		calls := 0
		x := &Exchange{Client: srv.Client(), Pairings: rails.NewRegistry(evm.ExactEIP3009{}), Pay: directPay(&calls)}
		doc := agreementDoc(t, url)
		var err error
		allocated, obtained := cost.Memory(func() {
			_, err = x.Run(context.Background(), atrBytes, url, l, Options{Approved: &Payment{URL: url, Option: mustArray(doc)[0].(*jsonv.Object), Required: doc}})
		})
		f, ok := err.(*Failure)
		if !ok || f.Detail != DetailCoding || f.Moved == nil || calls != 1 || s.paid != 1 {
			t.Fatalf("%s after paying: got %v, %d signatures, %d paid requests", coding, err, calls, s.paid)
		}
		if allocated > allowance || obtained > allowance {
			t.Fatalf("%s after paying: %d bytes allocated, %d more held: over %d", coding, allocated, obtained, allowance)
		}
	}
}
