package gate_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
)

// TestDeclineKeepsCause: the decline's code and detail stay as the vectors
// pin them, and the cause beneath is reachable with errors.Is/As and printed
// in its own JSON member.
func TestDeclineKeepsCause(t *testing.T) {
	t.Run("status", func(t *testing.T) {
		g, doc, _ := hostileSeller(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNotFound) })
		s := &counting{answer: realKey()}
		_, err := g.Transact(context.Background(), doc, evm.ExactEIP3009ID, s, nil)
		var d *gate.Decline
		if !errors.As(err, &d) || d.Code != gate.ATRUnfetchable || d.Detail != atr.DetailStatus(404) {
			t.Fatalf("got %v", err)
		}
		var se *atr.StatusError
		if !errors.As(err, &se) || se.Status != 404 || s.calls.Load() != 0 {
			t.Fatalf("cause %v, %d signer calls", errors.Unwrap(err), s.calls.Load())
		}
		out := d.JSON()
		cause, _ := out.GetString("cause")
		if !strings.Contains(cause, "404") || strings.Contains(d.Detail, cause) {
			t.Fatalf("JSON %s", jsonv.Marshal(out))
		}
	})
	t.Run("signer", func(t *testing.T) {
		g, doc, _ := hostileSeller(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(atrA) })
		locked := errors.New("the key is locked")
		s := &counting{answer: func(context.Context, rails.Request) (jsonv.Value, error) { return nil, locked }}
		_, err := g.Transact(context.Background(), doc, evm.ExactEIP3009ID, s, nil)
		var d *gate.Decline
		if !errors.As(err, &d) || d.Code != gate.SignerFailed || d.Detail != gate.DetailSignerFailed || !errors.Is(err, locked) {
			t.Fatalf("got %v (cause %v)", err, errors.Unwrap(err))
		}
		if c, _ := d.JSON().GetString("cause"); c != locked.Error() {
			t.Fatalf("cause member %q", c)
		}
	})
	t.Run("signer panics", func(t *testing.T) {
		g, doc, _ := hostileSeller(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(atrA) })
		s := &counting{answer: func(context.Context, rails.Request) (jsonv.Value, error) { panic("boom") }}
		_, err := g.Transact(context.Background(), doc, evm.ExactEIP3009ID, s, nil)
		var d *gate.Decline
		if !errors.As(err, &d) || d.Code != gate.SignerFailed || d.Err == nil || !strings.Contains(d.Err.Error(), "boom") {
			t.Fatalf("got %v", err)
		}
	})
}
