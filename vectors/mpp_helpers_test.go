package vectors_test

// Shared pieces of the MPP vector tests (mpp-*.json).

import (
	"context"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
)

// mppFixture is mpp-challenge.json's fixed values, which every MPP file
// builds on (its C_E and C_T challenges).
type mppFixture struct {
	H                  atr.Hash
	realm, expires     string
	expiresUnix        int64
	link, agreementURL string
	RE, RT             string
}

func loadMPPFixture(t testing.TB) mppFixture {
	t.Helper()
	fixed := obj(t, load(t, "mpp-challenge.json"), "fixed")
	unix, _ := jsonv.AsSafeInt(get(t, fixed, "expiresUnix"))
	return mppFixture{
		H: mustHash(t, str(t, fixed, "H")), realm: str(t, fixed, "realm"), expires: str(t, fixed, "expires"),
		expiresUnix: unix, link: str(t, fixed, "link"), agreementURL: str(t, fixed, "agreementUrl"),
		RE: str(t, fixed, "R_E"), RT: str(t, fixed, "R_T"),
	}
}

// challenge is a challenge as issued: realm, method, intent, request (the
// JSON text as base64url) and expires, in the reference's member order.
func (f mppFixture) challenge(method, intent, requestJSON string) *jsonv.Object {
	return jsonv.Obj("realm", f.realm, "method", method, "intent", intent,
		"request", mpp.EncodeB64URL([]byte(requestJSON)), "expires", f.expires)
}

// placed is the challenge placed alone in its list with H and the link.
func (f mppFixture) placed(t testing.TB, c *jsonv.Object) *jsonv.Object {
	t.Helper()
	doc, err := mpp.Place([]jsonv.Value{c}, f.H, f.link, c, "")
	if err != nil {
		t.Fatalf("place: %v", err)
	}
	o, _ := jsonv.AsObject(doc[0])
	return o
}

// mppBuyerRows runs a file's buyer rows B2 (the plant: hash-mismatch and no
// signer call) and B6 (check over the held payment).
func mppBuyerRows(t *testing.T, f *jsonv.Object, key string) {
	t.Run("B2", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B2")
		in := obj(t, r, "input")
		s := newATRSeller(t)
		s.serveBytes(unhex(t, str(t, in, "servesHex")))
		account := str(t, in, "account")
		network := account[:len(account)-43]
		sg := newCountingSigner(t, key, network)
		if !strings.EqualFold(sg.Account(), account) { // a row may write the address in lower case
			t.Fatalf("signer account %s, row %s", sg.Account(), account)
		}
		var now int64 // a row that names no time builds at none (the plant never gets that far)
		if o, _ := jsonv.AsObject(in); o.Has("now") {
			now, _ = jsonv.AsSafeInt(get(t, in, "now"))
		}
		var opts *gate.TransactOptions
		if o, _ := jsonv.AsObject(in); o.Has("inputs") {
			opts = &gate.TransactOptions{Inputs: obj(t, in, "inputs")}
		}
		_, err := s.gateFor(now, nil).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), sg, opts)
		wantDecline(t, err, gate.Code(str(t, r, "expect", "decline")), "")
		if sg.calls.Load() != 0 {
			t.Fatal("the signer was called")
		}
		if s.fetches.Load() != 1 {
			t.Fatalf("%d fetches, want 1", s.fetches.Load())
		}
	})
	if !hasRow(get(t, f, "buyer", "rows"), "B6") {
		// A pairing with no signed place for H has no B6 row: the file says so.
		if _, ok := get(t, f, "buyer").(*jsonv.Object).Get("noSignedPayment"); !ok {
			t.Fatal("the file has neither a B6 row nor noSignedPayment")
		}
		return
	}
	t.Run("B6", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B6")
		presented := get(t, r, "input", "presented")
		checks := get(t, r, "input", "check").([]jsonv.Value)
		expects := get(t, r, "expect").([]jsonv.Value)
		g := &gate.Gate{}
		h, err := g.Check(unhex(t, str(t, checks[0], "bytesHex")), str(t, r, "pairing"), presented)
		if err != nil || h.String() != str(t, expects[0], "h") {
			t.Fatalf("check = %v, %v", h, err)
		}
		_, err = g.Check(unhex(t, str(t, checks[1], "bytesHex")), str(t, r, "pairing"), presented)
		wantDecline(t, err, gate.Code(str(t, expects[1], "decline")), "")
	})
}

// hasRow reports whether rows holds a row named name.
func hasRow(rows jsonv.Value, name string) bool {
	list, _ := jsonv.AsArray(rows)
	for _, r := range list {
		if o, ok := jsonv.AsObject(r); ok && mpp.String(o, "name") == name {
			return true
		}
	}
	return false
}
