package evm_test

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/signer"
)

const (
	usdcBaseSepolia = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
	vectorPayTo     = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
	anvilPayer      = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
	anvilAccount2   = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
)

// permit2Doc is a document offering option, with H advertised.
func permit2Doc(option *jsonv.Object, h atr.Hash) *jsonv.Object {
	return jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://api.seller.example/v1/quote"),
		"accepts", []jsonv.Value{option},
		"extensions", jsonv.Obj("legalContext", jsonv.Obj("info", jsonv.Obj("type", "sha256", "value", h.String(),
			"legalContextUrl", "https://atr.seller.example/"+h.String()))))
}

func exactPermit2Option() *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", "eip155:84532", "amount", "10000", "asset", usdcBaseSepolia,
		"payTo", vectorPayTo, "maxTimeoutSeconds", 60,
		"extra", jsonv.Obj("name", "USDC", "version", "2", "assetTransferMethod", "permit2"))
}

func uptoPermit2Option() *jsonv.Object {
	return jsonv.Obj("scheme", "upto", "network", "eip155:84532", "amount", "5000000", "asset", usdcBaseSepolia,
		"payTo", vectorPayTo, "maxTimeoutSeconds", 300,
		"extra", jsonv.Obj("name", "USDC", "version", "2", "facilitatorAddress", anvilAccount2))
}

// built is a pairing's build of option for the Anvil payer, with its request.
func built(t testing.TB, p rails.Pairing, option *jsonv.Object, h atr.Hash) (jsonv.Value, rails.Unsigned, rails.Request) {
	return builtAt(t, p, option, h, 1790000000)
}

func builtAt(t testing.TB, p rails.Pairing, option *jsonv.Object, h atr.Hash, now int64) (jsonv.Value, rails.Unsigned, rails.Request) {
	t.Helper()
	read, err := p.Read(permit2Doc(option, h))
	if err != nil {
		t.Fatal(err)
	}
	choice, err := p.Choose(read, "eip155:84532:"+anvilPayer, nil, now, "")
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.Build(choice, nil, h)
	if err != nil {
		t.Fatal(err)
	}
	req, err := p.Request(u)
	if err != nil {
		t.Fatal(err)
	}
	return choice, u, req
}

func TestPermit2Summaries(t *testing.T) {
	h := atr.Sum([]byte("abc"))
	for _, c := range []struct {
		p      rails.Pairing
		option *jsonv.Object
		amount string
		until  int64
	}{
		{evm.ExactPermit2{}, exactPermit2Option(), "10000", 1790000060},
		{evm.UptoPermit2{}, uptoPermit2Option(), "5000000", 1790000300},
	} {
		t.Run(c.p.ID(), func(t *testing.T) {
			_, _, req := built(t, c.p, c.option, h)
			sz := c.p.(rails.Summarizer)
			g, err := sz.Summarize(req)
			if err != nil {
				t.Fatal(err)
			}
			if g.Network != "eip155:84532" || g.Asset != usdcBaseSepolia || g.Amount.String() != c.amount || g.Payee != vectorPayTo ||
				g.Decimals != 6 || g.PayableUntil.Unix() != c.until || g.PayableFrom.Unix() != 0 {
				t.Fatalf("grant %+v", g)
			}
			// Each change a signer would sign differently is refused.
			for name, mut := range map[string]func(r *jsonv.Object){
				"other spender": func(r *jsonv.Object) { p2msg(r).Set("spender", anvilAccount2) },
				"other contract": func(r *jsonv.Object) {
					dom, _ := p2obj(r, "typedData").GetObject("domain")
					dom.Set("verifyingContract", anvilAccount2)
				},
				"other domain name": func(r *jsonv.Object) {
					dom, _ := p2obj(r, "typedData").GetObject("domain")
					dom.Set("name", "Permit3")
				},
				"extra member":  func(r *jsonv.Object) { r.Set("broadcast", true) },
				"extra witness": func(r *jsonv.Object) { w, _ := p2msg(r).GetObject("witness"); w.Set("x", "1") },
				"number amount": func(r *jsonv.Object) { p, _ := p2msg(r).GetObject("permitted"); p.Set("amount", 10000) },
				"other kind":    func(r *jsonv.Object) { r.Set("kind", "tempo-call") },
				"types reordered": func(r *jsonv.Object) {
					ty, _ := p2obj(r, "typedData").GetObject("types")
					ty.Delete("EIP712Domain")
					ty.Set("EIP712Domain", []jsonv.Value{})
				},
			} {
				bad := req.Clone()
				mut(bad)
				if _, err := sz.Summarize(bad); err == nil {
					t.Errorf("%s: summarized", name)
				}
			}
		})
	}
}

