package ccd

import (
	"context"
	"encoding/hex"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// The read side against x402-exact-ccd.json (vectors/testdata): D1's memos,
// D2's operations, D3's two signed transactions and its 19 refusal rows
// and wire-form rows, D4's references, D5's status and recover rows and
// the plant. The buyer rows B2 and B6, and D3 rebuilt by the wallet, run
// in vectors (x402_exact_ccd_test.go).

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

func text(t *testing.T, v jsonv.Value, path ...string) string {
	t.Helper()
	s, ok := at(t, v, path...).(string)
	if !ok {
		t.Fatalf("%s is not a string", strings.Join(path, "."))
	}
	return s
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func refused(err error, code string) bool {
	var r *rails.Refusal
	return errors.As(err, &r) && r.Code == code
}

// setPath sets a dotted path in a clone of v.
func setPath(v *jsonv.Object, path string, val jsonv.Value) {
	parts := strings.Split(path, ".")
	o := v
	for _, p := range parts[:len(parts)-1] {
		next, _ := o.GetObject(p)
		o = next
	}
	o.Set(parts[len(parts)-1], jsonv.Clone(val))
}

func TestMemos(t *testing.T) {
	f := load(t)
	h := atr.Sum([]byte("abc"))
	d1 := at(t, f, "D1")
	if hex.EncodeToString(Memo(h)) != text(t, d1, "expectCcdMemo") || hex.EncodeToString(PLTMemo(h)) != text(t, d1, "expectPltMemo") {
		t.Fatalf("memos %x %x", Memo(h), PLTMemo(h))
	}
	if got, err := MemoCarrier(Memo(h)); err != nil || got != h {
		t.Fatalf("carrier %v, %v", got, err)
	}
	fixed := at(t, f, "fixed")
	for _, k := range []string{"payer", "payee"} {
		b, err := AccountBytes(text(t, fixed, k))
		if err != nil || hex.EncodeToString(b) != text(t, fixed, k+"Bytes") {
			t.Fatalf("%s: %x %v", k, b, err)
		}
	}
	if !CheckOption(at(t, fixed, "O").(*jsonv.Object)) || !CheckOption(at(t, fixed, "OPlt").(*jsonv.Object)) {
		t.Fatal("the options do not read")
	}
	// D2: the operations' one transfer, read as the row decodes it.
	d2 := at(t, f, "D2")
	ops := unhex(t, text(t, d2, "operations"))
	if n, _ := jsonv.AsSafeInt(at(t, d2, "length")); int(n) != len(ops) {
		t.Fatalf("%d bytes", len(ops))
	}
	var s Signed
	if err := tokenTransfer(ops, &s); err != nil || s.H != h || hex.EncodeToString(s.Receiver) != text(t, d2, "expectDecoded", "recipient") || s.Amount != 5000000 {
		t.Fatalf("operations: %+v, %v", s, err)
	}
}

func TestSignedTransactions(t *testing.T) {
	f := load(t)
	d3 := at(t, f, "D3")
	for _, base := range []string{"ccd", "plt"} {
		pay := at(t, d3, base, "payment")
		h, err := Bound(pay)
		if err != nil || h != text(t, d3, base, "expect") {
			t.Fatalf("%s: bound %s, %v", base, h, err)
		}
		ref, err := PaymentReference(pay)
		w := at(t, f, "D4", base, "expect")
		settle, _ := jsonv.AsSafeInt(at(t, w, "settleBy"))
		if err != nil || ref.Network != text(t, w, "network") || ref.Asset != text(t, w, "asset") || ref.IDDigest != text(t, w, "idDigest") || ref.SettleBy != settle {
			t.Fatalf("%s: reference %+v, %v", base, ref, err)
		}
	}
	for _, rv := range at(t, d3, "rows").([]jsonv.Value) {
		r := rv.(*jsonv.Object)
		t.Run(text(t, r, "case"), func(t *testing.T) {
			pay := at(t, d3, text(t, r, "base"), "payment").(*jsonv.Object).Clone()
			for _, m := range at(t, r, "set").(*jsonv.Object).Members() {
				setPath(pay, m.Key, m.Value)
			}
			if _, err := Bound(pay); !refused(err, text(t, r, "expect", "code")) {
				t.Fatalf("bound: %v, want %s", err, text(t, r, "expect", "code"))
			}
		})
	}
	for _, rv := range at(t, d3, "wireForm", "rows").([]jsonv.Value) {
		r := rv.(*jsonv.Object)
		t.Run(text(t, r, "case"), func(t *testing.T) {
			pay := at(t, d3, text(t, r, "base"), "payment").(*jsonv.Object).Clone()
			tx := at(t, pay, "payload", "signedTransaction")
			if r.Has("asText") {
				setPath(pay, "payload.signedTransaction", string(jsonv.Marshal(tx)))
			} else {
				// JSON has no bigints: the nearest a Go reader meets is the
				// number written as a decimal string.
				for _, p := range at(t, r, "bigints").([]jsonv.Value) {
					path := p.(string)
					n, _ := jsonv.AsSafeInt(at(t, pay, strings.Split(path, ".")...))
					setPath(pay, path, strconv.FormatInt(n, 10))
				}
			}
			want := text(t, r, "expect", "code")
			if _, err := Bound(pay); !refused(err, want) {
				t.Fatalf("bound: %v, want %s", err, want)
			}
			if _, err := PaymentReference(pay); !refused(err, want) {
				t.Fatalf("reference: %v, want %s", err, want)
			}
		})
	}
}

type reader struct {
	network string
	item    *Item
	err     bool
	calls   int
}

func (r *reader) Network() string { return r.network }

func (r *reader) Item(context.Context, string) (*Item, error) {
	r.calls++
	if r.err {
		return nil, errors.New("the node did not answer")
	}
	return r.item, nil
}

func itemOf(t *testing.T, v jsonv.Value) *Item {
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil
	}
	it := &Item{State: text(t, o, "state")}
	if s, ok := at(t, o, "success").(bool); ok {
		it.Success = s
	}
	if s, ok := at(t, o, "sender").(string); ok {
		it.Sender = unhex(t, s)
	}
	ts, _ := at(t, o, "transfers").([]jsonv.Value)
	for _, tv := range ts {
		tr := Transfer{Kind: text(t, tv, "kind"), Receiver: unhex(t, text(t, tv, "receiver"))}
		tr.Amount, _ = strconv.ParseUint(text(t, tv, "amount"), 10, 64)
		if m, ok := at(t, tv, "memo").(string); ok {
			tr.Memo = unhex(t, m)
		}
		it.Transfers = append(it.Transfers, tr)
	}
	return it
}

func TestStatusAndRecover(t *testing.T) {
	f := load(t)
	d5 := at(t, f, "D5")
	refOf := func(name string) (Reference, string, atr.Hash) {
		o := at(t, d5, name)
		settle, _ := jsonv.AsSafeInt(at(t, o, "settleBy"))
		h, _ := atr.ParseHash(text(t, o, "h"))
		return Reference{Network: text(t, o, "network"), Asset: text(t, o, "asset"), IDDigest: text(t, o, "idDigest"), SettleBy: settle},
			text(t, o, "transaction"), h
	}
	check := func(t *testing.T, r *jsonv.Object, refName string) {
		ref, hash, h := refOf(refName)
		rd := &reader{network: text(t, d5, "reader", "network")}
		if s, ok := at(t, r, "item").(string); ok && s == "reader-error" {
			rd.err = true
		} else {
			rd.item = itemOf(t, at(t, r, "item"))
		}
		st := PaymentStatus(context.Background(), ref, hash, h, rd)
		w := at(t, r, "expectStatus")
		want := Status{State: text(t, w, "state")}
		if y, ok := at(t, w, "why").(string); ok {
			want.Why = y
		}
		if y, ok := at(t, w, "finality").(string); ok {
			want.Finality = y
		}
		if st != want || rd.calls != 1 {
			t.Fatalf("status %+v (%d reads), want %+v", st, rd.calls, want)
		}
		ev, has := r.Get("expectRecover")
		if !has {
			return
		}
		got, err := Recover(context.Background(), ref.Network, hash, rd)
		if s, ok := ev.(string); ok {
			if err != nil || got.String() != s {
				t.Fatalf("recover %v, %v", got, err)
			}
		} else if !refused(err, text(t, ev, "code")) {
			t.Fatalf("recover: %v, want %s", err, text(t, ev, "code"))
		}
	}
	for _, rv := range at(t, d5, "rows").([]jsonv.Value) {
		r := rv.(*jsonv.Object)
		t.Run(text(t, r, "case"), func(t *testing.T) { check(t, r, text(t, r, "ref")) })
	}
	t.Run("plant", func(t *testing.T) { check(t, at(t, f, "plant").(*jsonv.Object), "ref") })
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
