package pay_test

import (
	"math/big"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
)

// An MPP EVM charge (mpp/charge/evm/authorization) needs the token's EIP-712
// domain as a buyer input: without Transport.Inputs the transport declines
// before anything is fetched; with it, it pays, and the seller's check of
// the credential against its terms passes.
func TestMPPAuthorizationPaysWithItsInputs(t *testing.T) {
	a, _ := vectorATRs(t)
	h := atr.Sum(a)
	doc := evmAuthorizationDoc(t, "https://atr.seller.example/"+h.String(), h)
	challenge, _ := jsonv.AsObject(doc[0])
	var fetches, paid atomic.Int64
	var verdict atomic.Value
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Host, "atr.") {
			fetches.Add(1)
			_, _ = w.Write(a)
			return
		}
		auth := r.Header.Get("Authorization")
		if auth == "" {
			w.Header().Set("WWW-Authenticate", mpp.ChallengeHeader(challenge))
			w.WriteHeader(http.StatusPaymentRequired)
			return
		}
		paid.Add(1)
		cred, err := mpp.ParseHeader(auth)
		if err == nil {
			_, err = (&gate.Gate{}).Check(a, evm.MPPAuthorizationID, cred)
		}
		verdict.Store(err == nil)
		if err != nil {
			w.WriteHeader(http.StatusPaymentRequired)
			return
		}
		_, _ = w.Write([]byte("paid"))
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	s := anvil(t)
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{Network: network, MaxAmount: big.NewInt(10000)}}})
	if err != nil {
		t.Fatal(err)
	}
	tr := &pay.Transport{Base: srv.Transport(), Gate: &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}}, Signer: s, Policy: policy}
	_, _, err = get(t, pay.NewClient(tr), "https://api.seller.example/v1/report")
	mustDecline(t, err, gate.NoPayableOption, "mpp/input-missing")
	if fetches.Load() != 0 || s.calls.Load() != 0 {
		t.Fatalf("%d fetches, %d signatures without the input", fetches.Load(), s.calls.Load())
	}

	tr.Inputs = func(pairing string) *jsonv.Object {
		if pairing != evm.MPPAuthorizationID {
			return nil
		}
		return jsonv.Obj("tokenDomain", jsonv.Obj("name", "USDC", "version", "2"))
	}
	resp, body, err := get(t, pay.NewClient(tr), "https://api.seller.example/v1/report")
	if err != nil || resp.StatusCode != http.StatusOK || string(body) != "paid" {
		t.Fatalf("got %v %q (%v)", resp, body, err)
	}
	if ok, _ := verdict.Load().(bool); !ok || paid.Load() != 1 || s.calls.Load() != 1 {
		t.Fatalf("seller's check %v, %d paid requests, %d signatures", verdict.Load(), paid.Load(), s.calls.Load())
	}
	if r := pay.ResultOf(resp); r == nil || r.Pairing != evm.MPPAuthorizationID || r.H != h {
		t.Fatalf("result %+v", r)
	}
}
