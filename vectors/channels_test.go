package vectors_test

// The channel rows: mpp-session-tempo.json's TS4 250 voucher (the first
// payment inside the channel B6 opens) and the newer buyer rows BW1, BW2 and
// BW4 (https://agenticterms.integraledger.com/reference/vectors), built on B6's opening and buyer.json's payer
// key; BW3, x402/batch-settlement/solana's, in x402_batch_solana_test.go.

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
	"github.com/termsgate/termsgate/signer"
)

// batching signs a batch request request by request with inner, the answer
// being the list of answers: what a wallet does with an in-channel payment.
type batching struct{ inner gate.Signer }

func (b batching) Account() string { return b.inner.Account() }

func (b batching) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if k, _ := req.GetString("kind"); k != rails.KindBatch {
		return b.inner.Sign(ctx, req)
	}
	v, _ := req.Get("requests")
	list, _ := jsonv.AsArray(v)
	out := make([]jsonv.Value, 0, len(list))
	for _, r := range list {
		o, ok := jsonv.AsObject(r)
		if !ok {
			return nil, fmt.Errorf("a batch entry is not a request")
		}
		a, err := b.inner.Sign(ctx, o)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// channelFixture is the channel B6 opens, held, and the seller's challenge
// inside it.
type channelFixture struct {
	g       *gate.Gate
	hold    *gate.Hold
	payer   string
	key     string
	request string // the opening's request JSON (fixed.requestV2)
}

func loadChannelFixture(t *testing.T) channelFixture {
	t.Helper()
	f := load(t, "mpp-session-tempo.json")
	b6 := row(t, get(t, f, "buyer", "rows"), "B6")
	bytes := unhex(t, str(t, get(t, b6, "input", "check").([]jsonv.Value)[0], "bytesHex"))
	g := &gate.Gate{}
	hold, err := g.OpenChannel(bytes, tempo.SessionID, obj(t, b6, "input", "presented"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if hold.Channel != str(t, f, "TS3", "expectChannelId") || hold.H != str(t, f, "fixed", "H") {
		t.Fatalf("held %s for %s", hold.Channel, hold.H)
	}
	return channelFixture{g: g, hold: hold, payer: str(t, f, "fixed", "payer"),
		key: str(t, load(t, "buyer.json"), "fixed", "payerKey"), request: str(t, f, "fixed", "requestV2")}
}

func (c channelFixture) signer(t *testing.T) *countingSigner {
	t.Helper()
	l, err := signer.FromHex(c.key, "eip155:42431")
	if err != nil {
		t.Fatal(err)
	}
	return &countingSigner{inner: batching{l}}
}

// challenge is the seller's next session challenge: its own id, naming the
// held channel, asking for amount, with opaque when given.
func (c channelFixture) challenge(amount string, opaque *jsonv.Object) *jsonv.Object {
	req := strings.Replace(c.request, `"amount":"100"`, `"amount":"`+amount+`"`, 1)
	req = strings.Replace(req, `"methodDetails":{`, `"methodDetails":{"channelId":"`+c.hold.Channel+`",`, 1)
	ch := jsonv.Obj("id", "in-channel-1", "realm", "api.seller.example", "method", "tempo", "intent", "session",
		"request", mpp.EncodeB64URL([]byte(req)), "expires", "2026-09-21T14:14:20Z")
	if opaque != nil {
		ch.Set("opaque", mpp.EncodeB64URL(jsonv.Marshal(opaque)))
	}
	return ch
}

func (c channelFixture) legalContext() string { return mpp.LegalContextPrefix + c.hold.H }

func TestChannels(t *testing.T) {
	fx := loadChannelFixture(t)
	f := load(t, "mpp-session-tempo.json")

	t.Run("TS4", func(t *testing.T) {
		t.Run("voucher250", func(t *testing.T) {
			sg := fx.signer(t)
			challenge := fx.challenge("250", nil)
			r, err := fx.g.Within(context.Background(), []jsonv.Value{challenge}, fx.hold, tempo.SessionID, sg, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if sg.calls.Load() != 1 || len(sg.seen) != 1 {
				t.Fatalf("%d signer calls", sg.calls.Load())
			}
			reqs, _ := jsonv.AsArray(get(t, sg.seen[0], "requests"))
			if len(reqs) != 1 || str(t, reqs[0], "kind") != "eip712" {
				t.Fatalf("batch %s", jsonv.Marshal(sg.seen[0]))
			}
			parts, err := evm.TypedDataHashes(obj(t, reqs[0], "typedData"))
			if err != nil {
				t.Fatal(err)
			}
			wantAffixes(t, "0x"+hexOf(parts.Digest[:]), get(t, f, "TS4", "expectVoucher250"), "the 250 voucher's digest")
			// The signature is the payer's over that digest.
			payload := obj(t, r.Signed, "payload")
			sig := str(t, payload, "signature")
			raw, ok := mpp.HexBytes(sig, 65, 65)
			if !ok {
				t.Fatalf("signature %s", sig)
			}
			raw[64] -= 27
			pub, err := crypto.SigToPub(parts.Digest[:], raw)
			if err != nil || crypto.PubkeyToAddress(*pub) != common.HexToAddress(fx.payer) {
				t.Fatalf("the voucher is not the payer's (%v)", err)
			}
			// The credential, byte for byte: the seller's challenge as given,
			// the TS3 channel, 250, and B6's descriptor carrying H.
			b6 := row(t, get(t, f, "buyer", "rows"), "B6")
			want := jsonv.Obj("challenge", challenge, "payload", jsonv.Obj(
				"action", "voucher", "channelId", str(t, f, "TS3", "expectChannelId"), "cumulativeAmount", "250",
				"signature", sig, "descriptor", obj(t, b6, "input", "presented", "payload", "descriptor")))
			if got := jsonv.String(r.Signed); got != jsonv.String(want) {
				t.Fatalf("credential\n got %s\nwant %s", got, jsonv.Marshal(want))
			}
			if inside, err := (tempo.Session{}).BoundWithin(r.Signed); err != nil || inside != fx.hold.H {
				t.Fatalf("bound within %s (%v)", inside, err)
			}
			if r.Hold.SignedMax != "250" || r.Hold.Charged != "0" {
				t.Fatalf("hold %+v", r.Hold)
			}
		})
	})

	// BW1: an opaque that is not a flat string-to-string map (a nested
	// object beside the held legal context) is mpp/opaque-malformed, nothing
	// signed; the control, the legal context alone, signs one voucher for
	// the held channel.
	t.Run("BW1", func(t *testing.T) {
		notFlat := jsonv.Obj("legalContext", fx.legalContext(), "k", jsonv.Obj("nested", "v"))
		sg := fx.signer(t)
		_, err := fx.g.Within(context.Background(), []jsonv.Value{fx.challenge("100", notFlat)}, fx.hold, tempo.SessionID, sg, nil, nil)
		wantDecline(t, err, gate.OfferUnreadable, mpp.CodeOpaqueMalformed)
		if sg.calls.Load() != 0 {
			t.Fatal("the signer was called")
		}
		t.Run("control", func(t *testing.T) {
			sg := fx.signer(t)
			r, err := fx.g.Within(context.Background(), []jsonv.Value{fx.challenge("100", jsonv.Obj("legalContext", fx.legalContext()))},
				fx.hold, tempo.SessionID, sg, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if sg.calls.Load() != 1 || str(t, r.Signed, "payload", "channelId") != fx.hold.Channel {
				t.Fatalf("%d signer calls, %s", sg.calls.Load(), jsonv.Marshal(r.Signed))
			}
		})
	})

	// BW2: the opaque's other ways of not being a flat string map: a
	// member of each other JSON type, the legal context itself included.
	t.Run("BW2", func(t *testing.T) {
		for name, v := range map[string]jsonv.Value{
			"a number": jsonv.Number(1), "a boolean": true, "null": nil, "an array": []jsonv.Value{"v"},
		} {
			for _, key := range []string{"k", "legalContext"} {
				opaque := jsonv.Obj("legalContext", fx.legalContext())
				opaque.Set(key, v)
				sg := fx.signer(t)
				_, err := fx.g.Within(context.Background(), []jsonv.Value{fx.challenge("100", opaque)}, fx.hold, tempo.SessionID, sg, nil, nil)
				d := wantDecline(t, err, gate.OfferUnreadable, mpp.CodeOpaqueMalformed)
				if sg.calls.Load() != 0 {
					t.Fatalf("%s as %s: %v, and the signer was called", name, key, d)
				}
			}
		}
	})

	// BW4: inputs given and not an object are declined before the build
	// and the signer call. The row names x402/input-malformed for its
	// pairing; the code is the pairing's namespace's, mpp/ here, as the
	// reference's other input checks write it.
	t.Run("BW4", func(t *testing.T) {
		for _, in := range []jsonv.Value{"x", jsonv.Number(1), true, []jsonv.Value{}} {
			sg := fx.signer(t)
			_, err := fx.g.Within(context.Background(), []jsonv.Value{fx.challenge("100", nil)}, fx.hold, tempo.SessionID, sg, nil, in)
			wantDecline(t, err, gate.NoPayableOption, mpp.CodeInputMalformed)
			if sg.calls.Load() != 0 {
				t.Fatalf("inputs %s: the signer was called", jsonv.Marshal(in))
			}
		}
		// An object is accepted.
		if _, err := fx.g.Within(context.Background(), []jsonv.Value{fx.challenge("100", nil)}, fx.hold, tempo.SessionID, fx.signer(t), nil, jsonv.Obj()); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("BW3", func(t *testing.T) { runBW3(t) })
}
