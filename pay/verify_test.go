package pay_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/sorobansim"
	"github.com/termsgate/termsgate/internal/stellarseller"
	"github.com/termsgate/termsgate/internal/xrplseller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/stellar"
	"github.com/termsgate/termsgate/rails/stellar/sorobanrpc"
	"github.com/termsgate/termsgate/rails/xrpl"
	"github.com/termsgate/termsgate/rails/xrpl/xrplrpc"
	"github.com/termsgate/termsgate/signer"
)

const xrplPayee = "rpjfAeE3DeeHPFnN2PgGFW5YxnZFAjrEyN"

// payXRPL pays a loopback x402/exact/xrpl seller through a Transport whose
// Verifier reads the chain from a loopback rippled (node, or h answering in
// its place). Once signed, settle lets the node hold what it will show of
// the payment, as the ledger would after the seller submits it. It returns
// the result and the chain's calls.
func payXRPL(t *testing.T, h http.Handler, settle func(node *xrplrpc.Ledger, tx *xrpl.Tx)) (*pay.Result, int64) {
	t.Helper()
	payer, err := signer.XRPLDev("xrpl:1")
	if err != nil {
		t.Fatal(err)
	}
	seller := xrplseller.NewExact([]byte("the terms"), xrplPayee, "xrpl:1", "1000000")
	srv, err := loopback.Start(seller)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	inputs := httptest.NewServer(&xrplrpc.Ledger{Current: 990, BaseFee: 10, OpenFee: 12, Accounts: map[string]uint32{payer.Address(): 7}})
	defer inputs.Close()
	node := &xrplrpc.Ledger{Validated: 995}
	var calls atomic.Int64
	if h == nil {
		h = node
	}
	chain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1); h.ServeHTTP(w, r) }))
	defer chain.Close()
	tr := &pay.Transport{
		Base: srv.Transport(), Gate: &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}},
		Signer: payer, Policy: pay.NoLimits(),
		Inputs: (&xrplrpc.Inputs{Client: &xrplrpc.Client{URL: inputs.URL, HTTP: inputs.Client()}, Account: payer.Address()}).For,
		Verify: &pay.Verifier{XRPL: map[string]xrpl.Reader{
			"xrpl:1": xrplrpc.Reader{Client: &xrplrpc.Client{URL: chain.URL, HTTP: chain.Client()}, Of: "xrpl:1"}}},
	}
	tr.Hooks.AfterSign = func(_ context.Context, _ *http.Request, r *pay.Result) {
		o, _ := jsonv.AsObject(r.Signed)
		p, _ := o.GetObject("payload")
		blob, _ := p.Get("signedTxBlob")
		tx, err := xrpl.DecodePresented(blob)
		if err != nil {
			t.Error(err)
			return
		}
		settle(node, tx)
	}
	resp, err := pay.NewClient(tr).Get(seller.ResourceURL())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	res := pay.ResultOf(resp)
	if res == nil || !res.Accepted() {
		t.Fatalf("not paid: %+v", res)
	}
	return res, calls.Load()
}

// landed is what the ledger shows of the signed Payment when it settled
// as signed: validated tesSUCCESS, its tx_json, the drops delivered.
func landed(tx *xrpl.Tx) xrplrpc.LedgerTx {
	amount, _ := tx.Fields.JSON().Get("Amount")
	return xrplrpc.LedgerTx{TxJSON: tx.Fields.JSON(), Validated: true, Result: "tesSUCCESS", LedgerIndex: 992, Delivered: amount}
}

func wantProblems(t *testing.T, v *pay.Verification, want ...string) {
	t.Helper()
	if v == nil {
		t.Fatal("no verification")
	}
	if strings.Join(v.Problems, ",") != strings.Join(want, ",") || v.Settled != (len(want) == 0) {
		t.Fatalf("problems %v, settled %v, status %s; want %v", v.Problems, v.Settled, jsonv.String(v.Status), want)
	}
}

