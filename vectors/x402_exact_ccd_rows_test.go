package vectors_test

// x402-exact-ccd.json's read-side rows, subtests of TestX402ExactCCD: D1's
// memos and the fixed accounts, D2's operations, D3's bound, its refusal
// rows and wire-form rows, D4's references, D5's status and recover rows
// and the plant.

import (
	"context"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/ccd"
)

// ccdSetPath sets a dotted path in v to a copy of val.
func ccdSetPath(v *jsonv.Object, path string, val jsonv.Value) {
	parts := strings.Split(path, ".")
	o := v
	for _, p := range parts[:len(parts)-1] {
		o, _ = o.GetObject(p)
	}
	o.Set(parts[len(parts)-1], jsonv.Clone(val))
}

// ccdReader answers a status row's block item, or fails.
type ccdReader struct {
	network string
	item    *ccd.Item
	err     bool
	calls   int
}

func (r *ccdReader) Network() string { return r.network }

func (r *ccdReader) Item(context.Context, string) (*ccd.Item, error) {
	r.calls++
	if r.err {
		return nil, errors.New("the node did not answer")
	}
	return r.item, nil
}

func ccdItem(t *testing.T, v jsonv.Value) *ccd.Item {
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil
	}
	it := &ccd.Item{State: str(t, o, "state")}
	if s, ok := o.Get("success"); ok {
		it.Success, _ = s.(bool)
	}
	if s, ok := o.GetString("sender"); ok {
		it.Sender = unhex(t, s)
	}
	ts, _ := o.Get("transfers")
	list, _ := jsonv.AsArray(ts)
	for _, tv := range list {
		tr := ccd.Transfer{Kind: str(t, tv, "kind"), Receiver: unhex(t, str(t, tv, "receiver"))}
		tr.Amount, _ = strconv.ParseUint(str(t, tv, "amount"), 10, 64)
		if m, ok := obj(t, tv).GetString("memo"); ok {
			tr.Memo = unhex(t, m)
		}
		it.Transfers = append(it.Transfers, tr)
	}
	return it
}

