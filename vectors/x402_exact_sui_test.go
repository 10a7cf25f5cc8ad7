package vectors_test

// x402-exact-sui.json: fixed, V1–V4, plant, agreedRefusals, validity and
// the buyer rows B2 and B6. V2's bytes are rebuilt by the wallet's transfer
// builder byte for byte; B2's control pays through the gate with the Sui
// development key against a loopback node.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/sui"
	"github.com/termsgate/termsgate/rails/sui/suirpc"
	"github.com/termsgate/termsgate/signer"
)

// suiReader answers a status row: the named vector's bytes (or none), its
// status and checkpoint, and the epoch.
type suiReader struct {
	network string
	answer  *sui.Answer
	err     bool
	calls   int
}

func (r *suiReader) Network() string { return r.network }

func (r *suiReader) Read(context.Context, string) (sui.Answer, error) {
	r.calls++
	if r.err {
		return sui.Answer{}, errors.New("the node did not answer")
	}
	return *r.answer, nil
}

func suiAnswer(t testing.TB, f *jsonv.Object, answer jsonv.Value, epoch string) *sui.Answer {
	e, _ := strconv.ParseUint(epoch, 10, 64)
	a := &sui.Answer{Epoch: e}
	o, ok := jsonv.AsObject(answer)
	if !ok {
		return a
	}
	raw, _ := base64.StdEncoding.DecodeString(str(t, f, str(t, o, "tx"), "tx", "transactionBase64"))
	cp, _ := strconv.ParseUint(str(t, o, "checkpoint"), 10, 64)
	a.Tx = &sui.Executed{TransactionBCS: raw, Success: str(t, o, "status") == "SUCCESS", Checkpoint: &cp}
	return a
}

func suiStatusIs(st sui.Status, want *jsonv.Object) bool {
	cp := ""
	if st.Checkpoint != nil {
		cp = strconv.FormatUint(*st.Checkpoint, 10)
	}
	w, _ := want.GetString("checkpoint")
	y, _ := want.GetString("why")
	s, _ := want.GetString("state")
	return st.State == s && st.Why == y && cp == w
}

