package vectors_test

// mpp-charge-evm-authorization.json: MV5 and the buyer rows B2 and B6.

import (
	"context"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/internal/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/signer"
)

// settlementSkip is why the rows' settlement references are not run: they
// are what a seller or verifier records to read the chain later, and the
// buyer gate reads no chain state (as x402-exact's V6).
const settlementSkip = "the settlement reference and status are the seller's or a verifier's step; termsgate's buyer gate reads no chain state (no issue covers it yet)"

func TestMPPChargeEVMAuthorization(t *testing.T) {
	f := load(t, "mpp-charge-evm-authorization.json")
	fixed := obj(t, f, "fixed")
	fx := loadMPPFixture(t)
	p := evm.MPPAuthorization{}
	placed := fx.placed(t, fx.challenge("evm", "charge", fx.RE))
	now, _ := jsonv.AsSafeInt(get(t, fixed, "now"))
	choice := jsonv.Obj("challenge", placed, "from", str(t, fixed, "payer"), "now", now, "tokenDomain", get(t, fixed, "tokenDomain"))
	b6 := row(t, get(t, f, "buyer", "rows"), "B6")

	t.Run("MV5", func(t *testing.T) {
		v := obj(t, f, "MV5")
		u, err := p.Build(choice, nil, fx.H)
		if err != nil {
			t.Fatal(err)
		}
		req, err := p.Request(u)
		if err != nil {
			t.Fatal(err)
		}
		td := obj(t, req, "typedData")
		parts, err := evm.TypedDataHashes(td)
		if err != nil {
			t.Fatal(err)
		}
		if got := "0x" + hexOf(parts.Digest[:]); got != str(t, v, "expectDigest") {
			t.Fatalf("digest %s", got)
		}
		sep := "0x" + hexOf(parts.DomainSeparator[:])
		if !strings.HasPrefix(sep, str(t, v, "expectDomainSeparator", "prefix")) || !strings.HasSuffix(sep, str(t, v, "expectDomainSeparator", "suffix")) {
			t.Fatalf("domain separator %s", sep)
		}
		msg := obj(t, td, "message")
		if str(t, msg, "nonce") != str(t, v, "expectNonce") || str(t, msg, "validBefore") != str(t, v, "expectValidBefore") {
			t.Fatalf("message %s", jsonv.String(msg))
		}
		l, err := signer.FromHex(str(t, fixed, "payerKey"), "eip155:84532")
		if err != nil {
			t.Fatal(err)
		}
		sig, err := l.Sign(context.Background(), req)
		if err != nil || sig != str(t, v, "expectSignature") {
			t.Fatalf("signature %v (%v)", sig, err)
		}
		done, err := p.Complete(u, sig, rails.Chosen{})
		if err != nil {
			t.Fatal(err)
		}
		cred := done.Signed.(*jsonv.Object)
		if str(t, cred, "source") != str(t, v, "expectSource") {
			t.Fatalf("source %s", str(t, cred, "source"))
		}
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
		wantRefusal(t, err, str(t, v, "expectBoundOtherRealm", "code"))
		topic := crypto.Keccak256([]byte("AuthorizationUsed(address,bytes32)"))
		if got := "0x" + hexOf(topic); got != str(t, v, "expectAuthorizationUsedTopic") {
			t.Fatalf("topic %s", got)
		}
		// The authorization's header form: Authorization: Payment <base64url>.
		name, value := mpp.Header(cred)
		back, err := mpp.ParseHeader(value)
		if name != "Authorization" || err != nil || jsonv.String(back) != jsonv.String(cred) {
			t.Fatalf("header %s %q (%v)", name, value, err)
		}
		t.Run("reference", func(t *testing.T) { t.Skip(settlementSkip) })
	})

	mppBuyerRows(t, f, str(t, fixed, "payerKey"))
}
