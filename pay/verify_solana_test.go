package pay_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/solanaseller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/solana/solanarpc"
	"github.com/termsgate/termsgate/signer"
)

// solanaRig pays the loopback x402/exact/solana seller (internal/
// solanaseller: it checks the payment with solana-go and co-signs as fee
// payer) through a Transport whose Verifier reads a loopback Solana JSON-RPC
// node answering getTransaction, getSignaturesForAddress and
// getFirstAvailableBlock as the documented RPC does. submit decides what
// the node holds of each co-signed transaction and which transaction the
// seller's PAYMENT-RESPONSE names; fault answers in the node's place.
type solanaRig struct {
	mu     sync.Mutex
	node   *solanarpc.Node
	seller *solanaseller.Exact
	charge *solanaseller.Charge // the MPP charge seller, for newSolanaChargeRig
	reads  map[string]int
	fault  func(method string, w http.ResponseWriter) bool
}

func (r *solanaRig) hold(sig string, tx solanarpc.NodeTx) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.node.Txs[sig] = tx
}

func (r *solanaRig) count(method string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reads[method]
}

func newSolanaRig(t *testing.T, terms string, submit func(r *solanaRig, sig string, wire []byte) string) (*solanaRig, func() *pay.Result) {
	t.Helper()
	rig := &solanaRig{}
	rig.seller = solanaseller.NewExact([]byte(terms), []byte(`{"report":"paid"}`))
	rig.seller.Submit = func(sig string, wire []byte) string { return submit(rig, sig, wire) }
	return startSolanaRig(t, rig, rig.seller)
}

// newSolanaChargeRig is newSolanaRig with the loopback MPP charge seller
// (mpp/charge/solana, or usdc's mpp/charge/usdc/solana), whose
// Payment-Receipt's reference is what submit returns.
func newSolanaChargeRig(t *testing.T, terms string, usdc bool, submit func(r *solanaRig, sig string, wire []byte) string) (*solanaRig, func() *pay.Result) {
	t.Helper()
	rig := &solanaRig{}
	rig.charge = solanaseller.NewCharge([]byte(terms), []byte(`{"report":"paid"}`), usdc)
	rig.charge.Submit = func(sig string, wire []byte) string { return submit(rig, sig, wire) }
	return startSolanaRig(t, rig, rig.charge)
}

func startSolanaRig(t *testing.T, rig *solanaRig, seller http.Handler) (*solanaRig, func() *pay.Result) {
	t.Helper()
	rig.node, rig.reads = solanaseller.DemoNode(341000000), map[string]int{}
	rig.node.Txs = map[string]solanarpc.NodeTx{}
	// The seller's host and the buyer's input reads (the mint, the
	// blockhash) on one loopback TLS server, as the demo has them.
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Host, "localhost") {
			rig.mu.Lock()
			defer rig.mu.Unlock()
			rig.node.ServeHTTP(w, r)
			return
		}
		seller.ServeHTTP(w, r)
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	// The chain the Verifier reads, counted by method.
	chain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw := readBody(r)
		v, _ := jsonv.Parse(raw)
		o, _ := jsonv.AsObject(v)
		method, _ := o.GetString("method")
		rig.mu.Lock()
		defer rig.mu.Unlock()
		rig.reads[method]++
		if rig.fault != nil && rig.fault(method, w) {
			return
		}
		r.Body = bodyOf(raw)
		rig.node.ServeHTTP(w, r)
	}))
	t.Cleanup(chain.Close)
	key, err := signer.SolanaFromSeedHex(signer.SolanaDevSeed, solanaseller.Devnet)
	if err != nil {
		t.Fatal(err)
	}
	tr := &pay.Transport{
		Base: srv.Transport(), Gate: &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}}, Signer: key, Policy: pay.NoLimits(),
		InputsFor: (&solanarpc.Client{URL: "https://localhost/", HTTP: srv.Client()}).InputsFor,
		Verify: &pay.Verifier{Solana: map[string]solana.Reader{
			solanaseller.Devnet: solanarpc.Reader{Client: &solanarpc.Client{URL: chain.URL, HTTP: chain.Client()}, Of: solanaseller.Devnet}}},
	}
	payOnce := func() *pay.Result {
		t.Helper()
		resp, err := pay.NewClient(tr).Get("https://api.seller.example/v1/report")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		res := pay.ResultOf(resp)
		if res == nil || !res.Accepted() {
			t.Fatalf("not paid: %+v", res)
		}
		return res
	}
	return rig, payOnce
}

