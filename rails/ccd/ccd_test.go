package ccd

import (
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
)

// Fuzz targets of the read side, seeded from x402-exact-ccd.json
// (vectors/testdata); the file's rows run in vectors (TestX402ExactCCD).

func load(t testing.TB) *jsonv.Object {
	t.Helper()
	raw, err := os.ReadFile("../../vectors/testdata/x402-exact-ccd.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonv.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return v.(*jsonv.Object)
}

func at(t testing.TB, v jsonv.Value, path ...string) jsonv.Value {
	t.Helper()
	for _, p := range path {
		o, ok := jsonv.AsObject(v)
		if !ok {
			t.Fatalf("no %s", strings.Join(path, "."))
		}
		v, _ = o.Get(p)
	}
	return v
}

// FuzzCCDPayment: any memo blob and operations read through Bound and
// PaymentReference without a panic, and an H read is in the input as
// Memo writes it.
func FuzzCCDPayment(f *testing.F) {
	f.Add("004f784d6c63703a7368613235363a3078626137383136626638663031636665613431343134306465356461653232323362303033363161333936313737613963623431306666363166323030313561", "81a1687472616e73666572a0")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, memo, ops string) {
		cost.Bound(t, len(memo)+len(ops), func() {
			for _, body := range []*jsonv.Object{
				jsonv.Obj("type", "transferWithMemo", "toAddress", "4PnJd77jiMZB3HheYkrynfUGzZtpSERjpzy954eDD3krRf1Wpx", "memo", memo, "amount", "1000000"),
				jsonv.Obj("type", "tokenUpdate", "tokenId", "EURR", "operations", ops),
			} {
				tx := jsonv.Obj("version", 1, "header", jsonv.Obj("sender", "3ezotrLdEJLzM7cwvpkGtxGcmSFJ8MZMySUvQynXeV3P8s8wcg", "nonce", 7, "expiry", 1790000060), "payload", body)
				p := jsonv.Obj("x402Version", 2, "accepted", jsonv.Obj("scheme", "exact", "network", "ccd:4221332d34e1694168c2a0c0b3fd0f27",
					"amount", "1000000", "asset", "CCD", "payTo", "4PnJd77jiMZB3HheYkrynfUGzZtpSERjpzy954eDD3krRf1Wpx", "maxTimeoutSeconds", 60,
					"extra", jsonv.Obj("feePayer", "4SMYM3fzSqs6DBqMgPDWnq4XTiT2YXFCUD2dV3rPmtG42ocYtd")), "payload", jsonv.Obj("signedTransaction", tx))
				h, err := Bound(p)
				if err == nil && !strings.Contains(memo+ops, hex.EncodeToString(Memo(atr.Hash(unhexOr(h))))) {
					t.Fatalf("H %s read from an input without its memo", h)
				}
				_, _ = PaymentReference(p)
			}
		})
	})
}

func unhexOr(s string) []byte {
	b, _ := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if len(b) != 32 {
		return make([]byte, 32)
	}
	return b
}

// FuzzMemoCarrier: any bytes read as a memo without a panic; what reads is
// Memo(H) exactly.
func FuzzMemoCarrier(f *testing.F) {
	f.Add(Memo(atr.Sum([]byte("abc"))))
	f.Add([]byte{0x79, 0x00, 0x4d})
	f.Fuzz(func(t *testing.T, b []byte) {
		cost.Bound(t, len(b), func() {
			if h, err := MemoCarrier(b); err == nil && string(Memo(h)) != string(b) {
				t.Fatal("a memo read that is not Memo(H)")
			}
		})
	})
}
