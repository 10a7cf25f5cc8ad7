package vectors_test

// x402-exact-eip155-erc7710-salt.json and x402-exact-eip155-erc7710.json:
// the leaf delegation signed and its permission context byte for byte
// (EV8), the RedeemedDelegation read (EV9), plantLeafNotRoot, the unsigned
// level's echoed H (EV7), and the buyer rows B2 and B6.

import (
	"crypto/sha256"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/signer"
)

// leafOf is the file's fixed leaf delegation, unsigned.
func leafOf(t *testing.T, fixed *jsonv.Object) evm.Delegation {
	t.Helper()
	l := obj(t, fixed, "leaf")
	d := evm.Delegation{Delegate: str(t, l, "delegate"), Delegator: str(t, l, "delegator")}
	copy(d.Authority[:], unhex0x(t, str(t, l, "authority")))
	copy(d.Salt[:], unhex0x(t, str(t, l, "salt")))
	for _, c := range get(t, l, "caveats").([]jsonv.Value) {
		d.Caveats = append(d.Caveats, evm.Caveat{Enforcer: str(t, c, "enforcer"), Terms: unhex0x(t, str(t, c, "terms")), Args: unhex0x(t, str(t, c, "args"))})
	}
	return d
}

// unhex0x decodes 0x-prefixed hex.
func unhex0x(t *testing.T, s string) []byte { t.Helper(); return unhex(t, strings.TrimPrefix(s, "0x")) }

func contextHex(ds ...evm.Delegation) string { return "0x" + hexOf(evm.EncodePermissionContext(ds)) }

