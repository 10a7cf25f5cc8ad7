package vectors_test

// mpp-subscription-tempo.json: SUB1–SUB3, L2, plant2, pattern and the buyer
// rows B2 and B6.

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
	"github.com/termsgate/termsgate/rails/tempo"
	"github.com/termsgate/termsgate/signer"
)

func TestMPPSubscriptionTempo(t *testing.T) {
	f := load(t, "mpp-subscription-tempo.json")
	fixed := obj(t, f, "fixed")
	fx := loadMPPFixture(t)
	p := tempo.Subscription{}
	payer := str(t, fixed, "payer")
	now, _ := jsonv.AsSafeInt(get(t, fixed, "now"))
	key := str(t, fixed, "payerKey")
	b6 := row(t, get(t, f, "buyer", "rows"), "B6")
	presented := obj(t, b6, "input", "presented")
	placed := fx.placed(t, fx.challenge("tempo", "subscription", str(t, fixed, "request")))
	choice := jsonv.Obj("challenge", placed, "from", payer, "now", now)
	local, err := signer.FromHex(key, "eip155:42431")
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.Build(choice, nil, fx.H)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := p.Request(u)

	t.Run("SUB1", func(t *testing.T) {
		v := obj(t, f, "SUB1")
		if got, want := jsonv.String(get(t, req, "authorization")), jsonv.String(get(t, v, "authorization")); got != want {
			t.Fatalf("authorization\n got %s\nwant %s", got, want)
		}
		if str(t, req, "digest") != str(t, v, "expectDigest") {
			t.Fatalf("digest %s", str(t, req, "digest"))
		}
		auth, err := tempo.KeyAuthorizationFromJSON(obj(t, req, "authorization"))
		if err != nil {
			t.Fatal(err)
		}
		unsigned, _ := auth.Encode()
		n, _ := jsonv.AsSafeInt(get(t, v, "expectUnsignedLength"))
		if int64(len(unsigned)) != n || "0x"+hexOf(crypto.Keccak256(unsigned)) != str(t, v, "expectDigest") {
			t.Fatalf("unsigned %d bytes", len(unsigned))
		}
		sig, err := local.Sign(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		done, err := p.Complete(u, sig, rails.Chosen{})
		if err != nil {
			t.Fatal(err)
		}
		signed, _ := mpp.HexBytes(str(t, done.Signed, "payload", "signature"), 0, 8192)
		n, _ = jsonv.AsSafeInt(get(t, v, "expectSignedLength"))
		if int64(len(signed)) != n {
			t.Fatalf("signed %d bytes", len(signed))
		}
		if got, want := jsonv.String(done.Signed), jsonv.String(presented); got != want {
			t.Fatalf("credential\n got %s\nwant %s", got, want)
		}
		// A digest that is not the authorization's is refused by the signer.
		forged := req.Clone()
		forged.Set("digest", "0x"+hexOf(make([]byte, 32)))
		if _, err := local.Sign(context.Background(), forged); err == nil {
			t.Fatal("signed a digest it cannot account for")
		}
	})

	t.Run("SUB2", func(t *testing.T) {
		k, err := tempo.DecodeKeyAuthorization(str(t, presented, "payload", "signature"))
		if err != nil || "0x"+hexOf(k.Digest[:]) != str(t, f, "SUB2", "expectRefChannel") {
			t.Fatalf("digest %x (%v)", k.Digest, err)
		}
	})

	// The keychain and its events, as mpp-session-tempo.json's constants
	// name them.
	constants := obj(t, load(t, "mpp-session-tempo.json"), "constants")
	keychain := str(t, constants, "expectAccountKeychain")
	witnessTopic := "0x" + hexOf(crypto.Keccak256([]byte(str(t, constants, "KEY_AUTHORIZATION_WITNESS"))))
	transferTopic := "0x" + hexOf(crypto.Keccak256([]byte("Transfer(address,address,uint256)")))

	t.Run("SUB3", func(t *testing.T) {
		ref, err := p.Reference(presented)
		if err != nil {
			t.Fatal(err)
		}
		request, _ := jsonv.Parse([]byte(str(t, fixed, "request")))
		currency, recipient := str(t, request, "currency"), str(t, request, "recipient")
		to := sha256.Sum256(common.HexToAddress(recipient).Bytes())
		h := fx.H.String()
		want := jsonv.Obj(
			"network", "eip155:42431",
			"bindingLog", jsonv.Obj("address", keychain, "topic0", witnessTopic, "index", 2, "value", h),
			"transferLog", jsonv.Obj("address", currency, "topic0", transferTopic, "identity", "to,value", "digest", str(t, f, "SUB3", "expectTransferDigest")),
			"search", jsonv.Obj("address", keychain, "topics", []jsonv.Value{witnessTopic, nil, h}),
			"accessKey", jsonv.Obj("keyId", strings.ToLower(str(t, fixed, "accessKey")), "token", currency, "to", "0x"+hexOf(to[:])),
		)
		if got := jsonv.String(ref); got != jsonv.String(want) {
			t.Fatalf("reference\n got %s\nwant %s", got, jsonv.String(want))
		}
		// The subscription ends when the keychain revokes its access key.
		closed, err := p.CloseRef(fx.challenge("tempo", "subscription", str(t, fixed, "request")), str(t, f, "SUB2", "expectRefChannel"))
		if err != nil {
			t.Fatal(err)
		}
		revoked := "0x" + hexOf(crypto.Keccak256([]byte(str(t, constants, "KEY_REVOKED"))))
		wantClose := jsonv.Obj("network", "eip155:42431",
			"bindingLog", jsonv.Obj("address", keychain, "topic0", revoked, "index", 2, "value", topicOf(str(t, fixed, "accessKey"))))
		if got := jsonv.String(closed); got != jsonv.String(wantClose) {
			t.Fatalf("close ref\n got %s\nwant %s", got, jsonv.String(wantClose))
		}
	})

	t.Run("L2", func(t *testing.T) {
		v := obj(t, f, "L2")
		wire, _ := mpp.HexBytes(str(t, v, "raw"), 0, tempo.MaxWireBytes)
		n, _ := jsonv.AsSafeInt(get(t, v, "expectLength"))
		sum := sha256.Sum256(wire)
		if int64(len(wire)) != n {
			t.Fatalf("length %d", len(wire))
		}
		wantAffixes(t, "0x"+hexOf(sum[:]), get(t, v, "expectSha256"), "sha256")
		tx, err := tempo.DecodeTx(wire)
		if err != nil || len(tx.Items) != 15 {
			t.Fatalf("decode: %v", err)
		}
		k, err := tempo.DecodeKeyAuthorization("0x" + hexOf(tx.Items[13].Raw))
		if err != nil {
			t.Fatal(err)
		}
		wantAffixes(t, "0x"+hexOf(k.Witness), get(t, v, "expectWitness"), "witness")
		wantAffixes(t, "0x"+hexOf(k.Digest[:]), get(t, v, "expectDigest"), "digest")
		witnessLog := get(t, v, "receipt", "logs").([]jsonv.Value)[0]
		if topic := get(t, witnessLog, "topics").([]jsonv.Value)[2]; topic != "0x"+hexOf(k.Witness) {
			t.Fatalf("KeyAuthorizationWitness names %v", topic)
		}
		t.Run("settlement", func(t *testing.T) {
			receipt := obj(t, v, "receipt")
			block := blockOf(t, str(t, receipt, "blockNumber"))
			reader := &fixtureReader{network: "eip155:42431", receipt: receipt, finalized: block, safe: block}
			// The transaction the receipt was read for (the file's about).
			tx := "0x6c1cdc57bf5a4a98961b7897cac3212636eea551540ab3b32038c45f9d3d8d1c"
			witness, err := p.Recover(jsonv.Obj("network", "eip155:42431", "transaction", tx), reader)
			if err != nil || witness != "0x"+hexOf(k.Witness) {
				t.Fatalf("recovered %s (%v)", witness, err)
			}
			digest, err := evm.TransferDigest(evm.TransferFields{To: str(t, v, "transferTo"), Value: mustBig(t, str(t, v, "transferValue"))})
			if err != nil || "0x"+hexOf(digest[:]) != str(t, v, "expectTransferDigest") {
				t.Fatalf("transfer digest %x (%v)", digest, err)
			}
			ref := jsonv.Obj("network", "eip155:42431", "transaction", tx,
				"bindingLog", jsonv.Obj("address", keychain, "topic0", witnessTopic, "index", 2, "value", witness),
				"transferLog", jsonv.Obj("address", str(t, fixed, "pathUSD"), "topic0", transferTopic, "identity", "to,value", "digest", "0x"+hexOf(digest[:])))
			s := p.Status(ref, reader)
			// The row pins the state and the finality; the block is the receipt's.
			want := obj(t, v, "expectSettled")
			if s.State != str(t, want, "state") || s.Finality != str(t, want, "finality") || s.BlockNumber != block {
				t.Fatalf("status %s", jsonv.String(s.JSON()))
			}
		})
	})

	t.Run("plant2", func(t *testing.T) {
		v := obj(t, f, "plant2")
		auth, err := tempo.KeyAuthorizationFromJSON(obj(t, req, "authorization"))
		if err != nil {
			t.Fatal(err)
		}
		h2 := mustHash(t, str(t, fixed, "H2"))
		auth.Witness = h2
		d, err := auth.Digest()
		if err != nil {
			t.Fatal(err)
		}
		wantAffixes(t, "0x"+hexOf(d[:]), get(t, v, "expectDigestH2"), "H2 digest")
		forged := req.Clone()
		forged.Set("authorization", auth.JSON())
		forged.Set("digest", "0x"+hexOf(d[:]))
		sig, err := local.Sign(context.Background(), forged)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := mpp.HexBytes(sig.(string), 65, 65)
		signed, err := auth.EncodeSigned(raw)
		if err != nil {
			t.Fatal(err)
		}
		planted := presented.Clone()
		obj(t, planted, "payload").Set("signature", "0x"+hexOf(signed))
		_, err = p.Bound(planted)
		wantRefusal(t, err, str(t, v, "expect", "code"))
	})

	t.Run("pattern", func(t *testing.T) {
		v := obj(t, f, "pattern")
		if pat := p.Pattern(); pat.Name != str(t, v, "pattern") || pat.PublicProof != get(t, v, "publicProof") {
			t.Fatalf("pattern %+v", pat)
		}
	})

	mppBuyerRows(t, f, key)
}
