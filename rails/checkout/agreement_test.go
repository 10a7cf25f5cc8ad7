package checkout

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

const (
	testH         = "0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	testLink      = "https://atr.seller.example/" + testH
	testAgreement = "https://pay.seller.example/agree"
)

func code(err error) string {
	var r *rails.Refusal
	if errors.As(err, &r) {
		return r.Code
	}
	return ""
}

func jwtOf(t *testing.T, payload *jsonv.Object) string {
	t.Helper()
	return "eyJhbGciOiJFUzI1NiJ9." + b64(jsonv.Marshal(payload)) + ".AA"
}

// Every checkout reader gives the agreement URL its seller advertised, and
// refuses one that is no https link, as the link's own rule does.
func TestAgreementURLRead(t *testing.T) {
	reads := map[string]func(agreement string) (rails.Read, error){
		AP2ID: func(a string) (rails.Read, error) {
			p, err := AdvertiseAgreement(jsonv.Obj("id", "chk_1", "currency", "USD"), jsonv.Obj("checkout", "chk_1"), testH, testLink, a)
			if err != nil {
				return rails.Read{}, err
			}
			return AP2{}.Read(jwtOf(t, p))
		},
		"ucp": func(a string) (rails.Read, error) {
			c, err := UCPCheckoutUnsigned.AdvertiseAgreement(jsonv.Obj("id", "chk_1"), testH, testLink, jsonv.Obj("checkout", "chk_1"), a)
			if err != nil {
				return rails.Read{}, err
			}
			return UCPCheckoutUnsigned.Read(c)
		},
		"acp": func(a string) (rails.Read, error) {
			s, err := ACPAdvertiseAgreement(jsonv.Obj("currency", "usd"), testH, testLink, jsonv.Obj("requires_delegate_payment", false), a)
			if err != nil {
				return rails.Read{}, err
			}
			return ACPUndelegated{}.Read(s)
		},
		ACKID: func(a string) (rails.Read, error) {
			tok := "eyJhbGciOiJFUzI1NiJ9." + b64([]byte(`{"id":"lcp:sha256:`+testH+`","paymentOptions":[]}`)) + ".AA"
			b, err := ACKAdvertiseAgreement(jsonv.Obj("paymentRequestToken", tok), testH, testLink, jsonv.Obj("id", "o"), a)
			if err != nil {
				return rails.Read{}, err
			}
			return ACK{}.Read(b)
		},
	}
	for name, read := range reads {
		t.Run(name, func(t *testing.T) {
			r, err := read(testAgreement)
			if err != nil || r.Agreement != testAgreement || r.H != testH || r.Link != testLink {
				t.Fatalf("read %+v, %v", r, err)
			}
			if r, err := read(""); err != nil || r.Agreement != "" {
				t.Fatalf("no agreement: %+v, %v", r, err)
			}
			if _, err := read("http://pay.seller.example/agree"); !strings.HasSuffix(code(err), "/link-not-https") {
				t.Fatalf("http agreement: %v", err)
			}
			if _, err := read("https://"); !strings.HasSuffix(code(err), "/legal-context-malformed") {
				t.Fatalf("malformed agreement: %v", err)
			}
		})
	}
}

// A reader refuses what a seller wrote wrong beside a good legal context:
// two spellings naming different URLs, a value of another scheme, two UCP
// agreement links.
func TestAgreementURLRefused(t *testing.T) {
	lc := jsonv.Obj("type", "sha256", "value", testH, "legalContextUrl", testLink,
		agreementCamel, testAgreement, agreementSnake, "https://other.example/a")
	if _, err := (AP2{}).Read(jwtOf(t, jsonv.Obj("id", "chk_1", "legalContext", lc))); code(err) != "ap2/legal-context-malformed" {
		t.Fatalf("two spellings: %v", err)
	}
	lc.Set(agreementSnake, testAgreement)
	if r, err := (AP2{}).Read(jwtOf(t, jsonv.Obj("id", "chk_1", "legalContext", lc))); err != nil || r.Agreement != testAgreement {
		t.Fatalf("two equal spellings: %+v %v", r, err)
	}
	acpLC := jsonv.Obj("type", "sha256", "value", testH, "legal_context_url", testLink, agreementSnake, 7)
	if _, err := (ACPUndelegated{}).Read(jsonv.Obj("id", testH, "metadata", jsonv.Obj("legal_context", acpLC))); code(err) != "acp/legal-context-malformed" {
		t.Fatalf("a number: %v", err)
	}
	c, err := UCPCheckoutUnsigned.AdvertiseAgreement(jsonv.Obj("id", "chk_1"), testH, testLink, jsonv.Obj("checkout", "chk_1"), testAgreement)
	if err != nil {
		t.Fatal(err)
	}
	links, _ := c.Get("links")
	list, _ := jsonv.AsArray(links)
	if len(list) != 2 {
		t.Fatalf("links %s", jsonv.Marshal(links))
	}
	twice := c.Clone()
	twice.Set("links", append(append([]jsonv.Value{}, list...), jsonv.Obj("type", ucpAgreementLinkType, "url", testAgreement)))
	if _, err := UCPCheckoutUnsigned.Read(twice); code(err) != "ucp/legal-context-conflict" {
		t.Fatalf("two agreement links: %v", err)
	}
	if _, err := UCPCheckoutUnsigned.AdvertiseAgreement(c, testH, testLink, jsonv.Obj("checkout", "chk_1"), "https://other.example/a"); code(err) != "ucp/legal-context-conflict" {
		t.Fatalf("another agreement: %v", err)
	}
	if again, err := UCPCheckoutUnsigned.AdvertiseAgreement(c, testH, testLink, jsonv.Obj("checkout", "chk_1"), testAgreement); err != nil || !jsonv.Equal(again, c) {
		t.Fatalf("the same again: %v", err)
	}
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
