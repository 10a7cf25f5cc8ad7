package gate_test

import (
	"context"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

// batchDoc is an x402/batch-settlement/eip155 document advertising the
// hash of body.
func batchDoc(b testing.TB, body []byte) *jsonv.Object {
	b.Helper()
	h := atr.Sum(body)
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://api.seller.example/v1/quote"),
		"accepts", []jsonv.Value{jsonv.Obj("scheme", "batch-settlement", "network", "eip155:84532", "amount", "1000",
			"asset", "0x036CbD53842c5426634e7929541eC2318f3dCF7e", "payTo", "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
			"maxTimeoutSeconds", 3600, "extra", jsonv.Obj("receiverAuthorizer", "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
				"withdrawDelay", 900, "name", "USDC", "version", "2"))})
	doc, err := x402.Advertise(doc, h, "https://atr.seller.example/"+h.String(), "")
	if err != nil {
		b.Fatal(err)
	}
	return doc
}

// BenchmarkBatchWithin is one voucher through Within on a held channel:
// the hold re-checked, the new document read, the voucher built, checked
// before signing, signed and read back.
func BenchmarkBatchWithin(b *testing.B) {
	bb := newBench(b, atrA)
	doc := batchDoc(b, atrA)
	l, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	g := bb.g
	ctx := context.Background()
	opts := &gate.TransactOptions{Inputs: jsonv.Obj("payerAuthorizer", l.Address().Hex(), "deposit", "100000")}
	paid, err := g.Transact(ctx, doc, evm.BatchID, l, opts)
	if err != nil {
		b.Fatal(err)
	}
	hold, err := g.OpenChannel(paid.Bytes, evm.BatchID, paid.Signed, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		if _, err := g.Within(ctx, doc, hold, evm.BatchID, l, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
	// The machine is shared: CPU time per operation says what the code
	// costs when wall time also counts waiting for a core.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// Within hands the builder the seller's document as read (as Transact
// does) and a copy of the hold's opening: neither the document nor the
// hold changes, and changing the signed payment or the new hold changes
// neither of them.
func TestBatchWithinLeavesItsInputsAlone(t *testing.T) {
	bb := newBench(t, atrA)
	doc := batchDoc(t, atrA)
	l, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	ctx := context.Background()
	paid, err := bb.g.Transact(ctx, doc, evm.BatchID, l, &gate.TransactOptions{Inputs: jsonv.Obj("payerAuthorizer", l.Address().Hex(), "deposit", "100000")})
	if err != nil {
		t.Fatal(err)
	}
	hold, err := bb.g.OpenChannel(paid.Bytes, evm.BatchID, paid.Signed, nil)
	if err != nil {
		t.Fatal(err)
	}
	docBefore, holdBefore := jsonv.String(doc), jsonv.String(hold.JSON())
	r, err := bb.g.Within(ctx, doc, hold, evm.BatchID, l, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if jsonv.String(doc) != docBefore || jsonv.String(hold.JSON()) != holdBefore {
		t.Fatal("Within changed the document or the hold")
	}
	// Scribble over every object of the signed payment and of the new hold.
	var scribble func(v jsonv.Value)
	scribble = func(v jsonv.Value) {
		switch x := v.(type) {
		case *jsonv.Object:
			for _, m := range x.Members() {
				scribble(m.Value)
			}
			x.Set("scribbled", true)
		case []jsonv.Value:
			for _, e := range x {
				scribble(e)
			}
		}
	}
	scribble(r.Signed)
	scribble(r.Hold.Opening)
	if jsonv.String(doc) != docBefore || jsonv.String(hold.JSON()) != holdBefore {
		t.Fatal("the signed payment or the new hold aliases the document or the hold")
	}
}
