package evm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

var batchATR = []byte(`{"atrVersion":"1","terms":"batch"}`)

func batchDoc(t testing.TB, method string) *jsonv.Object {
	t.Helper()
	h := atr.Sum(batchATR)
	extra := jsonv.Obj("receiverAuthorizer", "0x90F79bf6EB2c4f870365E785982E1f101E93b906", "withdrawDelay", 900, "name", "USDC", "version", "2")
	if method != "" {
		extra.Set("assetTransferMethod", method)
	}
	doc := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{jsonv.Obj("scheme", "batch-settlement", "network", "eip155:84532",
		"amount", "1000", "asset", "0x036CbD53842c5426634e7929541eC2318f3dCF7e", "payTo", "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
		"maxTimeoutSeconds", 3600, "extra", extra)})
	doc, err := x402.Advertise(doc, h, "https://atr.seller.example/"+h.String(), "")
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// openBatch reads, chooses, builds, signs and completes an opening with the
// ATR in hand, and reads H back.
func openBatch(t testing.TB, doc *jsonv.Object, l *signer.Local, inputs *jsonv.Object) (rails.Request, jsonv.Value) {
	p := evm.Batch{}
	read, err := p.Read(doc)
	if err != nil {
		t.Fatal(err)
	}
	choice, err := p.Choose(read, l.Account(), inputs, 1790000000, "")
	if err != nil {
		t.Fatal(err)
	}
	h := atr.Sum(batchATR)
	u, err := p.Build(choice, batchATR, h)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := p.Request(u)
	answer, err := l.Sign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Complete(u, answer, rails.Chosen{Ref: rails.NewRef()})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := p.Bound(c.Signed); err != nil || got != h.String() {
		t.Fatalf("bound %s (%v)", got, err)
	}
	return req, c.Signed
}

func TestBatchSummarizeAndInspect(t *testing.T) {
	l, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	p := evm.Batch{}
	for _, method := range []string{"", "permit2"} {
		req, signed := openBatch(t, batchDoc(t, method), l, jsonv.Obj("payerAuthorizer", l.Address().Hex(), "deposit", "100000"))
		g, err := p.Summarize(req)
		if err != nil {
			t.Fatal(err)
		}
		// The deposit counts in full, whatever the first voucher says.
		if g.Network != "eip155:84532" || g.Amount.String() != "100000" || !strings.EqualFold(g.Asset, "0x036CbD53842c5426634e7929541eC2318f3dCF7e") ||
			g.PayableUntil.Unix() != 1790003600 {
			t.Fatalf("%s: grant %+v", method, g)
		}
		if method == "" && (g.Payer != l.Address().Hex() || g.Payee != evm.ERC3009DepositCollector) {
			t.Fatalf("grant %+v", g)
		}
		if method == "permit2" && g.Payee != evm.Permit2DepositCollector {
			t.Fatalf("grant %+v", g)
		}
		in, err := p.Inspect(signed)
		if err != nil {
			t.Fatal(err)
		}
		if in.H != atr.Sum(batchATR).String() || in.Kind != "channel-open" {
			t.Fatalf("inspect %s", jsonv.Marshal(in.JSON()))
		}
		if s, _ := in.JSON().GetString("amount"); s != "100000" || in.Grant.Payer != l.Address().Hex() {
			t.Fatalf("inspect %s", jsonv.Marshal(in.JSON()))
		}
	}
	// A lone voucher grants its cumulative amount in the channel.
	v := evm.VoucherTypedData(84532, "0x"+strings.Repeat("11", 32), "2500")
	g, err := p.Summarize(jsonv.Obj("kind", "batch", "requests", []jsonv.Value{jsonv.Obj("kind", "eip712", "typedData", v)}))
	if err != nil || g.Amount.String() != "2500" {
		t.Fatalf("voucher grant %+v (%v)", g, err)
	}
	// Anything else is unreadable: nothing is signed on doubt.
	for _, bad := range []rails.Request{
		jsonv.Obj("kind", "eip712", "typedData", v),
		jsonv.Obj("kind", "batch", "requests", []jsonv.Value{}),
		jsonv.Obj("kind", "batch", "requests", []jsonv.Value{jsonv.Obj("kind", "eip712", "typedData", jsonv.Obj())}),
		jsonv.Obj("kind", "batch", "requests", []jsonv.Value{jsonv.Obj("kind", "eip712", "typedData", v), jsonv.Obj("kind", "eip712", "typedData", v)}),
	} {
		if _, err := p.Summarize(bad); err == nil {
			t.Fatalf("summarized %s", jsonv.Marshal(bad))
		}
	}
}

