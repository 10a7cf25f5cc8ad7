package mcppay_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/mcppay"
)

// FuzzReadRequired: whatever a server answers, ReadRequired returns nothing,
// a request for payment, or an offer-unreadable decline; never a panic.
func FuzzReadRequired(f *testing.F) {
	doc, err := x402seller.New([]byte("terms"), nil).Required()
	if err != nil {
		f.Fatal(err)
	}
	text := jsonv.Marshal(doc)
	result, _ := json.Marshal(map[string]any{"isError": true, "structuredContent": json.RawMessage(text),
		"content": []any{map[string]any{"type": "text", "text": string(text)}}})
	f.Add(result, []byte(nil), 0)
	f.Add([]byte(nil), text, mcppay.CodeX402PaymentRequired)
	f.Add([]byte(nil), []byte(`{"httpStatus":402,"challenges":[{"id":"x","realm":"r","method":"tempo","intent":"charge","request":{"amount":"1"},"expires":"2026-01-01T00:00:00Z"}]}`), mcppay.CodeMPPPaymentRequired)
	f.Add([]byte(`{"isError":true,"content":[{"type":"text","text":"{\"x402Version\":2,\"accepts\":[],\"Accepts\":[]}"}]}`), []byte(nil), 0)
	f.Fuzz(func(t *testing.T, res, data []byte, code int) {
		a := mcppay.Answer{Result: res}
		if code != 0 {
			a = mcppay.Answer{Error: &mcppay.RPCError{Code: code, Data: data}}
		}
		r, err := mcppay.ReadRequired(a)
		if err != nil {
			var d *gate.Decline
			if !errors.As(err, &d) || d.Code != gate.OfferUnreadable || r != nil {
				t.Fatalf("%v, %v", r, err)
			}
		}
	})
}
