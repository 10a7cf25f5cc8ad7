package vectors_test

// card.json: C1 (advertise, the option digests), C2 (the TAP request, its
// signature base byte for byte, the vector's Ed25519 signature made again
// with RFC 9421's test key), C3, C4 (disclosure digests), vi (the layers'
// printed digests), C5 (VI read and build), C6 (Immediate bound and its
// plant), C7 (Autonomous bound, flipped signature, missing disclosure), C8
// (seller-reference signs nothing), C9 (two payer signatures), every agreed
// refusal built as its case says, and the buyer rows B2 and B6 through the
// gate.

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/card"
	"github.com/termsgate/termsgate/rails/sdjwt"
	"github.com/termsgate/termsgate/signer"
)

// viLayer is a layer taken apart: header, payload, signature text and
// disclosures, so that a case can change one piece and put it back.
type viLayer struct {
	header, payload *jsonv.Object
	sig             string
	disclosures     []string
}

func splitLayer(t *testing.T, s string) viLayer {
	t.Helper()
	parts := strings.Split(s, "~")
	jws := strings.Split(parts[0], ".")
	dec := func(p string) *jsonv.Object {
		b, err := base64.RawURLEncoding.DecodeString(p)
		if err != nil {
			t.Fatal(err)
		}
		v, err := jsonv.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		o, _ := jsonv.AsObject(v)
		return o
	}
	return viLayer{header: dec(jws[0]), payload: dec(jws[1]), sig: jws[2], disclosures: parts[1 : len(parts)-1]}
}

func (l viLayer) String() string {
	e := func(o *jsonv.Object) string { return base64.RawURLEncoding.EncodeToString(jsonv.Marshal(o)) }
	out := e(l.header) + "." + e(l.payload) + "." + l.sig + "~"
	for _, d := range l.disclosures {
		out += d + "~"
	}
	return out
}