// The payment the seller answered is read from the ledger by the hash of
// the blob signed: settled as signed, it verifies; every way it does not
// hold is reported on the result.
func TestVerifySettlementXRPL(t *testing.T) {
	t.Run("settled", func(t *testing.T) {
		res, calls := payXRPL(t, nil, func(n *xrplrpc.Ledger, tx *xrpl.Tx) { n.Hold(tx.Hash, landed(tx)) })
		wantProblems(t, res.Verified)
		if !res.Verified.OK() || res.Verified.Transaction != res.Settlement.Transaction || str(res.Verified.Status, "state") != "settled" || calls != 1 {
			t.Fatalf("verified %+v, %d calls", res.Verified, calls)
		}
	})
	t.Run("wrong-payee", func(t *testing.T) {
		res, _ := payXRPL(t, nil, func(n *xrplrpc.Ledger, tx *xrpl.Tx) {
			l := landed(tx)
			l.TxJSON = l.TxJSON.Clone()
			l.TxJSON.Set("Destination", "r3sNTMefq5gsRumMYsNznnX6yzzxVH6dTC")
			n.Hold(tx.Hash, l)
		})
		wantProblems(t, res.Verified, pay.ProblemPayee)
	})
	t.Run("wrong-payer", func(t *testing.T) {
		res, _ := payXRPL(t, nil, func(n *xrplrpc.Ledger, tx *xrpl.Tx) {
			l := landed(tx)
			l.TxJSON = l.TxJSON.Clone()
			l.TxJSON.Set("Account", xrplPayee)
			n.Hold(tx.Hash, l)
		})
		wantProblems(t, res.Verified, pay.ProblemPayer)
	})
	t.Run("wrong-amount", func(t *testing.T) {
		// A partial payment delivers less than its Amount.
		res, _ := payXRPL(t, nil, func(n *xrplrpc.Ledger, tx *xrpl.Tx) {
			l := landed(tx)
			l.Delivered = "1"
			n.Hold(tx.Hash, l)
		})
		wantProblems(t, res.Verified, pay.ProblemAmount)
	})
	t.Run("no-H", func(t *testing.T) {
		res, _ := payXRPL(t, nil, func(n *xrplrpc.Ledger, tx *xrpl.Tx) {
			l := landed(tx)
			l.TxJSON = l.TxJSON.Clone()
			l.TxJSON.Set("InvoiceID", strings.Repeat("AB", 32))
			n.Hold(tx.Hash, l)
		})
		wantProblems(t, res.Verified, pay.ProblemNoH, pay.ProblemNotLanded)
	})
	t.Run("not-landed", func(t *testing.T) {
		res, calls := payXRPL(t, nil, func(*xrplrpc.Ledger, *xrpl.Tx) {})
		wantProblems(t, res.Verified, pay.ProblemNotLanded)
		if str(res.Verified.Status, "why") != xrpl.WhyNotFound || calls != 1 {
			t.Fatalf("status %s, %d calls", jsonv.String(res.Verified.Status), calls)
		}
	})
	t.Run("not-validated", func(t *testing.T) {
		res, _ := payXRPL(t, nil, func(n *xrplrpc.Ledger, tx *xrpl.Tx) {
			l := landed(tx)
			l.Validated, l.LedgerIndex = false, 0
			n.Hold(tx.Hash, l)
		})
		wantProblems(t, res.Verified, pay.ProblemNotLanded)
	})
	t.Run("claimed-fee", func(t *testing.T) {
		res, _ := payXRPL(t, nil, func(n *xrplrpc.Ledger, tx *xrpl.Tx) {
			l := landed(tx)
			l.Result = "tecUNFUNDED_PAYMENT"
			n.Hold(tx.Hash, l)
		})
		wantProblems(t, res.Verified, pay.ProblemNotLanded)
		if str(res.Verified.Status, "why") != xrpl.WhyClaimedFee {
			t.Fatal(jsonv.String(res.Verified.Status))
		}
	})
	t.Run("malformed", func(t *testing.T) {
		garbage := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"result":{"status":"success","validated":"yes","tx_json":[]}}`))
		})
		res, calls := payXRPL(t, garbage, func(*xrplrpc.Ledger, *xrpl.Tx) {})
		wantProblems(t, res.Verified, pay.ProblemNotLanded)
		if str(res.Verified.Status, "why") != xrpl.WhyUnreadable || calls != 1 {
			t.Fatalf("status %s, %d calls", jsonv.String(res.Verified.Status), calls)
		}
	})
	t.Run("no-reader", func(t *testing.T) {
		v := (&pay.Verifier{}).Check(&pay.Result{Pairing: xrpl.ExactID, Summary: pay.Summary{}})
		wantProblems(t, v, pay.ProblemNoReader)
	})
}

func str(o *jsonv.Object, k string) string { s, _ := o.GetString(k); return s }

// payStellar pays the loopback x402/exact/stellar seller (whose
// PAYMENT-RESPONSE names transaction 00…00) with a Verifier over a
// loopback Soroban RPC; settle lets the RPC hold what it will show.
func payStellar(t *testing.T, h http.Handler, settle func(node *sorobanrpc.Node, envelope string)) (*pay.Result, int64) {
	t.Helper()
	sim := &sorobansim.Server{Ledger: 988, Nonce: 3}
	rpcSrv, err := loopback.Start(sim)
	if err != nil {
		t.Fatal(err)
	}
	defer rpcSrv.Close()
	seller := stellarseller.New([]byte("the terms"), []byte("paid"), func() uint32 { return 988 })
	srv, err := loopback.Start(seller)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	key, _ := signer.StellarFromSecret(signer.StellarDevSeed, stellar.Testnet)
	node := &sorobanrpc.Node{Latest: 990, Oldest: 1}
	var calls atomic.Int64
	if h == nil {
		h = node
	}
	chain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1); h.ServeHTTP(w, r) }))
	defer chain.Close()
	rpc := &sorobanrpc.Client{URL: rpcSrv.URL("localhost", "/"), HTTP: rpcSrv.Client()}
	tr := &pay.Transport{
		Base: srv.Transport(), Gate: &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}},
		Signer: key, Policy: pay.NoLimits(), InputsFor: rpc.InputsFor,
		Verify: &pay.Verifier{Stellar: map[string]stellar.Reader{
			stellar.Testnet: sorobanrpc.Reader{Client: &sorobanrpc.Client{URL: chain.URL, HTTP: chain.Client()}, Of: stellar.Testnet}}},
	}
	tr.Hooks.AfterSign = func(_ context.Context, _ *http.Request, r *pay.Result) {
		o, _ := jsonv.AsObject(r.Signed)
		p, _ := o.GetObject("payload")
		env, _ := p.GetString("transaction")
		settle(node, env)
	}
	resp, err := pay.NewClient(tr).Get(seller.ResourceURL())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	res := pay.ResultOf(resp)
	if res == nil || !res.Accepted() {
		t.Fatalf("not paid: %+v (%v)", res, seller.LastRejection())
	}
	return res, calls.Load()
}

func TestVerifySettlementStellar(t *testing.T) {
	named := strings.Repeat("0", 64)
	t.Run("settled", func(t *testing.T) {
		res, calls := payStellar(t, nil, func(n *sorobanrpc.Node, env string) {
			n.Hold(named, sorobanrpc.NodeTx{Status: stellar.TxSuccess, Envelope: env, Ledger: 989})
		})
		wantProblems(t, res.Verified)
		if res.Verified.Transaction != named || calls != 1 {
			t.Fatalf("verified %+v, %d calls", res.Verified, calls)
		}
	})
	t.Run("another-signing", func(t *testing.T) {
		// The named transaction succeeded, but with another authorization
		// entry (another nonce): not this payment.
		res, _ := payStellar(t, nil, func(n *sorobanrpc.Node, env string) {
			e, err := stellar.DecodeEnvelope(env)
			if err != nil {
				t.Error(err)
				return
			}
			e.V1.Tx.Operations[0].Body.InvokeHostFunctionOp.Auth[0].Credentials.Address.Nonce++
			b, _ := e.MarshalBinary()
			n.Hold(named, sorobanrpc.NodeTx{Status: stellar.TxSuccess, Envelope: base64.StdEncoding.EncodeToString(b), Ledger: 989})
		})
		wantProblems(t, res.Verified, pay.ProblemSellerNamed, pay.ProblemNotLanded)
	})
	t.Run("failed", func(t *testing.T) {
		res, _ := payStellar(t, nil, func(n *sorobanrpc.Node, env string) {
			n.Hold(named, sorobanrpc.NodeTx{Status: stellar.TxFailed, Envelope: env, Ledger: 989})
		})
		wantProblems(t, res.Verified, pay.ProblemNotLanded)
	})
	t.Run("not-landed", func(t *testing.T) {
		res, calls := payStellar(t, nil, func(*sorobanrpc.Node, string) {})
		wantProblems(t, res.Verified, pay.ProblemNotLanded)
		if str(res.Verified.Status, "why") != stellar.WhyNotFound || calls != 1 {
			t.Fatalf("status %s, %d calls", jsonv.String(res.Verified.Status), calls)
		}
	})
	t.Run("malformed", func(t *testing.T) {
		garbage := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"status":"MAYBE"}}`))
		})
		res, _ := payStellar(t, garbage, func(*sorobanrpc.Node, string) {})
		wantProblems(t, res.Verified, pay.ProblemNotLanded)
		if str(res.Verified.Status, "why") != stellar.WhyUnreadable {
			t.Fatal(jsonv.String(res.Verified.Status))
		}
	})
}