func ccdRows(t *testing.T, f *jsonv.Object) {
	h := atr.Sum([]byte("abc"))
	fixed := obj(t, f, "fixed")
	d3 := obj(t, f, "D3")
	t.Run("fixed", func(t *testing.T) {
		for _, k := range []string{"payer", "payee"} {
			b, err := ccd.AccountBytes(str(t, fixed, k))
			if err != nil || hex.EncodeToString(b) != str(t, fixed, k+"Bytes") || ccd.Address(b) != str(t, fixed, k) {
				t.Fatalf("%s: %x %v", k, b, err)
			}
		}
		if !ccd.CheckOption(obj(t, fixed, "O")) || !ccd.CheckOption(obj(t, fixed, "OPlt")) {
			t.Fatal("the options do not read")
		}
	})
	t.Run("D1", func(t *testing.T) {
		d1 := obj(t, f, "D1")
		if hex.EncodeToString(ccd.Memo(h)) != str(t, d1, "expectCcdMemo") || hex.EncodeToString(ccd.PLTMemo(h)) != str(t, d1, "expectPltMemo") {
			t.Fatalf("memos %x %x", ccd.Memo(h), ccd.PLTMemo(h))
		}
		if got, err := ccd.MemoCarrier(ccd.Memo(h)); err != nil || got != h {
			t.Fatalf("carrier %v, %v", got, err)
		}
	})
	t.Run("D2", func(t *testing.T) {
		// The operations' one transfer, read as the row decodes it, inside
		// D3's PLT payment.
		d2 := obj(t, f, "D2")
		ops := unhex(t, str(t, d2, "operations"))
		if n, _ := jsonv.AsSafeInt(get(t, d2, "length")); int(n) != len(ops) {
			t.Fatalf("%d bytes", len(ops))
		}
		pay := obj(t, d3, "plt", "payment").Clone()
		ccdSetPath(pay, "payload.signedTransaction.payload.operations", str(t, d2, "operations"))
		s, err := ccd.ReadSigned(pay)
		if err != nil || s.H != h || hex.EncodeToString(s.Receiver) != str(t, d2, "expectDecoded", "recipient") || s.Amount != 5000000 {
			t.Fatalf("operations: %+v, %v", s, err)
		}
	})
	t.Run("D3", func(t *testing.T) {
		for _, base := range []string{"ccd", "plt"} {
			if got, err := ccd.Bound(get(t, d3, base, "payment")); err != nil || got != str(t, d3, base, "expect") {
				t.Fatalf("%s: bound %s, %v", base, got, err)
			}
		}
		for _, rv := range get(t, d3, "rows").([]jsonv.Value) {
			r := obj(t, rv)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				pay := obj(t, d3, str(t, r, "base"), "payment").Clone()
				for _, m := range obj(t, r, "set").Members() {
					ccdSetPath(pay, m.Key, m.Value)
				}
				if _, err := ccd.Bound(pay); !isRefusal(err, str(t, r, "expect", "code")) {
					t.Fatalf("bound: %v, want %s", err, str(t, r, "expect", "code"))
				}
			})
		}
		for _, rv := range get(t, d3, "wireForm", "rows").([]jsonv.Value) {
			r := obj(t, rv)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				pay := obj(t, d3, str(t, r, "base"), "payment").Clone()
				if r.Has("asText") {
					ccdSetPath(pay, "payload.signedTransaction", string(jsonv.Marshal(get(t, pay, "payload", "signedTransaction"))))
				} else {
					// JSON has no bigints: the nearest a Go reader meets is
					// the number written as a decimal string.
					for _, p := range get(t, r, "bigints").([]jsonv.Value) {
						path := p.(string)
						n, _ := jsonv.AsSafeInt(get(t, pay, strings.Split(path, ".")...))
						ccdSetPath(pay, path, strconv.FormatInt(n, 10))
					}
				}
				want := str(t, r, "expect", "code")
				if _, err := ccd.Bound(pay); !isRefusal(err, want) {
					t.Fatalf("bound: %v, want %s", err, want)
				}
				if _, err := ccd.PaymentReference(pay); !isRefusal(err, want) {
					t.Fatalf("reference: %v, want %s", err, want)
				}
			})
		}
	})
	t.Run("D4", func(t *testing.T) {
		for _, base := range []string{"ccd", "plt"} {
			ref, err := ccd.PaymentReference(get(t, d3, base, "payment"))
			w := obj(t, f, "D4", base, "expect")
			settle, _ := jsonv.AsSafeInt(get(t, w, "settleBy"))
			if err != nil || ref.Network != str(t, w, "network") || ref.Asset != str(t, w, "asset") || ref.IDDigest != str(t, w, "idDigest") || ref.SettleBy != settle {
				t.Fatalf("%s: reference %+v, %v", base, ref, err)
			}
		}
	})
	d5 := obj(t, f, "D5")
	check := func(t *testing.T, r *jsonv.Object, refName string) {
		o := obj(t, d5, refName)
		settle, _ := jsonv.AsSafeInt(get(t, o, "settleBy"))
		rh := mustHash(t, str(t, o, "h"))
		ref := ccd.Reference{Network: str(t, o, "network"), Asset: str(t, o, "asset"), IDDigest: str(t, o, "idDigest"), SettleBy: settle}
		hash := str(t, o, "transaction")
		rd := &ccdReader{network: str(t, d5, "reader", "network")}
		if s, ok := get(t, r, "item").(string); ok && s == "reader-error" {
			rd.err = true
		} else {
			rd.item = ccdItem(t, get(t, r, "item"))
		}
		st := ccd.PaymentStatus(context.Background(), ref, hash, rh, rd)
		w := obj(t, r, "expectStatus")
		want := ccd.Status{State: str(t, w, "state")}
		want.Why, _ = w.GetString("why")
		want.Finality, _ = w.GetString("finality")
		if st != want || rd.calls != 1 {
			t.Fatalf("status %+v (%d reads), want %+v", st, rd.calls, want)
		}
		ev, has := r.Get("expectRecover")
		if !has {
			return
		}
		got, err := ccd.Recover(context.Background(), ref.Network, hash, rd)
		if s, ok := ev.(string); ok {
			if err != nil || got.String() != s {
				t.Fatalf("recover %v, %v", got, err)
			}
		} else if !isRefusal(err, str(t, ev, "code")) {
			t.Fatalf("recover: %v, want %s", err, str(t, ev, "code"))
		}
	}
	t.Run("D5", func(t *testing.T) {
		for _, rv := range get(t, d5, "rows").([]jsonv.Value) {
			r := obj(t, rv)
			t.Run(str(t, r, "case"), func(t *testing.T) { check(t, r, str(t, r, "ref")) })
		}
	})
	t.Run("plant", func(t *testing.T) { check(t, obj(t, f, "plant"), "ref") })
}
