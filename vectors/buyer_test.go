package vectors_test

// buyer.json: the gate's own rows B1–B18 and BE1 (this file), BA1–BA11 and BE2
// (the agreement exchange), BS1, BS2, BX1 (other pairings' rows).

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
)

type buyerFixture struct {
	file     *jsonv.Object
	A, C     []byte
	hashC    string
	D        *jsonv.Object
	key      string
	account  string
	now      int64
	network  string
	vectorB6 *jsonv.Object // B6's expect
}

func loadBuyer(t *testing.T) *buyerFixture {
	t.Helper()
	f := load(t, "buyer.json")
	fixed := obj(t, f, "fixed")
	now, _ := jsonv.AsSafeInt(get(t, fixed, "now"))
	account := str(t, fixed, "account")
	return &buyerFixture{
		file:     f,
		A:        unhex(t, str(t, fixed, "A")),
		C:        unhex(t, str(t, fixed, "C")),
		hashC:    str(t, fixed, "hashC"),
		D:        obj(t, fixed, "D"),
		key:      str(t, fixed, "payerKey"),
		account:  account,
		now:      now,
		network:  account[:strings.LastIndex(account, ":")],
		vectorB6: obj(t, row(t, get(t, f, "rows"), "B6"), "expect"),
	}
}

func (f *buyerFixture) row(t *testing.T, name string) *jsonv.Object {
	return row(t, get(t, f.file, "rows"), name)
}

// docWith returns a copy of D with extensions[name] = ext.
func (f *buyerFixture) docWith(name string, ext jsonv.Value) *jsonv.Object {
	d := f.D.Clone()
	exts, _ := d.GetObject("extensions")
	exts.Set(name, ext)
	return d
}

// docWithLink returns a copy of D whose legalContextUrl is link.
func (f *buyerFixture) docWithLink(link string) *jsonv.Object {
	d := f.D.Clone()
	exts, _ := d.GetObject("extensions")
	lc, _ := exts.GetObject("legalContext")
	info, _ := lc.GetObject("info")
	info.Set("legalContextUrl", link)
	return d
}

const pairing = evm.ExactEIP3009ID

// stub is a pairing that behaves as x402/exact/eip155/eip3009 except where a
// row describes the stub's behaviour.
type stub struct {
	evm.ExactEIP3009
	id          string
	read        func(rails.Read) rails.Read
	bound       string
	buildSaw    string
	publicProof *bool
}

func (s *stub) ID() string {
	if s.id != "" {
		return s.id
	}
	return s.ExactEIP3009.ID()
}

func (s *stub) Pattern() rails.Pattern {
	p := s.ExactEIP3009.Pattern()
	if s.publicProof != nil {
		p.PublicProof = *s.publicProof
	}
	return p
}

func (s *stub) Read(doc jsonv.Value) (rails.Read, error) {
	r, err := s.ExactEIP3009.Read(doc)
	if err == nil && s.read != nil {
		r = s.read(r)
	}
	return r, err
}

func (s *stub) Build(choice jsonv.Value, b []byte, h atr.Hash) (rails.Unsigned, error) {
	s.buildSaw = h.String()
	return s.ExactEIP3009.Build(choice, b, h)
}

func (s *stub) Bound(presented jsonv.Value) (string, error) {
	if s.bound != "" {
		return s.bound, nil
	}
	return s.ExactEIP3009.Bound(presented)
}

// transactD pays doc through the gate with a counting signer.
func (f *buyerFixture) transact(t *testing.T, s *atrSeller, reg *rails.Registry, doc jsonv.Value) (*gate.Transacted, *countingSigner, error) {
	t.Helper()
	sg := newCountingSigner(t, f.key, f.network)
	res, err := s.gateFor(f.now, reg).Transact(context.Background(), doc, pairing, sg, nil)
	return res, sg, err
}

func signedNonce(t *testing.T, signed jsonv.Value) string {
	return str(t, signed, "payload", "authorization", "nonce")
}

func signedSignature(t *testing.T, signed jsonv.Value) string {
	return str(t, signed, "payload", "signature")
}

