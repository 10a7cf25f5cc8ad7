package lightningseller

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/lightning"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

type rig struct {
	net   *Network
	g     *gate.Gate
	doc   *jsonv.Object
	node  *demo.Counting
	evm   *demo.Counting
	opts  *gate.TransactOptions
	ctx   context.Context
	store *Seller
}

func newRig(t *testing.T) *rig {
	t.Helper()
	seller := New(demo.ATR, DemoBody)
	net, err := Start(seller)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(net.Close)
	ctx := context.Background()
	n, err := net.Node(ctx)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	r := &rig{net: net, g: &gate.Gate{Fetcher: &atr.Fetcher{Client: net.Server.Client()}}, node: demo.Count(n),
		evm: demo.Count(key), ctx: ctx, store: seller}
	r.opts = &gate.TransactOptions{AgreementSigner: r.evm,
		Inputs: jsonv.Obj("request", jsonv.Obj("method", "GET", "url", seller.ResourceURL()))}
	r.doc = r.offer(t)
	return r
}

func (r *rig) offer(t *testing.T) *jsonv.Object {
	resp, _, err := demo.Get(r.ctx, r.net.Server.Client(), r.store.ResourceURL(), "", "")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := x402.DecodeHeader(resp.Header.Get("PAYMENT-REQUIRED"))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// A seller whose link serves other bytes: hash-mismatch, nothing paid,
// no agreement asked.
func TestLyingSellerIsNotPaid(t *testing.T) {
	r := newRig(t)
	r.store.Agreements.Lie(demo.Changed(demo.ATR))
	_, err := r.g.Transact(r.ctx, r.doc, lightning.ExactID, r.node, r.opts)
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.HashMismatch {
		t.Fatalf("%v", err)
	}
	if r.node.Calls() != 0 || r.evm.Calls() != 0 || r.net.Payer.Payments.Load() != 0 {
		t.Fatal("something was paid")
	}
}

// The buyer's request must be the one the invoice binds: another URL is
// refused before anything is fetched.
func TestOtherRequestIsNotPaid(t *testing.T) {
	r := newRig(t)
	r.opts.Inputs = jsonv.Obj("request", jsonv.Obj("method", "GET", "url", r.store.ResourceURL()+"?all=1"))
	_, err := r.g.Transact(r.ctx, r.doc, lightning.ExactID, r.node, r.opts)
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.NoPayableOption || d.Detail != lightning.CodeRequestMismatch {
		t.Fatalf("%v", err)
	}
	if r.store.Agreements.ATRFetches.Load() != 0 {
		t.Fatal("the terms were fetched")
	}
}

// A node whose answer is no preimage of the invoice: signed-not-bound,
// and what the node answered is kept as moved.
func TestNotAPreimageIsKeptAsMoved(t *testing.T) {
	r := newRig(t)
	first, err := r.g.Transact(r.ctx, r.doc, lightning.ExactID, r.node, r.opts)
	if err != nil || first.Approve == nil {
		t.Fatal(err)
	}
	r.opts.Approved = first.Approve
	liar := &answering{account: r.node.Account(), answer: "not-a-preimage"}
	_, err = r.g.Transact(r.ctx, r.doc, lightning.ExactID, liar, r.opts)
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.SignedNotBound || d.Moved == nil || d.Moved.Signed != "not-a-preimage" {
		t.Fatalf("%v %+v", err, d)
	}
}

type answering struct {
	account string
	answer  jsonv.Value
}

func (a *answering) Account() string { return a.account }
func (a *answering) Sign(context.Context, rails.Request) (jsonv.Value, error) {
	return a.answer, nil
}

// The seller serves a payment once; without an agreement it serves none.
func TestSellerChecks(t *testing.T) {
	r := newRig(t)
	// Paid by hand, skipping the agreement: the seller refuses.
	doc := r.doc
	inv := lightning.InvoiceOf(get(doc, "accepts", "0"))
	pre, err := r.node.Sign(r.ctx, jsonv.Obj("kind", lightning.KindBolt11Pay, "invoice", inv))
	if err != nil {
		t.Fatal(err)
	}
	accepts, _ := doc.Get("accepts")
	list, _ := jsonv.AsArray(accepts)
	accepted, _ := jsonv.AsObject(list[0])
	payment := x402.Payment(doc, accepted, jsonv.Obj("preimage", pre))
	resp, _, err := demo.Get(r.ctx, r.net.Server.Client(), r.store.ResourceURL(), "PAYMENT-SIGNATURE", x402.EncodeHeader(payment))
	if err != nil || resp.StatusCode != 402 || !strings.Contains(r.store.LastRejection().Error(), "agreement") {
		t.Fatalf("%v %v", err, r.store.LastRejection())
	}
	// Now through the gate: paid once, refused the second time.
	first, err := r.g.Transact(r.ctx, r.offer(t), lightning.ExactID, r.node, r.opts)
	if err != nil {
		t.Fatal(err)
	}
	r.opts.Approved = first.Approve
	doc = r.offer(t)
	paid, err := r.g.Transact(r.ctx, doc, lightning.ExactID, r.node, r.opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{200, 402} {
		resp, _, err := demo.Get(r.ctx, r.net.Server.Client(), r.store.ResourceURL(), "PAYMENT-SIGNATURE", x402.EncodeHeader(paid.Signed))
		if err != nil || resp.StatusCode != want {
			t.Fatalf("presentation %d: %v %d (%v)", i, err, resp.StatusCode, r.store.LastRejection())
		}
	}
	// The gate's own read-back of the kept payment.
	if h, err := r.g.Check(demo.ATR, lightning.ExactID, paid.Signed); err != nil || h != r.store.Hash() {
		t.Fatalf("check %v %v", h, err)
	}
}

func get(v jsonv.Value, path ...string) jsonv.Value {
	for _, k := range path {
		if list, ok := jsonv.AsArray(v); ok && k == "0" {
			v = list[0]
			continue
		}
		o, _ := jsonv.AsObject(v)
		v, _ = o.Get(k)
	}
	return v
}

// An invoice-named seller whose terms name another invoice than the one it
// offers: declined ln/invoice-not-named after the fetch, before any
// agreement or payment.
func TestNamedSellerThatNamesAnotherInvoice(t *testing.T) {
	seller := NewNamed(demo.ATR, DemoBody)
	seller.MisName = true
	net, err := Start(seller)
	if err != nil {
		t.Fatal(err)
	}
	defer net.Close()
	ctx := context.Background()
	n, err := net.Node(ctx)
	if err != nil {
		t.Fatal(err)
	}
	node := demo.Count(n)
	r := &rig{net: net, ctx: ctx, store: seller}
	doc := r.offer(t)
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: net.Server.Client()}}
	opts := &gate.TransactOptions{Inputs: jsonv.Obj("request", jsonv.Obj("method", "GET", "url", seller.ResourceURL()))}
	_, err = g.Transact(ctx, doc, lightning.InvoiceNamedID, node, opts)
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.OfferUnreadable || d.Detail != lightning.CodeInvoiceNotNamed {
		t.Fatalf("%v", err)
	}
	if node.Calls() != 0 || seller.Agreements.ATRFetches.Load() != 1 || seller.Agreements.Unpaid.Load() != 0 {
		t.Fatalf("node %d, fetches %d, agreement asked %d", node.Calls(), seller.Agreements.ATRFetches.Load(), seller.Agreements.Unpaid.Load())
	}
}

