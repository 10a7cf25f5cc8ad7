package evm_test

import (
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
)

func authCaptureOption(method string) *jsonv.Object {
	extra := jsonv.Obj("name", "USDC", "version", "2", "captureAuthorizer", anvilAccount2,
		"receiverAuthorizer", "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
		"captureDeadline", 1790003600, "refundDeadline", 1790086400,
		"feeRecipient", "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65", "minFeeBps", 0, "maxFeeBps", 100)
	if method != "" {
		extra.Set("assetTransferMethod", method)
	}
	return jsonv.Obj("scheme", "auth-capture", "network", "eip155:84532", "amount", "10000", "asset", usdcBaseSepolia,
		"payTo", vectorPayTo, "maxTimeoutSeconds", 60, "extra", extra)
}

func TestAuthCaptureSummaries(t *testing.T) {
	h := atr.Sum([]byte("abc"))
	for _, c := range []struct {
		p      rails.Pairing
		method string
	}{{evm.AuthCaptureEIP3009{}, ""}, {evm.AuthCapturePermit2{}, "permit2"}} {
		t.Run(c.p.ID(), func(t *testing.T) {
			_, _, req := built(t, c.p, authCaptureOption(c.method), h)
			sz := c.p.(rails.Summarizer)
			g, err := sz.Summarize(req)
			if err != nil {
				t.Fatal(err)
			}
			if g.Amount.String() != "10000" || g.Payee != vectorPayTo || g.Asset != usdcBaseSepolia || g.PayableUntil.Unix() != 1790000060 {
				t.Fatalf("grant %+v", g)
			}
			info := func(r *jsonv.Object) *jsonv.Object {
				e, _ := r.GetObject("escrow")
				i, _ := e.GetObject("paymentInfo")
				return i
			}
			for name, mut := range map[string]func(r *jsonv.Object){
				// A payment info the nonce does not commit to names
				// another receiver than the one that would be paid.
				"other receiver":  func(r *jsonv.Object) { info(r).Set("receiver", anvilAccount2) },
				"larger maximum":  func(r *jsonv.Object) { info(r).Set("maxAmount", "20000") },
				"payer set":       func(r *jsonv.Object) { info(r).Set("payer", anvilPayer) },
				"other escrow":    func(r *jsonv.Object) { e, _ := r.GetObject("escrow"); e.Set("address", anvilAccount2) },
				"no escrow":       func(r *jsonv.Object) { r.Delete("escrow") },
				"extra member":    func(r *jsonv.Object) { r.Set("broadcast", true) },
				"other nonce":     func(r *jsonv.Object) { p2msg(r).Set("nonce", "1") },
				"other recipient": func(r *jsonv.Object) { p2msg(r).Set("to", anvilAccount2); p2msg(r).Set("spender", anvilAccount2) },
			} {
				bad := req.Clone()
				mut(bad)
				if _, err := sz.Summarize(bad); err == nil {
					t.Errorf("%s: summarized", name)
				}
			}
		})
	}
}

// FuzzAuthCapturePayment: the read-backs of both auth-capture pairings on
// any JSON: no panic, within the fuzz bound, Inspect's H is Bound's.
func FuzzAuthCapturePayment(f *testing.F) {
	h := atr.Sum([]byte("abc"))
	for _, c := range []struct {
		p      rails.Pairing
		method string
	}{{evm.AuthCaptureEIP3009{}, ""}, {evm.AuthCapturePermit2{}, "permit2"}} {
		_, u, _ := built(f, c.p, authCaptureOption(c.method), h)
		done, err := c.p.Complete(u, "0x"+strings.Repeat("11", 65), rails.Chosen{Ref: rails.NewRef()})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(jsonv.Marshal(done.Signed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := jsonv.Parse(raw)
		if err != nil {
			return
		}
		cost.Bound(t, len(raw), func() {
			readBackAgrees(t, v, evm.AuthCaptureEIP3009{}, evm.AuthCapturePermit2{})
		})
	})
}

// FuzzAuthCaptureRequest: the escrow request readers on any request.
func FuzzAuthCaptureRequest(f *testing.F) {
	h := atr.Sum([]byte("abc"))
	_, _, req := built(f, evm.AuthCaptureEIP3009{}, authCaptureOption(""), h)
	f.Add(jsonv.Marshal(req))
	_, _, req = built(f, evm.AuthCapturePermit2{}, authCaptureOption("permit2"), h)
	f.Add(jsonv.Marshal(req))
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := jsonv.Parse(raw)
		if err != nil {
			return
		}
		o, ok := jsonv.AsObject(v)
		if !ok {
			return
		}
		cost.Bound(t, len(raw), func() {
			_, _ = evm.AuthCaptureEIP3009{}.Summarize(o)
			_, _ = evm.AuthCapturePermit2{}.Summarize(o)
		})
	})
}

// BenchmarkAuthCaptureBuildSignFinish is x402/auth-capture/eip155/eip3009
// with the ATR in hand: the salt commitment, the payment hash, the
// ReceiveWithAuthorization signed by the local key, then the gate's Finish.
func BenchmarkAuthCaptureBuildSignFinish(b *testing.B) {
	benchBuildSignFinish(b, evm.AuthCaptureEIP3009{}, authCaptureOption(""))
}

// BenchmarkAuthCapturePermit2BuildSignFinish is the same through Permit2.
func BenchmarkAuthCapturePermit2BuildSignFinish(b *testing.B) {
	benchBuildSignFinish(b, evm.AuthCapturePermit2{}, authCaptureOption("permit2"))
}