func TestCard(t *testing.T) {
	f := load(t, "card.json")
	fixed := obj(t, f, "fixed")
	H := str(t, fixed, "H")
	E := str(t, fixed, "E")
	link := str(t, fixed, "link")
	vi := obj(t, f, "vi")
	tap, imm, auto, ref := card.VisaTAP{}, card.VIImmediate{}, card.VIAutonomous{}, card.SellerReference{}
	pairings := map[string]rails.Pairing{card.VisaTAPID: tap, card.VIImmediateID: imm, card.VIAutonomousID: auto, card.SellerReferenceID: ref}

	t.Run("C1", func(t *testing.T) {
		c1 := obj(t, f, "C1")
		offer := obj(t, c1, "advertise", "offer")
		v, err := card.Advertise(H, link, offer, "")
		if err != nil {
			t.Fatal(err)
		}
		want := obj(t, c1, "advertise", "expect")
		if string(jsonv.Canonical(v.LegalContext)) != string(jsonv.Canonical(get(t, want, "legalContext"))) ||
			v.Reference != str(t, want, "reference") || jsonv.Number(len(v.Reference)) != get(t, c1, "advertise", "referenceLength") {
			t.Fatalf("advertised %s %s", jsonv.Marshal(v.LegalContext), v.Reference)
		}
		// Equal for every card pairing's scheme.
		for _, s := range get(t, c1, "otherSchemes").([]jsonv.Value) {
			o := offer.Clone()
			o.Set("scheme", s)
			w, err := card.Advertise(H, link, o, "")
			if err != nil || string(jsonv.Canonical(w.LegalContext)) != string(jsonv.Canonical(v.LegalContext)) || w.Reference != v.Reference {
				t.Fatalf("%v: %v", s, err)
			}
			if len(card.PairingsOf(o)) == 0 {
				t.Fatalf("%v offers no pairing", s)
			}
		}
		_, err = card.Advertise(H, str(t, c1, "httpLink", "link"), offer, "")
		wantRefusal(t, err, str(t, c1, "httpLink", "expect"))
		for _, dv := range get(t, c1, "digestJson").([]jsonv.Value) {
			if d := card.OptionDigest(obj(t, dv, "option")); d.String() != str(t, dv, "expect") {
				t.Fatalf("digest %s", d)
			}
		}
		// The shown legal context reads back for TAP and the plain checkout.
		doc := jsonv.Obj("legalContext", v.LegalContext)
		for _, p := range []rails.Pairing{tap, ref} {
			r, err := p.Read(doc)
			if err != nil || r.H != H || r.Link != link || r.Agreement != "" {
				t.Fatalf("%s read %+v %v", p.ID(), r, err)
			}
		}
		// The agreement URL follows the link when given, and reads back.
		const agreement = "https://pay.seller.example/agreement"
		w, err := card.Advertise(H, link, offer, agreement)
		if err != nil || w.LegalContext.Keys()[3] != "legalContextAgreementUrl" {
			t.Fatalf("with agreement %v", err)
		}
		if r, err := tap.Read(jsonv.Obj("legalContext", w.LegalContext)); err != nil || r.Agreement != agreement {
			t.Fatalf("agreement read %+v %v", r, err)
		}
	})

	c2 := obj(t, f, "C2")
	req2 := obj(t, c2, "request")
	t.Run("C2", func(t *testing.T) {
		h, err := tap.Bound(req2)
		if err != nil || h != str(t, c2, "expectBound") {
			t.Fatalf("bound %s %v", h, err)
		}
		up := req2.Clone()
		up.Set("lcpHash", get(t, c2, "upperCaseField", "lcpHash"))
		if h, err := tap.Bound(up); err != nil || h != str(t, c2, "upperCaseField", "expectBound") {
			t.Fatalf("upper case %s %v", h, err)
		}
		rep := req2.Clone()
		rep.Set("lcpHash", get(t, c2, "repeatedField", "lcpHash"))
		_, err = tap.Bound(rep)
		wantRefusal(t, err, str(t, c2, "repeatedField", "expect"))
		// The signature base of sig2, byte for byte, and its digest.
		sp := card.TAPParams{Label: "sig2", KeyID: "test-key-ed25519", Created: 1790000000, Expires: 1790000480, Nonce: "bm9uY2UtMQ",
			Authority: str(t, req2, "authority"), Path: str(t, req2, "path")}
		base, ok := card.SignatureBase([]string{"@authority", "@path", "lcp-hash"},
			map[string]string{"@authority": sp.Authority, "@path": sp.Path, "lcp-hash": H}, sp.SignatureParams())
		if !ok || base != str(t, c2, "sig2Base") {
			t.Fatalf("base\n%s\nwant\n%s", base, str(t, c2, "sig2Base"))
		}
		if sum := sha256.Sum256([]byte(base)); hex.EncodeToString(sum[:]) != str(t, c2, "expectSig2BaseSha256") {
			t.Fatal("base digest")
		}
		// RFC 9421's test key is the vector's key, and signs sig2 again to the same bytes.
		key, err := signer.Ed25519FromPEM(signer.RFC9421TestKeyEd25519)
		if err != nil {
			t.Fatal(err)
		}
		spki, _ := base64.StdEncoding.DecodeString(str(t, c2, "testKeyEd25519Spki"))
		pubAny, err := x509.ParsePKIXPublicKey(spki)
		pub, _ := pubAny.(ed25519.PublicKey)
		if err != nil || !pub.Equal(key.Public()) {
			t.Fatal("the RFC 9421 test key is not the vector's")
		}
		signed, err := card.SignTAP(key, sp, H)
		if err != nil {
			t.Fatal(err)
		}
		sigField := str(t, req2, "signature")
		want2 := sigField[strings.Index(sigField, "sig2="):]
		if s, _ := signed.GetString("signature"); s != want2 {
			t.Fatalf("signature %s\nwant %s", s, want2)
		}
		if h, ok := card.VerifyTAP(req2, sp.Authority, sp.Path, pub, 1790000100); !ok || h != H {
			t.Fatal("the vector's request does not verify")
		}
		if _, ok := card.VerifyTAP(req2, "other.example", sp.Path, pub, 1790000100); ok {
			t.Fatal("verified for another authority")
		}
		if _, ok := card.VerifyTAP(req2, sp.Authority, sp.Path, pub, 1790000481); ok {
			t.Fatal("verified after expires")
		}
		b, err := card.TAPBuild(H)
		if err != nil || string(jsonv.Canonical(b)) != string(jsonv.Canonical(get(t, c2, "build", "expect"))) {
			t.Fatalf("build %s %v", jsonv.Marshal(b), err)
		}
		r, err := tap.Read(get(t, c2, "build", "doc"))
		if err != nil || r.H != H {
			t.Fatalf("read %v", err)
		}
	})
	t.Run("C3", func(t *testing.T) {
		c3 := obj(t, f, "C3")
		_, err := tap.Bound(jsonv.Obj("signatureInput", get(t, c3, "signatureInput"), "signature", get(t, c3, "signature"), "lcpHash", get(t, c3, "lcpHash")))
		wantRefusal(t, err, str(t, c3, "expect"))
	})
	t.Run("C4", func(t *testing.T) {
		for _, v := range get(t, f, "C4").([]jsonv.Value) {
			if d := sdjwt.Digest(str(t, v, "disclosure")); d != str(t, v, "expect") {
				t.Fatalf("digest %s", d)
			}
		}
	})
	t.Run("vi", func(t *testing.T) {
		pr := obj(t, vi, "printed")
		l2i, l2a, l3b := splitLayer(t, str(t, vi, "L2i")), splitLayer(t, str(t, vi, "L2a")), splitLayer(t, str(t, vi, "L3b"))
		for k, got := range map[string]string{
			"CH": sdjwt.Digest(str(t, vi, "CJ")), "D(L1)": sdjwt.Digest(str(t, vi, "L1")), "D(L2a)": sdjwt.Digest(str(t, vi, "L2a")),
			"D(dc)": sdjwt.Digest(l2i.disclosures[0]), "D(dp)": sdjwt.Digest(l2i.disclosures[1]),
			"D(dco)": sdjwt.Digest(l2a.disclosures[0]), "D(d3)": sdjwt.Digest(l3b.disclosures[0]),
		} {
			if got != str(t, pr, k) {
				t.Errorf("%s = %s, want %s", k, got, str(t, pr, k))
			}
		}
		// L2a withholds its open payment mandate: its digest is only listed.
		if sd := string(jsonv.Marshal(get(t, l2a.payload, "_sd"))); !strings.Contains(sd, str(t, pr, "D(dpo)")) || len(l2a.disclosures) != 1 {
			t.Fatalf("D(dpo) not listed in L2a's _sd %s", sd)
		}
		// L2i and L2a verify under USER, L3b under AGENT.
		for _, c := range []struct{ layer, key string }{{"L2i", "USER"}, {"L2a", "USER"}, {"L3b", "AGENT"}} {
			pub, ok := card.PublicKeyOf(obj(t, fixed, c.key))
			p, err := sdjwt.Parse(str(t, vi, c.layer))
			if !ok || err != nil {
				t.Fatalf("%s: %v", c.layer, err)
			}
			sum := sha256.Sum256([]byte(p.Issuer.Signed))
			if !ecdsa.VerifyASN1(pub, sum[:], asn1Sig(p.Issuer.Signature)) {
				t.Fatalf("%s does not verify under %s", c.layer, c.key)
			}
		}
	})
	t.Run("C5", func(t *testing.T) {
		c5 := obj(t, f, "C5")
		for _, p := range []rails.Pairing{imm, auto} {
			r, err := p.Read(get(t, c5, "read", "doc"))
			if err != nil || r.H != str(t, c5, "read", "expect", "h") || r.Link != str(t, c5, "read", "expect", "link") {
				t.Fatalf("%s read %+v %v", p.ID(), r, err)
			}
		}
		b, err := card.VIBuild(get(t, c5, "read", "doc"), str(t, c5, "build", "h"))
		if err != nil || string(jsonv.Marshal(b)) != string(jsonv.Marshal(get(t, c5, "build", "expect"))) {
			t.Fatalf("build %s %v", jsonv.Marshal(b), err)
		}
		_, err = card.VIBuild(get(t, c5, "read", "doc"), str(t, c5, "conflict", "h"))
		wantRefusal(t, err, str(t, c5, "conflict", "expect"))
	})
	t.Run("C6", func(t *testing.T) {
		c6 := obj(t, f, "C6")
		if h, err := imm.Bound(get(t, c6, "bound", "presented")); err != nil || h != str(t, c6, "bound", "expect") {
			t.Fatalf("bound %s %v", h, err)
		}
		h, err := imm.Bound(get(t, c6, "plant", "presented"))
		if str(t, c6, "plant", "never") != E || h == E {
			t.Fatal("the plant's hash was read")
		}
		wantRefusal(t, err, str(t, c6, "plant", "expect"))
	})
	t.Run("C7", func(t *testing.T) {
		c7 := obj(t, f, "C7")
		if h, err := auto.Bound(get(t, c7, "bound", "presented")); err != nil || h != str(t, c7, "bound", "expect") {
			t.Fatalf("bound %s %v", h, err)
		}
		for _, k := range []string{"flippedSignature", "withoutDco"} {
			_, err := auto.Bound(get(t, c7, k, "presented"))
			wantRefusal(t, err, str(t, c7, k, "expect"))
		}
	})
	t.Run("C8", func(t *testing.T) {
		c8 := obj(t, f, "C8")
		if get(t, c8, "buyerSigns") != false {
			t.Fatal("buyerSigns")
		}
		for _, in := range get(t, c8, "inputs").([]jsonv.Value) {
			_, err := ref.Bound(in)
			wantRefusal(t, err, str(t, c8, "expect"))
		}
		_, err := ref.Build(jsonv.Obj("doc", get(t, c8, "inputs").([]jsonv.Value)[2]), nil, mustHash(t, H))
		wantRefusal(t, err, str(t, c8, "expect"))
	})
	t.Run("C9", func(t *testing.T) {
		for _, rv := range get(t, f, "C9", "rows").([]jsonv.Value) {
			r, _ := jsonv.AsObject(rv)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				h, err := tap.Bound(jsonv.Obj("signatureInput", get(t, r, "signatureInput"), "signature", get(t, r, "signature"), "lcpHash", get(t, r, "lcpHash")))
				if e, ok := get(t, r, "expect").(string); ok {
					if err != nil || h != e {
						t.Fatalf("bound %s %v", h, err)
					}
					return
				}
				wantRefusal(t, err, str(t, r, "expect", "code"))
			})
		}
	})
	t.Run("agreedRefusals", func(t *testing.T) {
		cases := cardRefusalCases(t, f)
		for _, rv := range get(t, f, "agreedRefusals", "rows").([]jsonv.Value) {
			r, _ := jsonv.AsObject(rv)
			name := str(t, r, "case")
			t.Run(name, func(t *testing.T) {
				run, ok := cases[name]
				if !ok {
					t.Fatalf("no test for the case %q", name)
				}
				errs := run(t)
				if len(errs) == 0 {
					t.Fatal("the case tried nothing")
				}
				for _, err := range errs {
					wantRefusal(t, err, str(t, r, "expect"))
				}
			})
		}
	})
	t.Run("buyer", func(t *testing.T) {
		for _, rv := range get(t, f, "buyer", "rows").([]jsonv.Value) {
			r, _ := jsonv.AsObject(rv)
			pairing := str(t, r, "pairing")
			p := pairings[pairing]
			reg := rails.NewRegistry(p)
			t.Run(str(t, r, "name")+"/"+pairing, func(t *testing.T) {
				in := obj(t, r, "input")
				switch str(t, r, "name") {
				case "B2":
					s := newATRSeller(t)
					s.serveBytes(unhex(t, str(t, in, "servesHex")))
					sg := newCountingSigner(t, signer.AnvilKey, "eip155:84532")
					if sg.Account() != str(t, in, "account") {
						t.Fatalf("account %s", sg.Account())
					}
					_, err := s.gateFor(1790000000, reg).Transact(context.Background(), get(t, in, "doc"), pairing, sg, nil)
					wantDecline(t, err, gate.Code(str(t, r, "expect", "decline")), "")
					if sg.calls.Load() != 0 || s.fetches.Load() != 1 {
						t.Fatalf("%d signer calls, %d fetches", sg.calls.Load(), s.fetches.Load())
					}
				case "B6":
					checks := get(t, in, "check").([]jsonv.Value)
					expects := get(t, r, "expect").([]jsonv.Value)
					g := &gate.Gate{Pairings: reg}
					h, err := g.Check(unhex(t, str(t, checks[0], "bytesHex")), pairing, get(t, in, "presented"))
					if err != nil || h.String() != str(t, expects[0], "h") {
						t.Fatalf("check = %v, %v", h, err)
					}
					_, err = g.Check(unhex(t, str(t, checks[1], "bytesHex")), pairing, get(t, in, "presented"))
					wantDecline(t, err, gate.Code(str(t, expects[1], "decline")), "")
				default:
					t.Fatalf("row %s", str(t, r, "name"))
				}
			})
		}
		if _, ok := obj(t, f, "buyer", "noSignedPayment").GetString(card.SellerReferenceID); !ok {
			t.Fatal("seller-reference has a B6 row now")
		}
	})
}