// The MPP charge seller: a lying link declines hash-mismatch with nothing
// paid; a credential is served once.
func TestMPPChargeSeller(t *testing.T) {
	seller := NewCharge(demo.ATR, DemoBody)
	net, err := Start(seller)
	if err != nil {
		t.Fatal(err)
	}
	defer net.Close()
	ctx := context.Background()
	n, _ := net.Node(ctx)
	node := demo.Count(n)
	key, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: net.Server.Client()}}
	_, doc, _, err := demo.MPPOffer(ctx, net.Server.Client(), g, seller.ResourceURL(), lightning.ChargeID)
	if err != nil {
		t.Fatal(err)
	}
	seller.Agreements.Lie(demo.Changed(demo.ATR))
	opts := &gate.TransactOptions{AgreementSigner: key}
	_, err = g.Transact(ctx, doc, lightning.ChargeID, node, opts)
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.HashMismatch || node.Calls() != 0 {
		t.Fatalf("%v, %d node calls", err, node.Calls())
	}
	seller.Agreements.Lie(nil)
	first, err := g.Transact(ctx, doc, lightning.ChargeID, node, opts)
	if err != nil || first.Approve == nil {
		t.Fatal(err)
	}
	opts.Approved = first.Approve
	paid, err := g.Transact(ctx, doc, lightning.ChargeID, node, opts)
	if err != nil {
		t.Fatal(err)
	}
	cred, _ := jsonv.AsObject(paid.Signed)
	name, value := mpp.Header(cred)
	for i, want := range []int{200, 402} {
		resp, _, err := demo.Get(ctx, net.Server.Client(), seller.ResourceURL(), name, value)
		if err != nil || resp.StatusCode != want {
			t.Fatalf("presentation %d: %v %v (%v)", i, err, resp.StatusCode, seller.LastRejection())
		}
	}
}

// A session's open becomes a hold: the gate reads its kind, its channel
// (the deposit's payment hash) and H.
func TestSessionOpenIsHeld(t *testing.T) {
	seller := NewSession(demo.ATR, DemoBody)
	net, err := Start(seller)
	if err != nil {
		t.Fatal(err)
	}
	defer net.Close()
	ctx := context.Background()
	n, _ := net.Node(ctx)
	key, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: net.Server.Client()}}
	_, doc, _, err := demo.MPPOffer(ctx, net.Server.Client(), g, seller.ResourceURL(), lightning.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	ret, _, _ := NewReceiver(PayerKey()).Issue(0, 86400, make([]byte, 32), nil)
	opts := &gate.TransactOptions{AgreementSigner: key, Inputs: jsonv.Obj("returnInvoice", ret)}
	first, err := g.Transact(ctx, doc, lightning.SessionID, n, opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Approved = first.Approve
	paid, err := g.Transact(ctx, doc, lightning.SessionID, n, opts)
	if err != nil {
		t.Fatal(err)
	}
	hold, err := g.OpenChannel(paid.Bytes, lightning.SessionID, paid.Signed, nil)
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := lightning.Session{}.ChannelRef(paid.Signed)
	if hold.Channel != ref.Channel || hold.Network != lightning.SessionNetwork || hold.H != seller.Hash().String() {
		t.Fatalf("hold %+v", hold)
	}
}
