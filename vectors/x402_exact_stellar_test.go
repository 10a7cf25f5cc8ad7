package vectors_test

// x402-exact-stellar.json: fixed, V1, V2, V3, V4, V4build, V3v2,
// agreedRefusals and the buyer rows B2 and B6; V5, plant and events are the
// seller's settlement reading and are listed, not run. decoder-caps.json's
// ScVal and envelope rows (SC1–SC4, SE1–SE4) run in TestDecoderCapsScVal.

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"testing"

	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/stellar"
	"github.com/termsgate/termsgate/signer"
)

// stellarKey is the signer of a vector seed (hex) on testnet.
func stellarKey(t testing.TB, seedHex string) *signer.Stellar {
	t.Helper()
	s, err := signer.StellarFromSecret(seedHex, stellar.Testnet)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// stellarPayment is an x402/exact/stellar payment of envelope.
func stellarPayment(accepted, extensions jsonv.Value, envelope string) *jsonv.Object {
	return jsonv.Obj("x402Version", 2, "accepted", accepted, "payload", jsonv.Obj("transaction", envelope), "extensions", extensions)
}

func TestX402ExactStellar(t *testing.T) {
	f := load(t, "x402-exact-stellar.json")
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	p := stellar.Exact{}
	v3 := obj(t, f, "V3")
	accepted := obj(t, v3, "accepted")
	extensions := obj(t, v3, "extensions")
	required := jsonv.Obj("x402Version", 2, "resource", get(t, fixed, "resource"), "accepts", []jsonv.Value{accepted}, "extensions", extensions)
	payer := stellarKey(t, str(t, fixed, "payerSeed"))
	choiceOf := func(sim string, ledger jsonv.Value) *jsonv.Object {
		return jsonv.Obj("required", required, "accepted", accepted, "payer", str(t, fixed, "payer"),
			"simulatedXdr", sim, "currentLedger", ledger)
	}

	t.Run("fixed", func(t *testing.T) {
		if payer.Address() != str(t, fixed, "payer") {
			t.Fatalf("payer seed gives %s", payer.Address())
		}
		seller := stellarKey(t, str(t, fixed, "sellerSeed"))
		if seller.Address() != str(t, fixed, "seller") {
			t.Fatalf("seller seed gives %s", seller.Address())
		}
		if stellar.EncodeContract([32]byte(unhex(t, strings.Repeat("06", 32)))) != str(t, fixed, "asset") {
			t.Fatal("asset is not the contract of 06x32")
		}
		if !get(t, fixed, "option").(*jsonv.Object).Has("extra") {
			t.Fatal("option without extra")
		}
	})

	t.Run("V1", func(t *testing.T) {
		v := obj(t, f, "V1")
		if got := stellar.MuxedID(H); strconv.FormatUint(got, 16) != str(t, v, "muxedIdHex") || strconv.FormatUint(got, 10) != str(t, v, "muxedId") {
			t.Fatalf("muxed id %x", got)
		}
		m, err := stellar.Muxed(str(t, fixed, "seller"), H)
		if err != nil || m != str(t, v, "M") {
			t.Fatalf("M %s (%v)", m, err)
		}
		n, _ := jsonv.AsSafeInt(get(t, v, "Mlength"))
		mx, ok := stellar.DecodeMuxed(m)
		if len(m) != int(n) || !ok || mx.Base() != str(t, fixed, "seller") || strconv.FormatUint(mx.ID, 10) != str(t, v, "muxedId") {
			t.Fatalf("M splits into %+v", mx)
		}
		id := xdr.Uint64(mx.ID)
		to := xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeMuxedAccount, MuxedAccount: &xdr.MuxedEd25519Account{Id: id, Ed25519: xdr.Uint256(mx.Key)}}
		val := xdr.ScVal{Type: xdr.ScValTypeScvAddress, Address: &to}
		raw, err := val.MarshalBinary()
		if err != nil || base64.StdEncoding.EncodeToString(raw) != str(t, v, "toScValXdr") {
			t.Fatalf("to ScVal %x (%v)", raw, err)
		}
	})

	t.Run("V2", func(t *testing.T) {
		v := obj(t, f, "V2")
		u, err := p.Build(choiceOf(str(t, v, "simulatedXdr"), get(t, v, "currentLedger")), nil, H)
		if err != nil {
			t.Fatal(err)
		}
		req, err := p.Request(u)
		if err != nil {
			t.Fatal(err)
		}
		if k, _ := req.GetString("kind"); k != stellar.KindAuth {
			t.Fatalf("kind %s", k)
		}
		pre := unhex(t, strings.TrimPrefix(str(t, req, "preimage"), "0x"))
		n, _ := jsonv.AsSafeInt(get(t, v, "expectPreimageLength"))
		d := sha256.Sum256(pre)
		if len(pre) != int(n) || hexOf(d[:]) != str(t, v, "expectPreimageSha256") {
			t.Fatalf("preimage %d bytes, sha256 %x", len(pre), d)
		}
		if hexOf(pre[4:8]) != str(t, v, "networkIdPrefix") {
			t.Fatalf("network id %x", pre[4:36])
		}
		exp, _ := jsonv.AsSafeInt(get(t, v, "expectExpiration"))
		if a, err := stellar.ReadPreimage(pre); err != nil || int64(a.Expiration) != exp {
			t.Fatalf("preimage expiration %+v (%v)", a, err)
		}
		sig, err := payer.Sign(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.TrimPrefix(sig.(string), "0x")
		if !strings.HasPrefix(s, str(t, v, "expectSignaturePrefix")) || !strings.HasSuffix(s, str(t, v, "expectSignatureSuffix")) {
			t.Fatalf("signature %s", s)
		}
		done, err := p.Complete(u, sig, rails.Chosen{Pairing: p.ID(), Ref: rails.NewRef()})
		if err != nil {
			t.Fatal(err)
		}
		pay := done.Signed.(*jsonv.Object)
		if got := str(t, pay, "payload", "transaction"); got != str(t, v, "expectEnvelope") {
			t.Fatalf("envelope\n got %s\nwant %s", got, str(t, v, "expectEnvelope"))
		}
		if got, want := strings.Join(pay.Keys(), ","), "x402Version,resource,extensions,accepted,payload"; got != want {
			t.Fatalf("payment members %s", got)
		}
		if h, err := p.Bound(pay); err != nil || h != H.String() {
			t.Fatalf("bound %s (%v)", h, err)
		}
		if _, err := p.Complete(u, "0x"+strings.Repeat("00", 63), rails.Chosen{}); !isRefusal(err, "x402/signature-malformed") {
			t.Fatalf("63-byte signature: %v", err)
		}
	})

	t.Run("V3", func(t *testing.T) {
		pay := stellarPayment(accepted, extensions, str(t, v3, "envelope"))
		raw, _ := base64.StdEncoding.DecodeString(str(t, v3, "envelope"))
		if n, _ := jsonv.AsSafeInt(get(t, v3, "envelopeLength")); len(raw) != int(n) {
			t.Fatalf("envelope of %d bytes", len(raw))
		}
		h, err := p.Bound(pay)
		if err != nil || h != str(t, v3, "expectBound") {
			t.Fatalf("bound %s (%v)", h, err)
		}
		tr, _, err := p.ReadPayment(pay)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := stellar.Reference(tr, str(t, accepted, "network"))
		if err != nil || jsonv.String(ref) != jsonv.String(get(t, v3, "expectReference")) {
			t.Fatalf("reference %s (%v)", jsonv.String(ref), err)
		}
	})

	t.Run("V4", func(t *testing.T) {
		for _, rv := range get(t, f, "V4").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				want := str(t, r, "expect")
				if r.Has("advertiseOption") {
					_, err := stellar.PlaceOption(obj(t, r, "advertiseOption"), H)
					wantRefusal(t, err, want)
					return
				}
				_, err := p.Bound(stellarPayment(get(t, r, "accepted"), get(t, r, "extensions"), str(t, r, "envelope")))
				wantRefusal(t, err, want)
			})
		}
	})

	t.Run("V4build", func(t *testing.T) {
		v := obj(t, f, "V4build")
		other, ok := stellar.DecodeAccount(str(t, v, "other"))
		if !ok || stellar.EncodeAccount(other) != stellarKey(t, strings.Repeat("07", 32)).Address() {
			t.Fatal("other is not the account of 07x32")
		}
		for _, rv := range get(t, v, "rows").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				_, err := p.Build(choiceOf(str(t, r, "simulatedXdr"), get(t, v, "currentLedger")), nil, H)
				wantRefusal(t, err, str(t, r, "expect"))
			})
		}
	})

	t.Run("V3v2", func(t *testing.T) {
		v := obj(t, f, "V3v2")
		u, err := p.Build(choiceOf(str(t, v, "simulatedXdr"), get(t, v, "currentLedger")), nil, H)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := p.Request(u)
		pre := unhex(t, strings.TrimPrefix(str(t, req, "preimage"), "0x"))
		n, _ := jsonv.AsSafeInt(get(t, v, "expectPreimageLength"))
		d := sha256.Sum256(pre)
		if len(pre) != int(n) || hexOf(d[:]) != str(t, v, "expectPreimageSha256") {
			t.Fatalf("preimage %d bytes, sha256 %x", len(pre), d)
		}
		sig, err := payer.Sign(context.Background(), req)
		if err != nil || strings.TrimPrefix(sig.(string), "0x") != str(t, v, "expectSignature") {
			t.Fatalf("signature %v (%v)", sig, err)
		}
		done, err := p.Complete(u, sig, rails.Chosen{})
		if err != nil {
			t.Fatal(err)
		}
		pay := done.Signed.(*jsonv.Object)
		if got := str(t, pay, "payload", "transaction"); got != str(t, v, "envelope") {
			t.Fatalf("envelope\n got %s\nwant %s", got, str(t, v, "envelope"))
		}
		if h, err := p.Bound(pay); err != nil || h != str(t, v, "expectBound") {
			t.Fatalf("bound %s (%v)", h, err)
		}
		tr, _, err := p.ReadPayment(pay)
		if err != nil || !tr.V2 {
			t.Fatalf("read %+v (%v)", tr, err)
		}
		ref, err := stellar.Reference(tr, str(t, accepted, "network"))
		if err != nil || jsonv.String(ref) != jsonv.String(get(t, v, "expectReference")) {
			t.Fatalf("reference %s (%v)", jsonv.String(ref), err)
		}
	})

	// V5, plant, events and V3v2's expectStatus: against a loopback Soroban RPC.
	stellarStatusRows(t, f)

	t.Run("agreedRefusals", func(t *testing.T) {
		sim := str(t, f, "V2", "simulatedXdr")
		env := decodeEnvelope(t, sim)
		rows := get(t, f, "agreedRefusals", "rows").([]jsonv.Value)
		checks := map[string]func(t *testing.T) error{
			"stellar/peer-missing": nil, // the SDK is compiled in
			"stellar/tx-malformed": func(t *testing.T) error {
				// A fee bump cannot be signed here, and a signature must be 64 bytes.
				fb := xdr.TransactionEnvelope{Type: xdr.EnvelopeTypeEnvelopeTypeTxFeeBump, FeeBump: &xdr.FeeBumpTransactionEnvelope{
					Tx: xdr.FeeBumpTransaction{FeeSource: env.V1.Tx.SourceAccount, Fee: 200,
						InnerTx: xdr.FeeBumpTransactionInnerTx{Type: xdr.EnvelopeTypeEnvelopeTypeTx, V1: env.V1}}}}
				if _, err := stellar.SigningFor(encodeEnvelope(t, &fb), stellar.Testnet, 1000, false); !isRefusal(err, "stellar/tx-malformed") {
					return err
				}
				s, err := stellar.SigningFor(sim, stellar.Testnet, 1000, false)
				if err != nil {
					return err
				}
				_, err = s.Complete(make([]byte, 63))
				return err
			},
			"stellar/tx-too-large": func(t *testing.T) error {
				_, err := stellar.ReadSignedTransfer(strings.Repeat("A", stellar.MaxEnvelopeChars+4), stellar.Testnet)
				return err
			},
			"stellar/no-address-auth": func(t *testing.T) error {
				e := decodeEnvelope(t, sim)
				e.V1.Tx.Operations[0].Body.InvokeHostFunctionOp.Auth = nil
				_, err := stellar.ReadSignedTransfer(encodeEnvelope(t, e), stellar.Testnet)
				return err
			},
			"stellar/not-one-transfer": func(t *testing.T) error {
				e := decodeEnvelope(t, sim)
				e.V1.Tx.Operations[0].Body.InvokeHostFunctionOp.HostFunction.InvokeContract.FunctionName = "approve"
				_, err := stellar.ReadSignedTransfer(encodeEnvelope(t, e), stellar.Testnet)
				return err
			},
			"stellar/carrier-mismatch": func(t *testing.T) error {
				plain := get(t, fixed, "option").(*jsonv.Object)
				doc := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{plain}, "extensions", extensions)
				_, err := p.Build(jsonv.Obj("required", doc, "accepted", plain, "payer", str(t, fixed, "payer"),
					"simulatedXdr", sim, "currentLedger", 988), nil, H)
				return err
			},
			"x402/option-malformed": func(t *testing.T) error {
				zero := accepted.Clone()
				zero.Set("amount", "0")
				doc := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{zero}, "extensions", extensions)
				_, err := p.Build(jsonv.Obj("required", doc, "accepted", zero, "payer", str(t, fixed, "payer"),
					"simulatedXdr", sim, "currentLedger", 988), nil, H)
				return err
			},
			"x402/option-not-this-pairing": func(t *testing.T) error {
				unsponsored := accepted.Clone()
				unsponsored.Set("extra", jsonv.Obj("areFeesSponsored", false))
				_, err := p.Bound(stellarPayment(unsponsored, extensions, str(t, v3, "envelope")))
				return err
			},
			"x402/no-legal-context": func(t *testing.T) error {
				pay := stellarPayment(accepted, extensions, str(t, v3, "envelope"))
				pay.Delete("extensions")
				_, err := p.Bound(pay)
				return err
			},
			"stellar/event-malformed": func(t *testing.T) error { return stellarEventMalformed(t, f) },
		}
		for _, rv := range rows {
			r := rv.(*jsonv.Object)
			want := str(t, r, "expect")
			t.Run(str(t, r, "case"), func(t *testing.T) {
				check, known := checks[want]
				if !known {
					t.Fatalf("no test for %s", want)
				}
				if check == nil {
					t.Skipf("%s: JavaScript's missing optional SDK; the SDK is compiled in", want)
				}
				wantRefusal(t, check(t), want)
			})
		}
	})

	stellarBuyerRows(t, f, str(t, fixed, "payerSeed"))
}