func TestBuyer(t *testing.T) {
	f := loadBuyer(t)
	s := newATRSeller(t)
	hA := atr.Sum(f.A).String()

	t.Run("B1", func(t *testing.T) {
		want := str(t, f.row(t, "B1"), "expect", "h")
		if got := atr.Sum(f.A).String(); got != want {
			t.Fatalf("hash(A) = %s, want %s", got, want)
		}
	})

	mismatch := func(t *testing.T, doc jsonv.Value, served []byte) {
		s.serveBytes(served)
		_, sg, err := f.transact(t, s, nil, doc)
		wantDecline(t, err, gate.HashMismatch, gate.DetailHashMismatch)
		if n := sg.calls.Load(); n != 0 {
			t.Fatalf("signer called %d times", n)
		}
		if n := s.fetches.Load(); n != 1 {
			t.Fatalf("%d fetches, want 1", n)
		}
	}
	t.Run("B2", func(t *testing.T) { mismatch(t, f.D, f.C) })
	t.Run("B2b", func(t *testing.T) {
		r := f.row(t, "B2b")
		mismatch(t, get(t, r, "input", "doc"), unhex(t, str(t, r, "input", "servesHex")))
	})
	for _, name := range []string{"B3", "B4"} {
		t.Run(name, func(t *testing.T) {
			r := f.row(t, name)
			served := unhex(t, str(t, r, "input", "servesHex"))
			if got := atr.Sum(served).String(); got != str(t, r, "servedHash") {
				t.Fatalf("served bytes hash to %s", got)
			}
			mismatch(t, f.D, served)
		})
	}

	t.Run("B5", func(t *testing.T) {
		r := f.row(t, "B5")
		upper := str(t, r, "input", "stubRead", "h")
		st := &stub{read: func(rd rails.Read) rails.Read { rd.H = upper; return rd }}
		s.serveBytes(f.A)
		c, err := s.gateFor(f.now, rails.NewRegistry(st)).Confirm(context.Background(), f.D, pairing, f.account, nil)
		if err != nil {
			t.Fatalf("uppercase advertised hash did not match: %v", err)
		}
		if c.H.String() != str(t, r, "expect", "h") {
			t.Fatalf("h = %s", c.H)
		}
		if st.buildSaw != str(t, r, "expect", "buildReceives") {
			t.Fatalf("build received %q", st.buildSaw)
		}
	})

	var b6Signed jsonv.Value
	t.Run("B6", func(t *testing.T) {
		r := f.row(t, "B6")
		want := obj(t, r, "expect")
		s.serveBytes(f.A)
		g := s.gateFor(f.now, nil)
		c, err := g.Confirm(context.Background(), f.D, pairing, f.account, nil)
		if err != nil {
			t.Fatal(err)
		}
		td := obj(t, c.Request, "typedData")
		if got, w := jsonv.String(get(t, td, "message")), jsonv.String(get(t, want, "message")); got != w {
			t.Fatalf("message\n got %s\nwant %s", got, w)
		}
		digest, err := evm.TypedDataDigest(td)
		if err != nil {
			t.Fatal(err)
		}
		if got := "0x" + hexOf(digest[:]); got != str(t, want, "digest") {
			t.Fatalf("digest %s", got)
		}
		// The published Anvil key signs it to exactly the vector's signature.
		sg := newCountingSigner(t, f.key, f.network)
		sig, err := sg.Sign(context.Background(), c.Request)
		if err != nil {
			t.Fatal(err)
		}
		if sig != str(t, want, "signature") {
			t.Fatalf("signature %v", sig)
		}
		fin, err := g.Finish(f.A, pairing, c.Chosen, str(t, r, "input", "then", "finish", "signature"))
		if err != nil {
			t.Fatal(err)
		}
		if got := signedNonce(t, fin.Signed); got != str(t, want, "signedNonce") {
			t.Fatalf("signed nonce %s", got)
		}
		raw, _ := evm.HexBytes(signedSignature(t, fin.Signed))
		who, err := evm.Recover(digest, raw)
		if err != nil || who.Hex() != str(t, want, "recovers") {
			t.Fatalf("recovers %v (%v)", who.Hex(), err)
		}
		b6Signed = fin.Signed
		// And Transact, end to end, makes the same payment.
		tr, _, err := f.transact(t, s, nil, f.D)
		if err != nil {
			t.Fatal(err)
		}
		if got := signedSignature(t, tr.Signed); got != str(t, want, "signature") {
			t.Fatalf("transact signed %s", got)
		}
		if jsonv.String(tr.Signed) != jsonv.String(fin.Signed) {
			t.Fatalf("transact and confirm+finish disagree:\n%s\n%s", jsonv.String(tr.Signed), jsonv.String(fin.Signed))
		}
	})

	t.Run("B7", func(t *testing.T) {
		if b6Signed == nil {
			t.Skip("needs B6's payment")
		}
		g := s.gateFor(f.now, nil)
		h, err := g.Check(f.A, pairing, b6Signed)
		if err != nil || h.String() != hA {
			t.Fatalf("check(A) = %v, %v", h, err)
		}
		_, err = g.Check(f.C, pairing, b6Signed)
		wantDecline(t, err, gate.SignedNotBound, gate.DetailCheckNotBound)
	})

	t.Run("B8", func(t *testing.T) {
		pattern := regexp.MustCompile(str(t, f.row(t, "B8"), "expect", "paymentIdentifierPattern"))
		doc := f.docWith("payment-identifier", jsonv.Obj("info", jsonv.Obj(), "schema", jsonv.Obj()))
		s.serveBytes(f.A)
		var ids []string
		for range 2 {
			tr, _, err := f.transact(t, s, nil, doc)
			if err != nil {
				t.Fatal(err)
			}
			id := str(t, tr.Signed, "extensions", "payment-identifier", "info", "id")
			if !pattern.MatchString(id) {
				t.Fatalf("id %q", id)
			}
			ids = append(ids, id)
		}
		if ids[0] == ids[1] {
			t.Fatalf("the same id twice: %s", ids[0])
		}
		tr, _, err := f.transact(t, s, nil, f.D)
		if err != nil {
			t.Fatal(err)
		}
		if exts, _ := jsonv.AsObject(get(t, tr.Signed, "extensions")); exts.Has("payment-identifier") {
			t.Fatal("a payment identifier without the advertisement")
		}
	})

	t.Run("B9", func(t *testing.T) {
		st := &stub{bound: f.hashC}
		s.serveBytes(f.A)
		res, sg, err := f.transact(t, s, rails.NewRegistry(st), f.D)
		wantDecline(t, err, gate.SignedNotBound, gate.DetailSignedNotBound)
		if res != nil || sg.calls.Load() != 1 {
			t.Fatalf("result %v, %d signer calls", res, sg.calls.Load())
		}
	})

	t.Run("B10", func(t *testing.T) {
		s.serveBytes(f.A)
		_, sg, err := f.transact(t, s, nil, f.docWithLink("http://atr.seller.example/"+hA))
		wantDecline(t, err, gate.OfferUnreadable, "x402/link-not-https")
		if s.fetches.Load() != 0 || sg.calls.Load() != 0 {
			t.Fatalf("%d fetches, %d signs", s.fetches.Load(), sg.calls.Load())
		}
		link := str(t, get(t, f.row(t, "B10"), "input").([]jsonv.Value)[1], "stubRead", "link")
		st := &stub{read: func(rd rails.Read) rails.Read { rd.Link = link; return rd }}
		_, sg, err = f.transact(t, s, rails.NewRegistry(st), f.D)
		wantDecline(t, err, gate.LinkNotHTTPS, "x402/link-not-https")
		if s.fetches.Load() != 0 || sg.calls.Load() != 0 {
			t.Fatalf("%d fetches, %d signs", s.fetches.Load(), sg.calls.Load())
		}
	})

	t.Run("B11", func(t *testing.T) {
		cases := map[string]struct {
			h      http.HandlerFunc
			detail string
		}{
			"302": {func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "https://atr.seller.example/elsewhere", http.StatusFound)
			}, "The link answered with a redirect."},
			"404": {http.NotFound, "The link answered status 404."},
			"rejects": {func(w http.ResponseWriter, _ *http.Request) {
				conn, _, err := http.NewResponseController(w).Hijack()
				if err == nil {
					_ = conn.Close()
				}
			}, "The ATR could not be fetched from the link."},
		}
		for name, c := range cases {
			t.Run(name, func(t *testing.T) {
				s.serve(c.h)
				_, sg, err := f.transact(t, s, nil, f.D)
				wantDecline(t, err, gate.ATRUnfetchable, c.detail)
				if sg.calls.Load() != 0 || s.fetches.Load() != 1 {
					t.Fatalf("%d signs, %d fetches (a redirect must not be followed)", sg.calls.Load(), s.fetches.Load())
				}
			})
		}
	})

	t.Run("B12", func(t *testing.T) {
		n, _ := jsonv.AsSafeInt(get(t, f.row(t, "B12"), "input", "bodyLength"))
		body := make([]byte, n)
		s.serveBytes(body)
		_, sg, err := f.transact(t, s, nil, f.D)
		wantDecline(t, err, gate.HashMismatch, gate.DetailHashMismatch)
		if sg.calls.Load() != 0 {
			t.Fatal("signed")
		}
	})

	t.Run("B13", func(t *testing.T) {
		const n = atr.MaxBytes + 1
		chunk := make([]byte, 32<<10)
		for name, declared := range map[string]bool{"streamed": false, "declared": true} {
			t.Run(name, func(t *testing.T) {
				s.serve(func(w http.ResponseWriter, _ *http.Request) {
					if declared {
						w.Header().Set("Content-Length", strconv.Itoa(n))
					}
					for sent := 0; sent < n; {
						k := min(len(chunk), n-sent)
						if _, err := w.Write(chunk[:k]); err != nil {
							return
						}
						sent += k
						http.NewResponseController(w).Flush()
					}
				})
				_, sg, err := f.transact(t, s, nil, f.D)
				wantDecline(t, err, gate.ATRTooLarge, gate.DetailTooLarge)
				if sg.calls.Load() != 0 {
					t.Fatal("signed")
				}
			})
		}
	})

	t.Run("B14", func(t *testing.T) {
		// The row advances a fake clock 10 s; Go's deadline is real time, so
		// the fetch timeout is shortened here (atr's tests pin the 10 s default).
		release := make(chan struct{})
		defer close(release)
		s.serve(func(_ http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		})
		g := s.gateFor(f.now, nil)
		g.Fetcher.Timeout = 300 * time.Millisecond
		sg := newCountingSigner(t, f.key, f.network)
		start := time.Now()
		_, err := g.Transact(context.Background(), f.D, pairing, sg, nil)
		wantDecline(t, err, gate.ATRUnfetchable, "The ATR could not be fetched from the link.")
		if el := time.Since(start); el < 300*time.Millisecond || el > 3*time.Second {
			t.Fatalf("declined after %v", el)
		}
	})

	t.Run("B15", func(t *testing.T) {
		s.serveBytes(f.A)
		sg := newCountingSigner(t, f.key, f.network)
		sg.reject = true
		_, err := s.gateFor(f.now, nil).Transact(context.Background(), f.D, pairing, sg, nil)
		wantDecline(t, err, gate.SignerFailed, gate.DetailSignerFailed)
		if sg.calls.Load() != 1 {
			t.Fatalf("%d signer calls", sg.calls.Load())
		}
	})

	t.Run("B16", func(t *testing.T) {
		s.serveBytes(f.A)
		for _, a := range get(t, f.row(t, "B16"), "input", "accounts").([]jsonv.Value) {
			_, err := s.gateFor(f.now, nil).Confirm(context.Background(), f.D, pairing, a.(string), nil)
			wantDecline(t, err, gate.NoPayableOption, "x402/no-payable-option")
		}
		if s.fetches.Load() != 0 {
			t.Fatalf("%d fetches", s.fetches.Load())
		}
	})

	t.Run("B17", func(t *testing.T) {
		id := str(t, f.row(t, "B17"), "input", "stubBindingId")
		sg := newCountingSigner(t, f.key, f.network)
		_, err := s.gateFor(f.now, nil).Transact(context.Background(), f.D, id, sg, nil)
		wantDecline(t, err, gate.PairingNotSupported, "The gate has no buyer piece for the pairing x/y.")
	})

	t.Run("B18", func(t *testing.T) {
		r := f.row(t, "B18")
		s.serveBytes(f.A)
		for _, c := range get(t, r, "input", "cases").([]jsonv.Value) {
			t.Run(str(t, c, "case"), func(t *testing.T) {
				res, sg, err := f.transact(t, s, nil, f.docWith("payment-identifier", get(t, c, "extension")))
				wantDecline(t, err, gate.SignedNotBound, str(t, r, "expect", "detail"))
				if res != nil || sg.calls.Load() != 1 {
					t.Fatalf("result %v, %d signs", res, sg.calls.Load())
				}
			})
		}
	})

	t.Run("BE1", func(t *testing.T) {
		r := f.row(t, "BE1")
		for _, c := range get(t, r, "input", "cases").([]jsonv.Value) {
			body := unhex(t, str(t, c, "bodyHex"))
			coding := str(t, c, "contentEncoding")
			t.Run(str(t, c, "case"), func(t *testing.T) {
				s.serve(func(w http.ResponseWriter, _ *http.Request) {
					w.Header().Set("Content-Encoding", coding)
					_, _ = w.Write(body)
				})
				_, sg, err := f.transact(t, s, nil, f.D)
				wantDecline(t, err, gate.ATRUnfetchable, "The link served a content coding other than identity.")
				if sg.calls.Load() != 0 {
					t.Fatal("signed")
				}
				if got := s.headers[0].Values("Accept-Encoding"); len(got) != 1 || got[0] != "identity" {
					t.Fatalf("Accept-Encoding %q", got)
				}
			})
		}
		t.Run("control", func(t *testing.T) {
			s.serve(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Encoding", "identity")
				_, _ = w.Write(f.A)
			})
			tr, _, err := f.transact(t, s, nil, f.D)
			if err != nil {
				t.Fatal(err)
			}
			if got := signedSignature(t, tr.Signed); got != str(t, f.vectorB6, "signature") {
				t.Fatalf("control signed %s, not B6's signature", got)
			}
		})
	})

	// B19–B22 are newer than this copy of buyer.json; the published vector reference
	// specifies them in words.
	t.Run("B19", func(t *testing.T) {
		s.serveBytes(f.A)
		g := s.gateFor(f.now, nil)
		c, err := g.Confirm(context.Background(), f.D, pairing, f.account, nil)
		if err != nil {
			t.Fatal(err)
		}
		st := &stub{}
		other := c.Chosen
		other.Pairing = "x402/exact/eip155/permit2"
		g.Pairings = rails.NewRegistry(st)
		_, err = g.Finish(f.A, pairing, other, str(t, f.vectorB6, "signature"))
		wantDecline(t, err, gate.PairingNotSupported, "The chosen payment is not for the pairing "+pairing+".")
		if st.buildSaw != "" {
			t.Fatal("rebuilt before the pairing check")
		}
	})
	t.Run("B20", func(t *testing.T) {
		s.serveBytes(f.A)
		for _, bad := range []jsonv.Value{"x", []jsonv.Value{}, jsonv.Number(0), false} {
			_, err := s.gateFor(f.now, nil).Confirm(context.Background(), f.D, pairing, f.account, bad)
			wantDecline(t, err, gate.NoPayableOption, "x402/input-malformed")
			sg := newCountingSigner(t, f.key, f.network)
			_, err = s.gateFor(f.now, nil).Transact(context.Background(), f.D, pairing, sg, &gate.TransactOptions{Inputs: bad})
			wantDecline(t, err, gate.NoPayableOption, "x402/input-malformed")
		}
		if s.fetches.Load() != 0 {
			t.Fatalf("%d fetches", s.fetches.Load())
		}
	})
	t.Run("B21", func(t *testing.T) {
		s.serveBytes(f.A)
		doc := f.D.Clone()
		opt, _ := jsonv.AsObject(get(t, doc, "accepts").([]jsonv.Value)[0])
		opt.Set("network", "eip155:0")
		_, err := s.gateFor(f.now, nil).Confirm(context.Background(), doc, pairing, "eip155:0:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", nil)
		wantDecline(t, err, gate.OfferUnreadable, "x402/no-payable-option")
		if s.fetches.Load() != 0 {
			t.Fatalf("%d fetches", s.fetches.Load())
		}
	})
	t.Run("B22", func(t *testing.T) {
		s.serveBytes(f.A)
		prefix := "https://atr.seller.example/"
		link := prefix + strings.Repeat("a", 2048-len(prefix)-1) + "😀" // 2048 code points, 2049 UTF-16 units
		if n := len([]rune(link)); n != 2048 || atr.UTF16Len(link) != 2049 {
			t.Fatalf("link has %d code points, %d units", n, atr.UTF16Len(link))
		}
		_, err := s.gateFor(f.now, nil).Confirm(context.Background(), f.docWithLink(link), pairing, f.account, nil)
		wantDecline(t, err, gate.OfferUnreadable, "x402/legal-context-malformed")
		if s.fetches.Load() != 0 {
			t.Fatalf("%d fetches", s.fetches.Load())
		}
	})

	// BA1–BA19 and BE2 are in agreement_test.go.
	t.Run("BS1", func(t *testing.T) { stellarBuyerRow(t, f.row(t, "BS1")) })
	t.Run("BS2", func(t *testing.T) { stellarBuyerRow(t, f.row(t, "BS2")) })
	t.Run("BX1", func(t *testing.T) { runBX1(t, f.row(t, "BX1")) })
}
