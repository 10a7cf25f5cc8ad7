package pay

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
)

// TestPaidRequestLeavesTheRequest: the paid request carries the payment and
// every header of the request, and changing it (its header map, a value
// array) changes nothing of the request RoundTrip was given.
func TestPaidRequestLeavesTheRequest(t *testing.T) {
	for _, name := range []string{HeaderSignature, "Authorization", "payment-authorization"} {
		req := httptest.NewRequest(http.MethodPost, "https://api.seller.example/v1/report?q=1", nil)
		req.Header = http.Header{"Accept": {"application/json", "text/plain"}, "X-Empty": {}, "X-Nil": nil, "Content-Type": {"application/json"}}
		before := req.Header.Clone()
		retry := paidRequest(req, name, "the payment")
		if got := retry.Header.Values(name); len(got) != 1 || got[0] != "the payment" {
			t.Fatalf("%s: the paid request carries %q", name, got)
		}
		want := before.Clone()
		want.Set(name, "the payment")
		if !reflect.DeepEqual(retry.Header, want) {
			t.Fatalf("%s: paid header %v, want %v", name, retry.Header, want)
		}
		if retry.URL != req.URL || retry.Context() != req.Context() || retry.Method != req.Method {
			t.Fatalf("%s: the paid request is not the request's copy", name)
		}
		retry.Header.Add("Accept", "text/html")
		retry.Header["Content-Type"][0] = "text/plain"
		retry.Header.Set("X-Another", "x")
		if !reflect.DeepEqual(req.Header, before) {
			t.Fatalf("%s: the request's header became %v, was %v", name, req.Header, before)
		}
		if req.Header.Get(name) != "" {
			t.Fatalf("%s: the request itself carries the payment", name)
		}
	}
}