func TestX402ExactSui(t *testing.T) {
	f := load(t, "x402-exact-sui.json")
	p := sui.Exact{}
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	b6 := obj(t, row(t, get(t, f, "buyer", "rows"), "B6"), "input", "presented")
	withTx := func(tx jsonv.Value) *jsonv.Object {
		pay := b6.Clone()
		pay.Set("payload", jsonv.Obj("signature", "AAAA", "transaction", jsonv.Clone(tx)))
		return pay
	}
	txOf := func(t *testing.T, v *jsonv.Object) []byte {
		tx := obj(t, v, "tx")
		raw, err := base64.StdEncoding.Strict().DecodeString(str(t, tx, "transactionBase64"))
		if err != nil {
			t.Fatal(err)
		}
		n, _ := jsonv.AsSafeInt(get(t, tx, "bytes"))
		d := sui.Digest(raw)
		if int64(len(raw)) != n || "0x"+hex.EncodeToString(d[:]) != str(t, tx, "blake2b") || sui.DigestString(raw) != str(t, tx, "digest") {
			t.Fatalf("%d bytes, digest %x", len(raw), d)
		}
		return raw
	}
	// checkRow holds a row's tx to its expectBound and, when it has one, its
	// expectReference.
	checkRow := func(t *testing.T, r *jsonv.Object) {
		pay := withTx(str(t, r, "tx", "transactionBase64"))
		txOf(t, r)
		want := str(t, r, "expectBound")
		h, err := p.Bound(pay)
		if strings.HasPrefix(want, "0x") {
			if err != nil || h != want {
				t.Fatalf("bound %q, %v", h, err)
			}
		} else if !isRefusal(err, want) {
			t.Fatalf("bound: %v, want %s", err, want)
		}
		ev, has := r.Get("expectReference")
		if !has {
			return
		}
		ref, err := sui.PaymentReference(pay)
		if code, ok := ev.(string); ok {
			if !isRefusal(err, code) {
				t.Fatalf("reference: %v, want %s", err, code)
			}
			return
		}
		w := ev.(*jsonv.Object)
		if err != nil || ref.Network != str(t, w, "network") || ref.Digest != str(t, w, "digest") || strconv.FormatUint(ref.UntilEpoch, 10) != str(t, w, "untilEpoch") {
			t.Fatalf("reference %+v, %v", ref, err)
		}
	}

	t.Run("fixed", func(t *testing.T) {
		if code := sui.CheckOption(obj(t, fixed, "O")); code != "" {
			t.Fatalf("O refused: %s", code)
		}
		for _, k := range []string{"sender", "payTo"} {
			if a, ok := sui.ParseAddress(str(t, fixed, k)); !ok || a.String() != str(t, fixed, k) {
				t.Fatalf("%s does not read", k)
			}
		}
		if str(t, fixed, "link") != "https://atr.seller.example/"+H.String() {
			t.Fatal("link")
		}
	})
	t.Run("V1", func(t *testing.T) {
		v1 := obj(t, f, "V1")
		raw := txOf(t, v1)
		tx, err := sui.DecodeTx(raw)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := tx.UntilEpoch(); ok || get(t, v1, "expectUntilEpoch") != nil {
			t.Fatal("V1 has no epoch bound")
		}
		if _, err := p.Bound(withTx(str(t, v1, "tx", "transactionBase64"))); !isRefusal(err, str(t, v1, "expectBound")) {
			t.Fatalf("bound: %v", err)
		}
	})
	t.Run("V2", func(t *testing.T) {
		v2 := obj(t, f, "V2")
		checkRow(t, v2)
		// Recipe R is the wallet's SUI transfer without gas objects.
		sender, _ := sui.ParseAddress(str(t, fixed, "sender"))
		payTo, _ := sui.ParseAddress(str(t, fixed, "payTo"))
		built, err := sui.BuildTransfer(sui.TransferSpec{Sender: sender, PayTo: payTo, Amount: 10000, SUI: true,
			GasPrice: 1000, GasBudget: 5_000_000, UntilEpoch: 1234, H: H})
		if err != nil || !bytes.Equal(built.Encode(), txOf(t, v2)) {
			t.Fatalf("built %x, %v", built.Encode(), err)
		}
	})
	t.Run("V3", func(t *testing.T) {
		for _, rv := range get(t, f, "V3").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				if n, ok := r.Get("zeroBytes"); ok {
					k, _ := jsonv.AsSafeInt(n)
					text := base64.StdEncoding.EncodeToString(make([]byte, k))
					if _, err := p.Bound(withTx(text)); !isRefusal(err, str(t, r, "expectBound")) {
						t.Fatalf("bound: %v", err)
					}
					return
				}
				checkRow(t, r)
			})
		}
	})
	v4 := obj(t, f, "V4")
	rv4 := obj(t, v4, "ref")
	until, _ := strconv.ParseUint(str(t, rv4, "untilEpoch"), 10, 64)
	ref := sui.Reference{Network: str(t, rv4, "network"), Digest: str(t, rv4, "digest"), UntilEpoch: until}
	refH := mustHash(t, str(t, rv4, "h"))
	t.Run("V4", func(t *testing.T) {
		for _, sv := range get(t, v4, "status").([]jsonv.Value) {
			r := sv.(*jsonv.Object)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				rd := &suiReader{network: ref.Network, err: r.Has("readerError")}
				if !rd.err {
					rd.answer = suiAnswer(t, f, get(t, r, "answer"), str(t, r, "epoch"))
				}
				rf := ref
				if r.Has("readerNetwork") {
					rd.network, rf.Network = str(t, r, "readerNetwork"), str(t, r, "refNetwork")
				}
				if st := sui.PaymentStatus(context.Background(), rf, refH, rd); !suiStatusIs(st, obj(t, r, "expect")) || rd.calls > 1 {
					t.Fatalf("status %+v (%d reads), want %s", st, rd.calls, jsonv.String(get(t, r, "expect")))
				}
			})
		}
		for _, rcv := range get(t, v4, "recover").([]jsonv.Value) {
			r := rcv.(*jsonv.Object)
			t.Run("recover/"+str(t, r, "case"), func(t *testing.T) {
				rd := &suiReader{network: ref.Network, answer: suiAnswer(t, f, get(t, r, "answer"), "1234")}
				h, err := sui.Recover(context.Background(), ref.Network, str(t, r, "digest"), rd)
				want := str(t, r, "expect")
				if strings.HasPrefix(want, "0x") {
					if err != nil || h.String() != want {
						t.Fatalf("recover %v, %v", h, err)
					}
				} else if !isRefusal(err, want) {
					t.Fatalf("recover: %v, want %s", err, want)
				}
				if rd.calls != 1 {
					t.Fatalf("%d reads", rd.calls)
				}
			})
		}
	})
	t.Run("plant", func(t *testing.T) {
		pl := obj(t, f, "plant")
		rd := &suiReader{network: ref.Network, answer: suiAnswer(t, f, get(t, pl, "answer"), str(t, pl, "epoch"))}
		if st := sui.PaymentStatus(context.Background(), ref, refH, rd); !suiStatusIs(st, obj(t, pl, "expect")) {
			t.Fatalf("status %+v", st)
		}
	})
	v2raw, _ := base64.StdEncoding.DecodeString(str(t, f, "V2", "tx", "transactionBase64"))
	v2text := str(t, f, "V2", "tx", "transactionBase64")
	t.Run("agreedRefusals", func(t *testing.T) {
		for i, av := range get(t, f, "agreedRefusals", "rows").([]jsonv.Value) {
			r := av.(*jsonv.Object)
			want := str(t, r, "expect")
			t.Run(str(t, r, "case"), func(t *testing.T) {
				bound := func(tx jsonv.Value) {
					t.Helper()
					if _, err := p.Bound(withTx(tx)); !isRefusal(err, want) {
						t.Fatalf("bound: %v, want %s", err, want)
					}
				}
				switch i {
				case 0: // H's input cut to 31 bytes, then 33
					for _, n := range []int{31, 33} {
						tx, _ := sui.DecodeTx(v2raw)
						tx.Inputs[0].Pure = make([]byte, n)
						bound(base64.StdEncoding.EncodeToString(tx.Encode()))
					}
				case 1: // a trailing byte; an input count in two ULEB128 bytes
					bound(base64.StdEncoding.EncodeToString(append(append([]byte(nil), v2raw...), 0)))
					long := append([]byte{0, 0, 0x83, 0x00}, v2raw[3:]...)
					bound(base64.StdEncoding.EncodeToString(long))
				case 2: // unpadded, URL-safe, with a newline
					bound(strings.TrimRight(v2text, "="))
					bound(base64.URLEncoding.EncodeToString(append([]byte{0xfb, 0xff}, v2raw...)))
					bound(v2text[:20] + "\n" + v2text[20:])
				case 3:
					o := obj(t, fixed, "O").Clone()
					for _, n := range []string{"sui:localnet", "sui:", "sui:Testnet"} {
						o.Set("network", n)
						if code := sui.CheckOption(o); code != want {
							t.Fatalf("%s: %q", n, code)
						}
					}
				case 4:
					for _, s := range []jsonv.Value{jsonv.Number(1), "", strings.Repeat("A", 8193), nil} {
						pay := withTx(v2text)
						obj(t, pay, "payload").Set("signature", s)
						if _, err := p.Bound(pay); !isRefusal(err, want) {
							t.Fatalf("signature %v: %v", s, err)
						}
					}
				case 5:
					bound(jsonv.Number(1))
					bound(nil)
				case 6: // ValidDuring without maxEpoch (from the validity row), and Validity without
					novalid, _ := base64.StdEncoding.DecodeString(str(t, get(t, f, "validity", "rows").([]jsonv.Value)[1], "tx", "transactionBase64"))
					during := append([]byte(nil), novalid[:len(novalid)-1]...)
					during[len(v2raw)-9] = sui.ExpValidDuring
					for _, b := range [][]byte{during, novalid} {
						if _, err := sui.PaymentReference(withTx(base64.StdEncoding.EncodeToString(b))); !isRefusal(err, want) {
							t.Fatalf("reference: %v", err)
						}
					}
				case 7: // V2's bytes, as a success and as a failure, read for V1's digest
					for _, status := range []string{"SUCCESS", "FAILURE"} {
						rd := &suiReader{network: ref.Network, answer: suiAnswer(t, f, jsonv.Obj("tx", "V2", "status", status, "checkpoint", "7"), "1234")}
						if _, err := sui.Recover(context.Background(), ref.Network, str(t, f, "V1", "tx", "digest"), rd); !isRefusal(err, want) {
							t.Fatalf("%s: %v", status, err)
						}
					}
				case 8: // built for another H; V1, which carries none; V2 with an unbounded expiration
					read, err := p.Read(tronDoc(t, f, get(t, fixed, "O")))
					if err != nil {
						t.Fatal(err)
					}
					choice, err := p.Choose(read, "sui:testnet:"+str(t, fixed, "sender"), nil, 0, "ref")
					if err != nil {
						t.Fatal(err)
					}
					other := mustHash(t, "0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
					u, _ := p.Build(choice, nil, other)
					unbounded := str(t, get(t, f, "V3").([]jsonv.Value)[2], "tx", "transactionBase64")
					for _, tx := range []string{v2text, str(t, f, "V1", "tx", "transactionBase64")} {
						if _, err := p.Complete(u, jsonv.Obj("signature", "AAAA", "transaction", tx), rails.Chosen{}); !isRefusal(err, want) {
							t.Fatalf("complete: %v", err)
						}
					}
					u, _ = p.Build(choice, nil, H)
					if _, err := p.Complete(u, jsonv.Obj("signature", "AAAA", "transaction", unbounded), rails.Chosen{}); !isRefusal(err, want) {
						t.Fatalf("complete unbounded: %v", err)
					}
				case 9:
					// The row is the TypeScript gate's optional @mysten/sui
					// peer. termsgate's codec is compiled in, so the state
					// cannot arise: decoding, recovery and the build work
					// with nothing installed.
					if _, err := sui.DecodeTx(v2raw); err != nil || want != "sui/peer-missing" {
						t.Fatalf("decode: %v", err)
					}
				default:
					t.Fatalf("a row this test does not know: %s", jsonv.String(r))
				}
			})
		}
	})
	t.Run("validity", func(t *testing.T) {
		for _, rv := range get(t, f, "validity", "rows").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			t.Run(str(t, r, "case"), func(t *testing.T) { checkRow(t, r) })
		}
	})
	t.Run("B2", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B2")
		in := obj(t, r, "input")
		s := newATRSeller(t)
		s.serveBytes(unhex(t, str(t, in, "servesHex")))
		node := &suirpc.Node{GasPrice: 1000, Epoch: 1233}
		srv, err := loopback.Start(node, "fullnode.sui.example")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.Close)
		rpc := &suirpc.Client{URL: "https://fullnode.sui.example", Net: "sui:testnet", HTTP: srv.Client()}
		key, err := signer.SuiFromSeed(signer.SuiDevSeed, "sui:testnet", rpc)
		if err != nil {
			t.Fatal(err)
		}
		node.AddCoin(key.Address(), sui.SUI, sui.Coin{Ref: sui.ObjectRef{ID: sui.Address{1}, Version: 9, Digest: [32]byte{2}}, Balance: 1_000_000_000})
		// The row's account is the vectors' sender, whose key is not
		// published: the plant declines before any signer is asked.
		sg := &countingSigner{inner: &accountAs{Signer: key, account: str(t, in, "account")}}
		now, _ := jsonv.AsSafeInt(get(t, in, "now"))
		_, err = s.gateFor(now, nil).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), sg, nil)
		wantDecline(t, err, gate.Code(str(t, r, "expect", "decline")), "")
		if sg.calls.Load() != 0 || s.fetches.Load() != 1 || node.Calls.Load() != 0 {
			t.Fatalf("%d signer calls, %d fetches, %d node calls", sg.calls.Load(), s.fetches.Load(), node.Calls.Load())
		}
		// The control: the terms it advertises, paid once by the
		// development key, the transaction rebuilt, signed and bound.
		s.serveBytes([]byte("abc"))
		dev := &countingSigner{inner: key}
		res, err := s.gateFor(now, nil).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), dev, nil)
		if err != nil || dev.calls.Load() != 1 {
			t.Fatalf("control: %v (%d calls)", err, dev.calls.Load())
		}
		if h, err := p.Bound(res.Signed); err != nil || h != H.String() {
			t.Fatalf("control bound %s, %v", h, err)
		}
		ref, err := sui.PaymentReference(res.Signed)
		if err != nil || ref.UntilEpoch != 1234 {
			t.Fatalf("control reference %+v, %v", ref, err)
		}
	})
	t.Run("B6", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B6")
		checks := get(t, r, "input", "check").([]jsonv.Value)
		expects := get(t, r, "expect").([]jsonv.Value)
		g := &gate.Gate{}
		h, err := g.Check(unhex(t, str(t, checks[0], "bytesHex")), str(t, r, "pairing"), b6)
		if err != nil || h.String() != str(t, expects[0], "h") {
			t.Fatalf("check = %v, %v", h, err)
		}
		_, err = g.Check(unhex(t, str(t, checks[1], "bytesHex")), str(t, r, "pairing"), b6)
		wantDecline(t, err, gate.Code(str(t, expects[1], "decline")), "")
	})
}

// accountAs is a signer that names another account: a wallet that is never
// asked.
type accountAs struct {
	gate.Signer
	account string
}

func (a *accountAs) Account() string { return a.account }
