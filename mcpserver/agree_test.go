package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/mcpserver"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/x402"
)

// unproven is x402/exact/eip155/eip3009 under another id whose payment is
// no public proof and whose offer names the agreement URL: the shape of
// buyer.json's BA rows.
type unproven struct {
	evm.ExactEIP3009
	url string
}

const unprovenID = "x402/stub/no-public-proof"

func (unproven) ID() string { return unprovenID }

func (u unproven) Pattern() rails.Pattern {
	p := u.ExactEIP3009.Pattern()
	p.PublicProof = false
	return p
}

func (u unproven) Read(doc jsonv.Value) (rails.Read, error) {
	r, err := u.ExactEIP3009.Read(doc)
	if err == nil {
		r.Agreement = u.url
	}
	return r, err
}

// agreementSetup serves A and an agreement URL that answers 402 with
// fixed.agreement.required unpaid and the receipt (or paidStatus) paid.
type agreementSetup struct {
	f      *fixture
	s      *seller
	sg     *countingSigner
	cs     *gosdk.ClientSession
	url    string
	atrB64 string
}

func newAgreementSetup(t *testing.T, paid func(w http.ResponseWriter)) *agreementSetup {
	t.Helper()
	return newAgreementSetupWith(t, paid, mcpserver.Config{}, connectHTTP, nil)
}

// newAgreementSetupWith is newAgreementSetup with the server's config
// (Signer and Pairings set here), its transport and the client's options.
func newAgreementSetupWith(t *testing.T, paid func(w http.ResponseWriter), cfg mcpserver.Config,
	connectTo func(testing.TB, *mcpserver.Server, *gosdk.ClientOptions) *gosdk.ClientSession, opts *gosdk.ClientOptions) *agreementSetup {
	t.Helper()
	f := loadFixture(t)
	s := newSeller(t, f.A)
	url := strAt(t, f.agreement, "url")
	required := x402.EncodeHeader(valueAt(t, f.agreement, "required"))
	receipt := jsonv.Marshal(valueAt(t, f.agreement, "receipt"))
	if paid == nil {
		paid = func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(receipt)
		}
	}
	s.setAgreement(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("PAYMENT-SIGNATURE") == "" {
			w.Header().Set("PAYMENT-REQUIRED", required)
			w.WriteHeader(http.StatusPaymentRequired)
			return
		}
		paid(w)
	})
	sg := newSigner(t, f)
	reg := rails.NewRegistry(evm.ExactEIP3009{}, unproven{url: url})
	cfg.Signer, cfg.Pairings = sg, reg
	cs := connectTo(t, newServer(t, f, s, cfg), opts)
	listTools(t, cs)
	return &agreementSetup{f: f, s: s, sg: sg, cs: cs, url: url, atrB64: b64(f.A)}
}

func (a *agreementSetup) counts(t *testing.T, signs, unpaid, paid int) {
	t.Helper()
	gotPaid := int(a.s.paid.Load())
	gotUnpaid := int(a.s.agreeCalls.Load()) - gotPaid
	if got := int(a.sg.calls.Load()); got != signs || gotUnpaid != unpaid || gotPaid != paid {
		t.Fatalf("signer calls %d, unpaid %d, paid %d; want %d, %d, %d", got, gotUnpaid, gotPaid, signs, unpaid, paid)
	}
}

