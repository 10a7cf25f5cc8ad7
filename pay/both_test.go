package pay_test

import (
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/mppseller"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

// bothSeller sells one resource under the vectors' A both ways: its 402
// carries the x402 seller's PAYMENT-REQUIRED (0.01 USDC on Base Sepolia)
// and the MPP seller's WWW-Authenticate challenge (1 pathUSD on Tempo
// Moderato), and each seller verifies the payments of its protocol. They
// serve the same terms at different links.
type bothSeller struct {
	x402 *x402seller.Seller
	mpp  *mppseller.Seller
	base *http.Transport
	// required replaces the PAYMENT-REQUIRED value when set.
	required string
}

func newBothSeller(tb testing.TB) *bothSeller {
	tb.Helper()
	a, _ := vectorATRs(tb)
	b := &bothSeller{x402: x402seller.New(a, []byte(paidBody)), mpp: mppseller.New(a, []byte(paidBody))}
	b.mpp.ATRHost = "pay.seller.example"
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Host == b.mpp.ATRHost || r.Host == b.mpp.APIHost && r.Header.Get("Authorization") != "":
			b.mpp.ServeHTTP(w, r)
		case r.Host != b.x402.APIHost || r.Header.Get(pay.HeaderSignature) != "":
			b.x402.ServeHTTP(w, r)
		default: // unpaid: both sellers' 402 in one
			fromX402, fromMPP := httptest.NewRecorder(), httptest.NewRecorder()
			b.x402.ServeHTTP(fromX402, r)
			b.mpp.ServeHTTP(fromMPP, r)
			w.Header().Set(pay.HeaderRequired, fromX402.Header().Get(pay.HeaderRequired))
			if b.required != "" {
				w.Header().Set(pay.HeaderRequired, b.required)
			}
			for _, v := range fromMPP.Header().Values("WWW-Authenticate") {
				w.Header().Add("WWW-Authenticate", v)
			}
			w.WriteHeader(http.StatusPaymentRequired)
		}
	}))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(srv.Close)
	b.base = srv.Transport()
	tb.Cleanup(b.base.CloseIdleConnections)
	return b
}

// client pays with the Anvil key on network, allowing both sellers' assets.
func (b *bothSeller) client(tb testing.TB, network string) (*http.Client, *countingSigner) {
	tb.Helper()
	l, err := signer.FromHex(signer.AnvilKey, network)
	if err != nil {
		tb.Fatal(err)
	}
	s := &countingSigner{Signer: l}
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{
		{Network: "eip155:84532", Asset: usdc, MaxAmount: big.NewInt(10_000)},
		{Network: tempoNetwork, Asset: pathUSD, MaxAmount: big.NewInt(1_000_000)},
	}})
	if err != nil {
		tb.Fatal(err)
	}
	return pay.NewClient(&pay.Transport{
		Base:   b.base,
		Gate:   &gate.Gate{Fetcher: &atr.Fetcher{Client: &http.Client{Transport: b.base}}},
		Signer: s,
		Policy: policy,
	}), s
}

func TestBothProtocols(t *testing.T) {
	// x402 is preferred: the MPP challenge is not even read for its terms.
	t.Run("pays x402 when it can", func(t *testing.T) {
		b := newBothSeller(t)
		c, s := b.client(t, "eip155:84532")
		resp, body, err := get(t, c, b.x402.ResourceURL())
		if err != nil || resp.StatusCode != 200 || string(body) != paidBody {
			t.Fatalf("%v %v %q (seller: %v)", err, resp, body, b.x402.LastRejection())
		}
		r := pay.ResultOf(resp)
		if r == nil || r.Protocol != pay.ProtocolX402 || r.HeaderName != pay.HeaderSignature || r.Pairing != "x402/exact/eip155/eip3009" ||
			r.Settlement == nil || !r.Settlement.Success {
			t.Fatalf("result %+v", r)
		}
		if b.x402.Paid.Load() != 1 || b.mpp.Paid.Load()+b.mpp.Rejected.Load()+b.mpp.ATRFetches.Load() != 0 || s.calls.Load() != 1 {
			t.Fatalf("x402 paid %d; mpp paid %d rejected %d fetched %d; %d signer calls",
				b.x402.Paid.Load(), b.mpp.Paid.Load(), b.mpp.Rejected.Load(), b.mpp.ATRFetches.Load(), s.calls.Load())
		}
	})
	// No x402 option on the signer's chain: MPP is paid, decided before
	// anything was fetched.
	t.Run("pays MPP when x402 has nothing for the account", func(t *testing.T) {
		b := newBothSeller(t)
		c, s := b.client(t, tempoNetwork)
		resp, _, err := get(t, c, b.x402.ResourceURL())
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%v %v (seller: %v)", err, resp, b.mpp.LastRejection())
		}
		if r := pay.ResultOf(resp); r == nil || r.Protocol != pay.ProtocolMPP || r.HeaderName != "Authorization" {
			t.Fatalf("result %+v", r)
		}
		if b.mpp.Paid.Load() != 1 || b.x402.ATRFetches.Load()+b.x402.Paid.Load() != 0 || s.calls.Load() != 1 {
			t.Fatal("not paid by MPP alone")
		}
	})
	t.Run("pays MPP when PAYMENT-REQUIRED is unreadable", func(t *testing.T) {
		b := newBothSeller(t)
		b.required = "not base64!"
		c, _ := b.client(t, tempoNetwork)
		resp, _, err := get(t, c, b.x402.ResourceURL())
		if err != nil || resp.StatusCode != 200 || pay.ResultOf(resp).Protocol != pay.ProtocolMPP {
			t.Fatalf("%v %v", err, resp)
		}
	})
	t.Run("neither payable: x402's decline", func(t *testing.T) {
		b := newBothSeller(t)
		c, s := b.client(t, "eip155:1")
		_, _, err := get(t, c, b.x402.ResourceURL())
		mustDecline(t, err, gate.NoPayableOption, x402.CodeNoPayableOption)
		if s.calls.Load() != 0 || b.x402.ATRFetches.Load()+b.mpp.ATRFetches.Load() != 0 {
			t.Fatal("fetched or signed")
		}
	})
}
