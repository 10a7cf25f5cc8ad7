package vectors_test

// x402-auth-capture-eip155-eip3009.json and
// x402-auth-capture-eip155-permit2.json: the escrow's salt binding and
// payment hash (EV3), the authorization built, signed and read back (EV4),
// the escrow's event topics (EV5), the settlement reads (EV6), the
// refusals, and the buyer rows B2 and B6.

import (
	"math/big"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
)

// acPairing is what the auth-capture tests call on either pairing.
type acPairing interface {
	rails.Pairing
	rails.Summarizer
	Reference(jsonv.Value) (*jsonv.Object, error)
	Status(*jsonv.Object, evm.Reader) evm.Status
}

// acEV3 checks the salt commitment and the payment hashes, bound (as the
// fixed option is) and unbound (the option without its receiver
// authorizer).
func acEV3(t *testing.T, x x402Fixed) {
	v := obj(t, x.f, "EV3")
	if v := str(t, v, "escrow"); v != evm.EscrowV11.Escrow {
		t.Fatalf("escrow %s", v)
	}
	h := mustHash(t, x.h)
	extra := obj(t, x.option, "extra")
	r := str(t, extra, "receiverAuthorizer")
	salt := evm.BindSalt(r, "0x0000000000000000000000000000000000000000", h)
	if salt.String() != str(t, v, "expectBindSalt") {
		t.Fatalf("bind salt %s", salt)
	}
	typeHash := keccakHex("PaymentInfo(address operator,address payer,address receiver,address token,uint120 maxAmount,uint48 preApprovalExpiry,uint48 authorizationExpiry,uint48 refundExpiry,uint16 minFeeBps,uint16 maxFeeBps,address feeReceiver,uint256 salt)")
	if typeHash != str(t, v, "expectPaymentInfoTypeHash") || typeHash != evm.PaymentInfoTypeHash {
		t.Fatalf("payment info type hash %s", typeHash)
	}
	info := func(payer string, salt atr.Hash) evm.PaymentInfo {
		amount, _ := new(big.Int).SetString(str(t, x.option, "amount"), 10)
		cd, _ := jsonv.AsSafeInt(get(t, extra, "captureDeadline"))
		rd, _ := jsonv.AsSafeInt(get(t, extra, "refundDeadline"))
		maxFee, _ := jsonv.AsSafeInt(get(t, extra, "maxFeeBps"))
		timeout, _ := jsonv.AsSafeInt(get(t, x.option, "maxTimeoutSeconds"))
		return evm.PaymentInfo{Operator: str(t, extra, "captureAuthorizer"), Payer: payer, Receiver: str(t, x.option, "payTo"),
			Token: str(t, x.option, "asset"), MaxAmount: amount, PreApprovalExpiry: uint64(x.now + timeout),
			AuthorizationExpiry: uint64(cd), RefundExpiry: uint64(rd), MaxFeeBps: uint16(maxFee),
			FeeReceiver: str(t, extra, "feeRecipient"), Salt: salt}
	}
	zero := "0x0000000000000000000000000000000000000000"
	for mode, s := range map[string]atr.Hash{"bound": salt, "unbound": h} {
		nonce, _ := info(zero, s).Hash(84532, evm.EscrowV11.Escrow)
		paid, _ := info(x.payer, s).Hash(84532, evm.EscrowV11.Escrow)
		want := obj(t, v, mode)
		for name, got := range map[string]string{"expectSignatureNonce": nonce.String(), "expectPaymentHash": paid.String()} {
			w := get(t, want, name)
			if ws, ok := w.(string); ok {
				if got != ws {
					t.Fatalf("%s %s %s", mode, name, got)
				}
				continue
			}
			wantPrefixSuffix(t, got, w, mode+" "+name)
		}
	}
	// The unbound mode through the build: an option naming neither a
	// receiver authorizer nor a policy signs the payment hash of salt H.
	o := x.option.Clone()
	obj(t, o, "extra").Delete("receiverAuthorizer")
	doc := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{o})
	p := acPairingOf(x)
	u, err := p.Build(jsonv.Obj("required", doc, "accepted", o, "from", x.payer, "now", x.now), nil, h)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := p.Request(u)
	msg := obj(t, req, "typedData", "message")
	n, _ := msg.GetString("nonce")
	nh, _ := evm.Permit2NonceHash(n)
	wantPrefixSuffix(t, nh.String(), get(t, v, "unbound", "expectSignatureNonce"), "unbound build nonce")
	sig := signTyped(t, x.key, obj(t, req, "typedData"))
	done, err := p.Complete(u, sig, rails.Chosen{Ref: rails.NewRef()})
	if err != nil {
		t.Fatal(err)
	}
	if pl := obj(t, done.Signed, "payload"); pl.Has("saltNonce") || str(t, pl, "salt") != x.h {
		t.Fatalf("unbound payload %s", jsonv.String(pl))
	}
	if got, err := p.Bound(done.Signed); err != nil || got != x.h {
		t.Fatalf("unbound bound %s (%v)", got, err)
	}
}