func p2obj(o *jsonv.Object, k string) *jsonv.Object { v, _ := o.GetObject(k); return v }
func p2msg(req *jsonv.Object) *jsonv.Object         { return p2obj(p2obj(req, "typedData"), "message") }

func TestPermit2Nonce(t *testing.T) {
	h := atr.Sum([]byte("abc"))
	dec := evm.NonceDecimal(h)
	for _, s := range []string{dec, h.String(), strings.ToUpper(h.String()[:2]) + strings.ToUpper(h.String()[2:]), "0x" + strings.ToUpper(h.String()[2:])} {
		got, ok := evm.Permit2NonceHash(s)
		if s == strings.ToUpper(h.String()[:2])+strings.ToUpper(h.String()[2:]) {
			if ok {
				t.Fatalf("%s read", s) // 0X is no prefix
			}
			continue
		}
		if !ok || got != h {
			t.Fatalf("%s read as %s (%v)", s, got, ok)
		}
	}
	for _, s := range []string{"", "0x12", "-1", "1e3", "115792089237316195423570985008687907853269984665640564039457584007913129639936", "0x" + strings.Repeat("0", 65)} {
		if _, ok := evm.Permit2NonceHash(s); ok {
			t.Errorf("%q read", s)
		}
	}
}

func TestCheckedAddress(t *testing.T) {
	for s, want := range map[string]bool{
		vectorPayTo:                                  true,
		strings.ToLower(vectorPayTo):                 true,
		"0x" + strings.ToUpper(vectorPayTo[2:]):      true,
		"0x209693bC6afc0C5328bA36FaF03C514EF312287C": false, // one letter's case changed
		"0x209693Bc6afc0C5328bA36FaF03C514EF312287":  false,
	} {
		if evm.CheckedAddress(s) != want {
			t.Errorf("%s: %v", s, !want)
		}
	}
	// An option whose payTo fails its checksum is not paid.
	o := exactPermit2Option()
	o.Set("payTo", "0x209693bC6afc0C5328bA36FaF03C514EF312287C")
	doc := permit2Doc(o, atr.Sum([]byte("abc")))
	_, err := evm.ExactPermit2{}.Build(jsonv.Obj("required", doc, "accepted", o, "from", anvilPayer, "now", 1), nil, atr.Sum([]byte("abc")))
	if r, ok := err.(*rails.Refusal); !ok || r.Code != "x402/option-malformed" {
		t.Fatalf("checksum failure: %v", err)
	}
}

// nonceCaller answers nonceBitmap with one word.
type nonceCaller struct {
	word string
	data string
}

func (c *nonceCaller) Network() string                     { return "eip155:84532" }
func (c *nonceCaller) Receipt(string) (jsonv.Value, error) { return nil, nil }
func (c *nonceCaller) Head(string) (uint64, error)         { return 0, nil }
func (c *nonceCaller) Call(_, data string, _ uint64) (string, error) {
	c.data = data
	return c.word, nil
}

func TestPermit2NonceUsed(t *testing.T) {
	var h atr.Hash
	h[30], h[31] = 0x01, 0x07 // word position 1, bit 7
	c := &nonceCaller{word: "0x" + strings.Repeat("0", 62) + "80"}
	used, err := evm.Permit2NonceUsed(c, evm.Permit2Address, anvilPayer, h, 5)
	if err != nil || !used {
		t.Fatalf("used %v (%v)", used, err)
	}
	if !strings.HasSuffix(c.data, strings.Repeat("0", 63)+"1") || !strings.HasPrefix(c.data, "0x4fe02b44") {
		t.Fatalf("call data %s", c.data)
	}
	c.word = "0x" + strings.Repeat("0", 62) + "7f"
	if used, err := evm.Permit2NonceUsed(c, evm.Permit2Address, anvilPayer, h, 5); err != nil || used {
		t.Fatalf("bit 7 clear read as used %v (%v)", used, err)
	}
	c.word = "0x01"
	if _, err := evm.Permit2NonceUsed(c, evm.Permit2Address, anvilPayer, h, 5); err == nil {
		t.Fatal("a short word read")
	}
}

