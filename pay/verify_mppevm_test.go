package pay_test

import (
	"context"
	"io"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/simchain"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
)

// mppEVMSeller is an MPP EIP-3009 charge seller on the rig's simulated
// chain: it issues one charge challenge of 10000 units of the token to the
// payee (method evm, or usdc's EVM profile), and settles each credential
// with the token's transferWithAuthorization (the token checks the
// signature and the nonce, as the chain would), its Payment-Receipt naming
// as reference what submit returns of the settling transaction's hash.
type mppEVMSeller struct {
	rig    *evmRig
	usdc   bool
	submit func(hash string) string
	mu     sync.Mutex
	terms  []byte
	landed string
}

func (s *mppEVMSeller) challenges() []jsonv.Value {
	s.mu.Lock()
	terms := s.terms
	s.mu.Unlock()
	details := jsonv.Obj("chainId", simchain.ChainID, "credentialTypes", []jsonv.Value{"authorization"})
	method := "evm"
	if s.usdc {
		method = "usdc"
		details = jsonv.Obj("type", "evm", "evm", jsonv.Obj("chainId", simchain.ChainID,
			"credentialTypes", []jsonv.Value{"authorization"}, "decimals", 6))
	}
	request := jsonv.Obj("amount", "10000", "currency", s.rig.c.Token.Hex(), "methodDetails", details, "recipient", evmPayee.Hex())
	c := jsonv.Obj("realm", "api.seller.example", "method", method, "intent", "charge",
		"request", mpp.EncodeObject(request), "expires", time.Now().Add(5*time.Minute).UTC().Format("2006-01-02T15:04:05Z"))
	h := atr.Sum(terms)
	doc, _ := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
	return doc
}

func (s *mppEVMSeller) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	terms := s.terms
	s.mu.Unlock()
	if strings.HasPrefix(r.Host, "atr.") {
		if r.URL.Path[1:] != atr.Sum(terms).String() {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(terms)
		return
	}
	if a := r.Header.Get("Authorization"); len(a) > 8 && strings.EqualFold(a[:8], "payment ") {
		if cred, err := mpp.ParseHeader(a); err == nil {
			if hash, l, err := s.rig.c.SettleMPP(r.Context(), cred, 0); err == nil && l.Status == 1 {
				s.mu.Lock()
				s.landed = hash
				s.mu.Unlock()
				method := "evm"
				if s.usdc {
					method = "usdc"
				}
				w.Header().Set("Payment-Receipt", mpp.EncodeObject(jsonv.Obj("status", "success", "method", method,
					"timestamp", time.Now().UTC().Format(time.RFC3339), "reference", s.submit(hash))))
				_, _ = w.Write([]byte(`{"report":"paid"}`))
				return
			}
		}
	}
	for _, c := range s.challenges() {
		o, _ := jsonv.AsObject(c)
		w.Header().Add("WWW-Authenticate", mpp.ChallengeHeader(o))
	}
	w.WriteHeader(http.StatusPaymentRequired)
}

// payMPP pays an mppEVMSeller once through a Transport whose Verifier reads
// the rig's node (the token's EIP-712 domain given as the buyer's input).
func payMPP(t *testing.T, rig *evmRig, s *mppEVMSeller) *pay.Result {
	t.Helper()
	srv, err := loopback.Start(s)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tr := &pay.Transport{Base: srv.Transport(), Gate: &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}},
		Signer: rig.wallet, Policy: pay.NoLimits(),
		InputsFor: func(context.Context, string, jsonv.Value, string) (*jsonv.Object, error) {
			return jsonv.Obj("tokenDomain", jsonv.Obj("name", "USDC", "version", "2")), nil
		},
		Verify: &pay.Verifier{EVM: map[string]evm.Reader{simchain.Network: rig.reader}}}
	resp, err := pay.NewClient(tr).Get("https://api.seller.example/v1/report")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	res := pay.ResultOf(resp)
	if resp.StatusCode != http.StatusOK || res == nil || !res.Accepted() {
		t.Fatalf("status %d: %+v", resp.StatusCode, res)
	}
	return res
}

