package mcpserver_test

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/mcpserver"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

// TestConfirmSignFinishB6 is buyer.json's B6 through the tools: atr_confirm
// on D (the ATR A served by a loopback TLS seller), the request signed
// elsewhere with the published Anvil key, atr_finish in another process
// (the built binary, with its own seal key: finish trusts only what it
// rebuilds), then atr_check with A and with C (B7).
func TestConfirmSignFinishB6(t *testing.T) {
	f := loadFixture(t)
	s := newSeller(t, f.A)
	cs := connectHTTP(t, newServer(t, f, s, mcpserver.Config{}), nil)
	listTools(t, cs)

	c := wantOK(t, call(t, cs, "atr_confirm", f.confirmArgs()))
	h := hashOf(f.A)
	if got := strAt(t, c, "atrHash"); got != h || h != strAt(t, f.b6, "signedNonce") {
		t.Fatalf("atrHash %s, want %s", got, h)
	}
	if got := strAt(t, c, "atr", "base64"); got != base64.StdEncoding.EncodeToString(f.A) {
		t.Fatalf("atr.base64 %s", got)
	}
	if got := strAt(t, c, "atr", "utf8"); got != string(f.A) {
		t.Fatalf("atr.utf8 %q", got)
	}
	req := objAt(t, c, "request")
	if got, want := jsonv.String(valueAt(t, req, "typedData", "message")), jsonv.String(valueAt(t, f.b6, "message")); got != want {
		t.Fatalf("message\n got %s\nwant %s", got, want)
	}
	if strAt(t, req, "typedData", "message", "nonce") != h {
		t.Fatal("the request's nonce is not atrHash")
	}
	accepts, _ := jsonv.AsArray(valueAt(t, f.D, "accepts"))
	if !jsonv.Equal(valueAt(t, c, "chosen", "choice", "accepted"), accepts[0]) {
		t.Fatal("chosen.choice.accepted is not the document's option")
	}
	if mac := strAt(t, c, "chosen", "mac"); len(mac) != 66 {
		t.Fatalf("chosen.mac %q", mac)
	}
	if s.fetches.Load() != 1 {
		t.Fatalf("%d fetches", s.fetches.Load())
	}

	// Sign elsewhere: the request exactly as returned.
	key, err := signer.FromHex(signer.AnvilKey, f.network)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := key.Sign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if sig != strAt(t, f.b6, "signature") || sig != f.b6Sig {
		t.Fatalf("signature %v, want B6's", sig)
	}

	// Another server instance finishes it (nothing is shared but chosen),
	// on the vectors' clock: Finish declines a payment whose validBefore
	// has passed, and B6's is the vectors' time plus 60 s.
	other := connectHTTP(t, newServer(t, f, nil, mcpserver.Config{}), nil)
	listTools(t, other)
	finishArgs := jsonv.Obj("pairing", pairing, "atr", strAt(t, c, "atr", "base64"), "chosen", valueAt(t, c, "chosen"), "signature", sig)
	fin := wantOK(t, call(t, other, "atr_finish", finishArgs))
	if got := strAt(t, fin, "signed", "payload", "authorization", "nonce"); got != strAt(t, f.b6, "signedNonce") {
		t.Fatalf("signed nonce %s", got)
	}
	if got := strAt(t, fin, "signed", "payload", "signature"); got != sig {
		t.Fatalf("signed signature %s", got)
	}
	if fin.Has("mac") || strAt(t, fin, "atrHash") != h {
		t.Fatalf("finish result %s", jsonv.Marshal(fin))
	}
	// The same finish in the first server gives the same payment.
	fin2 := wantOK(t, call(t, cs, "atr_finish", finishArgs))
	if jsonv.String(fin2) != jsonv.String(fin) {
		t.Fatalf("two finishes differ:\n%s\n%s", jsonv.Marshal(fin), jsonv.Marshal(fin2))
	}

	signed := valueAt(t, fin, "signed")
	for _, sess := range []struct {
		name string
		r    func(string, *jsonv.Object) result
	}{
		{"http", func(tool string, a *jsonv.Object) result { return call(t, cs, tool, a) }},
		{"binary", func(tool string, a *jsonv.Object) result { return call(t, other, tool, a) }},
	} {
		ok := wantOK(t, sess.r("atr_check", jsonv.Obj("pairing", pairing, "atr", base64.StdEncoding.EncodeToString(f.A), "presented", signed)))
		if ok.Len() != 1 || strAt(t, ok, "atrHash") != h {
			t.Fatalf("%s: check(A) %s", sess.name, jsonv.Marshal(ok))
		}
		wantDecline(t, sess.r("atr_check", jsonv.Obj("pairing", pairing, "atr", base64.StdEncoding.EncodeToString(f.C), "presented", signed)),
			string(gate.SignedNotBound), gate.DetailCheckNotBound)
	}
	if s.fetches.Load() != 1 {
		t.Fatalf("finish or check fetched: %d fetches", s.fetches.Load())
	}
}

