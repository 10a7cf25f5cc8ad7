package vectors_test

// mpp-charge-usdc-gateway.json: M5 (with its salt variants and refusals),
// pattern and the buyer rows B2 and B6.

import (
	"context"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/signer"
)

func TestMPPChargeUSDCGateway(t *testing.T) {
	f := load(t, "mpp-charge-usdc-gateway.json")
	fixed := obj(t, f, "fixed")
	fx := loadMPPFixture(t)
	p := evm.MPPGateway{}
	m5 := obj(t, f, "M5")
	b6 := row(t, get(t, f, "buyer", "rows"), "B6")
	presented := obj(t, b6, "input", "presented")

	t.Run("pattern", func(t *testing.T) {
		v := obj(t, f, "pattern")
		pat := p.Pattern()
		if pat.Name != str(t, v, "pattern") || pat.PublicProof != get(t, v, "publicProof") {
			t.Fatalf("pattern %+v", pat)
		}
	})

	t.Run("M5", func(t *testing.T) {
		placed := fx.placed(t, fx.challenge("usdc", "charge", str(t, m5, "requestJson")))
		rh, err := mpp.USDCRequestHash(str(t, placed, "request"))
		if err != nil || atr.Hash(rh).String() != str(t, m5, "expectRequestHash") {
			t.Fatalf("request hash %x (%v)", rh, err)
		}
		in := obj(t, m5, "saltInput")
		salt := func(realm, sourceSigner string) string {
			return atr.Hash(mpp.USDCGatewaySalt(mpp.GatewaySaltInput{
				ID: str(t, fixed, "MV1"), Realm: realm, RequestHash: rh,
				SourceNetwork: str(t, in, "sourceNetwork"), DestinationNetwork: str(t, in, "destinationNetwork"),
				SourceDepositor: str(t, in, "sourceDepositor"), SourceSigner: sourceSigner, Recipient: str(t, in, "recipient"),
				DestinationRecipient: str(t, in, "destinationRecipient"), Amount: str(t, in, "amount"), MaxFee: str(t, in, "maxFee"),
			})).String()
		}
		if got := salt(str(t, fixed, "realm"), str(t, in, "sourceSigner")); got != str(t, m5, "expectSalt") {
			t.Fatalf("salt %s", got)
		}
		wantAffixes(t, salt(str(t, fixed, "otherRealm"), str(t, in, "sourceSigner")), get(t, m5, "otherRealmSalt"), "salt in the other realm")
		wantAffixes(t, salt(str(t, fixed, "realm"), str(t, m5, "bareSignerSalt", "sourceSigner")), get(t, m5, "bareSignerSalt"), "salt over a bare signer")

		// The buyer's build from the placed challenge: the burn intent's
		// typed data, the payer key's signature, the credential B6 holds.
		read, err := p.Read([]jsonv.Value{placed})
		if err != nil {
			t.Fatal(err)
		}
		account := str(t, m5, "source")
		choice, err := p.Choose(read, account, jsonv.Obj("maxBlockHeight", str(t, m5, "payload", "authorization", "transfer", "burnIntent", "maxBlockHeight")), 1790000000, "")
		if err != nil {
			t.Fatal(err)
		}
		u, err := p.Build(choice, nil, fx.H)
		if err != nil {
			t.Fatal(err)
		}
		req, err := p.Request(u)
		if err != nil {
			t.Fatal(err)
		}
		parts, err := evm.TypedDataHashes(obj(t, req, "typedData"))
		if err != nil {
			t.Fatal(err)
		}
		if got := "0x" + hexOf(parts.DomainSeparator[:]); got != str(t, m5, "expectDomainSeparator") {
			t.Fatalf("domain separator %s", got)
		}
		wantAffixes(t, "0x"+hexOf(parts.Digest[:]), get(t, m5, "expectDigest"), "digest")
		l, err := signer.FromHex(str(t, fixed, "payerKey"), "eip155:5042002")
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
		if got, want := jsonv.String(cred), jsonv.String(presented); got != want {
			t.Fatalf("credential\n got %s\nwant %s", got, want)
		}
		wantPayload := jsonv.Clone(get(t, m5, "payload")).(*jsonv.Object)
		obj(t, wantPayload, "authorization", "transfer").Set("signature", sig)
		if jsonv.String(get(t, cred, "payload")) != jsonv.String(wantPayload) || str(t, cred, "source") != str(t, m5, "source") {
			t.Fatalf("payload %s", jsonv.String(get(t, cred, "payload")))
		}
		if h, err := p.Bound(cred); err != nil || h != str(t, m5, "expectBound") {
			t.Fatalf("bound %s (%v)", h, err)
		}
		g, err := p.Summarize(req)
		if err != nil || g.Amount.String() != "25500000" || g.Network != "eip155:5042002" || g.Payee != "0x209693Bc6afc0C5328bA36FaF03C514EF312287C" {
			t.Fatalf("grant %+v (%v)", g, err)
		}

		other := cred.Clone()
		obj(t, other, "challenge").Set("realm", str(t, fixed, "otherRealm"))
		_, err = p.Bound(other)
		wantRefusal(t, err, str(t, m5, "expectSaltRefusal", "code"))
		set := cred.Clone()
		obj(t, set, "payload", "authorization", "transfer").Set("burnIntentSet", []jsonv.Value{})
		_, err = p.Bound(set)
		wantRefusal(t, err, str(t, m5, "expectSetRefusal", "code"))
	})

	mppBuyerRows(t, f, str(t, fixed, "payerKey"))
}