// asn1Sig turns r‖s into the ASN.1 form ecdsa.VerifyASN1 reads.
func asn1Sig(rs []byte) []byte {
	enc := func(b []byte) []byte {
		for len(b) > 1 && b[0] == 0 {
			b = b[1:]
		}
		if b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return append([]byte{2, byte(len(b))}, b...)
	}
	if len(rs) != 64 {
		return nil
	}
	body := append(enc(rs[:32]), enc(rs[32:])...)
	return append([]byte{0x30, byte(len(body))}, body...)
}

// viChain is a whole Autonomous chain made with fresh keys, for the cases
// whose change must keep the signatures below it valid.
type viChain struct {
	issuer, user, agent *ecdsa.PrivateKey
	l1, l2, l3b         string
}

func newVIChain(t *testing.T, checkoutJWT string, l1 func(user *ecdsa.PrivateKey) string, opens int) viChain {
	t.Helper()
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	c := viChain{issuer: key(), user: key(), agent: key()}
	var err error
	if l1 != nil {
		c.l1 = l1(c.user)
	} else if c.l1, err = card.IssueL1(c.issuer, "https://issuer.example", "user-1", &c.user.PublicKey, 1790000000, 1821536000, "1234", "Mastercard"); err != nil {
		t.Fatal(err)
	}
	merchant := jsonv.Obj("id", "m-1001", "name", "Seller Example", "website", "https://seller.example")
	var open []*jsonv.Object
	for i := 0; i < opens; i++ {
		o, err := card.OpenCheckoutMandate(&c.agent.PublicKey, "agent-1", merchant)
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, o)
	}
	if opens == 0 { // a layer has at least one disclosure: one that is no open checkout mandate
		open = append(open, jsonv.Obj("vct", "mandate.payment.open.1", "payee", merchant))
	}
	if c.l2, err = card.Layer(c.user, jsonv.Obj("alg", "ES256", "typ", card.TypUserDelegate),
		card.LayerClaims("n2", "https://agent.example", 1790000000, 1792592000, c.l1), open...); err != nil {
		t.Fatal(err)
	}
	m := jsonv.Obj("vct", card.CheckoutVct, "checkout_jwt", checkoutJWT, "checkout_hash", sdjwt.Digest(checkoutJWT))
	if c.l3b, err = card.Layer(c.agent, jsonv.Obj("alg", "ES256", "typ", card.TypUser, "kid", "agent-1"),
		card.LayerClaims("n3", "https://seller.example", 1790000100, 1790000400, c.l2), m); err != nil {
		t.Fatal(err)
	}
	return c
}