// FuzzBatchVoucherReader feeds hostile payments to every reading of a
// batch-settlement payment: none may panic, and a payment that reads as a
// channel payment names the channel its configuration hashes to.
func FuzzBatchVoucherReader(f *testing.F) {
	l, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	_, signed := openBatch(f, batchDoc(f, ""), l, jsonv.Obj("payerAuthorizer", l.Address().Hex(), "deposit", "100000"))
	f.Add(jsonv.Marshal(signed))
	f.Add([]byte(`{"x402Version":2,"accepted":{},"payload":{"type":"voucher"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cost.Bound(t, len(data), func() { readBatch(t, data) })
	})
}

func readBatch(t *testing.T, data []byte) {
	p := evm.Batch{}
	{
		v, err := jsonv.Parse(data)
		if err != nil {
			return
		}
		_, _ = p.Bound(v)
		_, _ = p.ChannelKind(v)
		_, _ = p.Inspect(v)
		_, _ = p.Reference(v)
		ref, err := p.ChannelRef(v)
		h, errW := p.BoundWithin(v)
		if (err == nil) != (errW == nil) {
			t.Fatalf("ref %v and bound-within %v disagree", err, errW)
		}
		if err == nil && (len(ref.Channel) != 66 || len(h) != 66) {
			t.Fatalf("ref %+v, h %s", ref, h)
		}
	}
}

// BenchmarkBatchVoucher is an x402/batch-settlement/eip155 opening with the
// ATR in hand: read, choose, build (channel id, deposit authorization,
// voucher), sign both with a real key, complete, read H back.
func BenchmarkBatchVoucher(b *testing.B) {
	l, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	doc := batchDoc(b, "")
	inputs := jsonv.Obj("payerAuthorizer", l.Address().Hex(), "deposit", "100000")
	b.ReportAllocs()
	cpu0 := cost.CPU()
	for b.Loop() {
		openBatch(b, doc, l, inputs)
	}
	// The machine is shared: CPU time per operation says what the code
	// costs when wall time also counts waiting for a core.
	b.ReportMetric(float64(cost.CPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

func TestBatchSummarizeWithin(t *testing.T) {
	l, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	p := evm.Batch{}
	doc := batchDoc(t, "")
	_, opening := openBatch(t, doc, l, jsonv.Obj("payerAuthorizer", l.Address().Hex(), "deposit", "100000"))
	o, _ := jsonv.AsObject(opening)
	channel, _ := p.ChannelRef(opening)
	req := jsonv.Obj("kind", "batch", "requests", []jsonv.Value{jsonv.Obj("kind", "eip712", "typedData", evm.VoucherTypedData(84532, channel.Channel, "3000"))})
	g, err := p.SummarizeWithin(req, o)
	if err != nil || g.Amount.String() != "3000" || g.Asset != "0x036CbD53842c5426634e7929541eC2318f3dCF7e" ||
		g.Payee != "0x209693Bc6afc0C5328bA36FaF03C514EF312287C" || g.Payer != l.Address().Hex() {
		t.Fatalf("grant %+v (%v)", g, err)
	}
	// A voucher for another channel is not this opening's.
	other := jsonv.Obj("kind", "batch", "requests", []jsonv.Value{jsonv.Obj("kind", "eip712", "typedData", evm.VoucherTypedData(84532, "0x"+strings.Repeat("22", 32), "3000"))})
	if _, err := p.SummarizeWithin(other, o); err == nil {
		t.Fatal("summarized a voucher of another channel")
	}
}
