package vectors_test

// mpp-charge-usdc-evm.json: M3, A1, plant, pattern and the buyer rows B2 and B6.

import (
	"context"
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

func TestMPPChargeUSDCEVM(t *testing.T) {
	f := load(t, "mpp-charge-usdc-evm.json")
	fixed := obj(t, f, "fixed")
	fx := loadMPPFixture(t)
	p := evm.MPPUSDC{}
	m3 := obj(t, f, "M3")
	placed := fx.placed(t, fx.challenge("usdc", "charge", str(t, m3, "requestJson")))
	now, _ := jsonv.AsSafeInt(get(t, fixed, "now"))
	choice := jsonv.Obj("challenge", placed, "from", str(t, fixed, "payer"), "now", now, "tokenDomain", get(t, fixed, "tokenDomain"))
	b6 := row(t, get(t, f, "buyer", "rows"), "B6")

	t.Run("pattern", func(t *testing.T) {
		v := obj(t, f, "pattern")
		pat := p.Pattern()
		if pat.Name != str(t, v, "pattern") || pat.PublicProof != get(t, v, "publicProof") {
			t.Fatalf("pattern %+v", pat)
		}
	})

	t.Run("M3", func(t *testing.T) {
		if str(t, placed, "id") != str(t, fixed, "MV1") {
			t.Fatalf("id %s", str(t, placed, "id"))
		}
		rh, err := mpp.USDCRequestHash(str(t, placed, "request"))
		if err != nil || atr.Hash(rh).String() != str(t, m3, "expectRequestHash") {
			t.Fatalf("request hash %x (%v)", rh, err)
		}
		u, err := p.Build(choice, nil, fx.H)
		if err != nil {
			t.Fatal(err)
		}
		req, err := p.Request(u)
		if err != nil {
			t.Fatal(err)
		}
		td := obj(t, req, "typedData")
		digest, err := evm.TypedDataDigest(td)
		if err != nil || "0x"+hexOf(digest[:]) != str(t, m3, "expectDigest") {
			t.Fatalf("digest %x (%v)", digest, err)
		}
		msg := obj(t, td, "message")
		if str(t, msg, "nonce") != str(t, m3, "expectNonce") || str(t, msg, "validBefore") != str(t, m3, "expectValidBefore") {
			t.Fatalf("message %s", jsonv.String(msg))
		}
		l, err := signer.FromHex(str(t, fixed, "payerKey"), "eip155:84532")
		if err != nil {
			t.Fatal(err)
		}
		sig, err := l.Sign(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		done, err := p.Complete(u, sig, rails.Chosen{})
		if err != nil {
			t.Fatal(err)
		}
		cred := done.Signed.(*jsonv.Object)
		// The credential is the one B6 holds, byte for byte.
		if got, want := jsonv.String(cred), jsonv.String(get(t, b6, "input", "presented")); got != want {
			t.Fatalf("credential\n got %s\nwant %s", got, want)
		}
		if h, err := p.Bound(cred); err != nil || h != fx.H.String() {
			t.Fatalf("bound %s (%v)", h, err)
		}
		other := cred.Clone()
		obj(t, other, "challenge").Set("realm", str(t, fixed, "otherRealm"))
		_, err = p.Bound(other)
		wantRefusal(t, err, str(t, m3, "expectBoundOtherRealm", "code"))

		// A request whose bytes are not their own RFC 8785 form is refused,
		// by the hash, the build and the read-back alike.
		notJCS := mpp.EncodeB64URL([]byte(str(t, m3, "notJcsRequestJson")))
		_, err = mpp.USDCRequestHash(notJCS)
		wantRefusal(t, err, str(t, m3, "expectNotJcs", "code"))
		c := jsonv.Clone(choice).(*jsonv.Object)
		obj(t, c, "challenge").Set("request", notJCS)
		_, err = p.Build(c, nil, fx.H)
		wantRefusal(t, err, str(t, m3, "expectNotJcs", "code"))
		bad := cred.Clone()
		obj(t, bad, "challenge").Set("request", notJCS)
		_, err = p.Bound(bad)
		wantRefusal(t, err, str(t, m3, "expectNotJcs", "code"))
	})

	t.Run("A1", func(t *testing.T) {
		v := obj(t, f, "A1")
		rh, err := mpp.USDCRequestHash(str(t, v, "request"))
		if err != nil || atr.Hash(rh).String() != str(t, v, "expectRequestHash") {
			t.Fatalf("request hash %x (%v)", rh, err)
		}
		id, realm := str(t, v, "id"), str(t, v, "realm")
		nonce := mpp.USDCNonce(id, realm, rh)
		if got := atr.Hash(nonce).String(); got != str(t, v, "expectNonce") {
			t.Fatalf("nonce %s", got)
		}
		// The request hash's spelling is part of the derivation: without
		// its 0x, or in upper case, it is another nonce.
		spelled := func(requestHash string) string {
			o := jsonv.Obj("id", id, "method", "usdc", "realm", realm, "intent", "charge", "requestHash", requestHash)
			return "0x" + hexOf(crypto.Keccak256(jsonv.Canonical(o)))
		}
		lower := atr.Hash(rh).String()
		for name, s := range map[string]string{"withoutPrefix": lower[2:], "upperCase": "0x" + strings.ToUpper(lower[2:])} {
			got := spelled(s)
			if !strings.HasPrefix(got, str(t, v, name, "prefix")) || !strings.HasSuffix(got, str(t, v, name, "suffix")) {
				t.Errorf("%s: %s", name, got)
			}
		}
	})

	t.Run("plant", func(t *testing.T) {
		v := obj(t, f, "plant")
		cred := jsonv.Clone(get(t, b6, "input", "presented")).(*jsonv.Object)
		obj(t, cred, "payload").Set("nonce", str(t, v, "nonce"))
		_, err := p.Bound(cred)
		wantRefusal(t, err, str(t, v, "expect", "code"))
	})

	mppBuyerRows(t, f, str(t, fixed, "payerKey"))
}
