package exactseller

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/x402"
)

// testSeller's chain binds a payment by payload.h and takes one whose
// payload.ok is true, counting what Verify is asked.
func testSeller(verified *int) *Seller {
	s := &Seller{Body: []byte(`{"sold":true}`)}
	s.Option = func() *jsonv.Object {
		return jsonv.Obj("scheme", "exact", "network", "test:1", "amount", "5", "asset", "T", "payTo", "seller", "extra", jsonv.Obj())
	}
	s.Bound = func(p jsonv.Value) (string, error) {
		h, ok := jsonv.AsString(demo.Path(p, "payload", "h"))
		if !ok {
			return "", errors.New("no h")
		}
		return h, nil
	}
	s.Verify = func(p *jsonv.Object) (string, error) {
		*verified++
		if demo.Path(p, "payload", "ok") != jsonv.Value(true) {
			return "", errors.New("the chain refuses it")
		}
		return "tx-1", nil
	}
	s.SetATR(demo.ATR)
	return s
}

// Every refusal before the chain's own check is the core's: a payment
// for another option or other terms never reaches Verify; one that
// Verify refuses gets 402 with the reason; one it takes gets the body,
// and Paid says what it returned.
func TestSellerAccepts(t *testing.T) {
	var verified int
	s := testSeller(&verified)
	srv, err := loopback.Start(s)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	client := srv.Client()
	h := s.Hash().String()
	other := s.Option()
	other.Set("amount", "4")
	for _, c := range []struct {
		name     string
		accepted *jsonv.Object
		h        string
		ok       bool
		status   int
		verified int
		why      string
	}{
		{"no payment", nil, "", false, http.StatusPaymentRequired, 0, ""},
		{"another option", other, h, true, http.StatusPaymentRequired, 0, "another option"},
		{"other terms", s.Option(), atr.Sum([]byte("other")).String(), true, http.StatusPaymentRequired, 0, "not bound"},
		{"chain refuses", s.Option(), h, false, http.StatusPaymentRequired, 1, "the chain refuses it"},
		{"taken", s.Option(), h, true, http.StatusOK, 1, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			verified = 0
			req, _ := http.NewRequest(http.MethodGet, URL, nil)
			if c.accepted != nil {
				payment := jsonv.Obj("x402Version", 2, "accepted", c.accepted, "payload", jsonv.Obj("h", c.h, "ok", c.ok))
				req.Header.Set("PAYMENT-SIGNATURE", x402.EncodeHeader(payment))
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body := demo.Read(resp)
			if resp.StatusCode != c.status || verified != c.verified {
				t.Fatalf("status %d, Verify asked %d times; want %d, %d (%s)", resp.StatusCode, verified, c.status, c.verified, body)
			}
			if c.status == http.StatusOK {
				if string(body) != string(s.Body) || s.Paid() != "tx-1" || s.LastRejection() != nil {
					t.Fatalf("body %s, paid %q, rejection %v", body, s.Paid(), s.LastRejection())
				}
				return
			}
			doc, err := x402.DecodeHeader(resp.Header.Get("PAYMENT-REQUIRED"))
			if err != nil {
				t.Fatal(err)
			}
			if adv, _ := jsonv.AsString(demo.Path(doc, "extensions", "legalContext", "info", "value")); adv != h {
				t.Fatalf("advertised %q, want %s", adv, h)
			}
			if c.why != "" && (s.LastRejection() == nil || !strings.Contains(s.LastRejection().Error(), c.why)) {
				t.Fatalf("rejection %v, want %q", s.LastRejection(), c.why)
			}
		})
	}
}

// Place edits the option as offered, and a payment must accept the option
// as placed, not as Option builds it.
func TestSellerPlace(t *testing.T) {
	var verified int
	s := testSeller(&verified)
	s.Place = func(doc *jsonv.Object, h atr.Hash) error {
		o, _ := jsonv.AsObject(demo.Path(doc, "accepts").([]jsonv.Value)[0])
		extra, _ := o.GetObject("extra")
		extra.Set("carrier", h.String())
		return nil
	}
	doc, err := s.Required()
	if err != nil {
		t.Fatal(err)
	}
	placed, _ := jsonv.AsObject(demo.Path(doc, "accepts").([]jsonv.Value)[0])
	h := s.Hash().String()
	if got, _ := jsonv.AsString(demo.Path(placed, "extra", "carrier")); got != h {
		t.Fatalf("placed carrier %q, want %s", got, h)
	}
	if err := s.accept(x402.EncodeHeader(jsonv.Obj("accepted", s.Option(), "payload", jsonv.Obj("h", h, "ok", true)))); err == nil || verified != 0 {
		t.Fatalf("the unplaced option was taken (%v, Verify asked %d times)", err, verified)
	}
	if err := s.accept(x402.EncodeHeader(jsonv.Obj("accepted", placed, "payload", jsonv.Obj("h", h, "ok", true)))); err != nil || verified != 1 {
		t.Fatalf("the placed option was refused: %v (Verify asked %d times)", err, verified)
	}
}
