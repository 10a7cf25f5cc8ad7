package pay

import (
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/x402"
)

// TestEncodeHeaderIsX402s: the Transport's header encoding writes what
// x402.EncodeHeader writes, whatever the buffer it reuses held before.
func TestEncodeHeaderIsX402s(t *testing.T) {
	docs := []string{
		`{}`, `{"a":1}`, `{"x402Version":2,"payload":{"signature":"0x` + strings.Repeat("ab", 65) + `"},"accepted":{"extra":{"name":"USD Coin","version":"2"}}}`,
		`{"note":"Café — 30 días ✓","n":[1.5,-0,1e300,null,true,false,"\u0000\u2028"]}`,
		`{"big":"` + strings.Repeat("x", 100<<10) + `"}`, // past what the pool keeps
		`{"after":"the big one"}`,
	}
	for range 2 {
		for _, d := range docs {
			v, err := jsonv.Parse([]byte(d))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := encodeHeader(v), x402.EncodeHeader(v); got != want {
				t.Fatalf("%.60s: %.60s…, want %.60s…", d, got, want)
			}
		}
	}
}

// TestDecodeRequiredMemo: a header equal to the last one decoded gets the
// same document; any other header, a failure, or a caller who shares
// nothing decodes afresh.
func TestDecodeRequiredMemo(t *testing.T) {
	a := x402.EncodeHeader(jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{}))
	b := x402.EncodeHeader(jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{jsonv.Obj("scheme", "exact")}))
	first, err := decodeRequired(a, true)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := decodeRequired(a, true); again != first {
		t.Error("the same header decoded again")
	}
	if own, _ := decodeRequired(a, false); own == first || !jsonv.Equal(own, first) {
		t.Error("a caller sharing nothing got the memo's document, or another one")
	}
	other, _ := decodeRequired(b, true)
	if other == first || jsonv.Equal(other, first) {
		t.Error("another header answered from the memo")
	}
	if _, err := decodeRequired("!!", true); err == nil {
		t.Error("an unreadable header read")
	}
	if m := lastRequired.Load(); m == nil || m.header != b {
		t.Error("a failure replaced the memo")
	}
	if again, _ := decodeRequired(a, true); again == first || !jsonv.Equal(again, first) {
		t.Error("the memo held two headers")
	}
}