func TestPermit2TypedDataRefusals(t *testing.T) {
	ok := evm.Permit2Permit{ChainID: 1, Permitted: []evm.Permit2Token{{usdcBaseSepolia, "1"}}, Spender: anvilPayer, Nonce: "1", Deadline: "1"}
	if _, err := ok.TypedData(); err != nil {
		t.Fatal(err)
	}
	for name, mut := range map[string]func(p *evm.Permit2Permit){
		"no chain":      func(p *evm.Permit2Permit) { p.ChainID = 0 },
		"two, single":   func(p *evm.Permit2Permit) { p.Permitted = append(p.Permitted, p.Permitted[0]) },
		"batch, no wit": func(p *evm.Permit2Permit) { p.Batch = true },
		"bad amount":    func(p *evm.Permit2Permit) { p.Permitted = []evm.Permit2Token{{usdcBaseSepolia, "-1"}} },
		"witness Permit": func(p *evm.Permit2Permit) {
			p.Witness = &evm.Permit2Witness{Type: "PermitX", Fields: []string{"a", "uint256"}, Value: jsonv.Obj("a", "1")}
		},
		"bad nonce": func(p *evm.Permit2Permit) { p.Nonce = "0x1" },
	} {
		p := ok
		mut(&p)
		if _, err := p.TypedData(); err == nil {
			t.Errorf("%s: built", name)
		}
	}
}

// FuzzPermit2Payment: the read-backs of both x402 Permit2 pairings (Bound,
// Reference, Inspect) on any JSON: no panic, within the fuzz bound, and
// Inspect's H is Bound's.
func FuzzPermit2Payment(f *testing.F) {
	h := atr.Sum([]byte("abc"))
	for _, p := range []rails.Pairing{evm.ExactPermit2{}, evm.UptoPermit2{}} {
		option := exactPermit2Option()
		if p.ID() == evm.UptoPermit2ID {
			option = uptoPermit2Option()
		}
		_, u, _ := built(f, p, option, h)
		done, err := p.Complete(u, "0x"+strings.Repeat("11", 65), rails.Chosen{Ref: rails.NewRef()})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(jsonv.Marshal(done.Signed))
	}
	f.Add([]byte(`{"x402Version":2,"accepted":{"scheme":"upto"},"payload":{}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := jsonv.Parse(raw)
		if err != nil {
			return
		}
		cost.Bound(t, len(raw), func() {
			readBackAgrees(t, v, evm.ExactPermit2{}, evm.UptoPermit2{})
		})
	})
}

// FuzzPermit2Request: the strict Permit2 request readers on any request.
func FuzzPermit2Request(f *testing.F) {
	h := atr.Sum([]byte("abc"))
	_, _, req := built(f, evm.ExactPermit2{}, exactPermit2Option(), h)
	f.Add(jsonv.Marshal(req))
	_, _, req = built(f, evm.UptoPermit2{}, uptoPermit2Option(), h)
	f.Add(jsonv.Marshal(req))
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := jsonv.Parse(raw)
		if err != nil {
			return
		}
		o, ok := jsonv.AsObject(v)
		if !ok {
			return
		}
		cost.Bound(t, len(raw), func() {
			_, _ = evm.ExactPermit2{}.Summarize(o)
			_, _ = evm.UptoPermit2{}.Summarize(o)
		})
	})
}

// BenchmarkPermit2BuildSignFinish is x402/exact/eip155/permit2 with the
// ATR in hand: build the witness transfer with H as its nonce, sign its
// EIP-712 digest with the local key, then the gate's Finish (rebuild, check
// the answer, make the payment, read H back).
func BenchmarkPermit2BuildSignFinish(b *testing.B) {
	benchBuildSignFinish(b, evm.ExactPermit2{}, exactPermit2Option())
}

// BenchmarkUptoPermit2BuildSignFinish is the same for x402/upto/eip155/permit2.
func BenchmarkUptoPermit2BuildSignFinish(b *testing.B) {
	benchBuildSignFinish(b, evm.UptoPermit2{}, uptoPermit2Option())
}

func benchBuildSignFinish(b *testing.B, p rails.Pairing, option *jsonv.Object) {
	s, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		b.Fatal(err)
	}
	benchBuildSignFinishWith(b, p, option, s)
}

func benchBuildSignFinishWith(b *testing.B, p rails.Pairing, option *jsonv.Object, s *signer.Local) {
	atrBytes := []byte("abc")
	h := atr.Sum(atrBytes)
	choice, _, _ := builtAt(b, p, option, h, time.Now().Unix())
	chosen := rails.Chosen{Pairing: p.ID(), Choice: choice, Ref: rails.NewRef()}
	g := &gate.Gate{}
	ctx := context.Background()
	b.ReportAllocs()
	cpu0 := x402CPUTime()
	for b.Loop() {
		u, err := p.Build(choice, atrBytes, h)
		if err != nil {
			b.Fatal(err)
		}
		req, _ := p.Request(u)
		answer, err := s.Sign(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := g.Finish(atrBytes, p.ID(), chosen, answer); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((x402CPUTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// x402CPUTime is the process's user and system CPU time: on the shared machine
// wall time per op mostly measures waiting for a core.
func x402CPUTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
