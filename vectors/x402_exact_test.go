package vectors_test

// x402-exact-eip155-eip3009.json: V1–V6, plant, MX, agreedRefusals, and its
// buyer rows B2 and B6.

import (
	"context"
	"fmt"
	"github.com/termsgate/termsgate/internal/evmref"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

func mustHash(t testing.TB, s string) atr.Hash {
	t.Helper()
	h, err := atr.ParseHash(s)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func wantRefusal(t testing.TB, err error, code string) {
	t.Helper()
	r, ok := err.(*rails.Refusal)
	if !ok || r.Code != code {
		t.Fatalf("want refusal %s, got %v", code, err)
	}
}

func TestX402ExactEIP3009(t *testing.T) {
	f := load(t, "x402-exact-eip155-eip3009.json")
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	O := obj(t, fixed, "O")
	payer := str(t, fixed, "payer")
	now, _ := jsonv.AsSafeInt(get(t, fixed, "now"))
	p := evm.ExactEIP3009{}
	required := jsonv.Obj("x402Version", 2, "resource", get(t, fixed, "resource"), "accepts", []jsonv.Value{O})
	choice := jsonv.Obj("required", required, "accepted", O, "from", payer, "now", now)

	var v1Signature string
	t.Run("V1", func(t *testing.T) {
		v := obj(t, f, "V1")
		u, err := p.Build(choice, nil, H)
		if err != nil {
			t.Fatal(err)
		}
		req, err := p.Request(u)
		if err != nil {
			t.Fatal(err)
		}
		td := obj(t, req, "typedData")
		for member, want := range map[string]string{"domain": "expectDomain", "message": "expectMessage"} {
			if got, w := jsonv.String(get(t, td, member)), jsonv.String(get(t, v, want)); got != w {
				t.Fatalf("%s\n got %s\nwant %s", member, got, w)
			}
		}
		typeHash := crypto.Keccak256([]byte("TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"))
		if got := "0x" + hexOf(typeHash); got != str(t, v, "expectTypeHash") {
			t.Fatalf("type hash %s", got)
		}
		parts, err := evm.TypedDataHashes(td)
		if err != nil {
			t.Fatal(err)
		}
		if ref, err := apitypesHashes(td); err != nil || ref != parts {
			t.Fatalf("go-ethereum's apitypes disagrees: %x (%v)", ref, err)
		}
		for name, c := range map[string]struct {
			got  [32]byte
			want string
		}{
			"domain separator": {parts.DomainSeparator, "expectDomainSeparator"},
			"struct hash":      {parts.StructHash, "expectStructHash"},
			"digest":           {parts.Digest, "expectDigest"},
		} {
			if got := "0x" + hexOf(c.got[:]); got != str(t, v, c.want) {
				t.Fatalf("%s %s", name, got)
			}
		}
		l, err := signer.FromHex(str(t, fixed, "payerKey"), "eip155:84532")
		if err != nil {
			t.Fatal(err)
		}
		sig, err := l.Sign(context.Background(), req)
		if err != nil || sig != str(t, v, "expectSignature") {
			t.Fatalf("signature %v (%v)", sig, err)
		}
		raw, _ := evm.HexBytes(sig.(string))
		who, _ := evm.Recover(parts.Digest, raw)
		if who.Hex() != str(t, v, "expectRecovers") {
			t.Fatalf("recovers %s", who.Hex())
		}
		topic := crypto.Keccak256([]byte("AuthorizationUsed(address,bytes32)"))
		if got := "0x" + hexOf(topic); got != str(t, v, "expectAuthorizationUsedTopic") {
			t.Fatalf("topic %s", got)
		}
		v1Signature = sig.(string)
	})

	t.Run("V2", func(t *testing.T) {
		v := obj(t, f, "V2")
		u, err := p.Build(choice, nil, H)
		if err != nil {
			t.Fatal(err)
		}
		sig := str(t, obj(t, v, "expectPayload"), "payload", "signature")
		if v1Signature != "" && sig != v1Signature {
			t.Fatal("V2's signature is not V1's")
		}
		done, err := p.Complete(u, sig, rails.Chosen{Pairing: p.ID(), Choice: choice, Ref: rails.NewRef()})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := jsonv.String(done.Signed), jsonv.String(get(t, v, "expectPayload")); got != want {
			t.Fatalf("payload\n got %s\nwant %s", got, want)
		}
		h, err := p.Bound(done.Signed)
		if err != nil || h != str(t, v, "expectBound") {
			t.Fatalf("bound %s (%v)", h, err)
		}
		upper := obj(t, v, "expectPayload").Clone()
		auth := obj(t, upper, "payload", "authorization")
		auth.Set("nonce", "0x"+strings.ToUpper(strings.TrimPrefix(H.String(), "0x")))
		if h, err := p.Bound(upper); err != nil || h != str(t, v, "boundOfUpperCaseNonce") {
			t.Fatalf("bound of upper-case nonce %s (%v)", h, err)
		}
		permit2 := obj(t, v, "expectPayload").Clone()
		obj(t, permit2, "accepted", "extra").Set("assetTransferMethod", "permit2")
		_, err = p.Bound(permit2)
		wantRefusal(t, err, str(t, v, "permit2", "expect", "code"))
	})

	t.Run("V3", func(t *testing.T) {
		for i, c := range get(t, f, "V3").([]jsonv.Value) {
			com := x402.RequestCommitment(str(t, c, "method"), str(t, c, "target"), []byte(str(t, c, "bodyUtf8")))
			if got, want := jsonv.String(com), jsonv.String(get(t, c, "expectCommitment")); got != want {
				t.Fatalf("case %d commitment\n got %s\nwant %s", i, got, want)
			}
			d := x402.IssuedDigest(com).String()
			if o, _ := jsonv.AsObject(c); o.Has("expectIssuedDigest") && d != str(t, c, "expectIssuedDigest") {
				t.Fatalf("case %d issued digest %s", i, d)
			}
			if o, _ := jsonv.AsObject(c); o.Has("expectIssuedDigestNot") && d == str(t, c, "expectIssuedDigestNot") {
				t.Fatalf("case %d: another body gave the same digest", i)
			}
		}
	})

	t.Run("V4", func(t *testing.T) {
		v := obj(t, f, "V4")
		want := str(t, v, "expectIssuedDigest")
		for _, k := range []string{"option", "reordered"} {
			if got := x402.IssuedDigest(get(t, v, k)).String(); got != want {
				t.Fatalf("%s digest %s", k, got)
			}
		}
		// The reordered option is still "one of accepts" for the build.
		re := jsonv.Obj("required", required, "accepted", get(t, v, "reordered"), "from", payer, "now", now)
		if _, err := p.Build(re, nil, H); err != nil {
			t.Fatalf("reordered option refused: %v", err)
		}
	})

	t.Run("V5", func(t *testing.T) {
		v := obj(t, f, "V5")
		adv := obj(t, v, "advertise")
		doc, err := x402.Advertise(obj(t, adv, "doc"), mustHash(t, str(t, adv, "h")), str(t, adv, "link"), "")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := jsonv.String(doc), jsonv.String(get(t, v, "expectDocument")); got != want {
			t.Fatalf("document\n got %s\nwant %s", got, want)
		}
		read, err := p.Read(get(t, v, "expectDocument"))
		if err != nil {
			t.Fatal(err)
		}
		er := obj(t, v, "expectRead")
		if read.H != str(t, er, "h") || read.Link != str(t, er, "link") || jsonv.String(read.Options) != jsonv.String(get(t, er, "options")) {
			t.Fatalf("read %+v", read)
		}
		_, err = x402.Advertise(obj(t, adv, "doc"), mustHash(t, str(t, adv, "h")), str(t, v, "httpLink", "link"), "")
		wantRefusal(t, err, str(t, v, "httpLink", "expect", "code"))
		_, err = x402.Advertise(doc, mustHash(t, str(t, adv, "h")), str(t, adv, "link")+"/other", "")
		wantRefusal(t, err, str(t, v, "conflict", "expect", "code"))
		_, err = p.Read(get(t, v, "readHttpLink", "doc"))
		wantRefusal(t, err, str(t, v, "readHttpLink", "expect", "code"))
		bad := obj(t, v, "expectDocument").Clone()
		obj(t, bad, "extensions", "legalContext", "info").Set("value", str(t, v, "readMalformed", "valueOverride"))
		_, err = p.Read(bad)
		wantRefusal(t, err, str(t, v, "readMalformed", "expect", "code"))
	})

	// v6Reader is V6's reader over one row's receipt.
	v6Reader := func(t *testing.T, receipt jsonv.Value) *fixtureReader {
		rd := obj(t, f, "V6", "reader")
		return &fixtureReader{network: str(t, rd, "network"), receipt: receipt,
			finalized: blockOf(t, str(t, rd, "finalized")), safe: blockOf(t, str(t, rd, "safe"))}
	}
	t.Run("V6", func(t *testing.T) {
		v := obj(t, f, "V6")
		ref := obj(t, v, "ref")
		for i, c := range get(t, v, "status").([]jsonv.Value) {
			wantStatus(t, p.Status(ref, v6Reader(t, get(t, c, "receipt"))), get(t, c, "expect"), fmt.Sprintf("status %d", i))
		}
		tx := jsonv.Obj("network", str(t, ref, "network"), "asset", str(t, ref, "asset"), "transaction", str(t, ref, "transaction"))
		for i, c := range get(t, v, "recover").([]jsonv.Value) {
			h, err := p.Recover(tx, v6Reader(t, get(t, c, "receipt")))
			if want, ok := get(t, c, "expect").(string); ok {
				if err != nil || h != want {
					t.Fatalf("recover %d: %s (%v)", i, h, err)
				}
				continue
			}
			wantRefusal(t, err, str(t, c, "expect", "code"))
		}
	})
	t.Run("plant", func(t *testing.T) {
		v := obj(t, f, "plant")
		wantStatus(t, p.Status(obj(t, f, "V6", "ref"), v6Reader(t, get(t, v, "receipt"))), get(t, v, "expect"), "plant")
	})

	t.Run("MX", func(t *testing.T) {
		mx := obj(t, f, "MX")
		read, err := p.Read(get(t, mx, "expectDocument"))
		if err != nil {
			t.Fatal(err)
		}
		er := obj(t, mx, "expectRead")
		if read.H != str(t, er, "h") || read.Link != str(t, er, "link") || read.Agreement != str(t, er, "agreement") {
			t.Fatalf("read %+v", read)
		}
		if len(read.Options) != 1 {
			t.Fatalf("eip3009 serves %d options of the mixed document, want 1", len(read.Options))
		}
		t.Run("advertise", func(t *testing.T) {
			// The legal context is one per document: each offer's pairing
			// places the same info, in either order, and the document
			// carries it once. The placement is x402's, whatever the pairing.
			adv := obj(t, mx, "advertise")
			h := mustHash(t, str(t, adv, "h"))
			link, agreementURL := str(t, adv, "link"), str(t, adv, "agreementUrl")
			offers := get(t, adv, "offers").([]jsonv.Value)
			for _, order := range [][]int{{0, 1}, {1, 0}} {
				doc := obj(t, adv, "doc")
				var err error
				for range order {
					if doc, err = x402.Advertise(doc, h, link, agreementURL); err != nil {
						t.Fatal(err)
					}
				}
				if got, want := jsonv.String(doc), jsonv.String(get(t, mx, "expectDocument")); got != want {
					t.Fatalf("document\n got %s\nwant %s", got, want)
				}
				for _, o := range offers {
					if !x402.OptionInDocument(obj(t, o, "option"), get(t, doc, "accepts").([]jsonv.Value)) {
						t.Fatalf("offer of %s not in the document", str(t, o, "pairing"))
					}
				}
			}
			placed, err := x402.Advertise(obj(t, adv, "doc"), h, link, agreementURL)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range get(t, mx, "conflicts").([]jsonv.Value) {
				other, _ := jsonv.AsString(get(t, c, "agreementUrl")) // null: no agreement URL
				_, err := x402.Advertise(placed, h, link, other)
				wantRefusal(t, err, str(t, c, "expect"))
			}
		})
	})

	t.Run("agreedRefusals", func(t *testing.T) {
		rows := get(t, f, "agreedRefusals", "rows").([]jsonv.Value)
		for i, r := range rows {
			code := str(t, r, "expect")
			t.Run(str(t, r, "case"), func(t *testing.T) {
				for _, err := range agreedRefusal(t, i, p, required, O, payer, now, H) {
					wantRefusal(t, err, code)
				}
			})
		}
	})

	t.Run("B2", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B2")
		in := obj(t, r, "input")
		s := newATRSeller(t)
		s.serveBytes(unhex(t, str(t, in, "servesHex")))
		sg := newCountingSigner(t, str(t, fixed, "payerKey"), "eip155:84532")
		_, err := s.gateFor(now, nil).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), sg, nil)
		wantDecline(t, err, gate.HashMismatch, "")
		if sg.calls.Load() != 0 {
			t.Fatal("signed")
		}
	})

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