func acPairingOf(x x402Fixed) acPairing {
	extra, _ := x.option.GetObject("extra")
	if m, _ := extra.GetString("assetTransferMethod"); m == "permit2" {
		return evm.AuthCapturePermit2{}
	}
	return evm.AuthCaptureEIP3009{}
}

// acPayment builds, signs and completes the fixed choice, checked against
// B6's payment byte for byte.
func acPayment(t *testing.T, x x402Fixed, wantDigestHex string) (*jsonv.Object, rails.Request) {
	p := acPairingOf(x)
	u, req := x.requestOf(t, p)
	b6 := obj(t, row(t, get(t, x.f, "buyer", "rows"), "B6"), "input", "presented")
	sig := x.signOf(t, req, wantDigestHex, str(t, b6, "payload", "signature"))
	done, err := p.Complete(u, sig, rails.Chosen{Ref: rails.NewRef()})
	if err != nil {
		t.Fatal(err)
	}
	want := b6.Clone()
	want.Delete("extensions")
	if g, w := jsonv.String(done.Signed), jsonv.String(want); g != w {
		t.Fatalf("payment\n got %s\nwant %s", g, w)
	}
	g, err := p.Summarize(req)
	if err != nil || g.Amount.String() != str(t, x.option, "amount") || g.Payee != str(t, x.option, "payTo") ||
		g.Asset != str(t, x.option, "asset") {
		t.Fatalf("summary %+v (%v)", g, err)
	}
	return done.Signed.(*jsonv.Object), req
}

func TestX402AuthCaptureEIP155EIP3009(t *testing.T) {
	x := loadX402Fixed(t, "x402-auth-capture-eip155-eip3009.json")
	p := evm.AuthCaptureEIP3009{}
	b6 := func() *jsonv.Object {
		return obj(t, row(t, get(t, x.f, "buyer", "rows"), "B6"), "input", "presented").Clone()
	}
	t.Run("EV3", func(t *testing.T) { acEV3(t, x) })
	t.Run("EV4", func(t *testing.T) {
		v := obj(t, x.f, "EV4")
		payment, req := acPayment(t, x, str(t, v, "expectDigest"))
		if got := str(t, req, "typedData", "message", "to"); got != str(t, v, "expectTo") {
			t.Fatalf("to %s", got)
		}
		wantPrefixSuffix(t, keccakHex("ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"),
			get(t, v, "expectTypeHash"), "type hash")
		if str(t, payment, "payload", "signature") != str(t, v, "expectSignature") {
			t.Fatal("signature")
		}
		if h, err := p.Bound(payment); err != nil || h != str(t, v, "expectBound") {
			t.Fatalf("bound %s (%v)", h, err)
		}
		ref, err := p.Reference(payment)
		if err != nil || str(t, ref, "transferLog", "digest") != str(t, v, "expectTransferDigest") {
			t.Fatalf("reference %s (%v)", jsonv.String(ref), err)
		}
	})
	t.Run("EV5", func(t *testing.T) {
		v := obj(t, x.f, "EV5")
		for name, want := range map[string]string{
			"paymentAuthorized": evm.TopicPaymentAuthorized, "paymentChargedV11": evm.EscrowV11.ChargedTopic,
			"paymentChargedV10": evm.EscrowV10.ChargedTopic,
		} {
			if got := keccakHex(str(t, v, "signatures", name)); got != str(t, v, name) || got != want {
				t.Fatalf("%s topic %s", name, got)
			}
		}
	})
	t.Run("EV6", func(t *testing.T) {
		v := obj(t, x.f, "EV6")
		c := obj(t, v, "authorizedAndTransfer")
		receipt := jsonv.Obj("status", 1, "blockNumber", "100", "logs", get(t, c, "logs"))
		ref, err := p.Reference(b6())
		if err != nil {
			t.Fatal(err)
		}
		ref.Set("transaction", str(t, v, "transaction"))
		wantStatus(t, p.Status(ref, permit2Reader(t, v, receipt)), get(t, c, "expect"), "authorizedAndTransfer")
		// The authorization flow charges at once: its reference names
		// PaymentCharged, which a PaymentAuthorized does not stand for.
		af := obj(t, v, "authorizationFlowOnlyAuthorized")
		pay := b6()
		obj(t, pay, "accepted", "extra").Set("paymentFlow", str(t, af, "paymentFlow"))
		ref, err = p.Reference(pay)
		if err != nil {
			t.Fatal(err)
		}
		ref.Set("transaction", str(t, v, "transaction"))
		wantStatus(t, p.Status(ref, permit2Reader(t, v, receipt)), get(t, af, "expect"), "authorizationFlowOnlyAuthorized")
	})
	t.Run("plantNonceNotPayment", func(t *testing.T) {
		// The unbound signature nonce (salt H) under a payload that binds:
		// the nonce is not the hash of the salt the payload names.
		pay := b6()
		o := x.option.Clone()
		obj(t, o, "extra").Delete("receiverAuthorizer")
		doc := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{o})
		u, err := p.Build(jsonv.Obj("required", doc, "accepted", o, "from", x.payer, "now", x.now), nil, mustHash(t, x.h))
		if err != nil {
			t.Fatal(err)
		}
		req, _ := p.Request(u)
		unboundNonce := str(t, req, "typedData", "message", "nonce")
		obj(t, pay, "payload", "authorization").Set("nonce", unboundNonce)
		_, err = p.Bound(pay)
		wantRefusal(t, err, str(t, x.f, "plantNonceNotPayment", "expect", "code"))
	})
	t.Run("saltNotBound", func(t *testing.T) {
		pay := b6()
		obj(t, pay, "payload").Set("salt", x.h)
		_, err := p.Bound(pay)
		wantRefusal(t, err, str(t, x.f, "saltNotBound", "expect", "code"))
	})
	t.Run("escrowNotCanonical", func(t *testing.T) {
		v := obj(t, x.f, "escrowNotCanonical")
		acOptionRefused(t, x, p, b6(), "authCaptureEscrow", get(t, v, "authCaptureEscrow"), str(t, v, "expect", "code"))
	})
	t.Run("autoCapture", func(t *testing.T) {
		acOptionRefused(t, x, p, b6(), "autoCapture", true, str(t, x.f, "autoCapture", "expect", "code"))
	})
	t.Run("saltMalformed", func(t *testing.T) {
		v := obj(t, x.f, "saltMalformed")
		for _, k := range []string{"salt", "saltNonce"} {
			pay := b6()
			obj(t, pay, "payload").Set(k, str(t, v, "salt"))
			_, err := p.Bound(pay)
			wantRefusal(t, err, str(t, v, "expect", "code"))
		}
	})
	mppBuyerRows(t, x.f, x.key)
}

