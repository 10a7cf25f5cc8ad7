package vectors_test

// x402/batch-settlement/eip155 channels through the gate: the B2 document
// (served with the ATR it advertises) is paid by Transact, held by
// OpenChannel, and then paid inside with Within — vouchers, a partial
// refund, the close — and RecordCharge, each signature checked against the
// key that must make it.

import (
	"context"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/signer"
)

// roles signs a batch-settlement batch the way the roles split: the token
// authorization (an opening's first request) by the payer, every voucher
// by the payer's authorizer.
type roles struct {
	payer, authorizer *signer.Local
	calls             int
}

func (r *roles) Account() string { return r.payer.Account() }

func (r *roles) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	r.calls++
	v, _ := req.Get("requests")
	list, _ := jsonv.AsArray(v)
	out := make([]jsonv.Value, len(list))
	for i, e := range list {
		o, _ := jsonv.AsObject(e)
		k := r.authorizer
		if pt, _ := jsonv.AsString(mustMember(o, "typedData", "primaryType")); pt != "Voucher" {
			k = r.payer
		}
		a, err := k.Sign(ctx, o)
		if err != nil {
			return nil, err
		}
		out[i] = a
	}
	return out, nil
}

func mustMember(o *jsonv.Object, path ...string) jsonv.Value {
	var v jsonv.Value = o
	for _, k := range path {
		x, _ := jsonv.AsObject(v)
		v, _ = x.Get(k)
	}
	return v
}