// TestConfirmMismatch: bytes that do not hash to the advertised H are
// declined with nothing to sign.
func TestConfirmMismatch(t *testing.T) {
	f := loadFixture(t)
	s := newSeller(t, f.C)
	sg := newSigner(t, f)
	cs := connectHTTP(t, newServer(t, f, s, mcpserver.Config{Signer: sg}), nil)
	listTools(t, cs)
	r := call(t, cs, "atr_confirm", f.confirmArgs())
	wantDecline(t, r, string(gate.HashMismatch), gate.DetailHashMismatch)
	if r.value.Has("request") {
		t.Fatal("a request beside a decline")
	}
	wantDecline(t, call(t, cs, "atr_transact", jsonv.Obj("pairing", pairing, "document", f.D)), string(gate.HashMismatch), gate.DetailHashMismatch)
	if sg.calls.Load() != 0 {
		t.Fatalf("the signer was called %d times", sg.calls.Load())
	}
}

// TestTransact pays D with the server's key: B6's payment in one call.
func TestTransact(t *testing.T) {
	f := loadFixture(t)
	s := newSeller(t, f.A)
	sg := newSigner(t, f)
	cs := connectHTTP(t, newServer(t, f, s, mcpserver.Config{Signer: sg}), nil)
	listTools(t, cs)
	r := wantOK(t, call(t, cs, "atr_transact", jsonv.Obj("pairing", pairing, "document", f.D)))
	if got := strAt(t, r, "signed", "payload", "signature"); got != f.b6Sig {
		t.Fatalf("signature %s", got)
	}
	if strAt(t, r, "atrHash") != hashOf(f.A) || strAt(t, r, "atr", "base64") != base64.StdEncoding.EncodeToString(f.A) {
		t.Fatalf("result %s", jsonv.Marshal(r))
	}
	if sg.calls.Load() != 1 {
		t.Fatalf("%d signer calls", sg.calls.Load())
	}
}

// TestTransactHeader: atr_transact takes the seller's header text as sent,
// as atr_read and atr_confirm do, and pays it as it pays the document; an
// unreadable header is declined before anything is fetched or signed.
func TestTransactHeader(t *testing.T) {
	f := loadFixture(t)
	s := newSeller(t, f.A)
	sg := newSigner(t, f)
	cs := connectHTTP(t, newServer(t, f, s, mcpserver.Config{Signer: sg}), nil)
	listTools(t, cs)
	r := wantOK(t, call(t, cs, "atr_transact", jsonv.Obj("pairing", pairing, "header", x402.EncodeHeader(f.D))))
	if got := strAt(t, r, "signed", "payload", "signature"); got != f.b6Sig {
		t.Fatalf("signature %s", got)
	}
	if sg.calls.Load() != 1 || s.fetches.Load() != 1 {
		t.Fatalf("%d signer calls, %d fetches", sg.calls.Load(), s.fetches.Load())
	}
	wantDecline(t, callUnchecked(t, cs, "atr_transact", jsonv.Obj("pairing", pairing, "header", "not base64!")), string(gate.OfferUnreadable), pay.DetailRequiredUnreadable)
	if r := callUnchecked(t, cs, "atr_transact", jsonv.Obj("pairing", pairing, "header", "x", "document", f.D)); !strings.Contains(r.text, "not both") {
		t.Fatalf("both: %s", r.text)
	}
	if sg.calls.Load() != 1 || s.fetches.Load() != 1 {
		t.Fatalf("after the refusals: %d signer calls, %d fetches", sg.calls.Load(), s.fetches.Load())
	}
}

// TestRead reports the offer without fetching.
func TestRead(t *testing.T) {
	f := loadFixture(t)
	s := newSeller(t, f.A)
	cs := connectHTTP(t, newServer(t, f, s, mcpserver.Config{}), nil)
	listTools(t, cs)
	r := wantOK(t, call(t, cs, "atr_read", jsonv.Obj("pairing", pairing, "document", f.D)))
	if strAt(t, r, "atrHash") != hashOf(f.A) || strAt(t, r, "link") != strAt(t, f.D, "extensions", "legalContext", "info", "legalContextUrl") {
		t.Fatalf("offer %s", jsonv.Marshal(r))
	}
	if s.fetches.Load() != 0 {
		t.Fatal("atr_read fetched")
	}
	wantDecline(t, callUnchecked(t, cs, "atr_read", jsonv.Obj("pairing", "x402/nonesuch", "document", f.D)), string(gate.PairingNotSupported), "")
}