// acOptionRefused: an option with extra[k] = value is refused code at the
// build and at the read-back.
func acOptionRefused(t *testing.T, x x402Fixed, p rails.Pairing, presented *jsonv.Object, k string, value jsonv.Value, code string) {
	t.Helper()
	o := x.option.Clone()
	obj(t, o, "extra").Set(k, value)
	doc := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{o})
	_, err := p.Build(jsonv.Obj("required", doc, "accepted", o, "from", x.payer, "now", x.now), nil, mustHash(t, x.h))
	wantRefusal(t, err, code)
	obj(t, presented, "accepted", "extra").Set(k, value)
	_, err = p.Bound(presented)
	wantRefusal(t, err, code)
	if _, err := p.Read(doc); err == nil {
		t.Fatal("read served the option")
	}
}

func TestX402AuthCaptureEIP155Permit2(t *testing.T) {
	x := loadX402Fixed(t, "x402-auth-capture-eip155-permit2.json")
	p := evm.AuthCapturePermit2{}
	t.Run("EV3", func(t *testing.T) { acEV3(t, x) })
	t.Run("EV4", func(t *testing.T) {
		v := obj(t, x.f, "EV4")
		payment, req := acPayment(t, x, str(t, v, "expectDigest"))
		if got := str(t, req, "typedData", "message", "spender"); got != str(t, v, "expectSpender") {
			t.Fatalf("spender %s", got)
		}
		if str(t, req, "typedData", "primaryType") != "PermitTransferFrom" || obj(t, req, "typedData", "message").Has("witness") {
			t.Fatal("not a PermitTransferFrom without witness")
		}
		if h, err := p.Bound(payment); err != nil || h != str(t, v, "expectBound") {
			t.Fatalf("bound %s (%v)", h, err)
		}
		ref, err := p.Reference(payment)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := jsonv.String(get(t, ref, "search")), jsonv.String(get(t, v, "expectSearch")); !strings.EqualFold(g, w) {
			t.Fatalf("search %s, want %s", g, w)
		}
	})
	mppBuyerRows(t, x.f, x.key)
}