func (c viChain) presented() *jsonv.Object { return jsonv.Obj("l1", c.l1, "l2", c.l2, "l3b", c.l3b) }

// cardRefusalCases builds each agreed refusal's case, as its words say, and
// returns the refusals it got.
func cardRefusalCases(t *testing.T, f *jsonv.Object) map[string]func(t *testing.T) []error {
	H := str(t, f, "fixed", "H")
	link := str(t, f, "fixed", "link")
	offer := obj(t, f, "C1", "advertise", "offer")
	vi := obj(t, f, "vi")
	CJ := str(t, vi, "CJ")
	req2 := obj(t, f, "C2", "request")
	c6 := get(t, f, "C6", "bound", "presented")
	c7 := obj(t, f, "C7", "bound", "presented")
	tap, imm, auto := card.VisaTAP{}, card.VIImmediate{}, card.VIAutonomous{}
	longLink := "https://atr.seller.example/" + strings.Repeat("a", 2048)
	shown := func(lc *jsonv.Object) *jsonv.Object { return jsonv.Obj("legalContext", lc) }
	lc := func(link string) *jsonv.Object {
		return jsonv.Obj("type", "sha256", "value", H, "legalContextUrl", link)
	}
	tapWith := func(set ...any) *jsonv.Object {
		o := req2.Clone()
		for i := 0; i+1 < len(set); i += 2 {
			o.Set(set[i].(string), jsonv.Obj("v", set[i+1]).Members()[0].Value)
		}
		return o
	}
	si := str(t, req2, "signatureInput")
	readErr := func(p rails.Pairing, doc jsonv.Value) error { _, err := p.Read(doc); return err }
	boundErr := func(p rails.Pairing, v jsonv.Value) error { _, err := p.Bound(v); return err }
	buildErr := func(doc jsonv.Value) error { _, err := card.VIBuild(doc, H); return err }
	jwtOf := func(payload string) string {
		return "eyJhbGciOiJFUzI1NiJ9." + base64.RawURLEncoding.EncodeToString([]byte(payload)) + ".c2ln"
	}
	l2i := func(t *testing.T) viLayer { return splitLayer(t, str(t, c6.(*jsonv.Object), "l2")) }
	return map[string]func(t *testing.T) []error{
		"advertise with a link over 2048 characters": func(t *testing.T) []error {
			_, err := card.Advertise(H, longLink, offer, "")
			return []error{err}
		},
		"advertise or TAP build with a hash that is not 0x and 64 hex digits": func(t *testing.T) []error {
			_, e1 := card.Advertise("0x"+strings.Repeat("g", 64), link, offer, "")
			_, e2 := card.Advertise(H[2:], link, offer, "")
			_, e3 := card.TAPBuild(H + "00")
			return []error{e1, e2, e3}
		},
		"read of shown JSON that is not an object, or has no legalContext member": func(t *testing.T) []error {
			return []error{readErr(tap, "text"), readErr(tap, []jsonv.Value{}), readErr(card.SellerReference{}, jsonv.Obj("x", 1))}
		},
		"read with a legalContext whose link is not https": func(t *testing.T) []error {
			return []error{readErr(tap, shown(lc("http://atr.seller.example/x"))), readErr(imm, jwtOf(`{"legalContext":`+string(jsonv.Marshal(lc("http://a.example/")))+`}`))}
		},
		"read with a legalContext whose link is over 2048 characters": func(t *testing.T) []error {
			return []error{readErr(tap, shown(lc(longLink)))}
		},
		"VI read or build of a checkout_jwt that is not a string of three dot-separated visible-ASCII segments whose second decodes to a JSON object": func(t *testing.T) []error {
			parts := strings.Split(CJ, ".")
			return []error{readErr(imm, 42), readErr(imm, parts[0]+"."+parts[1]), buildErr(jwtOf(`[1]`)),
				buildErr(parts[0] + ".!!." + parts[2]), readErr(auto, CJ+" "), buildErr(CJ + ".x")}
		},
		"VI read or build of a checkout_jwt over 16384 characters": func(t *testing.T) []error {
			big := jwtOf(`{"pad":"` + strings.Repeat("a", 16400) + `"}`)
			return []error{readErr(imm, big), buildErr(big)}
		},
		"TAP bound with presented not an object, or signatureInput not a string": func(t *testing.T) []error {
			return []error{boundErr(tap, "x"), boundErr(tap, tapWith("signatureInput", jsonv.Number(1))), boundErr(tap, jsonv.Obj())}
		},
		"TAP bound with signatureInput or signature over 8192 characters, a dictionary over 16 members, or an inner list over 32 items": func(t *testing.T) []error {
			var members, items []string
			for i := 0; i < 17; i++ {
				members = append(members, "s"+string(rune('a'+i))+`=("@path")`)
			}
			for i := 0; i < 33; i++ {
				items = append(items, `"@path"`)
			}
			return []error{
				boundErr(tap, tapWith("signatureInput", si+strings.Repeat(" ", 8192))),
				boundErr(tap, tapWith("signature", str(t, req2, "signature")+strings.Repeat(" ", 8192))),
				boundErr(tap, tapWith("signatureInput", strings.Join(members, ", "))),
				boundErr(tap, tapWith("signatureInput", "sig2=("+strings.Join(items, " ")+`);tag="agent-payer-auth"`)),
			}
		},
		"TAP bound with a Decimal, Date or Display String anywhere, or a Byte Sequence parameter, in signatureInput": func(t *testing.T) []error {
			return []error{
				boundErr(tap, tapWith("signatureInput", strings.Replace(si, "created=1790000000", "created=1790000000.5", 1))),
				boundErr(tap, tapWith("signatureInput", strings.Replace(si, "created=1790000000", "created=@1790000000", 1))),
				boundErr(tap, tapWith("signatureInput", strings.Replace(si, `nonce="bm9uY2UtMQ"`, `nonce=%"bm9uY2UtMQ"`, 1))),
				boundErr(tap, tapWith("signatureInput", strings.Replace(si, `nonce="bm9uY2UtMQ"`, `nonce=:bm9uY2UtMQ==:`, 1))),
			}
		},
		"TAP bound with tag=agent-payer-auth as a Token rather than a String": func(t *testing.T) []error {
			return []error{boundErr(tap, tapWith("signatureInput", strings.ReplaceAll(si, `tag="agent-payer-auth"`, `tag=agent-payer-auth`)))}
		},
		"TAP bound with lcpHash not an array, or a line that is not a string": func(t *testing.T) []error {
			return []error{boundErr(tap, tapWith("lcpHash", H)), boundErr(tap, tapWith("lcpHash", []jsonv.Value{jsonv.Number(1)}))}
		},
		"TAP bound with the one lcp-hash line over 256 characters": func(t *testing.T) []error {
			return []error{boundErr(tap, tapWith("lcpHash", []jsonv.Value{H + strings.Repeat(" ", 200)}))}
		},
		"VI bound with a layer over 65536 characters or over 32 disclosures": func(t *testing.T) []error {
			l := l2i(t)
			many := l
			for i := 0; i < 33; i++ {
				many.disclosures = append(many.disclosures, l.disclosures[0])
			}
			huge := str(t, c6.(*jsonv.Object), "l2") + strings.Repeat("A", 65536) + "~"
			return []error{boundErr(imm, jsonv.Obj("l2", huge)), boundErr(imm, jsonv.Obj("l2", many.String())),
				boundErr(auto, jsonv.Obj("l1", str(t, c7, "l1"), "l2", str(t, c7, "l2")+strings.Repeat("A", 65536), "l3b", str(t, c7, "l3b")))}
		},
		"VI bound with an L2 or L3b layer that has no disclosure or a non-empty last part": func(t *testing.T) []error {
			l := l2i(t)
			none := l
			none.disclosures = nil
			s := l.String()
			return []error{boundErr(imm, jsonv.Obj("l2", none.String())), boundErr(imm, jsonv.Obj("l2", s+"eyJhbGciOiJFUzI1NiJ9.e30.c2ln")),
				boundErr(auto, jsonv.Obj("l1", str(t, c7, "l1"), "l2", str(t, c7, "l2"), "l3b", strings.TrimSuffix(str(t, c7, "l3b"), "~")))}
		},
		`VI bound with a layer payload lacking _sd_alg sha-256 or a delegate_payload array of {"...": string} entries`: func(t *testing.T) []error {
			noAlg := l2i(t)
			noAlg.payload.Delete("_sd_alg")
			otherAlg := l2i(t)
			otherAlg.payload.Set("_sd_alg", "sha-512")
			noList := l2i(t)
			refs, _ := noList.payload.Get("delegate_payload")
			noList.payload.Delete("delegate_payload")
			noList.payload.Set("mandates", refs)
			extra := l2i(t)
			dp, _ := extra.payload.Get("delegate_payload")
			extra.payload.Set("delegate_payload", append(append([]jsonv.Value{}, dp.([]jsonv.Value)...), jsonv.Number(5)))
			plain := l2i(t)
			plain.payload.Set("delegate_payload", append(append([]jsonv.Value{}, dp.([]jsonv.Value)...), jsonv.Obj("x", "y")))
			var errs []error
			for _, l := range []viLayer{noAlg, otherAlg, noList, extra, plain} {
				errs = append(errs, boundErr(imm, jsonv.Obj("l2", l.String())))
			}
			return errs
		},
		"VI bound with two referenced mandate.checkout.1 values": func(t *testing.T) []error {
			key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			m := jsonv.Obj("vct", card.CheckoutVct, "checkout_jwt", CJ, "checkout_hash", sdjwt.Digest(CJ))
			l2, err := card.Layer(key, jsonv.Obj("alg", "ES256", "typ", card.TypUser), card.LayerClaims("n", "a", 1, 2, "x"), m, m.Clone())
			if err != nil {
				t.Fatal(err)
			}
			return []error{boundErr(imm, jsonv.Obj("l2", l2))}
		},
		"VI Autonomous bound with an L3b header lacking a string kid": func(t *testing.T) []error {
			l := splitLayer(t, str(t, c7, "l3b"))
			l.header.Delete("kid")
			n := splitLayer(t, str(t, c7, "l3b"))
			n.header.Set("kid", jsonv.Number(1))
			return []error{boundErr(auto, jsonv.Obj("l1", str(t, c7, "l1"), "l2", str(t, c7, "l2"), "l3b", l.String())),
				boundErr(auto, jsonv.Obj("l1", str(t, c7, "l1"), "l2", str(t, c7, "l2"), "l3b", n.String()))}
		},
		"VI Autonomous bound with no, or more than one, referenced mandate.checkout.open.1 in L2, or an L1 cnf.jwk that is not EC P-256": func(t *testing.T) []error {
			none := newVIChain(t, CJ, nil, 0)
			two := newVIChain(t, CJ, nil, 2)
			rsa := newVIChain(t, CJ, func(*ecdsa.PrivateKey) string {
				p := jsonv.Obj("sub", "user-1", "cnf", jsonv.Obj("jwk", jsonv.Obj("kty", "RSA", "n", "AQAB", "e", "AQAB")), "_sd_alg", "sha-256")
				return "eyJhbGciOiJFUzI1NiJ9." + base64.RawURLEncoding.EncodeToString(jsonv.Marshal(p)) + ".c2ln~"
			}, 1)
			if _, err := auto.Bound(newVIChain(t, CJ, nil, 1).presented()); err != nil {
				t.Fatalf("the chain itself does not read: %v", err)
			}
			return []error{boundErr(auto, none.presented()), boundErr(auto, two.presented()), boundErr(auto, rsa.presented())}
		},
		"VI Autonomous bound with L2's sd_hash not the digest of l1": func(t *testing.T) []error {
			other := newVIChain(t, CJ, nil, 1)
			return []error{boundErr(auto, jsonv.Obj("l1", other.l1, "l2", str(t, c7, "l2"), "l3b", str(t, c7, "l3b")))}
		},
		"VI Autonomous bound with an L2 signature that does not verify under L1's cnf.jwk": func(t *testing.T) []error {
			// L1 binds a key that is not the one L2 was signed with.
			c := newVIChain(t, CJ, func(*ecdsa.PrivateKey) string {
				issuer, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
				someone, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
				l1, err := card.IssueL1(issuer, "https://issuer.example", "user-1", &someone.PublicKey, 1, 2, "1234", "Mastercard")
				if err != nil {
					t.Fatal(err)
				}
				return l1
			}, 1)
			return []error{boundErr(auto, c.presented())}
		},
	}
}