func TestX402ExactEIP155ERC7710Salt(t *testing.T) {
	x := loadX402Fixed(t, "x402-exact-eip155-erc7710-salt.json")
	p := evm.ExactERC7710Salt{}
	manager := str(t, x.fixed, "delegationManager")
	b6 := func() *jsonv.Object {
		return obj(t, row(t, get(t, x.f, "buyer", "rows"), "B6"), "input", "presented").Clone()
	}
	leaf := leafOf(t, x.fixed)
	t.Run("EV8", func(t *testing.T) {
		v := obj(t, x.f, "EV8")
		if manager != evm.DelegationManager {
			t.Fatalf("manager %s", manager)
		}
		td := evm.DelegationTypedData(84532, manager, leaf)
		if g, w := jsonv.String(get(t, td, "domain")), jsonv.String(get(t, x.fixed, "delegationDomain")); g != w {
			t.Fatalf("domain %s", g)
		}
		parts, err := evm.TypedDataHashes(td)
		if err != nil {
			t.Fatal(err)
		}
		if "0x"+hexOf(parts.DomainSeparator[:]) != str(t, v, "expectDomainHash") || "0x"+hexOf(parts.StructHash[:]) != str(t, v, "expectStructHash") {
			t.Fatalf("hashes %x %x", parts.DomainSeparator, parts.StructHash)
		}
		sig := x.signOf(t, jsonv.Obj("kind", "eip712", "typedData", td), str(t, v, "expectDigest"), str(t, v, "expectSignature"))
		signed := leaf
		signed.Signature = unhex0x(t, sig)
		ctx := evm.EncodePermissionContext([]evm.Delegation{signed})
		sum := sha256.Sum256(ctx)
		n, _ := jsonv.AsSafeInt(get(t, v, "expectContextBytes"))
		if len(ctx) != int(n) || "0x"+hexOf(sum[:]) != str(t, v, "expectContextSha256") {
			t.Fatalf("context %d bytes, sha256 %x", len(ctx), sum)
		}
		// The pairing's own build, answered by the local key issuing the
		// file's leaf: the B6 payment byte for byte.
		u, req := x.requestOf(t, p)
		if g, err := p.Summarize(req); err != nil || g.Amount.String() != "10000" || g.Payee != str(t, x.option, "payTo") {
			t.Fatalf("summary %+v (%v)", g, err)
		}
		l, _ := signer.FromHex(x.key, "eip155:84532")
		if _, err := l.Sign(t.Context(), req); err == nil {
			t.Fatal("the local key issued a delegation without an issuer")
		}
		issuing := l.WithDelegations(func(rails.Request) (string, []evm.Caveat, error) { return leaf.Delegate, leaf.Caveats, nil })
		answer, err := issuing.Sign(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		done, err := p.Complete(u, answer, rails.Chosen{Ref: rails.NewRef()})
		if err != nil {
			t.Fatal(err)
		}
		want := b6()
		want.Delete("extensions")
		if g, w := jsonv.String(done.Signed), jsonv.String(want); g != w {
			t.Fatalf("payment\n got %s\nwant %s", g, w)
		}
		if got := evm.PairingOfERC7710(done.Signed); got != str(t, v, "expectPairingOfPayment") {
			t.Fatalf("pairing of payment %s", got)
		}
		if h, err := p.Bound(done.Signed); err != nil || h != str(t, v, "expectBound") {
			t.Fatalf("bound %s (%v)", h, err)
		}
		other := b6()
		obj(t, other, "payload").Set("delegationManager", str(t, v, "otherManager", "manager"))
		if got := evm.PairingOfERC7710(other); got != str(t, v, "otherManager", "expectPairingOfPayment") {
			t.Fatalf("pairing of the other manager's payment %s", got)
		}
		_, err = p.Bound(other)
		wantRefusal(t, err, str(t, v, "otherManager", "expectSaltBound", "code"))
		empty := b6()
		obj(t, empty, "payload").Set("permissionContext", str(t, v, "emptyContext", "context"))
		_, err = p.Bound(empty)
		wantRefusal(t, err, str(t, v, "emptyContext", "expect", "code"))
		for _, c := range get(t, v, "malformedContext", "cases").([]jsonv.Value) {
			bad := b6()
			obj(t, bad, "payload").Set("permissionContext", c)
			_, err = p.Bound(bad)
			wantRefusal(t, err, str(t, v, "malformedContext", "expect", "code"))
		}
	})
	t.Run("EV9", func(t *testing.T) {
		v := obj(t, x.f, "EV9")
		if keccakHex(str(t, v, "eventSignature")) != str(t, v, "expectTopic") || evm.TopicRedeemedDelegation != str(t, v, "expectTopic") {
			t.Fatal("topic")
		}
		signed := leaf
		signed.Signature = unhex0x(t, str(t, x.f, "EV8", "expectSignature"))
		data := evm.EncodeRedeemedData(signed)
		for i, w := range get(t, v, "expectDataWords").([]jsonv.Value) {
			if got := "0x" + hexOf(data[32*i:32*i+32]); got != w {
				t.Fatalf("data word %d %s", i, got)
			}
		}
		receipt := receiptOf("100",
			logOf(manager, "0x"+hexOf(data), evm.TopicRedeemedDelegation, topicOf(x.payer), topicOf(leaf.Delegate)),
			logOf(str(t, x.option, "asset"), wordOf(10000), evm.TopicTransfer.Hex(), topicOf(x.payer), topicOf(str(t, x.option, "payTo"))))
		ref, err := p.Reference(b6())
		if err != nil {
			t.Fatal(err)
		}
		ref.Set("transaction", "0x"+strings.Repeat("44", 32))
		wantStatus(t, p.Status(ref, readerFor("eip155:84532", receipt)), get(t, v, "expectStatus"), "EV9")
		if h, err := p.Recover(ref, readerFor("eip155:84532", receipt)); err != nil || h != str(t, v, "expectRecover") {
			t.Fatalf("recover %s (%v)", h, err)
		}
		// The transfer alone, without the manager's log, is not this payment.
		only := receiptOf("100", logOf(str(t, x.option, "asset"), wordOf(10000), evm.TopicTransfer.Hex(), topicOf(x.payer), topicOf(str(t, x.option, "payTo"))))
		wantStatus(t, p.Status(ref, readerFor("eip155:84532", only)), jsonv.Obj("state", "failed", "why", "binding-log-not-found"), "no redemption")
	})
	t.Run("plantLeafNotRoot", func(t *testing.T) {
		v := obj(t, x.f, "plantLeafNotRoot")
		leafSalt := mustHash(t, str(t, v, "leafSalt"))
		l := leaf
		l.Salt = leafSalt
		root := leafOf(t, x.fixed) // salt H
		pay := b6()
		obj(t, pay, "payload").Set("permissionContext", contextHex(l, root))
		if h, err := p.Bound(pay); err != nil || h != str(t, v, "expectBound") {
			t.Fatalf("bound %s (%v)", h, err)
		}
		if h, _ := p.Bound(pay); h == x.h {
			t.Fatal("the root's salt was read")
		}
	})
	mppBuyerRows(t, x.f, x.key)
}

func TestX402ExactEIP155ERC7710(t *testing.T) {
	x := loadX402Fixed(t, "x402-exact-eip155-erc7710.json")
	p := evm.ExactERC7710{}
	if p.Pattern().PublicProof {
		t.Fatal("the unsigned level is no public proof")
	}
	b6 := func() *jsonv.Object {
		return obj(t, row(t, get(t, x.f, "buyer", "rows"), "B6"), "input", "presented").Clone()
	}
	t.Run("EV7", func(t *testing.T) {
		v := obj(t, x.f, "EV7")
		pay := b6()
		if got := str(t, pay, "payload", "delegationManager"); got != str(t, v, "otherManager") {
			t.Fatalf("manager %s", got)
		}
		if got := evm.PairingOfERC7710(pay); got != str(t, v, "expectPairingOfPayment") {
			t.Fatalf("pairing of payment %s", got)
		}
		if h, err := p.Bound(pay); err != nil || h != str(t, v, "expectBound") {
			t.Fatalf("bound %s (%v)", h, err)
		}
		bare := b6()
		bare.Delete("extensions")
		_, err := p.Bound(bare)
		wantRefusal(t, err, str(t, v, "withoutExtension", "expect", "code"))
		ref, err := p.Reference(pay)
		if err != nil {
			t.Fatal(err)
		}
		er := obj(t, v, "expectReference")
		if str(t, ref, "transferLog", "identity") != str(t, er, "identity") || str(t, ref, "transferLog", "digest") != str(t, er, "digest") {
			t.Fatalf("reference %s", jsonv.String(ref))
		}
		other := b6()
		obj(t, other, "accepted").Set("payTo", str(t, er, "otherPayee"))
		if ref2, err := p.Reference(other); err != nil || str(t, ref2, "transferLog", "digest") == str(t, er, "digest") {
			t.Fatalf("another payee's reference %v (%v)", ref2, err)
		}
		// The salt level does not read this payment: its manager is not the
		// reference one.
		_, err = evm.ExactERC7710Salt{}.Bound(pay)
		wantRefusal(t, err, "x402/manager-not-reference")
	})
	mppBuyerRows(t, x.f, x.key)
}
