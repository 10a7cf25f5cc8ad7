package pay_test

import (
	"context"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/x402"
)

// TestRequiredMemoUnchanged: repeat payments share the decoded
// PAYMENT-REQUIRED, and paying leaves it as the header decodes; a
// Transport whose InputsFor is handed the document gets its own.
func TestRequiredMemoUnchanged(t *testing.T) {
	e := newEnv(t, nil)
	url := e.seller.ResourceURL()
	for range 3 {
		if resp, _, err := get(t, e.client, url); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%v %v", err, resp)
		}
	}
	if n := e.signer.calls.Load(); n != 3 || e.seller.Rejected.Load() != 0 {
		t.Fatalf("%d signatures, %d rejected", n, e.seller.Rejected.Load())
	}
	header, doc := pay.LastRequired()
	fresh, err := x402.DecodeHeader(header)
	if err != nil || doc == nil || !jsonv.Equal(doc.(*jsonv.Object), fresh) {
		t.Fatalf("the memo's document is no longer its header's (%v)", err)
	}

	var given jsonv.Value
	e.transport.InputsFor = func(_ context.Context, _ string, d jsonv.Value, _ string) (*jsonv.Object, error) {
		given = d
		return nil, nil
	}
	if resp, _, err := get(t, e.client, url); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", err, resp)
	}
	if _, doc := pay.LastRequired(); given == nil || given == jsonv.Value(doc.(*jsonv.Object)) {
		t.Fatal("InputsFor was handed the memo's document")
	}
}
