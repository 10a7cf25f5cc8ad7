package vectors_test

// mpp-charge-evm-authorization.json: MV5, pattern and the buyer rows B2 and B6.

import (
	"context"
	"crypto/sha256"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/signer"
)

func TestMPPChargeEVMAuthorization(t *testing.T) {
	f := load(t, "mpp-charge-evm-authorization.json")
	fixed := obj(t, f, "fixed")
	fx := loadMPPFixture(t)
	p := evm.MPPAuthorization{}
	placed := fx.placed(t, fx.challenge("evm", "charge", fx.RE))
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
		t.Run("reference", func(t *testing.T) {
			ref, err := p.Reference(cred)
			if err != nil {
				t.Fatal(err)
			}
			// The read keys name the challenge's currency as written, the
			// AuthorizationUsed log with the signed nonce in topic 2, and the
			// Transfer whose from, to and value hash to the transfer digest.
			request, _ := jsonv.Parse([]byte(fx.RE))
			currency := str(t, request, "currency")
			used, nonce := str(t, v, "expectAuthorizationUsedTopic"), str(t, v, "expectNonce")
			transfer := "0x" + hexOf(crypto.Keccak256([]byte("Transfer(address,address,uint256)")))
			want := jsonv.Obj(
				"network", "eip155:84532",
				"settleBy", str(t, v, "expectValidBefore"),
				"bindingLog", jsonv.Obj("address", currency, "topic0", used, "index", 2, "value", nonce),
				"transferLog", jsonv.Obj("address", currency, "topic0", transfer, "identity", "from,to,value", "digest", str(t, v, "expectTransferDigest")),
				"search", jsonv.Obj("address", currency, "topics", []jsonv.Value{used, nil, nonce}),
			)
			if got := jsonv.String(ref); got != jsonv.String(want) {
				t.Fatalf("reference\n got %s\nwant %s", got, jsonv.String(want))
			}
			d := sha256.Sum256(append(append(common.HexToAddress(str(t, fixed, "payer")).Bytes(),
				common.HexToAddress(str(t, request, "recipient")).Bytes()...), common.LeftPadBytes(mustBig(t, str(t, request, "amount")).Bytes(), 32)...))
			if "0x"+hexOf(d[:]) != str(t, v, "expectTransferDigest") {
				t.Fatal("the transfer digest is not SHA-256(from ‖ to ‖ value)")
			}
		})
	})

	mppBuyerRows(t, f, str(t, fixed, "payerKey"))
}