// agreedRefusal makes the inputs each agreedRefusals row describes and
// returns what the pairing answered to each.
func agreedRefusal(t *testing.T, i int, p evm.ExactEIP3009, required, O *jsonv.Object, payer string, now int64, H atr.Hash) []error {
	t.Helper()
	withDoc := func(mut func(*jsonv.Object)) *jsonv.Object {
		d := required.Clone()
		mut(d)
		return d
	}
	advertised, err := x402.Advertise(required, H, "https://atr.seller.example/x", "")
	if err != nil {
		t.Fatal(err)
	}
	build := func(req *jsonv.Object, accepted jsonv.Value, from string, nowV jsonv.Value) error {
		_, err := p.Build(jsonv.Obj("required", req, "accepted", accepted, "from", from, "now", nowV), nil, H)
		return err
	}
	infoWith := func(k string, v jsonv.Value) *jsonv.Object {
		d := advertised.Clone()
		info, _ := jsonv.AsObject(get(t, d, "extensions", "legalContext", "info"))
		info.Set(k, v)
		return d
	}
	readErr := func(doc jsonv.Value) error { _, err := p.Read(doc); return err }
	optionWith := func(k string, v jsonv.Value) (*jsonv.Object, *jsonv.Object) {
		o := O.Clone()
		o.Set(k, v)
		return withDoc(func(d *jsonv.Object) { d.Set("accepts", []jsonv.Value{o}) }), o
	}
	u, err := p.Build(jsonv.Obj("required", required, "accepted", O, "from", payer, "now", now), nil, H)
	if err != nil {
		t.Fatal(err)
	}
	complete := func(sig string) error {
		_, err := p.Complete(u, sig, rails.Chosen{Ref: rails.NewRef()})
		return err
	}
	switch i {
	case 0: // accepts not a list, or over 32 options
		many := make([]jsonv.Value, 33)
		for k := range many {
			many[k] = O
		}
		notList := withDoc(func(d *jsonv.Object) { d.Set("accepts", O) })
		tooMany := withDoc(func(d *jsonv.Object) { d.Set("accepts", many) })
		return []error{
			readErr(mustAdvertise(t, notList, H)), readErr(mustAdvertise(t, tooMany, H)),
			build(notList, O, payer, jsonv.Number(now)), build(tooMany, O, payer, jsonv.Number(now)),
		}
	case 1: // link over 2048 characters
		return []error{readErr(infoWith("legalContextUrl", "https://atr.seller.example/"+strings.Repeat("a", 2048)))}
	case 2: // both spellings, different
		return []error{readErr(infoWith("legal_context_url", "https://atr.seller.example/y"))}
	case 3: // malformed from, asset, payTo, maxTimeoutSeconds or now, or amount ≥ 2^256
		var errs []error
		errs = append(errs, build(required, O, "0x1234", jsonv.Number(now)))
		errs = append(errs, build(required, O, payer, jsonv.Number(-1)))
		errs = append(errs, build(required, O, payer, "1790000000"))
		for k, v := range map[string]jsonv.Value{
			"asset": "0xnothex", "payTo": "0x209693Bc6afc0C5328bA36FaF03C514EF312287", "maxTimeoutSeconds": jsonv.Number(0),
			"amount": "115792089237316195423570985008687907853269984665640564039457584007913129639936",
		} {
			doc, o := optionWith(k, v)
			errs = append(errs, build(doc, o, payer, jsonv.Number(now)))
		}
		return errs
	case 4: // nonce not 0x and 64 hex: H is a typed 32-byte hash, so the
		// refusal can only come from the read-back of a payment.
		v2 := obj(t, load(t, "x402-exact-eip155-eip3009.json"), "V2", "expectPayload").Clone()
		obj(t, v2, "payload", "authorization").Set("nonce", "0x1234")
		_, err := p.Bound(v2)
		return []error{err}
	case 5: // signature outside 65..8192 bytes
		return []error{complete("0x" + strings.Repeat("ab", 64)), complete("0x" + strings.Repeat("ab", 8193))}
	case 6: // bound: signature over 8192 bytes, or not 0x + even hex
		var errs []error
		for _, sig := range []string{"0x" + strings.Repeat("ab", 8193), "0xabc", "abcd"} {
			v2 := obj(t, load(t, "x402-exact-eip155-eip3009.json"), "V2", "expectPayload").Clone()
			obj(t, v2, "payload").Set("signature", sig)
			_, err := p.Bound(v2)
			errs = append(errs, err)
		}
		return errs
	}
	t.Fatalf("no inputs for agreedRefusals row %d", i)
	return nil
}

func mustAdvertise(t *testing.T, doc *jsonv.Object, h atr.Hash) *jsonv.Object {
	t.Helper()
	out, err := x402.Advertise(doc, h, "https://atr.seller.example/x", "")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// apitypesHashes is go-ethereum's apitypes' reading of td (internal/evmref),
// the reference the gate's own EIP-712 hashing is held to.
func apitypesHashes(td *jsonv.Object) (evm.TypedDataParts, error) {
	var p evm.TypedDataParts
	var err error
	p.DomainSeparator, p.StructHash, p.Digest, err = evmref.Hashes(td)
	return p, err
}
