package vectors_test

// mpp-session-evm.json: ES1–ES8, plant3, pattern and the buyer rows B2 and
// B6.

import (
	"bytes"
	"context"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/signer"
)

func TestMPPSessionEVM(t *testing.T) {
	f := load(t, "mpp-session-evm.json")
	fixed := obj(t, f, "fixed")
	fx := loadMPPFixture(t)
	p := evm.MPPSession{}
	payer, usdc, recipient, escrow := str(t, fixed, "payer"), str(t, fixed, "usdc"), str(t, fixed, "recipient"), str(t, fixed, "escrow")
	chain, _ := jsonv.AsSafeInt(get(t, fixed, "chainId"))
	h, h2 := mustHash(t, str(t, fixed, "H")), mustHash(t, str(t, fixed, "H2"))
	if atr.Sum([]byte(str(t, fixed, "H2Preimage"))) != h2 {
		t.Fatal("H2 is not SHA-256 of its preimage")
	}
	now, _ := jsonv.AsSafeInt(get(t, fixed, "now"))
	placed := fx.placed(t, fx.challenge("evm", "session", str(t, fixed, "request")))
	l, err := signer.FromHex(str(t, fixed, "payerKey"), "eip155:84532")
	if err != nil {
		t.Fatal(err)
	}
	choice := func(credentialType string) *jsonv.Object {
		return jsonv.Obj("challenge", placed, "from", payer, "now", now, "deposit", str(t, fixed, "deposit"),
			"credentialType", credentialType, "tokenDomain", get(t, fixed, "tokenDomain"))
	}
	build := func(t *testing.T, credentialType string) (rails.Unsigned, rails.Request) {
		t.Helper()
		u, err := p.Build(choice(credentialType), nil, fx.H)
		if err != nil {
			t.Fatal(err)
		}
		req, err := p.Request(u)
		if err != nil {
			t.Fatal(err)
		}
		return u, req
	}
	digestOf := func(t *testing.T, req rails.Request) [32]byte {
		t.Helper()
		d, err := evm.TypedDataDigest(obj(t, req, "typedData"))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	b6 := row(t, get(t, f, "buyer", "rows"), "B6")
	presented := obj(t, b6, "input", "presented")

	t.Run("pattern", func(t *testing.T) {
		v := obj(t, f, "pattern")
		pat := p.Pattern()
		if pat.Name != str(t, v, "pattern") || pat.PublicProof != get(t, v, "publicProof") {
			t.Fatalf("pattern %+v", pat)
		}
	})

	t.Run("ES1", func(t *testing.T) {
		v := obj(t, f, "ES1")
		id := evm.SessionChannelID(payer, recipient, usdc, h, zero, escrow, chain)
		if id.String() != str(t, v, "expectChannelId") {
			t.Fatalf("channel %s", id)
		}
		wantAffixes(t, evm.SessionChannelID(payer, recipient, usdc, h2, zero, escrow, chain).String(), get(t, v, "expectChannelIdH2"), "channel over H2")
	})

	t.Run("ES2", func(t *testing.T) {
		v := obj(t, f, "ES2")
		_, req := build(t, "hash")
		if !p.Moves(req) {
			t.Fatal("a hash opening is the payer's to send")
		}
		calls := get(t, req, "calls").([]jsonv.Value)
		open := unhex(t, strings.TrimPrefix(str(t, calls[1], "data"), "0x"))
		n, _ := jsonv.AsSafeInt(get(t, v, "expectOpenLength"))
		if int64(len(open)) != n || "0x"+hexOf(open[:4]) != str(t, v, "expectOpenSelector") {
			t.Fatalf("open call %x", open)
		}
		if got := "0x" + new(big.Int).SetBytes(open[68:100]).Text(16); got != str(t, v, "expectDeposit") {
			t.Fatalf("deposit word %s", got)
		}
		occ, _ := jsonv.AsSafeInt(get(t, v, "expectHOccurrences"))
		if c := bytes.Count(open, fx.H[:]); int64(c) != occ {
			t.Fatalf("H occurs %d times", c)
		}
		if str(t, calls[1], "to") != escrow || str(t, calls[0], "to") != usdc {
			t.Fatalf("calls %s", jsonv.String(calls))
		}
	})

	t.Run("ES3", func(t *testing.T) {
		if got := evm.SessionOpenNonce(payer, recipient, usdc, h, zero).String(); got != str(t, f, "ES3", "expectNonce") {
			t.Fatalf("nonce %s", got)
		}
	})

	t.Run("ES4", func(t *testing.T) {
		v := obj(t, f, "ES4")
		wantAffixes(t, "0x"+hexOf(crypto.Keccak256([]byte(str(t, v, "typeSignature")))), get(t, v, "expectTypeHash"), "type hash")
		_, req := build(t, "authorization")
		if str(t, req, "typedData", "primaryType") != "ReceiveWithAuthorization" {
			t.Fatalf("primary type %s", str(t, req, "typedData", "primaryType"))
		}
		if d := digestOf(t, req); "0x"+hexOf(d[:]) != str(t, v, "expectDigest") {
			t.Fatalf("digest %x", d)
		}
		sig, err := l.Sign(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		wantAffixes(t, sig.(string), get(t, v, "expectSignature"), "signature")
	})

	t.Run("ES5", func(t *testing.T) {
		u, req := build(t, "authorization")
		sig, _ := l.Sign(context.Background(), req)
		next, err := p.Complete(u, sig, rails.Chosen{})
		if err != nil || next.Next == nil {
			t.Fatalf("no voucher request (%v)", err)
		}
		if d := digestOf(t, next.Next); "0x"+hexOf(d[:]) != str(t, f, "ES5", "expectVoucherDigest") {
			t.Fatalf("voucher digest %x", d)
		}
		voucherSig, err := l.Sign(context.Background(), next.Next)
		if err != nil {
			t.Fatal(err)
		}
		done, err := p.Complete(u, []jsonv.Value{sig, voucherSig}, rails.Chosen{})
		if err != nil {
			t.Fatal(err)
		}
		// The opening is the one B6 holds, byte for byte.
		if got, want := jsonv.String(done.Signed), jsonv.String(presented); got != want {
			t.Fatalf("credential\n got %s\nwant %s", got, want)
		}
	})

	t.Run("ES6", func(t *testing.T) {
		v := obj(t, f, "ES6")
		wantAffixes(t, "0x"+hexOf(crypto.Keccak256([]byte(str(t, v, "typeSignature")))), get(t, v, "expectTypeHash"), "type hash")
		u, req := build(t, "permit2")
		if got := str(t, req, "typedData", "message", "nonce"); got != str(t, v, "expectNonce") {
			t.Fatalf("nonce %s", got)
		}
		if d := digestOf(t, req); "0x"+hexOf(d[:]) != str(t, v, "expectDigest") {
			t.Fatalf("digest %x", d)
		}
		// Signed, completed and read back.
		sig, _ := l.Sign(context.Background(), req)
		next, _ := p.Complete(u, sig, rails.Chosen{})
		voucherSig, _ := l.Sign(context.Background(), next.Next)
		done, err := p.Complete(u, []jsonv.Value{sig, voucherSig}, rails.Chosen{})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := p.Bound(done.Signed); err != nil || got != fx.H.String() {
			t.Fatalf("bound %s (%v)", got, err)
		}
	})

	t.Run("ES7", func(t *testing.T) {
		v := obj(t, f, "ES7")
		ref, err := p.Reference(presented)
		if err != nil {
			t.Fatal(err)
		}
		if got := str(t, ref, "transferLog", "digest"); got != str(t, v, "expectIdentity") {
			t.Fatalf("identity %s", got)
		}
		hashOpening := hashOpeningOf(t, p, presented)
		ref, err = p.Reference(hashOpening)
		if err != nil {
			t.Fatal(err)
		}
		if got := str(t, ref, "transferLog", "digest"); got != str(t, v, "expectFromTo") {
			t.Fatalf("from,to %s", got)
		}
	})

	t.Run("ES8", func(t *testing.T) {
		v := obj(t, f, "ES8")
		salted := jsonv.Clone(presented).(*jsonv.Object)
		obj(t, salted, "payload").Set("salt", h2.String())
		_, err := p.Bound(salted)
		wantRefusal(t, err, str(t, v, "expectSaltH2", "code"))
		other := jsonv.Clone(presented).(*jsonv.Object)
		obj(t, other, "payload").Set("channelId", evm.SessionChannelID(payer, recipient, usdc, h2, zero, escrow, chain).String())
		_, err = p.Bound(other)
		wantRefusal(t, err, str(t, v, "expectChannelH2", "code"))
		noSource := hashOpeningOf(t, p, presented)
		noSource.Delete("source")
		_, err = p.Bound(noSource)
		wantRefusal(t, err, str(t, v, "expectNoSource", "code"))
		if k, err := p.ChannelKind(presented); err != nil || string(k) != str(t, v, "expectDepositKind") {
			t.Fatalf("kind %s (%v)", k, err)
		}
		voucher := jsonv.Obj("challenge", obj(t, presented, "challenge"), "payload", jsonv.Obj("action", "voucher",
			"channelId", str(t, presented, "payload", "channelId"), "cumulativeAmount", "100", "signature", "0x"+strings.Repeat("11", 65)))
		if k, err := p.ChannelKind(voucher); err != nil || string(k) != str(t, v, "expectVoucherKind") {
			t.Fatalf("voucher kind %s (%v)", k, err)
		}
		_, err = p.BoundWithin(voucher)
		wantRefusal(t, err, str(t, v, "expectBoundWithin", "code"))
		named := strings.Replace(str(t, fixed, "request"), `"escrowContract"`, `"channelId":"`+str(t, presented, "payload", "channelId")+`","escrowContract"`, 1)
		_, err = mpp.PairingsOf(fx.challenge("evm", "session", named))
		wantRefusal(t, err, str(t, v, "expectChannelNamed", "code"))
		// A voucher on the held channel, built from the opening.
		in, err := p.BuildWithin(rails.Within{Challenge: placed, Opening: presented, Cumulative: big.NewInt(250), Action: rails.WithinVoucher}, fx.H)
		if err != nil {
			t.Fatal(err)
		}
		batch := jsonv.Obj("kind", rails.KindBatch, "requests", []jsonv.Value{in.Requests()[0]})
		g, err := p.SummarizeWithin(batch, presented)
		if err != nil || g.Amount.String() != "250" || g.Payee != recipient || g.Asset != usdc {
			t.Fatalf("within grant %+v (%v)", g, err)
		}
		if _, err := p.BuildWithin(rails.Within{Challenge: placed, Opening: presented, Cumulative: big.NewInt(1), Action: rails.WithinVoucher}, h2); err == nil {
			t.Fatal("a voucher was built for another hash")
		}
	})

	t.Run("plant3", func(t *testing.T) {
		v := obj(t, f, "plant3")
		nonce := evm.SessionOpenNonce(payer, recipient, usdc, h2, zero)
		wantAffixes(t, nonce.String(), get(t, v, "expectNonceH2"), "nonce over H2")
		planted := jsonv.Clone(presented).(*jsonv.Object)
		obj(t, planted, "payload", "authorization").Set("nonce", nonce.String())
		_, err := p.Bound(planted)
		wantRefusal(t, err, str(t, v, "expect", "code"))
	})

	mppBuyerRows(t, f, str(t, fixed, "payerKey"))
}

const zero = "0x0000000000000000000000000000000000000000"

// hashOpeningOf is presented as a hash opening: the payload's type hash
// and the sent transaction's hash instead of the authorization.
func hashOpeningOf(t testing.TB, p evm.MPPSession, presented *jsonv.Object) *jsonv.Object {
	t.Helper()
	c := jsonv.Clone(presented).(*jsonv.Object)
	pl := obj(t, c, "payload")
	pl.Set("type", "hash")
	pl.Delete("authorization")
	pl.Delete("voucherSignature")
	pl.Set("hash", "0x"+strings.Repeat("ab", 32))
	if _, err := p.Bound(c); err != nil {
		t.Fatalf("the hash opening does not read: %v", err)
	}
	return c
}