// landedAs holds the co-signed transaction as the cluster would once it ran.
func landedAs(finalized bool, err jsonv.Value) func(r *solanaRig, sig string, wire []byte) string {
	return func(r *solanaRig, sig string, wire []byte) string {
		r.hold(sig, solanarpc.NodeTx{Slot: 341000001, Wire: wire, Err: err, Finalized: finalized})
		return sig
	}
}

// TestSettlementSolana: the buyer reads the x402/exact/solana transaction
// the seller names with getTransaction: the very message the payer signed
// (its SHA-256), run without error, its one memo carrying H and its one
// TransferChecked the payment. Another transaction named, one that failed,
// one the node does not hold, and a node answering no transaction are each
// reported; a seller naming none has the payer's signatures searched for
// the memo carrying H.
func TestSettlementSolana(t *testing.T) {
	t.Run("settled", func(t *testing.T) {
		rig, payOnce := newSolanaRig(t, `{"id":"sol-settled"}`, landedAs(true, nil))
		res := payOnce()
		wantProblems(t, res.Verified)
		if res.Verified.Transaction != rig.seller.Landed() || str(res.Verified.Status, "commitment") != solana.CommitmentFinalized ||
			rig.count("getTransaction") != 1 {
			t.Fatalf("verified %+v, %d reads", res.Verified, rig.count("getTransaction"))
		}
	})
	t.Run("confirmed", func(t *testing.T) {
		rig, payOnce := newSolanaRig(t, `{"id":"sol-confirmed"}`, landedAs(false, nil))
		res := payOnce()
		wantProblems(t, res.Verified)
		if str(res.Verified.Status, "commitment") != solana.CommitmentConfirmed || rig.count("getTransaction") != 2 {
			t.Fatalf("status %s, %d reads", jsonv.String(res.Verified.Status), rig.count("getTransaction"))
		}
	})
	t.Run("another-transaction", func(t *testing.T) {
		// The seller names the transaction of an earlier payment, which
		// landed: it is not the message this payment (for other terms)
		// signed.
		var earlier string
		rig, payOnce := newSolanaRig(t, `{"id":"sol-another"}`, func(r *solanaRig, sig string, wire []byte) string {
			r.hold(sig, solanarpc.NodeTx{Slot: 341000001, Wire: wire, Finalized: true})
			if earlier == "" {
				earlier = sig
			}
			return earlier
		})
		first := payOnce()
		wantProblems(t, first.Verified)
		rig.seller.SetATR([]byte(`{"id":"sol-another-2"}`))
		res := payOnce()
		wantProblems(t, res.Verified, pay.ProblemSellerNamed, pay.ProblemNotLanded)
		if str(res.Verified.Status, "why") != solana.WhyNotThisInstrument {
			t.Fatal(jsonv.String(res.Verified.Status))
		}
	})
	t.Run("failed", func(t *testing.T) {
		_, payOnce := newSolanaRig(t, `{"id":"sol-failed"}`, landedAs(true, jsonv.Obj("InstructionError", []jsonv.Value{jsonv.Number(2), jsonv.Obj("Custom", jsonv.Number(1))})))
		res := payOnce()
		wantProblems(t, res.Verified, pay.ProblemNotLanded)
		if str(res.Verified.Status, "why") != solana.WhyErr {
			t.Fatal(jsonv.String(res.Verified.Status))
		}
	})
	t.Run("not-held", func(t *testing.T) {
		rig, payOnce := newSolanaRig(t, `{"id":"sol-missing"}`, func(_ *solanaRig, sig string, _ []byte) string { return sig })
		res := payOnce()
		wantProblems(t, res.Verified, pay.ProblemNotLanded)
		if str(res.Verified.Status, "why") != solana.WhyNotFound || rig.count("getTransaction") != 2 {
			t.Fatalf("status %s, %d reads", jsonv.String(res.Verified.Status), rig.count("getTransaction"))
		}
	})
	t.Run("malformed", func(t *testing.T) {
		rig, payOnce := newSolanaRig(t, `{"id":"sol-malformed"}`, landedAs(true, nil))
		rig.fault = func(method string, w http.ResponseWriter) bool {
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"slot":1,"transaction":["AAAA","base58"],"meta":{"err":null}}}`))
			return true
		}
		res := payOnce()
		wantProblems(t, res.Verified, pay.ProblemNotLanded)
		if str(res.Verified.Status, "why") != solana.WhyUnreadable {
			t.Fatal(jsonv.String(res.Verified.Status))
		}
	})
	t.Run("not-named-found", func(t *testing.T) {
		// The seller names nothing; the payer's signature list holds the
		// transaction, its memo rendered as nodes render it.
		key, _ := signer.SolanaFromSeedHex(signer.SolanaDevSeed, solanaseller.Devnet)
		account := key.Account()
		h := atr.Sum([]byte(`{"id":"sol-search"}`))
		rig, payOnce := newSolanaRig(t, `{"id":"sol-search"}`, func(r *solanaRig, sig string, wire []byte) string {
			landedAs(true, nil)(r, sig, wire)
			r.mu.Lock()
			defer r.mu.Unlock()
			r.node.Lists = map[string][]solanarpc.NodeListed{account[strings.LastIndexByte(account, ':')+1:]: {
				{Signature: strings.Repeat("1", 64), Slot: 341000002, Memo: "[10] unrelated"},
				{Signature: sig, Slot: 341000001, Memo: "[76] " + solana.Carrier(h)},
			}}
			return ""
		})
		res := payOnce()
		wantProblems(t, res.Verified)
		if res.Verified.Transaction != rig.seller.Landed() || rig.count("getSignaturesForAddress") != 1 {
			t.Fatalf("verified %+v, %d lists", res.Verified, rig.count("getSignaturesForAddress"))
		}
	})
	t.Run("not-named-absent", func(t *testing.T) {
		rig, payOnce := newSolanaRig(t, `{"id":"sol-absent"}`, func(*solanaRig, string, []byte) string { return "" })
		res := payOnce()
		wantProblems(t, res.Verified, pay.ProblemNotLanded)
		if str(res.Verified.Status, "why") != solana.WhyNotFound || rig.count("getTransaction") != 0 {
			t.Fatalf("status %s, %d reads", jsonv.String(res.Verified.Status), rig.count("getTransaction"))
		}
	})
}

// TestSettlementSolanaWindow: with no transaction named, the payer's
// signatures are searched back SolanaSearchSlots from the node's finalized
// slot, not from slot 0: on a node that pruned its early blocks the search
// completes (found, or found absent), a signature older than the window
// ends it unread, and a node that cannot tell its slot is reported
// unreadable with no list asked for.
func TestSettlementSolanaWindow(t *testing.T) {
	key, _ := signer.SolanaFromSeedHex(signer.SolanaDevSeed, solanaseller.Devnet)
	account := key.Account()
	address := account[strings.LastIndexByte(account, ':')+1:]
	const now = 341000000
	// pruned holds the window's blocks and none before: a search from
	// slot 0 would be incomplete on it whatever it listed.
	pruned := func(r *solanaRig) {
		r.node.Slot = now
		r.node.FirstAvailable = now - pay.SolanaSearchSlots
	}
	t.Run("found", func(t *testing.T) {
		h := atr.Sum([]byte(`{"id":"sol-window"}`))
		rig, payOnce := newSolanaRig(t, `{"id":"sol-window"}`, func(r *solanaRig, sig string, wire []byte) string {
			r.hold(sig, solanarpc.NodeTx{Slot: now - 20, Wire: wire, Finalized: true})
			r.mu.Lock()
			defer r.mu.Unlock()
			pruned(r)
			r.node.Lists = map[string][]solanarpc.NodeListed{address: {
				{Signature: sig, Slot: now - 20, Memo: "[76] " + solana.Carrier(h)},
			}}
			return ""
		})
		res := payOnce()
		wantProblems(t, res.Verified)
		if res.Verified.Transaction != rig.seller.Landed() || rig.count("getSlot") != 1 {
			t.Fatalf("verified %+v, %d slot reads", res.Verified, rig.count("getSlot"))
		}
	})
	t.Run("older-than-window", func(t *testing.T) {
		// A signature below the window carrying H ends the search unread:
		// the payment's blockhash cannot have landed it there.
		h := atr.Sum([]byte(`{"id":"sol-old"}`))
		rig, payOnce := newSolanaRig(t, `{"id":"sol-old"}`, func(r *solanaRig, sig string, wire []byte) string {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.node.Slot = now
			r.node.FirstAvailable = now - pay.SolanaSearchSlots - 1000
			r.node.Lists = map[string][]solanarpc.NodeListed{address: {
				{Signature: strings.Repeat("1", 64), Slot: now - pay.SolanaSearchSlots - 1, Memo: "[76] " + solana.Carrier(h)},
			}}
			return ""
		})
		res := payOnce()
		wantProblems(t, res.Verified, pay.ProblemNotLanded)
		if str(res.Verified.Status, "why") != solana.WhyNotFound || rig.count("getTransaction") != 0 {
			t.Fatalf("status %s, %d reads", jsonv.String(res.Verified.Status), rig.count("getTransaction"))
		}
	})
	t.Run("absent-on-pruned-node", func(t *testing.T) {
		rig, payOnce := newSolanaRig(t, `{"id":"sol-pruned"}`, func(r *solanaRig, _ string, _ []byte) string {
			r.mu.Lock()
			defer r.mu.Unlock()
			pruned(r)
			return ""
		})
		res := payOnce()
		wantProblems(t, res.Verified, pay.ProblemNotLanded)
		if str(res.Verified.Status, "why") != solana.WhyNotFound || rig.count("getSignaturesForAddress") != 1 {
			t.Fatalf("status %s, %d lists", jsonv.String(res.Verified.Status), rig.count("getSignaturesForAddress"))
		}
	})
	t.Run("slot-unreadable", func(t *testing.T) {
		rig, payOnce := newSolanaRig(t, `{"id":"sol-noslot"}`, func(*solanaRig, string, []byte) string { return "" })
		rig.fault = func(method string, w http.ResponseWriter) bool {
			if method != "getSlot" {
				return false
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":"soon"}`))
			return true
		}
		res := payOnce()
		wantProblems(t, res.Verified, pay.ProblemNotLanded)
		if str(res.Verified.Status, "why") != solana.WhyUnreadable || rig.count("getSignaturesForAddress") != 0 {
			t.Fatalf("status %s, %d lists", jsonv.String(res.Verified.Status), rig.count("getSignaturesForAddress"))
		}
	})
}

