package vectors_test

// mpp-charge-tempo-push.json: MV13, plant, pattern and the buyer rows B2 and
// B6.

import (
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
)

func TestMPPChargeTempoPush(t *testing.T) {
	f := load(t, "mpp-charge-tempo-push.json")
	fixed := obj(t, f, "fixed")
	fx := loadMPPFixture(t)
	p := tempo.Push{}
	issued := fx.challenge("tempo", "charge", str(t, fixed, "R_TNoModes"))
	placed := fx.placed(t, issued)
	payer := str(t, fixed, "payer")
	now, _ := jsonv.AsSafeInt(get(t, fixed, "now"))
	b6 := row(t, get(t, f, "buyer", "rows"), "B6")
	landedOf := func(receipt *jsonv.Object, tx string) *jsonv.Object {
		return jsonv.Obj("transaction", tx, "blockNumber", str(t, receipt, "blockNumber"), "logs", jsonv.Clone(get(t, receipt, "logs")))
	}

	t.Run("MV13", func(t *testing.T) {
		v := obj(t, f, "MV13")
		got, err := mpp.PairingsOf(issued)
		if err != nil || jsonv.String(toValues(got)) != jsonv.String(get(t, v, "expectPairings")) {
			t.Fatalf("pairings %v (%v)", got, err)
		}
		got, err = mpp.PairingsOf(fx.challenge("tempo", "charge", str(t, fixed, "R_TFeePayer")))
		if err != nil || jsonv.String(toValues(got)) != jsonv.String(get(t, v, "expectFeePayer")) {
			t.Fatalf("fee payer pairings %v (%v)", got, err)
		}
		u, err := p.Build(jsonv.Obj("challenge", placed, "from", payer, "now", now), nil, fx.H)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := p.Request(u)
		memoReq := obj(t, mustRequest(t, tempo.Memo{}, jsonv.Obj("challenge", placed, "from", payer, "now", now), fx))
		memoReq.Set("broadcast", true)
		if jsonv.String(req) != jsonv.String(memoReq) {
			t.Fatalf("request %s", jsonv.String(req))
		}
		if !p.Moves(req) {
			t.Fatal("a broadcast request does not move")
		}
		hash := str(t, v, "T_P")
		answer := jsonv.Obj("hash", hash, "landed", landedOf(obj(t, v, "receipt"), hash))
		done, err := p.Complete(u, answer, rails.Chosen{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := jsonv.String(done.Signed), jsonv.String(get(t, b6, "input", "presented")); got != want {
			t.Fatalf("credential\n got %s\nwant %s", got, want)
		}
		if h, err := p.Bound(done.Signed); err != nil || h != fx.H.String() {
			t.Fatalf("bound %s (%v)", h, err)
		}
		sent, landed := p.Sent(done.Signed)
		if o, _ := jsonv.AsObject(sent); o.Has("landed") || jsonv.String(landed) != jsonv.String(get(t, b6, "input", "presented", "landed")) {
			t.Fatalf("sent %s landed %s", jsonv.String(sent), jsonv.String(landed))
		}
		// Without landed the credential does not read: the gate keeps it as moved.
		bare, err := p.Complete(u, jsonv.Obj("hash", hash), rails.Chosen{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Bound(bare.Signed)
		wantRefusal(t, err, mpp.CodeCredentialMalformed)
		t.Run("reference", func(t *testing.T) {
			ref, err := p.Reference(done.Signed)
			if err != nil {
				t.Fatal(err)
			}
			// A landed push has no settleBy; its memo and digest are MV7's.
			mv7 := obj(t, load(t, "mpp-charge-tempo-memo.json"), "MV7")
			if str(t, v, "expectReferenceDigest") != str(t, mv7, "expectReferenceDigest") {
				t.Fatal("MV13's reference digest is not MV7's")
			}
			if got, want := jsonv.String(ref), jsonv.String(memoRefFor(t, mv7, fixed, "")); got != want {
				t.Fatalf("reference\n got %s\nwant %s", got, want)
			}
		})
		t.Run("receipt reads", func(t *testing.T) {
			// The seller completes the credential it was sent from the
			// pushed transaction's receipt: B6's credential, byte for byte.
			receipt := obj(t, v, "receipt")
			network := "eip155:42431"
			landed, err := p.Landed(bare.Signed, readerFor(network, receipt))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := jsonv.String(landed), jsonv.String(get(t, b6, "input", "presented")); got != want {
				t.Fatalf("landed\n got %s\nwant %s", got, want)
			}
			if h, err := p.Bound(landed); err != nil || h != fx.H.String() {
				t.Fatalf("bound %s (%v)", h, err)
			}
			_, err = p.Landed(bare.Signed, readerFor(network, nil))
			wantRefusal(t, err, str(t, v, "expectNotFound", "code"))
			reverted := receipt.Clone()
			reverted.Set("status", jsonv.Number(0))
			_, err = p.Landed(bare.Signed, readerFor(network, reverted))
			wantRefusal(t, err, str(t, v, "expectReverted", "code"))
			_, err = p.Landed(bare.Signed, readerFor(network, "reader-error"))
			wantRefusal(t, err, tempo.CodeUnreadable)
			_, err = p.Landed(bare.Signed, readerFor("eip155:1", receipt))
			wantRefusal(t, err, tempo.CodeUnreadable)
		})
	})

	t.Run("plant", func(t *testing.T) {
		presented := jsonv.Clone(get(t, b6, "input", "presented")).(*jsonv.Object)
		logs := get(t, presented, "landed", "logs").([]jsonv.Value)
		for _, l := range logs {
			o, _ := jsonv.AsObject(l)
			if topics := get(t, o, "topics").([]jsonv.Value); len(topics) == 4 {
				o.Set("address", str(t, fixed, "otherTip20"))
			}
		}
		_, err := p.Bound(presented)
		wantRefusal(t, err, str(t, f, "plant", "expect", "code"))
		// Two memo logs from pathUSD are ambiguous.
		twice := jsonv.Clone(get(t, b6, "input", "presented")).(*jsonv.Object)
		l := obj(t, twice, "landed")
		orig := get(t, l, "logs").([]jsonv.Value)
		l.Set("logs", append(orig, jsonv.Clone(orig[1])))
		_, err = p.Bound(twice)
		wantRefusal(t, err, tempo.CodeAmbiguous)
	})

	t.Run("pattern", func(t *testing.T) {
		v := obj(t, f, "pattern")
		if pat := p.Pattern(); pat.Name != str(t, v, "pattern") || pat.PublicProof != get(t, v, "publicProof") {
			t.Fatalf("pattern %+v", pat)
		}
		if !strings.Contains(str(t, v, "provesRule"), "tempo/memo") {
			t.Fatal("provesRule")
		}
	})

	mppBuyerRows(t, f, str(t, fixed, "payerKey"))
}

func toValues(ss []string) []jsonv.Value {
	out := make([]jsonv.Value, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func mustRequest(t *testing.T, p rails.Pairing, choice jsonv.Value, fx mppFixture) rails.Request {
	t.Helper()
	u, err := p.Build(choice, nil, fx.H)
	if err != nil {
		t.Fatal(err)
	}
	req, err := p.Request(u)
	if err != nil {
		t.Fatal(err)
	}
	return req
}