func isRefusal(err error, code string) bool {
	r, ok := err.(*rails.Refusal)
	return ok && r.Code == code
}

func decodeEnvelope(t testing.TB, s string) *xdr.TransactionEnvelope {
	t.Helper()
	var e xdr.TransactionEnvelope
	if err := xdr.SafeUnmarshalBase64(s, &e); err != nil {
		t.Fatal(err)
	}
	return &e
}

func encodeEnvelope(t testing.TB, e *xdr.TransactionEnvelope) string {
	t.Helper()
	s, err := xdr.MarshalBase64(e)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// stellarBuyerRows runs a Stellar file's buyer rows: B2 (the plant:
// hash-mismatch, one fetch, no signer call) and B6 (check over the held
// payment).
func stellarBuyerRows(t *testing.T, f *jsonv.Object, seed string) {
	t.Run("B2", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B2")
		in := obj(t, r, "input")
		s := newATRSeller(t)
		s.serveBytes(unhex(t, str(t, in, "servesHex")))
		sg := &countingSigner{inner: stellarKey(t, seed)}
		if sg.Account() != str(t, in, "account") {
			t.Fatalf("signer account %s, row %s", sg.Account(), str(t, in, "account"))
		}
		var now int64
		if in.Has("now") {
			now, _ = jsonv.AsSafeInt(get(t, in, "now"))
		}
		if atr.Sum(unhex(t, str(t, in, "servesHex"))).String() != str(t, r, "servedHash") {
			t.Fatal("servedHash is not the hash of what the link serves")
		}
		_, err := s.gateFor(now, nil).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), sg,
			&gate.TransactOptions{Inputs: obj(t, in, "inputs")})
		wantDecline(t, err, gate.Code(str(t, r, "expect", "decline")), "")
		if sg.calls.Load() != 0 {
			t.Fatal("the signer was called")
		}
		if s.fetches.Load() != 1 {
			t.Fatalf("%d fetches, want 1", s.fetches.Load())
		}
	})
	t.Run("B6", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B6")
		presented := get(t, r, "input", "presented")
		checks := get(t, r, "input", "check").([]jsonv.Value)
		expects := get(t, r, "expect").([]jsonv.Value)
		g := &gate.Gate{}
		h, err := g.Check(unhex(t, str(t, checks[0], "bytesHex")), str(t, r, "pairing"), presented)
		if err != nil || h.String() != str(t, expects[0], "h") {
			t.Fatalf("check = %v, %v", h, err)
		}
		_, err = g.Check(unhex(t, str(t, checks[1], "bytesHex")), str(t, r, "pairing"), presented)
		wantDecline(t, err, gate.Code(str(t, expects[1], "decline")), "")
	})
}
