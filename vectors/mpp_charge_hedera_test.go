package vectors_test

// mpp-charge-hedera.json: fixed, V4, build (and its push), bound, push,
// fetchPresented (its rows and defaults), network, status, requests and the
// buyer rows B2 and B6, with the development key paying the placed
// challenge end to end.

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/hedera"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/signer"
)

func TestMPPChargeHedera(t *testing.T) {
	f := load(t, "mpp-charge-hedera.json")
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	p := hedera.Charge{}
	b2 := row(t, get(t, f, "buyer", "rows"), "B2")
	doc := get(t, b2, "input", "doc")
	challenge := obj(t, get(t, doc).([]jsonv.Value)[0])
	account := str(t, b2, "input", "account")
	inputs := obj(t, b2, "input", "inputs")
	key := func(t *testing.T) *countingSigner {
		l, err := signer.NewHedera(account, signer.HederaDevSeed)
		if err != nil {
			t.Fatal(err)
		}
		return &countingSigner{inner: l}
	}
	build := func(t *testing.T, c *jsonv.Object, in *jsonv.Object) (rails.Unsigned, error) {
		read, err := p.Read([]jsonv.Value{c})
		if err != nil {
			t.Fatal(err)
		}
		choice, err := p.Choose(read, account, in, 0, "")
		if err != nil {
			return nil, err
		}
		return p.Build(choice, []byte("abc"), H)
	}
	pull := func(tx string) *jsonv.Object {
		return jsonv.Obj("challenge", challenge.Clone(), "payload", jsonv.Obj("type", "transaction", "transaction", tx))
	}
	pushed := jsonv.Obj("challenge", challenge.Clone(),
		"payload", jsonv.Obj("type", "hash", "transactionId", str(t, f, "push", "transactionId")))
	// vectorMembers is a request without termsgate's network and validUntil.
	vectorMembers := func(req rails.Request) *jsonv.Object {
		o := req.Clone()
		o.Delete("network")
		o.Delete("validUntil")
		return o
	}

	t.Run("fixed", func(t *testing.T) {
		req, ok := mpp.DecodeObject(str(t, challenge, "request"))
		if !ok || string(jsonv.Canonical(req)) != string(jsonv.Canonical(get(t, fixed, "request"))) {
			t.Fatal("the challenge's request is not fixed.request")
		}
		if id, _ := mpp.ChallengeID(H, 0); id != str(t, fixed, "challengeId") || str(t, challenge, "id") != id {
			t.Fatalf("id %s", id)
		}
		if !mpp.OffersPlaced(challenge, hedera.ChargeID) {
			t.Fatal("the placed challenge does not offer the pairing")
		}
	})
	t.Run("V4", func(t *testing.T) {
		v := obj(t, f, "V4")
		realm, id := str(t, v, "realm"), str(t, v, "id")
		if got := hedera.ChargeMemo(realm, id); got != str(t, v, "expectMemo") {
			t.Fatalf("memo %s", got)
		}
		if err := mpp.CheckAttribution(str(t, v, "expectMemo"), realm, id); err != nil {
			t.Fatal(err)
		}
		wantRefusal(t, mpp.CheckAttribution(str(t, v, "expectMemo"), realm, str(t, v, "otherId")), str(t, v, "expectOther"))
		m := mpp.AttributionMemo(realm, id, str(t, v, "clientId"), true)
		if got := "0x" + hex.EncodeToString(m[:]); got != str(t, v, "expectMemoWithClient") {
			t.Fatalf("memo with client %s", got)
		}
		if err := mpp.CheckAttribution(str(t, v, "expectMemoWithClient"), realm, id); err != nil {
			t.Fatalf("the client id is not read: %v", err)
		}
	})
	t.Run("build", func(t *testing.T) {
		b := obj(t, f, "build")
		if got := hedera.ChargeMemo(str(t, fixed, "realm"), str(t, fixed, "challengeId")); got != str(t, b, "expectMemo") {
			t.Fatalf("memo %s", got)
		}
		u, err := build(t, challenge, inputs)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := p.Request(u)
		if jsonv.String(vectorMembers(req)) != jsonv.String(get(t, b, "push", "expectPullRequest")) {
			t.Fatalf("request %s", jsonv.String(req))
		}
		if str(t, req, "network") != "hedera:testnet" {
			t.Fatalf("network %s", str(t, req, "network"))
		}
		// The vectors' seed is not recorded: their key's answer completes
		// the transaction byte for byte, and the development key's answer
		// verifies over the same body.
		answer := jsonv.Obj("publicKey", "0x"+str(t, fixed, "publicKey"), "signature", "0x"+str(t, fixed, "signature"),
			"type", "ed25519")
		done, err := p.Complete(u, answer, rails.Chosen{})
		if err != nil {
			t.Fatal(err)
		}
		if got := str(t, done.Signed, "payload", "transaction"); got != str(t, b, "expectTransactionBase64") {
			t.Fatalf("transaction %s", got)
		}
		dev, err := key(t).Sign(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Complete(u, dev, rails.Chosen{}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("build/push", func(t *testing.T) {
		b := obj(t, f, "build", "push")
		in := inputs.Clone()
		in.Set("credentialType", str(t, b, "credentialType"))
		u, err := build(t, challenge, in)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := p.Request(u)
		if jsonv.String(vectorMembers(req)) != jsonv.String(get(t, b, "expectRequest")) {
			t.Fatalf("request %s", jsonv.String(req))
		}
		// The local key holds no node: it refuses to be the wallet that
		// broadcasts.
		if _, err := key(t).Sign(context.Background(), req); err == nil {
			t.Fatal("the local key signed a push")
		}
		done, err := p.Complete(u, jsonv.Obj("transactionId", str(t, f, "push", "transactionId")), rails.Chosen{})
		if err != nil || jsonv.String(get(t, done.Signed, "payload")) != jsonv.String(get(t, pushed, "payload")) {
			t.Fatalf("push credential %v", err)
		}
		_, err = p.Complete(u, jsonv.Obj("transactionId", "0.0.5555@1700000001.000000000"), rails.Chosen{})
		wantRefusal(t, err, mpp.CodeCredentialMalformed)
		in.Set("credentialType", str(t, b, "otherCredentialType"))
		_, err = build(t, challenge, in)
		wantRefusal(t, err, str(t, b, "expectOther"))
	})
	t.Run("bound", func(t *testing.T) {
		b := obj(t, f, "bound")
		presented := pull(str(t, f, "build", "expectTransactionBase64"))
		h, err := p.Bound(presented)
		if err != nil || h != str(t, b, "expectBound") {
			t.Fatalf("bound %q, %v", h, err)
		}
		ref, err := hedera.ReferenceLanded(presented, nil)
		if err != nil || jsonv.String(ref) != jsonv.String(get(t, b, "expectReference")) {
			t.Fatalf("reference %s, %v", jsonv.String(ref), err)
		}
		_, err = p.Bound(pull(str(t, b, "otherTransactionBase64")))
		wantRefusal(t, err, str(t, b, "expectOther"))
	})
	fp := obj(t, f, "fetchPresented")
	t.Run("push", func(t *testing.T) {
		v := obj(t, f, "push")
		_, err := p.Bound(pushed)
		wantRefusal(t, err, str(t, v, "expectWithout"))
		calls := 0
		landed, err := hedera.FetchPresented(pushed, mirrorNode(t, str(t, fp, "reader"), get(t, fp, "entries"), &calls), "")
		if err != nil || calls != 1 {
			t.Fatalf("fetch: %v, %d reads", err, calls)
		}
		if h, err := hedera.BoundLanded(pushed, landed); err != nil || h != H.String() {
			t.Fatalf("bound %q, %v", h, err)
		}
		ref, err := hedera.ReferenceLanded(pushed, landed)
		if err != nil || jsonv.String(ref) != jsonv.String(get(t, v, "expectReference")) {
			t.Fatalf("reference %s, %v", jsonv.String(ref), err)
		}
	})
	t.Run("fetchPresented", func(t *testing.T) {
		calls := 0
		landed, err := hedera.FetchPresented(pushed, mirrorNode(t, str(t, fp, "reader"), get(t, fp, "entries"), &calls), "")
		if err != nil || jsonv.String(landed) != jsonv.String(get(t, fp, "expectLanded")) || calls != 1 {
			t.Fatalf("landed %s, %v, %d reads", jsonv.String(landed), err, calls)
		}
		// A pull's network is written with no read.
		calls = 0
		landed, err = hedera.FetchPresented(pull(str(t, f, "build", "expectTransactionBase64")),
			mirrorNode(t, str(t, fp, "reader"), get(t, fp, "entries"), &calls), "")
		if err != nil || jsonv.String(landed) != `{"network":"hedera:testnet"}` || calls != 0 {
			t.Fatalf("pull landed %s, %v, %d reads", jsonv.String(landed), err, calls)
		}
		for _, r := range get(t, fp, "rows").([]jsonv.Value) {
			t.Run(str(t, r, "case"), func(t *testing.T) {
				o := obj(t, r)
				network, entries := str(t, fp, "reader"), get(t, fp, "entries")
				if o.Has("readerNetwork") {
					network = str(t, o, "readerNetwork")
				}
				if o.Has("entries") {
					entries = get(t, o, "entries")
				}
				if o.Has("throws") {
					entries = "reader-error"
				}
				calls := 0
				_, err := hedera.FetchPresented(pushed, mirrorNode(t, network, entries, &calls), "")
				wantRefusal(t, err, str(t, o, "expect"))
			})
		}
		for _, r := range get(t, fp, "defaults").([]jsonv.Value) {
			t.Run(str(t, r, "case"), func(t *testing.T) {
				o := obj(t, r)
				req := obj(t, fixed, "request").Clone()
				d := jsonv.Obj()
				if o.Has("chainId") {
					d.Set("chainId", get(t, o, "chainId"))
				}
				req.Set("methodDetails", d)
				def, _ := o.GetString("defaultNetwork")
				got, err := hedera.ChargeNetwork(d, def)
				if o.Has("expect") {
					wantRefusal(t, err, str(t, o, "expect"))
					return
				}
				if err != nil || got != str(t, o, "expectNetwork") {
					t.Fatalf("network %q, %v", got, err)
				}
			})
		}
	})
	t.Run("network", func(t *testing.T) {
		codeOf := func(err error) string {
			if r, ok := err.(*rails.Refusal); ok {
				return r.Code
			}
			return ""
		}
		for i, r := range get(t, f, "network").([]jsonv.Value) {
			o := obj(t, r)
			d := jsonv.Obj()
			if o.Has("chainId") {
				d.Set("chainId", get(t, o, "chainId"))
			}
			def, _ := o.GetString("default")
			got, err := hedera.ChargeNetwork(d, def)
			if want := str(t, o, "expect"); got != want && codeOf(err) != want {
				t.Fatalf("row %d: %q, %v; want %s", i, got, err, want)
			}
			if !o.Has("default") {
				// With no default the network is the challenge's, as
				// PairingsOf reads it.
				req := obj(t, fixed, "request").Clone()
				req.Set("methodDetails", d)
				n, errN := mpp.Network(withRequest(challenge, req))
				if n != got || codeOf(errN) != codeOf(err) {
					t.Fatalf("row %d: mpp.Network %q, %v", i, n, errN)
				}
			}
		}
	})
	t.Run("status", func(t *testing.T) {
		v := obj(t, f, "status")
		ref, err := hedera.ReferenceLanded(pull(str(t, f, "build", "expectTransactionBase64")), nil)
		if err != nil {
			t.Fatal(err)
		}
		calls := 0
		got := hedera.StatusOf(ref, mirrorNode(t, str(t, ref, "network"), get(t, v, "entries"), &calls))
		if jsonv.String(got.JSON()) != jsonv.String(get(t, v, "expect")) || calls != 1 {
			t.Fatalf("status %s, %d reads", jsonv.String(got.JSON()), calls)
		}
	})
	t.Run("requests", func(t *testing.T) {
		for _, r := range get(t, f, "requests").([]jsonv.Value) {
			t.Run(str(t, r, "case"), func(t *testing.T) {
				wantRefusal(t, hedera.CheckChargeRequest(obj(t, r, "request")), str(t, r, "expect"))
				// The build refuses it too, before anything is signed.
				c := withRequest(challenge, obj(t, r, "request"))
				c.Delete("id")
				c.Delete("opaque")
				doc, err := mpp.Place([]jsonv.Value{c}, H, str(t, fixed, "link"), c, "")
				if err != nil {
					t.Fatal(err)
				}
				_, err = build(t, obj(t, doc[0]), inputs)
				wantRefusal(t, err, str(t, r, "expect"))
			})
		}
	})
	t.Run("B2", func(t *testing.T) {
		in := obj(t, b2, "input")
		srv := newATRSeller(t)
		srv.serveBytes(unhex(t, str(t, in, "servesHex")))
		sg := key(t)
		opts := &gate.TransactOptions{Inputs: inputs}
		_, err := srv.gateFor(0, nil).Transact(context.Background(), doc, hedera.ChargeID, sg, opts)
		wantDecline(t, err, gate.Code(str(t, b2, "expect", "decline")), "")
		if sg.calls.Load() != 0 || srv.fetches.Load() != 1 {
			t.Fatalf("%d signer calls, %d fetches", sg.calls.Load(), srv.fetches.Load())
		}
		// The control: the advertised terms are paid with one signer call,
		// the transaction build's byte for byte.
		srv.serveBytes([]byte("abc"))
		paid, err := srv.gateFor(1_790_000_000, nil).Transact(context.Background(), doc, hedera.ChargeID, sg, opts)
		if err != nil || sg.calls.Load() != 1 {
			t.Fatalf("control: %v, %d signer calls", err, sg.calls.Load())
		}
		raw, _ := base64.StdEncoding.DecodeString(str(t, paid.Signed, "payload", "transaction"))
		s, err := hedera.DecodeTx(raw)
		if err != nil || hex.EncodeToString(s.Bodies[0].Bytes) != str(t, f, "build", "expectBodyBytes") {
			t.Fatalf("control: body (%v)", err)
		}
	})
	t.Run("B6", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B6")
		presented := get(t, r, "input", "presented")
		checks := get(t, r, "input", "check").([]jsonv.Value)
		expects := get(t, r, "expect").([]jsonv.Value)
		g := &gate.Gate{}
		h, err := g.Check(unhex(t, str(t, checks[0], "bytesHex")), hedera.ChargeID, presented)
		if err != nil || h.String() != str(t, expects[0], "h") {
			t.Fatalf("check = %v, %v", h, err)
		}
		_, err = g.Check(unhex(t, str(t, checks[1], "bytesHex")), hedera.ChargeID, presented)
		wantDecline(t, err, gate.Code(str(t, expects[1], "decline")), "")
	})
}

// withRequest is challenge c with another request, encoded.
func withRequest(c *jsonv.Object, request *jsonv.Object) *jsonv.Object {
	o := c.Clone()
	o.Set("request", mpp.EncodeObject(request))
	return o
}
