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
	"github.com/termsgate/termsgate/rails/x402"
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

// TestDeclineErrorSaysWhy: Error() is code, detail and cause in one line,
// while errors.As still finds the *gate.Decline and Code and Detail stay
// what the vectors pin.
func TestDeclineErrorSaysWhy(t *testing.T) {
	t.Run("refused address", func(t *testing.T) {
		// The zero Fetcher connects only to public addresses: 127.0.0.1 is
		// refused before any connection.
		h0 := atr.Sum(atrA)
		doc := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{jsonv.Obj("scheme", "exact", "network", "eip155:84532",
			"amount", "10000", "asset", "0x036CbD53842c5426634e7929541eC2318f3dCF7e", "payTo", "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
			"maxTimeoutSeconds", 60, "extra", jsonv.Obj("name", "USDC", "version", "2"))})
		doc, _ = x402.Advertise(doc, h0, "https://127.0.0.1:9/"+h0.String(), "")
		s := &counting{answer: realKey()}
		_, err := (&gate.Gate{}).Transact(context.Background(), doc, evm.ExactEIP3009ID, s, nil)
		var d *gate.Decline
		if !errors.As(err, &d) || d.Code != gate.ATRUnfetchable || d.Detail != atr.DetailUnfetchable || s.calls.Load() != 0 {
			t.Fatalf("got %v, %d signer calls", err, s.calls.Load())
		}
		msg := err.Error()
		want := "atr-unfetchable: " + strings.TrimSuffix(atr.DetailUnfetchable, ".") + ": "
		if !strings.HasPrefix(msg, want) || !strings.Contains(msg, "127.0.0.1 is not a public address") || strings.Contains(msg, "\n") {
			t.Fatalf("Error() = %q, want %q… naming the refused address", msg, want)
		}
	})
	t.Run("no cause", func(t *testing.T) {
		d := &gate.Decline{Code: gate.HashMismatch, Detail: gate.DetailHashMismatch}
		if got := d.Error(); got != "hash-mismatch: "+gate.DetailHashMismatch {
			t.Fatalf("Error() = %q", got)
		}
	})
	t.Run("cause on several lines", func(t *testing.T) {
		d := &gate.Decline{Code: gate.SignerFailed, Detail: gate.DetailSignerFailed, Err: errors.New("the key\nis locked")}
		if got := d.Error(); got != "signer-failed: The signer did not sign: the key is locked" {
			t.Fatalf("Error() = %q", got)
		}
	})
	t.Run("cause repeating the detail", func(t *testing.T) {
		d := &gate.Decline{Code: gate.NoPayableOption, Detail: "x402/no-payable-option", Err: errors.New("x402/no-payable-option")}
		if got := d.Error(); got != "no-payable-option: x402/no-payable-option" {
			t.Fatalf("Error() = %q", got)
		}
	})
}