// verifyJournal is a Journal that keeps what Verified was given.
type verifyJournal struct {
	ids      int
	verified map[string]*pay.Verification
}

func (j *verifyJournal) Record(context.Context, *pay.Result) (string, error) {
	j.ids++
	return "p" + string(rune('0'+j.ids)), nil
}
func (j *verifyJournal) Answered(context.Context, string, int) error { return nil }
func (j *verifyJournal) Unanswered(context.Context, string) (string, *pay.Result, error) {
	return "", nil, nil
}
func (j *verifyJournal) Unsent(context.Context, string) {}
func (j *verifyJournal) Verified(_ context.Context, id string, v *pay.Verification) error {
	if j.verified == nil {
		j.verified = map[string]*pay.Verification{}
	}
	j.verified[id] = v
	return nil
}

// A settlement that does not hold reaches the Journal under the payment's
// id, as it is on the result.
func TestVerifySettlementJournaled(t *testing.T) {
	payer, _ := signer.XRPLDev("xrpl:1")
	seller := xrplseller.NewExact([]byte("the terms"), xrplPayee, "xrpl:1", "1000000")
	srv, err := loopback.Start(seller)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	inputs := httptest.NewServer(&xrplrpc.Ledger{Current: 990, BaseFee: 10, OpenFee: 12, Accounts: map[string]uint32{payer.Address(): 7}})
	defer inputs.Close()
	chain := httptest.NewServer(&xrplrpc.Ledger{Validated: 995}) // holds nothing: not landed
	defer chain.Close()
	j := &verifyJournal{}
	tr := &pay.Transport{
		Base: srv.Transport(), Gate: &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}},
		Signer: payer, Policy: pay.NoLimits(), Journal: j,
		Inputs: (&xrplrpc.Inputs{Client: &xrplrpc.Client{URL: inputs.URL, HTTP: inputs.Client()}, Account: payer.Address()}).For,
		Verify: &pay.Verifier{XRPL: map[string]xrpl.Reader{
			"xrpl:1": xrplrpc.Reader{Client: &xrplrpc.Client{URL: chain.URL, HTTP: chain.Client()}, Of: "xrpl:1"}}},
	}
	resp, err := pay.NewClient(tr).Get(seller.ResourceURL())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	res := pay.ResultOf(resp)
	if v := j.verified["p1"]; v == nil || v != res.Verified || v.OK() || strings.Join(v.Problems, ",") != pay.ProblemNotLanded {
		t.Fatalf("journaled %+v, result %+v", j.verified, res.Verified)
	}
}
