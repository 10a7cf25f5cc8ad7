package vectors_test

// mpp-charge-xrpl.json: fixed, challenge, place, occupied, V3, V4, plant,
// build, refusals, agreedRefusals, multisigned and its buyer rows B2 and B6,
// with the XRPL signer paying the placed challenge end to end.

import (
	"context"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/xrpl"
)

func TestMPPChargeXRPL(t *testing.T) {
	f := load(t, "mpp-charge-xrpl.json")
	p := xrpl.Charge{}
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	placed := obj(t, f, "place", "expect")
	credential := func(challenge *jsonv.Object, payload *jsonv.Object) *jsonv.Object {
		return jsonv.Obj("challenge", challenge.Clone(), "payload", payload)
	}
	withBlob := func(blob string) *jsonv.Object {
		return credential(placed, jsonv.Obj("type", "transaction", "blob", blob))
	}
	// challengeWith is the fixed challenge with another request, placed.
	challengeWith := func(t *testing.T, request *jsonv.Object) *jsonv.Object {
		c := obj(t, f, "challenge").Clone()
		c.Set("request", mpp.EncodeObject(request))
		doc, err := xrpl.PlaceCharge([]jsonv.Value{c}, H, str(t, fixed, "link"), c, "")
		if err != nil {
			t.Fatal(err)
		}
		o, _ := jsonv.AsObject(doc[0])
		return o
	}
	buildWith := func(t *testing.T, challenge *jsonv.Object, mutate func(*jsonv.Object)) (rails.Unsigned, error) {
		choice := jsonv.Obj("challenge", challenge, "account", str(t, fixed, "account"), "fee", "12", "sequence", 7, "lastLedgerSequence", 1000)
		if mutate != nil {
			mutate(choice)
		}
		return p.Build(choice, []byte("abc"), H)
	}

	t.Run("fixed", func(t *testing.T) {
		if xrpl.MPPInvoiceID(H) != str(t, fixed, "invoiceId") || mpp.LegalContextValue(H) != str(t, fixed, "L") {
			t.Fatal("InvoiceID or L")
		}
		id, _ := mpp.ChallengeID(H, 0)
		if id != str(t, fixed, "MV1") {
			t.Fatalf("id %s", id)
		}
	})
	t.Run("challenge", func(t *testing.T) {
		c := obj(t, f, "challenge")
		req, ok := mpp.DecodeObject(str(t, c, "request"))
		if !ok || string(jsonv.Canonical(req)) != string(jsonv.Canonical(get(t, fixed, "request"))) {
			t.Fatal("the challenge's request is not fixed.request")
		}
		pairings, err := mpp.PairingsOf(c)
		if err != nil || len(pairings) != 1 || pairings[0] != xrpl.ChargeID {
			t.Fatalf("pairings %v, %v", pairings, err)
		}
	})
	t.Run("place", func(t *testing.T) {
		c := obj(t, f, "challenge")
		doc, err := xrpl.PlaceCharge([]jsonv.Value{c}, H, str(t, fixed, "link"), c, "")
		if err != nil {
			t.Fatal(err)
		}
		if jsonv.String(doc[0]) != jsonv.String(placed) {
			t.Fatalf("placed %s", jsonv.String(doc[0]))
		}
		if str(t, placed, "opaque") != str(t, fixed, "MV3opaque") {
			t.Fatal("opaque")
		}
	})
	t.Run("occupied", func(t *testing.T) {
		c := obj(t, f, "challenge").Clone()
		c.Set("request", mpp.EncodeObject(obj(t, f, "occupied", "request")))
		_, err := xrpl.PlaceCharge([]jsonv.Value{c}, H, str(t, fixed, "link"), c, "")
		wantRefusal(t, err, str(t, f, "occupied", "expect"))
	})
	t.Run("V3", func(t *testing.T) {
		v3 := obj(t, f, "V3")
		h, err := p.Bound(withBlob(str(t, v3, "blob")))
		if err != nil || h != str(t, v3, "expectBound") {
			t.Fatalf("bound %q, %v", h, err)
		}
		tx, _ := xrpl.DecodePresented(str(t, v3, "blob"))
		ref := obj(t, v3, "expectReference")
		lls, _ := tx.Fields.JSON().Get("LastLedgerSequence")
		inv, _ := tx.Fields.JSON().Get("InvoiceID")
		net, _ := mpp.Network(placed)
		if tx.Hash != str(t, ref, "transaction") || inv != get(t, ref, "expect") || lls != get(t, ref, "lastLedgerSequence") || net != str(t, ref, "network") {
			t.Fatalf("reference %s %v %v %s", tx.Hash, inv, lls, net)
		}
	})
	t.Run("V4", func(t *testing.T) {
		_, err := p.Bound(withBlob(str(t, f, "V4", "blob")))
		wantRefusal(t, err, str(t, f, "V4", "expect"))
	})
	t.Run("plant", func(t *testing.T) {
		_, err := p.Bound(withBlob(str(t, f, "plant", "blob")))
		wantRefusal(t, err, str(t, f, "plant", "expect"))
	})
	t.Run("build", func(t *testing.T) {
		// build gives V3's decoded fields other than SigningPubKey and
		// TxnSignature, and the local key signs it to V3's blob.
		u, err := buildWith(t, placed, func(c *jsonv.Object) {
			b := obj(t, f, "build")
			c.Set("fee", get(t, b, "fee"))
			c.Set("sequence", get(t, b, "sequence"))
			c.Set("lastLedgerSequence", get(t, b, "lastLedgerSequence"))
		})
		if err != nil {
			t.Fatal(err)
		}
		req, _ := p.Request(u)
		tx, _ := xrpl.DecodePresented(str(t, f, "V3", "blob"))
		want := tx.Fields.JSON()
		want.Delete("SigningPubKey")
		want.Delete("TxnSignature")
		if got := obj(t, req, "txJson"); string(jsonv.Canonical(got)) != string(jsonv.Canonical(want)) {
			t.Fatalf("txJson %s\nwant %s", jsonv.String(got), jsonv.String(want))
		}
		answer, err := xrplSigner(t, "xrpl:1").Sign(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		done, err := p.Complete(u, answer, rails.Chosen{})
		if err != nil {
			t.Fatal(err)
		}
		if got := str(t, done.Signed, "payload", "blob"); got != str(t, f, "V3", "blob") {
			t.Fatalf("signed %s", got)
		}
	})
	t.Run("transact", func(t *testing.T) {
		s := newATRSeller(t)
		s.serveBytes([]byte("abc"))
		sg := xrplSigner(t, "xrpl:1")
		in := obj(t, row(t, get(t, f, "buyer", "rows"), "B2"), "input", "inputs")
		tr, err := s.gateFor(1_790_000_000, nil).Transact(context.Background(), []jsonv.Value{placed}, xrpl.ChargeID, sg, &gate.TransactOptions{Inputs: in})
		if err != nil {
			t.Fatal(err)
		}
		if got := str(t, tr.Signed, "payload", "blob"); got != str(t, f, "V3", "blob") || sg.calls.Load() != 1 {
			t.Fatalf("signed %s after %d calls", got, sg.calls.Load())
		}
	})
	t.Run("refusals", func(t *testing.T) {
		rows := get(t, f, "refusals").([]jsonv.Value)
		for i, r := range rows {
			t.Run(str(t, r, "case"), func(t *testing.T) {
				var err error
				switch i {
				case 0:
					_, err = p.Bound(credential(placed, obj(t, r, "payload")))
				case 1:
					req := obj(t, fixed, "request").Clone()
					d, _ := req.GetObject("methodDetails")
					d.Set("memos", []jsonv.Value{})
					_, err = buildWith(t, challengeWith(t, req), nil)
				case 2:
					req := obj(t, fixed, "request").Clone()
					req.Set("methodDetails", jsonv.Obj())
					c := obj(t, f, "challenge").Clone()
					c.Set("request", mpp.EncodeObject(req))
					_, err = mpp.PairingsOf(c)
				default:
					t.Fatalf("row %d is new: add it", i)
				}
				wantRefusal(t, err, str(t, r, "expect"))
			})
		}
	})
	t.Run("agreedRefusals", func(t *testing.T) {
		rows := get(t, f, "agreedRefusals", "rows").([]jsonv.Value)
		for i, r := range rows {
			t.Run(str(t, r, "case"), func(t *testing.T) {
				var errs []error
				pairingsOf := func(mutate func(req, d *jsonv.Object)) error {
					req := obj(t, fixed, "request").Clone()
					d, _ := req.GetObject("methodDetails")
					mutate(req, d)
					c := obj(t, f, "challenge").Clone()
					c.Set("request", mpp.EncodeObject(req))
					_, err := mpp.PairingsOf(c)
					return err
				}
				switch i {
				case 0:
					errs = append(errs, pairingsOf(func(_, d *jsonv.Object) { d.Set("network", "xrpl:1") }))
				case 1:
					for _, m := range []func(req, d *jsonv.Object){
						func(req, _ *jsonv.Object) { req.Set("recipient", "0x742d35cc6634c0532925a3b844bc9e7595f8fe00") },
						func(req, _ *jsonv.Object) { req.Set("currency", "USD") },
						func(req, _ *jsonv.Object) {
							req.Set("currency", jsonv.Obj("currency", "XRP", "issuer", str(t, fixed, "account")))
						},
						func(req, _ *jsonv.Object) { req.Set("amount", "0") },
						func(req, _ *jsonv.Object) { req.Set("amount", "1.5") },
						func(req, _ *jsonv.Object) { req.Set("amount", jsonv.Number(1000000)) },
						func(_, d *jsonv.Object) { d.Set("invoiceId", "BA78") },
						func(_, d *jsonv.Object) { d.Set("destinationTag", jsonv.Number(1<<32)) },
						func(_, d *jsonv.Object) { d.Set("sourceTag", "7") },
					} {
						errs = append(errs, pairingsOf(m))
					}
				case 2, 3, 4, 5:
					xrplFetchPresentedRow(t, i, r.(*jsonv.Object), placed, str(t, f, "V3", "blob"), H.String())
					return
				case 6:
					// The request's invoiceId is H2's, and the blob signs it:
					// the signed InvoiceID is not the echoed challenge's H.
					H2 := mustHash(t, str(t, fixed, "H2"))
					req := obj(t, fixed, "request").Clone()
					d, _ := req.GetObject("methodDetails")
					d.Set("invoiceId", xrpl.MPPInvoiceID(H2))
					c := obj(t, f, "challenge").Clone()
					c.Set("request", mpp.EncodeObject(req))
					doc, err := mpp.Place([]jsonv.Value{c}, H, str(t, fixed, "link"), c, "")
					if err != nil {
						t.Fatal(err)
					}
					signed := signedPaymentWith(t, xrpl.MPPInvoiceID(H2))
					co, _ := jsonv.AsObject(doc[0])
					_, err = p.Bound(credential(co, jsonv.Obj("type", "transaction", "blob", signed)))
					errs = append(errs, err)
				case 7:
					for _, m := range []func(*jsonv.Object){
						func(c *jsonv.Object) { c.Set("account", jsonv.Number(1)) },
						func(c *jsonv.Object) { c.Set("fee", "012") },
						func(c *jsonv.Object) { c.Set("fee", "1.5") },
						func(c *jsonv.Object) { c.Set("sequence", jsonv.Number(1<<32)) },
						func(c *jsonv.Object) { c.Set("lastLedgerSequence", jsonv.Number(-1)) },
					} {
						_, err := buildWith(t, placed, m)
						errs = append(errs, err)
					}
				default:
					t.Fatalf("row %d is new: add it", i)
				}
				for _, err := range errs {
					wantRefusal(t, err, str(t, r, "expect"))
				}
			})
		}
	})
	t.Run("multisigned", func(t *testing.T) {
		for _, r := range get(t, f, "multisigned", "rows").([]jsonv.Value) {
			t.Run(str(t, r, "case"), func(t *testing.T) {
				blob := str(t, r, "blob")
				if got := xrpl.TxHash(unhex(t, blob)); got != str(t, r, "hash") {
					t.Fatalf("hash %s", got)
				}
				_, err := p.Bound(withBlob(blob))
				wantRefusal(t, err, str(t, r, "expect"))
			})
		}
	})
	xrplBuyerRows(t, f)
}

// signedPaymentWith is V3's Payment with another InvoiceID, signed by the
// vectors' payer.
func signedPaymentWith(t *testing.T, invoiceID string) string {
	tx := jsonv.Obj("TransactionType", "Payment", "Flags", 0, "Account", "r3sNTMefq5gsRumMYsNznnX6yzzxVH6dTC",
		"Destination", "rpjfAeE3DeeHPFnN2PgGFW5YxnZFAjrEyN", "Amount", "1000000", "InvoiceID", invoiceID,
		"Fee", "12", "Sequence", 7, "LastLedgerSequence", 1000)
	a, err := xrplSigner(t, "xrpl:1").Sign(context.Background(), jsonv.Obj("kind", xrpl.KindTx, "txJson", tx))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(a.(string), "0x")
}
