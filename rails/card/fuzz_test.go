package card

import (
	"errors"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/vectors"
)

func cardFile(f *testing.F) *jsonv.Object {
	f.Helper()
	o, err := vectors.Load("card.json")
	if err != nil {
		f.Fatal(err)
	}
	return o
}

func field(o *jsonv.Object, path ...string) string {
	var v jsonv.Value = o
	for _, k := range path {
		x, _ := jsonv.AsObject(v)
		v, _ = x.Get(k)
	}
	s, _ := v.(string)
	return s
}

func wantH(t *testing.T, h string) {
	t.Helper()
	if !isLowerHash(h) {
		t.Fatalf("H %q", h)
	}
}

// FuzzTAPSignatureInput: the RFC 9651 dictionary reader behind TAP's bound
// never panics, stays within the time bound, refuses with a card code, and a
// bound H is 0x + 64 lower-case hex; the serializer writes back what it read.
func FuzzTAPSignatureInput(f *testing.F) {
	c := cardFile(f)
	f.Add(field(c, "C2", "request", "signatureInput"), field(c, "C2", "request", "signature"), "0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
	f.Add(field(c, "C3", "signatureInput"), field(c, "C3", "signature"), " 0xBA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD\t")
	f.Add(`a=?0;b, c=:AA==:;d=-1`, `sig2=:AA==:`, "")
	f.Fuzz(func(t *testing.T, si, sig, line string) {
		cost.Bound(t, len(si)+len(sig)+len(line), func() {
			if d, err := parseDictionary(si); err == nil {
				for _, m := range d {
					if m.IsList {
						again, err := parseDictionary("k=" + string(appendInnerList(nil, m.List, m.Params)))
						if err != nil || len(again) != 1 || len(again[0].List) != len(m.List) {
							t.Fatalf("inner list of %q does not read back: %v", si, err)
						}
					}
				}
			}
			presented := jsonv.Obj("signatureInput", si, "signature", sig, "lcpHash", []jsonv.Value{line})
			h, err := VisaTAP{}.Bound(presented)
			if err != nil {
				return
			}
			wantH(t, h)
			if in, err := (VisaTAP{}).Inspect(presented); err != nil || in.H != h {
				t.Fatalf("inspect %v", err)
			}
		})
	})
}

// FuzzVILayers: the Verifiable Intent readers (checkout JWT, L1, L2, L3b)
// never panic, stay within the time bound, and a bound H is 0x + 64
// lower-case hex.
func FuzzVILayers(f *testing.F) {
	c := cardFile(f)
	f.Add(field(c, "vi", "L1"), field(c, "vi", "L2i"), field(c, "vi", "L3b"), field(c, "vi", "CJ"))
	f.Add(field(c, "vi", "L1"), field(c, "vi", "L2a"), field(c, "vi", "L3b"), field(c, "vi", "CJ"))
	f.Add("~", "a.b.c~~", "", "..")
	f.Fuzz(func(t *testing.T, l1, l2, l3b, cj string) {
		cost.Bound(t, len(l1)+len(l2)+len(l3b)+len(cj), func() {
			if _, err := ReadCheckout(cj); err == nil {
				if _, err := VIBuild(cj, "0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"); err != nil && !isRefusal(err) {
					t.Fatalf("build: %v", err)
				}
			}
			imm := jsonv.Obj("l2", l2)
			if h, err := (VIImmediate{}).Bound(imm); err == nil {
				wantH(t, h)
				if _, err := (VIImmediate{}).Inspect(imm); err != nil {
					t.Fatalf("inspect %v", err)
				}
			} else if !isRefusal(err) {
				t.Fatalf("not a refusal: %v", err)
			}
			auto := jsonv.Obj("l1", l1, "l2", l2, "l3b", l3b)
			if h, err := (VIAutonomous{}).Bound(auto); err == nil {
				wantH(t, h)
			} else if !isRefusal(err) {
				t.Fatalf("not a refusal: %v", err)
			}
		})
	})
}

// FuzzCardCredential: reading an mpp/charge/card credential and a
// processor record never panics, stays within the time bound, and never
// shows the card number the payload or record holds under any member name
// (the grant's own members, the seller's report, aside).
func FuzzCardCredential(f *testing.F) {
	o, err := vectors.Load("mpp-charge-card.json")
	if err != nil {
		f.Fatal(err)
	}
	rows, _ := o.Get("buyer")
	ro, _ := jsonv.AsObject(rows)
	list, _ := ro.Get("rows")
	b2, _ := jsonv.AsObject(list.([]jsonv.Value)[0])
	in, _ := b2.GetObject("input")
	doc, _ := in.Get("doc")
	ch := doc.([]jsonv.Value)[0]
	const pan = "4242424242424242"
	f.Add(string(jsonv.Marshal(jsonv.Obj("challenge", ch, "payload", jsonv.Obj("network", "visa")))), "pan", pan)
	f.Add(`{"reference":"lcp:sha256:0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad","amount":"4999","currency":"usd","merchant":"m","network":"visa"}`, "panLastFour", "4242 4242 4242 4242")
	f.Fuzz(func(t *testing.T, s, key, number string) {
		cost.Bound(t, len(s)+len(key)+len(number), func() {
			v, err := jsonv.Parse([]byte(s))
			if err != nil {
				return
			}
			o, ok := jsonv.AsObject(v)
			if !ok {
				return
			}
			secret := digitRun(number) && len(number) <= 64
			switch key {
			case "reference", "amount", "currency", "merchant", "payer", "challenge", "payload":
				secret = false // the grant's members and the credential's frame say what they say
			}
			record := o.Clone()
			cred := o.Clone()
			if p, ok := cred.GetObject("payload"); ok {
				p = p.Clone()
				p.Set(key, number)
				cred.Set("payload", p)
			}
			record.Set(key, number)
			if in, err := (MPPCharge{}).Inspect(cred); err == nil && secret {
				if d := string(jsonv.Marshal(in.Details)); contains(d, number) {
					t.Fatalf("card number shown: %s", d)
				}
			}
			if in, err := (SellerReference{}).Inspect(record); err == nil && secret {
				if d := string(jsonv.Marshal(in.Details)); contains(d, number) {
					t.Fatalf("card number shown: %s", d)
				}
			}
			if _, err := (MPPCharge{}).Bound(cred); err == nil {
				t.Fatal("mpp/charge/card bound a payment")
			}
		})
	})
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func isRefusal(err error) bool {
	var r *rails.Refusal
	return errors.As(err, &r)
}