// TestAgree: atr_confirm without a receipt gives chosen.agreement and no
// request; atr_agree asks for approval (nothing signed or paid), then pays
// and returns the receipt; atr_confirm with it gives the request; a receipt
// for another hash is refused.
func TestAgree(t *testing.T) {
	a := newAgreementSetup(t, nil)
	f := a.f
	args := jsonv.Obj("pairing", unprovenID, "document", f.D, "account", f.account)
	c := wantOK(t, call(t, a.cs, "atr_confirm", args))
	if c.Has("request") || strAt(t, c, "chosen", "agreement") != a.url {
		t.Fatalf("confirm without a receipt: %s", jsonv.Marshal(c))
	}
	chosen := valueAt(t, c, "chosen")

	r := wantOK(t, call(t, a.cs, "atr_agree", jsonv.Obj("atr", a.atrB64, "chosen", chosen)))
	if keys := r.Keys(); len(keys) != 2 || keys[0] != "atrHash" || keys[1] != "approve" {
		t.Fatalf("first agree: %s", jsonv.Marshal(r))
	}
	approve := objAt(t, r, "approve")
	if strAt(t, approve, "url") != a.url || !jsonv.Equal(valueAt(t, approve, "option"), valueAt(t, f.agreement, "option")) {
		t.Fatalf("approve %s", jsonv.Marshal(approve))
	}
	a.counts(t, 0, 1, 0)

	// Tampering is refused before the exchange, here too.
	bad := objAt(t, c, "chosen").Clone()
	bad.Set("agreement", "https://api.seller.example/elsewhere")
	wantDecline(t, call(t, a.cs, "atr_agree", jsonv.Obj("atr", a.atrB64, "chosen", bad, "approved", approve)), "chosen-unverified", chosenUnverified)
	a.counts(t, 0, 1, 0)

	paid := wantOK(t, call(t, a.cs, "atr_agree", jsonv.Obj("atr", a.atrB64, "chosen", chosen, "approved", approve)))
	receipt := objAt(t, paid, "receipt")
	if !jsonv.Equal(receipt, valueAt(t, f.agreement, "receipt")) || strAt(t, paid, "atrHash") != hashOf(f.A) {
		t.Fatalf("second agree: %s", jsonv.Marshal(paid))
	}
	a.counts(t, 1, 1, 1)

	args.Set("receipt", receipt)
	c2 := wantOK(t, call(t, a.cs, "atr_confirm", args))
	if strAt(t, c2, "request", "typedData", "message", "nonce") != hashOf(f.A) {
		t.Fatalf("confirm with the receipt: %s", jsonv.Marshal(c2))
	}
	args.Set("receipt", valueAt(t, f.agreement, "receiptOtherHash"))
	wantDecline(t, call(t, a.cs, "atr_confirm", args), string(gate.AgreementFailed), "The agreement receipt is not a recorded agreement for this ATR hash.")
	args.Set("receipt", "agreed")
	wantDecline(t, call(t, a.cs, "atr_confirm", args), string(gate.AgreementFailed), "The agreement receipt is not a recorded agreement for this ATR hash.")
	a.counts(t, 1, 1, 1)
}

// TestTransactApproval: atr_transact returns approve and signs nothing;
// called again with approved unchanged it pays the agreement, then the
// payment (two signatures), and returns the receipt beside signed.
func TestTransactApproval(t *testing.T) {
	a := newAgreementSetup(t, nil)
	args := jsonv.Obj("pairing", unprovenID, "document", a.f.D)
	r := wantOK(t, call(t, a.cs, "atr_transact", args))
	if r.Has("signed") || !r.Has("approve") || strAt(t, r, "atr", "base64") != a.atrB64 {
		t.Fatalf("first transact: %s", jsonv.Marshal(r))
	}
	a.counts(t, 0, 1, 0)
	args.Set("approved", valueAt(t, r, "approve"))
	done := wantOK(t, call(t, a.cs, "atr_transact", args))
	if strAt(t, done, "signed", "payload", "authorization", "nonce") != hashOf(a.f.A) || !jsonv.Equal(valueAt(t, done, "agreement"), valueAt(t, a.f.agreement, "receipt")) {
		t.Fatalf("second transact: %s", jsonv.Marshal(done))
	}
	a.counts(t, 2, 1, 1)

	// A malformed approval is refused before anything is fetched.
	fetches := a.s.fetches.Load()
	args.Set("approved", jsonv.Obj("url", a.url))
	wantDecline(t, call(t, a.cs, "atr_transact", args), string(gate.NoPayableOption), "x402/input-malformed")
	if a.s.fetches.Load() != fetches {
		t.Fatal("a malformed approval was fetched for")
	}
}

// TestAgreeCancelled: cancelling the paid atr_agree call while the
// agreement is settling (202) stops the resends: one signature, one paid
// request.
func TestAgreeCancelled(t *testing.T) {
	a := newAgreementSetup(t, func(w http.ResponseWriter) {
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusAccepted)
	})
	c := wantOK(t, call(t, a.cs, "atr_confirm", jsonv.Obj("pairing", unprovenID, "document", a.f.D, "account", a.f.account)))
	chosen := valueAt(t, c, "chosen")
	approve := valueAt(t, wantOK(t, call(t, a.cs, "atr_agree", jsonv.Obj("atr", a.atrB64, "chosen", chosen))), "approve")

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := a.cs.CallTool(ctx, &gosdk.CallToolParams{Name: "atr_agree", Arguments: json.RawMessage(jsonv.Marshal(jsonv.Obj("atr", a.atrB64, "chosen", chosen, "approved", approve)))})
		errc <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for a.s.paid.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the cancelled call ended with %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the cancelled call did not end")
	}
	time.Sleep(1200 * time.Millisecond) // past one Retry-After: no resend may come
	a.counts(t, 1, 1, 1)
}
