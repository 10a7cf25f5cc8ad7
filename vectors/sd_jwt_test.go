package vectors_test

import (
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/sdjwt"
)

// TestSDJWT runs every row of sd-jwt.json through rails/sdjwt: RFC 9901's
// published digests, the fixed digests the rows print, and the Verifiable
// Intent presentations read back to their delegate_payload and checkout
// mandate (or refused with the row's reason).
func TestSDJWT(t *testing.T) {
	f := load(t, "sd-jwt.json")
	for i, row := range sdArr(t, f, "C4") {
		t.Run("C4/"+string(rune('0'+i)), func(t *testing.T) {
			d, err := sdjwt.ParseDisclosure(str(t, row, "disclosure"))
			if err != nil {
				t.Fatal(err)
			}
			if want := str(t, row, "expectDigest"); d.Digest != want {
				t.Fatalf("digest %s, want %s", d.Digest, want)
			}
		})
	}
	c7 := sdArr(t, f, "C7")
	presented := map[string]string{
		"CH":     str(t, f, "fixed", "CJ"),
		"D(L1)":  str(t, c7[2], "presentation"),
		"D(L2a)": str(t, c7[0], "presentation"),
	}
	disclosed := map[string]string{}
	for _, p := range []string{str(t, f, "C6", "presentation"), str(t, c7[0], "presentation"), str(t, c7[1], "presentation")} {
		parts := strings.Split(p, "~")
		for _, d := range parts[1 : len(parts)-1] {
			disclosed[sdjwt.Digest(d)] = d
		}
	}
	t.Run("fixed/CJ", func(t *testing.T) {
		if got := sdjwt.Digest(str(t, f, "fixed", "CJ")); got != str(t, f, "fixed", "CH") {
			t.Fatalf("checkout hash %s", got)
		}
	})
	for _, m := range obj(t, f, "fixed", "printedDigests").Members() {
		want, _ := jsonv.AsString(m.Value)
		t.Run("fixed/"+m.Key, func(t *testing.T) {
			if s, ok := presented[m.Key]; ok {
				if got := sdjwt.Digest(s); got != want {
					t.Fatalf("digest %s, want %s", got, want)
				}
				return
			}
			if m.Key == "D(dpo)" {
				// dpo is withheld in L2a: its digest is in the payload, and no
				// presented disclosure hashes to it.
				if _, ok := disclosed[want]; ok {
					t.Fatal("D(dpo) is disclosed")
				}
				p, err := sdjwt.Parse(str(t, c7[0], "presentation"))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(jsonv.Marshal(p.Issuer.Payload)), want) {
					t.Fatal("D(dpo) not listed in the L2a payload")
				}
				return
			}
			if _, ok := disclosed[want]; !ok {
				t.Fatalf("no presented disclosure hashes to %s", want)
			}
		})
	}
	checkRow := func(t *testing.T, row jsonv.Value) {
		p, err := sdjwt.Parse(str(t, row, "presentation"))
		if sdHas(row, "expect") {
			if code := str(t, row, "expect"); sdjwt.Code(err) != code {
				t.Fatalf("refusal %v, want %s", err, code)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		checkVI(t, p, row)
	}
	t.Run("C6", func(t *testing.T) { checkRow(t, get(t, f, "C6")) })
	t.Run("C6plant", func(t *testing.T) {
		row := get(t, f, "C6plant")
		// The planted disclosure is the one that carries E, and only it.
		if !strings.Contains(decodedParts(t, str(t, row, "presentation")), str(t, row, "E")) {
			t.Fatal("no disclosure carries E")
		}
		checkRow(t, row)
	})
	for _, row := range c7 {
		name, _, _ := strings.Cut(str(t, row, "case"), ":")
		t.Run("C7/"+name, func(t *testing.T) { checkRow(t, row) })
	}
}

func sdHas(v jsonv.Value, key string) bool {
	o, ok := jsonv.AsObject(v)
	return ok && o.Has(key)
}

func sdArr(t testing.TB, v jsonv.Value, path ...string) []jsonv.Value {
	t.Helper()
	a, ok := jsonv.AsArray(get(t, v, path...))
	if !ok {
		t.Fatalf("vector path %v is not an array", path)
	}
	return a
}

// decodedParts is every disclosure's and JWT part's decoded text, to find a
// value the row says is inside one of them.
func decodedParts(t *testing.T, s string) string {
	var b strings.Builder
	parts := strings.Split(s, "~")
	for _, d := range parts[1 : len(parts)-1] {
		dd, err := sdjwt.ParseDisclosure(d)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(jsonv.Marshal(dd.Value))
		if o, ok := jsonv.AsObject(dd.Value); ok {
			if cj, ok := o.GetString("checkout_jwt"); ok {
				j, err := sdjwt.ParseJWT(cj)
				if err != nil {
					t.Fatal(err)
				}
				b.Write(jsonv.Marshal(j.Payload))
			}
		}
	}
	return b.String()
}

// checkVI compares a read Verifiable Intent presentation with the row: the
// vcts of delegate_payload as resolved (null when there is none), and the
// checkout mandate byte for byte.
func checkVI(t *testing.T, p *sdjwt.Presentation, row jsonv.Value) {
	t.Helper()
	var vcts []jsonv.Value
	var mandate *jsonv.Object
	if dp, ok := p.Claims.Get("delegate_payload"); ok {
		a, ok := jsonv.AsArray(dp)
		if !ok {
			t.Fatal("delegate_payload is not an array")
		}
		vcts = []jsonv.Value{}
		for _, e := range a {
			o, ok := jsonv.AsObject(e)
			if !ok {
				t.Fatal("delegate_payload element is not an object")
			}
			vct, _ := o.GetString("vct")
			vcts = append(vcts, vct)
			if vct == "mandate.checkout.1" {
				mandate = o
			}
		}
	}
	var got jsonv.Value
	if vcts != nil {
		got = vcts
	}
	if want := get(t, row, "expectDelegatePayloadVcts"); string(jsonv.Marshal(got)) != string(jsonv.Marshal(want)) {
		t.Fatalf("delegate_payload vcts %s, want %s", jsonv.Marshal(got), jsonv.Marshal(want))
	}
	if !sdHas(row, "expectCheckoutMandate") {
		if mandate != nil {
			t.Fatal("a checkout mandate the row does not expect")
		}
		return
	}
	want := obj(t, row, "expectCheckoutMandate")
	if mandate == nil {
		t.Fatal("no checkout mandate")
	}
	if string(jsonv.Marshal(mandate)) != string(jsonv.Marshal(want)) {
		t.Fatalf("checkout mandate %s\nwant %s", jsonv.Marshal(mandate), jsonv.Marshal(want))
	}
	cj, _ := mandate.GetString("checkout_jwt")
	ch, _ := mandate.GetString("checkout_hash")
	if sdjwt.Digest(cj) != ch {
		t.Fatal("checkout_hash is not the digest of checkout_jwt")
	}
}