func TestBatchChannels(t *testing.T) {
	b := loadBatchEVM(t)
	b6 := batchRow(t, b.f, "B6", evm.BatchID)
	atrBytes := unhex(t, str(t, get(t, b6, "input", "check").([]jsonv.Value)[0], "bytesHex"))
	payer, _ := signer.FromHex(b.payerKey, "eip155:84532")
	authorizer, _ := signer.FromHex(b.authKey, "eip155:84532")
	s := newATRSeller(t)
	s.serveBytes(atrBytes)
	g := s.gateFor(b.now, nil)
	inputs := jsonv.Obj("payerAuthorizer", b.authorizer, "deposit", "100000", "authSalt", str(t, b.evm, "authSalt"))
	sg := &roles{payer: payer, authorizer: authorizer}
	paid, err := g.Transact(context.Background(), b.doc, evm.BatchID, sg, &gate.TransactOptions{Inputs: inputs})
	if err != nil {
		t.Fatal(err)
	}
	// The opening the gate released is B6's, byte for byte (the same keys,
	// salt and clock).
	if got, want := jsonv.String(paid.Signed), jsonv.String(get(t, b6, "input", "presented")); got != want || sg.calls != 1 {
		t.Fatalf("%d signer calls, opening\n got %s\nwant %s", sg.calls, got, want)
	}
	hold, err := g.OpenChannel(paid.Bytes, evm.BatchID, paid.Signed, nil)
	if err != nil {
		t.Fatal(err)
	}
	if hold.Channel != str(t, b.f, "EB1", "channelId") || hold.SignedMax != "1000" || hold.Charged != "0" {
		t.Fatalf("hold %+v", hold)
	}
	p := evm.Batch{}
	voucherSigner := func(t *testing.T, signed jsonv.Value) {
		t.Helper()
		v := obj(t, signed, "payload", "voucher")
		d, _ := evm.TypedDataDigest(evm.VoucherTypedData(84532, hold.Channel, str(t, v, "maxClaimableAmount")))
		raw, _ := evm.HexBytes(str(t, v, "signature"))
		if who, err := evm.Recover(d, raw); err != nil || who != authorizer.Address() {
			t.Fatalf("the voucher is %s's (%v)", who.Hex(), err)
		}
	}

	t.Run("voucher", func(t *testing.T) {
		charged, err := gate.RecordCharge(hold, "1000")
		if err != nil {
			t.Fatal(err)
		}
		sg := &roles{payer: payer, authorizer: authorizer}
		r, err := g.Within(context.Background(), b.doc, charged, evm.BatchID, sg, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if sg.calls != 1 || str(t, r.Signed, "payload", "type") != "voucher" ||
			str(t, r.Signed, "payload", "voucher", "maxClaimableAmount") != "2000" || r.Hold.SignedMax != "2000" {
			t.Fatalf("%d calls, %s, hold %+v", sg.calls, jsonv.Marshal(r.Signed), r.Hold)
		}
		voucherSigner(t, r.Signed)
		if h, err := p.BoundWithin(r.Signed); err != nil || h != hold.H {
			t.Fatalf("bound within %s (%v)", h, err)
		}
		// The seller charges what the voucher allows, not more.
		if _, err := gate.RecordCharge(r.Hold, "2001"); err == nil {
			t.Fatal("a charge above the signed maximum was recorded")
		}
		next, err := gate.RecordCharge(r.Hold, "2000")
		if err != nil || next.Charged != "2000" {
			t.Fatalf("record %+v (%v)", next, err)
		}
	})

	t.Run("refund", func(t *testing.T) {
		amount := "1500"
		r, err := g.Within(context.Background(), b.doc, hold, evm.BatchID, &roles{payer: payer, authorizer: authorizer}, &gate.Refund{Amount: &amount}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if str(t, r.Signed, "payload", "type") != "refund" || str(t, r.Signed, "payload", "amount") != "1500" ||
			str(t, r.Signed, "payload", "voucher", "maxClaimableAmount") != "0" {
			t.Fatalf("partial refund %s", jsonv.Marshal(r.Signed))
		}
		voucherSigner(t, r.Signed)
		closed, err := g.Within(context.Background(), b.doc, hold, evm.BatchID, &roles{payer: payer, authorizer: authorizer}, &gate.Refund{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if k, _ := p.ChannelKind(closed.Signed); k != rails.ChannelClose || obj(t, closed.Signed, "payload").Has("amount") {
			t.Fatalf("close %s", jsonv.Marshal(closed.Signed))
		}
	})

	// Hostile documents inside the channel: each is refused before the
	// signer is called.
	t.Run("refusals", func(t *testing.T) {
		other := b.doc.Clone()
		obj(t, other, "extensions", "legalContext", "info").Set("value", b.Hp.String())
		noOption := b.doc.Clone()
		o := b.option.Clone()
		o.Set("network", "eip155:8453")
		noOption.Set("accepts", []jsonv.Value{o})
		badAmount := b.doc.Clone()
		o = b.option.Clone()
		o.Set("amount", "1e3")
		badAmount.Set("accepts", []jsonv.Value{o})
		notOurs := hold.JSON()
		notOurs.Set("channel", str(t, b.f, "EB1", "withHprime"))
		forged, _ := gate.ParseHold(notOurs)
		for name, c := range map[string]struct {
			doc    jsonv.Value
			hold   *gate.Hold
			code   gate.Code
			detail string
		}{
			"another hash":         {other, hold, gate.HashMismatch, gate.DetailAdvertisesOtherHash},
			"no option":            {noOption, hold, gate.NoPayableOption, "x402/no-payable-option"},
			"unreadable document":  {jsonv.Obj("x402Version", 1), hold, gate.OfferUnreadable, "x402/not-v2"},
			"a forged hold":        {b.doc, forged, gate.SignedNotBound, gate.DetailHeldOpeningOther},
			"an amount no decimal": {badAmount, hold, gate.OfferUnreadable, "x402/option-malformed"},
		} {
			t.Run(name, func(t *testing.T) {
				sg := &roles{payer: payer, authorizer: authorizer}
				_, err := g.Within(context.Background(), c.doc, c.hold, evm.BatchID, sg, nil, nil)
				wantDecline(t, err, c.code, c.detail)
				if sg.calls != 0 {
					t.Fatal("the signer was called")
				}
			})
		}
	})
}
