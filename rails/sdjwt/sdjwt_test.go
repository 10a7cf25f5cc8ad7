package sdjwt

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
)

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// jwt builds an unsigned-looking compact JWS over payload (the reader never
// verifies, so a one-byte signature is enough to read).
func jwt(payload string) string {
	return b64(`{"alg":"ES256"}`) + "." + b64(payload) + "." + b64("s")
}

func TestParseResolvesPropertiesAndElements(t *testing.T) {
	name := b64(`["salt1","given_name","Erika"]`)
	elem := b64(`["salt2","DE"]`)
	hidden := b64(`["salt3","FR"]`) // its digest is listed but it is not presented
	payload := `{"_sd_alg":"sha-256","_sd":["` + Digest(name) + `","decoy"],"nationalities":[{"...":"` +
		Digest(elem) + `"},{"...":"` + Digest(hidden) + `"},"US"]}`
	p, err := Parse(jwt(payload) + "~" + name + "~" + elem + "~")
	if err != nil {
		t.Fatal(err)
	}
	if got := string(jsonv.Marshal(p.Claims)); got != `{"nationalities":["DE","US"],"given_name":"Erika"}` {
		t.Fatalf("claims %s", got)
	}
	if p.KeyBinding != nil || len(p.Disclosures) != 2 {
		t.Fatal("key binding or disclosures")
	}
	kb := jwt(`{"sd_hash":"x"}`)
	p, err = Parse(jwt(payload) + "~" + name + "~" + elem + "~" + kb)
	if err != nil || p.KeyBinding == nil || p.KeyBinding.Signed+"."+b64("s") != kb {
		t.Fatalf("key binding: %v", err)
	}
}

func TestParseRefuses(t *testing.T) {
	name := b64(`["s","a",1]`)
	elem := b64(`["s",1]`)
	big := strings.Repeat("A", MaxPresentation+1)
	many := jwt(`{}`) + strings.Repeat("~"+name, MaxDisclosures+1) + "~"
	deep := b64(`["s","a",` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `]`)
	for _, c := range []struct{ name, in, code string }{
		{"no tilde", jwt(`{}`), Malformed},
		{"two parts", "a.b~", Malformed},
		{"alg none", b64(`{"alg":"none"}`) + "." + b64(`{}`) + "." + b64("s") + "~", Malformed},
		{"padded", jwt(`{}`) + "=~", Malformed},
		{"payload not object", b64(`{"alg":"ES256"}`) + "." + b64(`[]`) + "." + b64("s") + "~", Malformed},
		{"sd alg", jwt(`{"_sd_alg":"sha-512"}`) + "~", AlgUnsupported},
		{"sd alg not string", jwt(`{"_sd_alg":1}`) + "~", AlgUnsupported},
		{"unreferenced", jwt(`{}`) + "~" + name + "~", Unreferenced},
		{"twice presented", jwt(`{"_sd":["`+Digest(name)+`"]}`) + "~" + name + "~" + name + "~", Malformed},
		{"twice referenced", jwt(`{"_sd":["`+Digest(name)+`"],"b":{"_sd":["`+Digest(name)+`"]}}`) + "~" + name + "~", Malformed},
		{"claim exists", jwt(`{"a":2,"_sd":["`+Digest(name)+`"]}`) + "~" + name + "~", Malformed},
		{"element as property", jwt(`{"x":[{"...":"`+Digest(name)+`"}]}`) + "~" + name + "~", Malformed},
		{"element only in _sd", jwt(`{"_sd":["`+Digest(elem)+`"]}`) + "~" + elem + "~", Unreferenced},
		{"reserved name", jwt(`{}`) + "~" + b64(`["s","_sd",[]]`) + "~", Malformed},
		{"sd not array", jwt(`{"_sd":"x"}`) + "~", Malformed},
		{"empty disclosure", jwt(`{}`) + "~~", Malformed},
		{"too large", big, TooLarge},
		{"too many", many, TooLarge},
		{"too deep", jwt(`{"_sd":["`+Digest(deep)+`"]}`) + "~" + deep + "~", TooLarge},
		{"nested too deep", nested(MaxNesting + 1), TooLarge},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.in)
			if Code(err) != c.code {
				t.Fatalf("got %v, want %s", err, c.code)
			}
		})
	}
}

// nested is a presentation of n disclosures, each an array element whose
// value holds the next one's digest.
func nested(n int) string {
	next := `"end"`
	var ds []string
	for i := 0; i < n; i++ {
		d := b64(`["s` + strings.Repeat("x", i) + `",[` + next + `]]`)
		ds = append(ds, d)
		next = `{"...":"` + Digest(d) + `"}`
	}
	return jwt(`{"x":[`+next+`]}`) + "~" + strings.Join(ds, "~") + "~"
}

func TestCapsAdmitTheirLimit(t *testing.T) {
	if _, err := Parse(nested(MaxNesting)); err != nil {
		t.Fatalf("%d nested disclosures: %v", MaxNesting, err)
	}
	var digests, ds []string
	for i := 0; i < MaxDisclosures; i++ {
		d := b64(`["s","c` + strings.Repeat("x", i) + `",1]`)
		ds = append(ds, d)
		digests = append(digests, `"`+Digest(d)+`"`)
	}
	in := jwt(`{"_sd":[`+strings.Join(digests, ",")+`]}`) + "~" + strings.Join(ds, "~") + "~"
	p, err := Parse(in)
	if err != nil || p.Claims.Len() != MaxDisclosures {
		t.Fatalf("%d disclosures: %v", MaxDisclosures, err)
	}
}

// FuzzParse: the reader never panics, stays within the time bound, and what
// it reads has every presented disclosure referenced and no _sd left.
func FuzzParse(f *testing.F) {
	name := b64(`["salt1","given_name","Erika"]`)
	elem := b64(`["salt2","DE"]`)
	f.Add(jwt(`{"_sd_alg":"sha-256","_sd":["`+Digest(name)+`"],"n":[{"...":"`+Digest(elem)+`"}]}`) + "~" + name + "~" + elem + "~")
	f.Add(jwt(`{}`) + "~" + jwt(`{}`))
	f.Add("~~~")
	f.Fuzz(func(t *testing.T, s string) {
		cost.Bound(t, len(s), func() {
			p, err := Parse(s)
			if err != nil {
				if Code(err) == "" {
					t.Fatalf("refusal without a code: %v", err)
				}
				return
			}
			if hasSD(p.Claims) {
				t.Fatal("_sd left in the claims")
			}
		})
	})
}

func hasSD(v jsonv.Value) bool {
	switch x := v.(type) {
	case *jsonv.Object:
		for _, m := range x.Members() {
			if m.Key == "_sd" || hasSD(m.Value) {
				return true
			}
		}
	case []jsonv.Value:
		for _, e := range x {
			if hasSD(e) {
				return true
			}
		}
	}
	return false
}
