package gate_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
	"github.com/termsgate/termsgate/signer"
)

// Anvil's second published development key: another account than the one
// the choices name.
const otherKey = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"

func keyOn(t testing.TB, hexKey, network string) *signer.Local {
	t.Helper()
	l, err := signer.FromHex(hexKey, network)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Finish checks a signature made elsewhere: one that recovers to another
// account than the choice's, or a payment whose deadline passed, is
// signer-failed and nothing is returned; the right one is finished.
func TestFinishChecksTheSignature(t *testing.T) {
	ctx := context.Background()
	t.Run("eip712", func(t *testing.T) {
		bb := newBench(t, atrA)
		c, err := bb.g.Confirm(ctx, bb.doc, evm.ExactEIP3009ID, bb.signer.Account(), nil)
		if err != nil {
			t.Fatal(err)
		}
		other, _ := keyOn(t, otherKey, "eip155:84532").Sign(ctx, c.Request)
		_, err = bb.g.Finish(c.Bytes, evm.ExactEIP3009ID, c.Chosen, other)
		wantDeclined(t, err, gate.SignerFailed, gate.DetailSignerNotAccount)
		good, _ := bb.signer.Sign(ctx, c.Request)
		if _, err := bb.g.Finish(c.Bytes, evm.ExactEIP3009ID, c.Chosen, good); err != nil {
			t.Fatal(err)
		}
		late := *bb.g
		late.Now = func() time.Time { return time.Unix(1790000000+61, 0) } // validBefore is now + 60
		_, err = late.Finish(c.Bytes, evm.ExactEIP3009ID, c.Chosen, good)
		wantDeclined(t, err, gate.SignerFailed, gate.DetailWindowClosed)
	})
	t.Run("tempo transaction", func(t *testing.T) {
		g := &gate.Gate{Now: func() time.Time { return time.Unix(1790000000, 0) }}
		p := tempo.Session{}
		read, _ := p.Read([]jsonv.Value{placedSession(t, sessionReq)})
		choice, err := p.Choose(read, tempoKey(t).Account(), jsonv.Obj("deposit", "10000000"), 1790000000, "ref")
		if err != nil {
			t.Fatal(err)
		}
		chosen := rails.Chosen{Pairing: sessionID, Choice: choice, Ref: "ref"}
		u, _ := p.Build(choice, abc, atr.Sum(abc))
		funding, _ := p.Request(u)
		other, _ := keyOn(t, otherKey, "eip155:42431").Sign(ctx, funding)
		_, err = g.Finish(abc, sessionID, chosen, other)
		wantDeclined(t, err, gate.SignerFailed, gate.DetailSignerNotAccount)
		good, _ := tempoKey(t).Sign(ctx, funding)
		if f, err := g.Finish(abc, sessionID, chosen, good); err != nil || f.Next == nil {
			t.Fatalf("step 1: %v", err)
		}
		late := &gate.Gate{Now: func() time.Time { return time.Unix(1790000000+3600, 0) }}
		_, err = late.Finish(abc, sessionID, chosen, good)
		wantDeclined(t, err, gate.SignerFailed, gate.DetailWindowClosed)
	})
	t.Run("key authorization", func(t *testing.T) {
		const reqSub = `{"amount":"10000000","currency":"0x20c0000000000000000000000000000000000000","methodDetails":{"accessKey":{"accessKeyAddress":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8","keyType":"secp256k1"},"chainId":42431},"periodCount":"30","periodUnit":"day","recipient":"0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00","subscriptionExpires":"2026-12-20T00:00:00Z"}`
		c := jsonv.Obj("realm", sessionRealm, "method", "tempo", "intent", "subscription",
			"request", mpp.EncodeB64URL([]byte(reqSub)), "expires", sessionExp)
		h := atr.Sum(abc)
		d, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
		if err != nil {
			t.Fatal(err)
		}
		p := tempo.Subscription{}
		read, _ := p.Read(d)
		choice, err := p.Choose(read, tempoKey(t).Account(), &jsonv.Object{}, 1790000000, "")
		if err != nil {
			t.Fatal(err)
		}
		chosen := rails.Chosen{Pairing: tempo.SubscriptionID, Choice: choice}
		u, _ := p.Build(choice, abc, h)
		req, _ := p.Request(u)
		g := &gate.Gate{Now: func() time.Time { return time.Unix(1790000000, 0) }}
		other, _ := keyOn(t, otherKey, "eip155:42431").Sign(ctx, req)
		_, err = g.Finish(abc, tempo.SubscriptionID, chosen, other)
		wantDeclined(t, err, gate.SignerFailed, gate.DetailSignerNotAccount)
		good, _ := tempoKey(t).Sign(ctx, req)
		if _, err := g.Finish(abc, tempo.SubscriptionID, chosen, good); err != nil {
			t.Fatal(err)
		}
		expired := &gate.Gate{Now: func() time.Time { return time.Date(2026, 12, 21, 0, 0, 0, 0, time.UTC) }}
		_, err = expired.Finish(abc, tempo.SubscriptionID, chosen, good)
		wantDeclined(t, err, gate.SignerFailed, gate.DetailWindowClosed)
	})
}

// A signature that is no signature at all (too short, not hex, not a
// string) is the signer's failure, said with what was wrong, before it is
// joined to the payment: signer-failed, not signed-not-bound. A contract
// wallet's longer signature is of a valid form (the chain judges it).
func TestFinishRefusesAMalformedSignature(t *testing.T) {
	ctx := context.Background()
	bb := newBench(t, atrA)
	c, err := bb.g.Confirm(ctx, bb.doc, evm.ExactEIP3009ID, bb.signer.Account(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for answer, cause := range map[string]string{
		"0x1234":                        `"0x1234" is 2 bytes`,
		"0xabc":                         `"0xabc" is not 0x and an even number of hex digits`,
		"1234":                          `"1234" is not 0x`,
		"0x" + strings.Repeat("ab", 64): "is 64 bytes",
	} {
		_, err := bb.g.Finish(c.Bytes, evm.ExactEIP3009ID, c.Chosen, answer)
		wantDeclined(t, err, gate.SignerFailed, gate.DetailSignatureMalformed)
		if d := errAs(t, err); d.Err == nil || !strings.Contains(d.Err.Error(), cause) {
			t.Errorf("%s: cause %v, want %q", answer, d.Err, cause)
		}
	}
	_, err = bb.g.Finish(c.Bytes, evm.ExactEIP3009ID, c.Chosen, jsonv.Number(1))
	wantDeclined(t, err, gate.SignerFailed, gate.DetailSignatureMalformed)
	// 66 bytes is a form a contract wallet may sign in: past the form
	// check, it does not recover to the account.
	_, err = bb.g.Finish(c.Bytes, evm.ExactEIP3009ID, c.Chosen, "0x"+strings.Repeat("ab", 66))
	var d *gate.Decline
	if errors.As(err, &d) && d.Detail == gate.DetailSignatureMalformed {
		t.Fatalf("a 66-byte signature refused for its form: %v", err)
	}
}

func errAs(t *testing.T, err error) *gate.Decline {
	t.Helper()
	var d *gate.Decline
	if !errors.As(err, &d) {
		t.Fatalf("%v is no decline", err)
	}
	return d
}