// TestSettlementMPPAuthorization: the MPP EIP-3009 charges
// (mpp/charge/evm/authorization, mpp/charge/usdc/evm) are read from the
// receipt the Payment-Receipt's reference names: the token's
// AuthorizationUsed of the payer and the signed nonce (the pairing's hash of
// the challenge whose id carries H) and its Transfer of the payment. A
// reference to another transaction (a plain transfer, an earlier payment),
// none, and one the node does not hold are each reported.
func TestSettlementMPPAuthorization(t *testing.T) {
	for _, usdc := range []bool{false, true} {
		name := evm.MPPAuthorizationID
		if usdc {
			name = evm.MPPUSDCID
		}
		t.Run(name, func(t *testing.T) {
			seller := func(rig *evmRig, terms string, submit func(string) string) *mppEVMSeller {
				return &mppEVMSeller{rig: rig, usdc: usdc, submit: submit, terms: []byte(terms)}
			}
			same := func(h string) string { return h }
			t.Run("settled", func(t *testing.T) {
				rig := newEVMRig(t, nil)
				s := seller(rig, `{"id":"mpp-evm-settled"}`, same)
				res := payMPP(t, rig, s)
				wantProblems(t, res.Verified)
				if res.Pairing != name || res.Verified.Transaction != s.landed || res.Verified.Moved.Cmp(big.NewInt(10000)) != 0 ||
					rig.count("eth_getTransactionReceipt") != 1 || rig.count("eth_getBlockByNumber") > 2 {
					t.Fatalf("%s verified %+v, %d receipts", res.Pairing, res.Verified, rig.count("eth_getTransactionReceipt"))
				}
				wantEVMStatus(t, res.Verified, evm.StateSettled, "")
			})
			t.Run("plain-transfer", func(t *testing.T) {
				// The seller names the payer's plain transfer of the same
				// amount: no authorization of this nonce was used.
				rig := newEVMRig(t, nil)
				var plain string
				s := seller(rig, `{"id":"mpp-evm-plain"}`, func(string) string { return plain })
				plain = rig.transfer(t, evmPayee, 10000)
				res := payMPP(t, rig, s)
				wantProblems(t, res.Verified, pay.ProblemNoH)
				wantEVMStatus(t, res.Verified, evm.StateFailed, evm.WhyAuthorizationNotUsed)
			})
			t.Run("earlier-payment", func(t *testing.T) {
				rig := newEVMRig(t, nil)
				var first string
				s := seller(rig, `{"id":"mpp-evm-first"}`, func(h string) string {
					if first == "" {
						first = h
					}
					return first
				})
				wantProblems(t, payMPP(t, rig, s).Verified)
				s.mu.Lock()
				s.terms = []byte(`{"id":"mpp-evm-second"}`)
				s.mu.Unlock()
				res := payMPP(t, rig, s)
				wantProblems(t, res.Verified, pay.ProblemNoH)
			})
			t.Run("not-named", func(t *testing.T) {
				rig := newEVMRig(t, nil)
				res := payMPP(t, rig, seller(rig, `{"id":"mpp-evm-none"}`, func(string) string { return "" }))
				wantProblems(t, res.Verified, pay.ProblemNoTransaction)
				if rig.reads() != 0 {
					t.Fatalf("%d reads", rig.reads())
				}
			})
			t.Run("not-held", func(t *testing.T) {
				rig := newEVMRig(t, nil)
				res := payMPP(t, rig, seller(rig, `{"id":"mpp-evm-missing"}`, func(string) string { return "0x" + strings.Repeat("ab", 32) }))
				wantProblems(t, res.Verified, pay.ProblemNotLanded)
				wantEVMStatus(t, res.Verified, evm.StatePending, evm.WhyNotFound)
			})
		})
	}
}
