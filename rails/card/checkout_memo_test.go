package card

import (
	"encoding/base64"
	"os"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/memo"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/sdjwt"
)

// fromScratch is what readCheckoutPayload answers, read without the memo.
func fromScratch(doc jsonv.Value) (checkoutRead, string) {
	p, err := CheckoutPayload(doc)
	if err != nil {
		return checkoutRead{}, err.(*rails.Refusal).Code
	}
	s, _ := jsonv.AsString(doc)
	c := checkoutRead{digest: sdjwt.Digest(s)}
	c.iss, _ = p.GetString("iss")
	if c.shown, err = ReadLegalContext(p); err != nil {
		c.shownCode = err.(*rails.Refusal).Code
	}
	return c, ""
}

// TestCheckoutMemoAgrees: cold and remembered, the checkout reads answer
// what a read from scratch answers, for card.json's checkout JWT, one whose
// legal context is refused, one whose payload is not JSON and the first
// one changed by a byte after it was remembered; the memo never grows past
// its size.
func TestCheckoutMemoAgrees(t *testing.T) {
	raw, err := os.ReadFile("../../vectors/testdata/card.json")
	if err != nil {
		t.Fatal(err)
	}
	v, _ := jsonv.Parse(raw)
	f, _ := jsonv.AsObject(v)
	vi, _ := f.GetObject("vi")
	cj, _ := vi.GetString("CJ")
	parts := strings.Split(cj, ".")
	enc := base64.RawURLEncoding.EncodeToString
	badLC := parts[0] + "." + enc([]byte(`{"iss":"x","legalContext":{"type":"md5"}}`)) + "." + parts[2]
	notJSON := parts[0] + "." + enc([]byte(`{"iss":`)) + "." + parts[2]
	changed := parts[0] + "." + enc([]byte(strings.Replace(mustDecode(t, parts[1]), "0xba78", "0xca78", 1))) + "." + parts[2]
	checkoutReads = memo.New[string, checkoutRead](checkoutMemoSize)
	for round := 0; round < 3; round++ {
		for _, doc := range []string{cj, badLC, notJSON, changed} {
			want, wantCode := fromScratch(doc)
			got, err := readCheckoutPayload(doc)
			code := ""
			if err != nil {
				code = err.(*rails.Refusal).Code
			}
			if got != want || code != wantCode {
				t.Fatalf("round %d: %+v %q, want %+v %q", round, got, code, want, wantCode)
			}
			s, err := ReadCheckout(doc)
			wantShown := want.shownCode
			if wantCode != "" {
				wantShown = wantCode
			}
			if err != nil {
				if r := err.(*rails.Refusal); r.Code != wantShown {
					t.Fatalf("ReadCheckout: %s, want %s", r.Code, wantShown)
				}
			} else if wantShown != "" || s != want.shown {
				t.Fatalf("ReadCheckout: %+v, want %+v (%s)", s, want.shown, wantShown)
			}
		}
	}
	if a, _ := readCheckout(cj); a.shown.H == "" {
		t.Fatal("no H")
	} else if b, _ := readCheckout(changed); b.shown.H == a.shown.H || b.digest == a.digest {
		t.Fatal("the changed JWT answered as the remembered one")
	}
	for i := 0; i < 2*checkoutMemoSize; i++ {
		checkoutReads.Put(string(rune(i)), checkoutRead{})
		if n := checkoutReads.Len(); n > checkoutMemoSize {
			t.Fatalf("the memo holds %d", n)
		}
	}
}

func mustDecode(t *testing.T, s string) string {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLayerPayloadAsSet: the payload written straight into bytes is the
// Marshal of claims with the three members Set, for claims of none, some
// and escaped members, and (the other path) claims that already have one.
func TestLayerPayloadAsSet(t *testing.T) {
	digests := []string{"abc", "d-_e"}
	for _, claims := range []*jsonv.Object{
		jsonv.Obj(),
		LayerClaims("n", "https://a.example", 1, 2, "x"),
		jsonv.Obj("1", "index", "q\"\u2028", jsonv.Obj("k", []jsonv.Value{jsonv.Number(1.5), nil, true})),
		jsonv.Obj("_sd", "old", "a", 1),
		jsonv.Obj("delegate_payload", 1),
	} {
		ref := claims.Clone()
		sd := []jsonv.Value{digests[0], digests[1]}
		refs := []jsonv.Value{jsonv.Obj("...", digests[0]), jsonv.Obj("...", digests[1])}
		ref.Set("_sd_alg", "sha-256")
		ref.Set("_sd", sd)
		ref.Set("delegate_payload", refs)
		if got, want := string(layerPayload(claims, digests)), string(jsonv.Marshal(ref)); got != want {
			t.Fatalf("%s, want %s", got, want)
		}
	}
}
