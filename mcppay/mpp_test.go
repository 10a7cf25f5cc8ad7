package mcppay_test

import (
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/mcppay"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/mpp"
)

// MPP's -32042 challenges, request and opaque as JSON objects, reach the
// gate in the form a WWW-Authenticate challenge has: base64url of their
// canonical JSON; HTTP's header parameter is dropped; a list that is not
// 1 to 32 challenges is offer-unreadable.
func TestReadRequiredMPPChallenges(t *testing.T) {
	data := []byte(`{"httpStatus":402,"challenges":[{"id":"abc.0","realm":"tools.example","method":"tempo","intent":"charge",` +
		`"request":{"recipient":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C","amount":"1000"},"expires":"2026-12-01T20:00:00Z",` +
		`"opaque":{"legalContext":"lcp:sha256:0x00"},"header":"Payment-Authorization"}]}`)
	r, err := mcppay.ReadRequired(mcppay.Answer{Error: &mcppay.RPCError{Code: mcppay.CodeMPPPaymentRequired, Data: data}})
	if err != nil || r == nil || r.Protocol != pay.ProtocolMPP {
		t.Fatalf("%+v, %v", r, err)
	}
	list, _ := jsonv.AsArray(r.Doc)
	c, _ := jsonv.AsObject(list[0])
	req, _ := c.GetString("request")
	want := mpp.EncodeObject(jsonv.Obj("amount", "1000", "recipient", "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"))
	if req != want || c.Has("header") {
		t.Fatalf("challenge %s, request want %s", jsonv.String(c), want)
	}
	if got, ok := mpp.DecodeStringMap(mustString(t, c, "opaque")); !ok || !got.Has("legalContext") {
		t.Fatalf("opaque %v", got)
	}
	for _, bad := range []string{`{"challenges":[]}`, `{"challenges":"x"}`, `{"challenges":[1]}`} {
		if _, err := mcppay.ReadRequired(mcppay.Answer{Error: &mcppay.RPCError{Code: mcppay.CodeMPPPaymentRequired, Data: []byte(bad)}}); err == nil {
			t.Fatalf("%s read", bad)
		}
	}
}

func mustString(t *testing.T, o *jsonv.Object, k string) string {
	t.Helper()
	s, ok := o.GetString(k)
	if !ok {
		t.Fatalf("no %s", k)
	}
	return s
}
