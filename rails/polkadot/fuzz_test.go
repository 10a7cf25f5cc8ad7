package polkadot

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// v3 is the vector file's V3 extrinsic; its last 123 bytes are the call.
const v3 = "91038400f0a9102f0c58b6b1616671d59b86bfe96ab7211ce9f3eec1a3f6b43e24cc957e00f89553773fab874dbdeb508f55b2e87ec93fc489a4ab8b65bf47898ca18824669391a63ca8dbf3de605b18c531ed224c0fdbaebbaa0a7ecd7ece6acf9c3bd400a502000000002802083209e51400d43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d419c000735016c63703a7368613235363a307862613738313662663866303163666561343134313430646535646165323232336230303336316133393631373761396362343130666636316632303031356164"

func v3Bytes() []byte { b, _ := hex.DecodeString(v3); return b }

// FuzzDecodeCall: any bytes read as the profile's call write back to
// themselves, or are refused; a compact read writes back to its bytes.
func FuzzDecodeCall(f *testing.F) {
	xt := v3Bytes()
	f.Add(xt[len(xt)-123:])
	f.Add([]byte{40, 2, 8, 50, 9})
	f.Add([]byte{0x03, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		cost.Bound(t, len(b), func() {
			if c, ok := DecodeCall(b); ok && !bytes.Equal(c.Encode(), b) {
				t.Fatal("a call read does not write back")
			}
			if v, next, ok := Compact(b, 0); ok && !bytes.Equal(AppendCompactBig(nil, v), b[:next]) {
				t.Fatal("a compact read does not write back")
			}
		})
	})
}

// FuzzDecodeExtrinsic: any bytes read through the signed preamble, the
// extra and the era without a panic; an extra read writes back to its
// bytes, and the bare-extrinsic inspector never panics.
func FuzzDecodeExtrinsic(f *testing.F) {
	f.Add(v3Bytes())
	f.Add([]byte{0x04, 0x84, 0x00})
	f.Add([]byte{0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		cost.Bound(t, len(b), func() {
			s, err := SplitSigned(b)
			if err == nil {
				if x, next, ok := DecodeExtra(b, s.End); ok && !bytes.Equal(x.Encode(), b[s.End:next]) {
					t.Fatal("an extra read does not write back")
				}
			}
			_, _ = InspectExtrinsic("0x" + hex.EncodeToString(b))
		})
	})
}

// FuzzPolkadotPayment: any payload extrinsic and call text read through
// Bound, PaymentReference and Inspect without a panic, and Inspect's H is
// always Bound's.
func FuzzPolkadotPayment(f *testing.F) {
	xt := v3Bytes()
	f.Add("0x"+v3, "0x"+hex.EncodeToString(xt[len(xt)-123:]))
	f.Add("", "")
	f.Add("0x", "0x00")
	option := jsonv.Obj("scheme", "exact", "network", "polkadot:68d56f15f85d3136970ec16946040bc1", "amount", "10000", "asset", "1337",
		"payTo", "15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5", "maxTimeoutSeconds", 60,
		"extra", jsonv.Obj("assetTransferMethod", TransferMethod))
	f.Fuzz(func(t *testing.T, xt, call string) {
		cost.Bound(t, len(xt)+len(call), func() {
			p := jsonv.Obj("x402Version", 2, "accepted", option.Clone(), "payload", jsonv.Obj("extrinsic", xt, "call", call))
			h, err := Exact{}.Bound(p)
			_, _ = PaymentReference(p)
			in, ierr := Exact{}.Inspect(p)
			if (err == nil) != (ierr == nil) || err == nil && in.H != h {
				t.Fatalf("bound %q (%v), inspect %q (%v)", h, err, in.H, ierr)
			}
		})
	})
}

// FuzzSigningRequest: Summarize over any call and era period, as the
// signer reads a request before signing, never panics, and a request it
// reads names the call's own transfer.
func FuzzSigningRequest(f *testing.F) {
	xt := v3Bytes()
	f.Add("0x"+hex.EncodeToString(xt[len(xt)-123:]), int64(16))
	f.Add("0x", int64(3))
	f.Fuzz(func(t *testing.T, call string, period int64) {
		cost.Bound(t, len(call), func() {
			req := jsonv.Obj("kind", KindCall, "network", "polkadot:68d56f15f85d3136970ec16946040bc1",
				"signer", "16SYiSu5tWgdV4sWiaxir7GYEiFfTc9GYnRd34PDGCUMgkmP", "call", call, "eraPeriod", jsonv.Number(period), "tip", "0")
			g, err := Exact{}.Summarize(rails.Request(req))
			if err == nil {
				r, _ := ReadRequest(req)
				if g.Amount.Cmp(r.Call.Amount) != 0 || g.Payee != Address("polkadot:68d56f15f85d3136970ec16946040bc1", r.Call.Dest) {
					t.Fatal("the grant is not the call's transfer")
				}
			}
		})
	})
}