func readBody(r *http.Request) []byte {
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	return raw
}

func bodyOf(raw []byte) io.ReadCloser { return io.NopCloser(bytes.NewReader(raw)) }

// TestSettlementSolanaCharge: the MPP charges on Solana are read from the
// transaction the Payment-Receipt's reference names, as x402/exact/solana's
// are: the very message signed, run without error, its one LCP memo carrying
// H (here beside no label) and its TransferChecked the payment; another
// transaction named, a failed one and one the node does not hold are each
// reported, and a receipt naming none has the payer's signatures searched.
func TestSettlementSolanaCharge(t *testing.T) {
	for _, usdc := range []bool{false, true} {
		name := solana.ChargeID
		if usdc {
			name = solana.ChargeUSDCID
		}
		t.Run(name, func(t *testing.T) {
			t.Run("settled", func(t *testing.T) {
				rig, payOnce := newSolanaChargeRig(t, `{"id":"charge-settled"}`, usdc, landedAs(true, nil))
				res := payOnce()
				wantProblems(t, res.Verified)
				if res.Pairing != name || res.Verified.Transaction != rig.charge.Landed() ||
					str(res.Verified.Status, "commitment") != solana.CommitmentFinalized || rig.count("getTransaction") != 1 {
					t.Fatalf("%s verified %+v, %d reads", res.Pairing, res.Verified, rig.count("getTransaction"))
				}
			})
			t.Run("another-transaction", func(t *testing.T) {
				var earlier string
				rig, payOnce := newSolanaChargeRig(t, `{"id":"charge-another"}`, usdc, func(r *solanaRig, sig string, wire []byte) string {
					r.hold(sig, solanarpc.NodeTx{Slot: 341000001, Wire: wire, Finalized: true})
					if earlier == "" {
						earlier = sig
					}
					return earlier
				})
				wantProblems(t, payOnce().Verified)
				rig.charge.SetATR([]byte(`{"id":"charge-another-2"}`))
				res := payOnce()
				wantProblems(t, res.Verified, pay.ProblemSellerNamed, pay.ProblemNotLanded)
				if str(res.Verified.Status, "why") != solana.WhyNotThisInstrument {
					t.Fatal(jsonv.String(res.Verified.Status))
				}
			})
			t.Run("failed", func(t *testing.T) {
				_, payOnce := newSolanaChargeRig(t, `{"id":"charge-failed"}`, usdc, landedAs(true, jsonv.Obj("InstructionError", []jsonv.Value{jsonv.Number(2), jsonv.Obj("Custom", jsonv.Number(1))})))
				res := payOnce()
				wantProblems(t, res.Verified, pay.ProblemNotLanded)
				if str(res.Verified.Status, "why") != solana.WhyErr {
					t.Fatal(jsonv.String(res.Verified.Status))
				}
			})
			t.Run("not-held", func(t *testing.T) {
				rig, payOnce := newSolanaChargeRig(t, `{"id":"charge-missing"}`, usdc, func(_ *solanaRig, sig string, _ []byte) string { return sig })
				res := payOnce()
				wantProblems(t, res.Verified, pay.ProblemNotLanded)
				if str(res.Verified.Status, "why") != solana.WhyNotFound || rig.count("getTransaction") != 2 {
					t.Fatalf("status %s, %d reads", jsonv.String(res.Verified.Status), rig.count("getTransaction"))
				}
			})
			t.Run("not-named-found", func(t *testing.T) {
				key, _ := signer.SolanaFromSeedHex(signer.SolanaDevSeed, solanaseller.Devnet)
				account := key.Account()
				h := atr.Sum([]byte(`{"id":"charge-search"}`))
				rig, payOnce := newSolanaChargeRig(t, `{"id":"charge-search"}`, usdc, func(r *solanaRig, sig string, wire []byte) string {
					landedAs(true, nil)(r, sig, wire)
					r.mu.Lock()
					defer r.mu.Unlock()
					r.node.Lists = map[string][]solanarpc.NodeListed{account[strings.LastIndexByte(account, ':')+1:]: {
						{Signature: strings.Repeat("1", 64), Slot: 341000002, Memo: "[10] unrelated"},
						{Signature: sig, Slot: 341000001, Memo: "[76] " + solana.Carrier(h)},
					}}
					return ""
				})
				res := payOnce()
				wantProblems(t, res.Verified)
				if res.Verified.Transaction != rig.charge.Landed() || rig.count("getSignaturesForAddress") != 1 {
					t.Fatalf("verified %+v, %d lists", res.Verified, rig.count("getSignaturesForAddress"))
				}
			})
			t.Run("not-named-absent", func(t *testing.T) {
				rig, payOnce := newSolanaChargeRig(t, `{"id":"charge-absent"}`, usdc, func(*solanaRig, string, []byte) string { return "" })
				res := payOnce()
				wantProblems(t, res.Verified, pay.ProblemNotLanded)
				if str(res.Verified.Status, "why") != solana.WhyNotFound || rig.count("getTransaction") != 0 {
					t.Fatalf("status %s, %d reads", jsonv.String(res.Verified.Status), rig.count("getTransaction"))
				}
			})
		})
	}
}
