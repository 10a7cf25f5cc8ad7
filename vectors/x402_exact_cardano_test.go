package vectors_test

// x402-exact-cardano.json: fixed, V1–V5, plant, agreedRefusals and the
// buyer rows B2 and B6. V1's auxiliary data are written by
// cardano.AuxiliaryData byte for byte, V2's body by the wallet's transfer
// builder; B2's control pays through the gate with the Cardano development
// key against a loopback Blockfrost-compatible node.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/crypto/blake2b"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/cardano"
	"github.com/termsgate/termsgate/rails/cardano/cardanorpc"
	"github.com/termsgate/termsgate/rails/cbor"
	"github.com/termsgate/termsgate/signer"
)

// cardanoReader answers a status or recover row: the tip, the transaction
// (nil when absent) or an error, counting its reads.
type cardanoReader struct {
	network string
	tip     cardano.Tip
	tx      *cardano.OnChain
	err     bool
	calls   int
}

func (r *cardanoReader) Network() string { return r.network }

func (r *cardanoReader) Tip(context.Context) (cardano.Tip, error) {
	r.calls++
	if r.err {
		return cardano.Tip{}, errors.New("the indexer did not answer")
	}
	return r.tip, nil
}

func (r *cardanoReader) Transaction(_ context.Context, _ string, withCBOR bool) (*cardano.OnChain, error) {
	r.calls++
	if r.err {
		return nil, errors.New("the indexer did not answer")
	}
	if r.tx == nil {
		return nil, nil
	}
	tx := *r.tx
	if !withCBOR {
		tx.CBOR = nil
	}
	return &tx, nil
}

func cardanoTip(t testing.TB, v jsonv.Value) cardano.Tip {
	h, _ := strconv.ParseUint(str(t, v, "blockHeight"), 10, 64)
	s, _ := strconv.ParseUint(str(t, v, "slot"), 10, 64)
	return cardano.Tip{BlockHeight: h, Slot: s}
}

func TestX402ExactCardano(t *testing.T) {
	f := load(t, "x402-exact-cardano.json")
	p := cardano.Exact{}
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	b6 := obj(t, row(t, get(t, f, "buyer", "rows"), "B6"), "input", "presented")
	withTx := func(tx jsonv.Value) *jsonv.Object {
		pay := b6.Clone()
		pay.Set("payload", jsonv.Obj("transaction", jsonv.Clone(tx), "nonce", str(t, fixed, "nonce")))
		return pay
	}
	rawOf := func(t *testing.T, text string) []byte {
		raw, err := base64.StdEncoding.Strict().DecodeString(text)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	b64 := base64.StdEncoding.EncodeToString
	bound := func(t *testing.T, pay jsonv.Value, want string) {
		t.Helper()
		h, err := p.Bound(pay)
		if strings.HasPrefix(want, "0x") {
			if err != nil || h != want {
				t.Fatalf("bound %q, %v, want %s", h, err, want)
			}
		} else if !isRefusal(err, want) {
			t.Fatalf("bound: %v, want %s", err, want)
		}
	}
	v2text := str(t, f, "V2", "transactionBase64")
	v2raw := rawOf(t, v2text)
	v2, err := cbor.Decode(v2raw)
	if err != nil {
		t.Fatal(err)
	}
	// txWith is V2 with its four items replaced where given (nil keeps V2's).
	txWith := func(body, wit, valid, aux *cbor.Value) string {
		items := []*cbor.Value{body, wit, valid, aux}
		out := []byte{0x84}
		for i, it := range items {
			if it == nil {
				out = append(out, v2.Items[i].Raw...)
			} else {
				out = append(out, cbor.Encode(it)...)
			}
		}
		return b64(out)
	}
	// bodyWith is V2's body with key k set to v (appended when absent, dropped when v is nil).
	bodyWith := func(k uint64, v *cbor.Value) *cbor.Value {
		var kv []*cbor.Value
		set := false
		for i := 0; i < len(v2.Items[0].Items); i += 2 {
			key, val := v2.Items[0].Items[i], v2.Items[0].Items[i+1]
			if key.Major == cbor.Uint && key.N == k {
				set = true
				if v == nil {
					continue
				}
				val = v
			}
			kv = append(kv, key, val)
		}
		if !set && v != nil {
			kv = append(kv, cbor.U(k), v)
		}
		return cbor.M(kv...)
	}
	// withAux is V2 carrying aux, its hash as key 7.
	withAux := func(aux *cbor.Value) string {
		h := blake2b.Sum256(cbor.Encode(aux))
		return txWith(bodyWith(cardano.KeyAuxHash, cbor.B(h[:])), nil, nil, aux)
	}

	t.Run("fixed", func(t *testing.T) {
		if code := cardano.CheckOption(obj(t, fixed, "O")); code != "" {
			t.Fatalf("O refused: %s", code)
		}
		if a, err := cardano.ParseAddress(str(t, fixed, "O", "payTo")); err != nil || a.String() != str(t, fixed, "O", "payTo") {
			t.Fatalf("payTo does not read: %v", err)
		}
		if str(t, fixed, "link") != "https://atr.seller.example/"+H.String() {
			t.Fatal("link")
		}
	})
	t.Run("V1", func(t *testing.T) {
		v1 := obj(t, f, "V1")
		aux := cardano.AuxiliaryData(H)
		n, _ := jsonv.AsSafeInt(get(t, v1, "bytes"))
		h := blake2b.Sum256(aux)
		if hex.EncodeToString(aux) != str(t, v1, "auxiliaryDataHex") || int64(len(aux)) != n || "0x"+hex.EncodeToString(h[:]) != str(t, v1, "blake2b") {
			t.Fatalf("aux %x (%d bytes), blake2b %x", aux, len(aux), h)
		}
	})
	t.Run("V2", func(t *testing.T) {
		r := obj(t, f, "V2")
		n, _ := jsonv.AsSafeInt(get(t, r, "bytes"))
		if int64(len(v2raw)) != n {
			t.Fatalf("%d bytes", len(v2raw))
		}
		bound(t, withTx(v2text), str(t, r, "expectBound"))
		ref, err := cardano.PaymentReference(withTx(v2text))
		w := obj(t, r, "expectReference")
		if err != nil || ref.Network != str(t, w, "network") || ref.TxID != str(t, w, "txId") || strconv.FormatUint(ref.TTLSlot, 10) != str(t, w, "ttlSlot") {
			t.Fatalf("reference %+v, %v", ref, err)
		}
		// The wallet's builder writes V2's body byte for byte: one input,
		// the payment, the change, the fee, the TTL and the aux hash.
		tx, _ := cardano.DecodeTx(v2raw)
		outs, err := tx.Outputs()
		if err != nil || len(outs) != 2 {
			t.Fatalf("outputs %v", err)
		}
		payTo, _ := cardano.ParseAddress(str(t, fixed, "O", "payTo"))
		in := cardano.Input{TxID: [32]byte(bytes.Repeat([]byte{0x11}, 32)), Index: 0}
		spec := cardano.TransferSpec{Inputs: []cardano.Input{in}, PayTo: payTo, Amount: 2_000_000, Change: outs[1].Address,
			Rest: 7_800_000, Fee: 200_000, TTL: 134620000, Aux: cardano.AuxiliaryData(H)}
		if body := spec.Body(); !bytes.Equal(body, tx.Body.Raw) {
			t.Fatalf("built body %x\nV2's       %x", body, tx.Body.Raw)
		}
		if in.String()+"" != str(t, fixed, "nonce") {
			t.Fatalf("nonce %s", in)
		}
	})
	t.Run("V3", func(t *testing.T) {
		r := obj(t, f, "V3")
		text := str(t, r, "transactionBase64")
		raw := rawOf(t, text)
		n, _ := jsonv.AsSafeInt(get(t, r, "bytes"))
		tx, err := cardano.DecodeTx(raw)
		if err != nil || int64(len(raw)) != n || tx.IDString() != str(t, r, "txId") || "0x"+hex.EncodeToString(tx.AuxHash) != str(t, r, "auxHash") {
			t.Fatalf("V3: %v", err)
		}
		if ah := blake2b.Sum256(tx.Aux.Raw); "0x"+hex.EncodeToString(ah[:]) != str(t, r, "auxHash") {
			t.Fatal("V3's auxiliary data do not hash to key 7")
		}
		bound(t, withTx(text), str(t, r, "expectBound"))
		if _, err := cardano.PaymentReference(withTx(text)); !isRefusal(err, str(t, r, "expectReference")) {
			t.Fatalf("reference: %v", err)
		}
	})
	t.Run("V4", func(t *testing.T) {
		for _, rv := range get(t, f, "V4").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				pay := withTx(str(t, r, "transactionBase64"))
				if n, ok := r.GetString("network"); ok {
					obj(t, pay, "accepted").Set("network", n)
				}
				bound(t, pay, str(t, r, "expectBound"))
			})
		}
	})
	v5 := obj(t, f, "V5")
	rv5 := obj(t, v5, "ref")
	ttl, _ := strconv.ParseUint(str(t, rv5, "ttlSlot"), 10, 64)
	ref := cardano.Reference{Network: str(t, rv5, "network"), TxID: str(t, rv5, "txId"), TTLSlot: ttl}
	onChain := func(t *testing.T, v jsonv.Value) *cardano.OnChain {
		o, ok := jsonv.AsObject(v)
		if !ok {
			return nil
		}
		tip := cardanoTip(t, o)
		valid, _ := get(t, o, "valid").(bool)
		return &cardano.OnChain{BlockHeight: tip.BlockHeight, Slot: tip.Slot, Valid: valid}
	}
	t.Run("V5", func(t *testing.T) {
		for _, sv := range get(t, v5, "status").([]jsonv.Value) {
			r := sv.(*jsonv.Object)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				rd := &cardanoReader{network: ref.Network, tip: cardanoTip(t, get(t, v5, "tip")), err: r.Has("readerError")}
				if r.Has("tip") {
					rd.tip = cardanoTip(t, get(t, r, "tip"))
				}
				if !rd.err {
					rd.tx = onChain(t, get(t, r, "tx"))
				}
				st := cardano.PaymentStatus(context.Background(), ref, rd)
				w := obj(t, r, "expect")
				want := cardano.Status{State: str(t, w, "state")}
				if y, ok := w.GetString("why"); ok {
					want.Why = y
				}
				if c, ok := w.GetString("confirmations"); ok {
					want.Confirmations, _ = strconv.ParseUint(c, 10, 64)
					want.BlockHeight, _ = strconv.ParseUint(str(t, w, "blockHeight"), 10, 64)
				}
				if st != want || rd.calls > 2 {
					t.Fatalf("status %+v (%d reads), want %+v", st, rd.calls, want)
				}
			})
		}
		for _, rcv := range get(t, v5, "recover").([]jsonv.Value) {
			r := rcv.(*jsonv.Object)
			t.Run("recover/"+str(t, r, "case"), func(t *testing.T) {
				raw := rawOf(t, str(t, f, str(t, r, "cbor"), "transactionBase64"))
				rd := &cardanoReader{network: ref.Network, tx: &cardano.OnChain{BlockHeight: 1, Slot: 1, Valid: true, CBOR: raw}}
				h, err := cardano.Recover(context.Background(), ref.Network, str(t, r, "txId"), rd)
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
		text := str(t, pl, "transactionBase64")
		tx, err := cardano.DecodeTx(rawOf(t, text))
		if err != nil {
			t.Fatal(err)
		}
		if ah := blake2b.Sum256(tx.Aux.Raw); "0x"+hex.EncodeToString(ah[:]) != str(t, pl, "alteredAuxBlake2b") || !bytes.Equal(tx.Body.Raw, v2.Items[0].Raw) {
			t.Fatal("the plant is not V2's body with other auxiliary data")
		}
		bound(t, withTx(text), str(t, pl, "expectBound"))
	})
	t.Run("agreedRefusals", func(t *testing.T) {
		for i, av := range get(t, f, "agreedRefusals", "rows").([]jsonv.Value) {
			r := av.(*jsonv.Object)
			want := str(t, r, "expect")
			t.Run(str(t, r, "case"), func(t *testing.T) {
				refuses := func(tx string) {
					t.Helper()
					bound(t, withTx(tx), want)
				}
				switch i {
				case 0: // unpadded, URL-safe, with a newline
					v3text := str(t, f, "V3", "transactionBase64")
					if !strings.HasSuffix(v3text, "=") {
						t.Fatal("V3 is padded")
					}
					refuses(strings.TrimRight(v3text, "="))
					refuses(base64.URLEncoding.EncodeToString(append([]byte{0xfb, 0xff}, v2raw...)))
					refuses(v2text[:20] + "\n" + v2text[20:])
				case 1:
					body := v2.Items[0]
					dup := cbor.M(append(append([]*cbor.Value{}, body.Items...), cbor.U(cardano.KeyFee), cbor.U(1))...)
					textKey := cbor.M(append(append([]*cbor.Value{}, body.Items...), cbor.T("fee"), cbor.U(1))...)
					for _, tx := range []string{
						txWith(cbor.A(body.Items...), nil, nil, nil), // a body that is not a map
						txWith(dup, nil, nil, nil),
						txWith(textKey, nil, nil, nil),
						txWith(bodyWith(cardano.KeyTTL, cbor.T("134620000")), nil, nil, nil),
						txWith(bodyWith(cardano.KeyAuxHash, cbor.B(make([]byte, 31))), nil, nil, nil),
						txWith(bodyWith(cardano.KeyAuxHash, cbor.U(7)), nil, nil, nil),
						txWith(nil, nil, cbor.U(1), nil),
						txWith(nil, nil, &cbor.Value{Major: cbor.Simple, N: 22}, nil),
					} {
						refuses(tx)
					}
				case 2:
					refuses(txWith(nil, nil, nil, &cbor.Value{Major: cbor.Simple, N: 22}))
				case 3:
					msg := cbor.M(cbor.T("msg"), cbor.A(cbor.T(cardano.Marker), cbor.T(H.String()[2:])))
					for _, aux := range []*cbor.Value{
						cbor.T("not metadata"),
						cbor.Tagged(260, cbor.M(cbor.U(0), cbor.M(cbor.U(674), msg))),
						cbor.Tagged(259, cbor.M(cbor.U(1), cbor.M(cbor.U(674), msg))),
						cbor.M(cbor.U(675), msg),
						cbor.A(cbor.M(cbor.U(1), msg), cbor.A()),
					} {
						refuses(withAux(aux))
					}
					// the same message in each of the three forms carries H
					for _, aux := range []*cbor.Value{cbor.M(cbor.U(674), msg), cbor.A(cbor.M(cbor.U(674), msg), cbor.A())} {
						bound(t, withTx(withAux(aux)), H.String())
					}
				case 4:
					o := obj(t, fixed, "O").Clone()
					for _, n := range []string{"cardano:sanchonet", "cardano:", "cip34:0-3", "cardano:Preprod"} {
						o.Set("network", n)
						if code := cardano.CheckOption(o); code != want {
							t.Fatalf("%s: %q", n, code)
						}
					}
				case 5:
					for _, pl := range []*jsonv.Object{
						jsonv.Obj("transaction", jsonv.Number(1), "nonce", "n"),
						jsonv.Obj("nonce", "n"),
						jsonv.Obj("transaction", v2text),
						jsonv.Obj("transaction", v2text, "nonce", jsonv.Number(1)),
						jsonv.Obj("transaction", v2text, "nonce", strings.Repeat("n", 257)),
					} {
						pay := b6.Clone()
						pay.Set("payload", pl)
						bound(t, pay, want)
					}
					pay := b6.Clone()
					pay.Set("payload", jsonv.Obj("transaction", v2text, "nonce", strings.Repeat("n", 256)))
					bound(t, pay, H.String())
				case 6:
					v3raw := rawOf(t, str(t, f, "V3", "transactionBase64"))
					for _, cb := range [][]byte{v3raw, nil} {
						rd := &cardanoReader{network: ref.Network, tx: &cardano.OnChain{BlockHeight: 1, Slot: 1, Valid: true, CBOR: cb}}
						if _, err := cardano.Recover(context.Background(), ref.Network, ref.TxID, rd); !isRefusal(err, want) {
							t.Fatalf("recover: %v", err)
						}
					}
				case 7:
					rd := &cardanoReader{network: ref.Network, tip: cardano.Tip{BlockHeight: 100, Slot: 1000},
						tx: &cardano.OnChain{BlockHeight: 101, Slot: 1001, Valid: true}}
					if st := cardano.PaymentStatus(context.Background(), ref, rd); st.State != "settled" || st.Confirmations != 0 || want != "settled with 0 confirmations" {
						t.Fatalf("status %+v", st)
					}
				case 8: // built for another H; V3, which carries none; V2 without its TTL
					read, err := p.Read(tronDoc(t, f, get(t, fixed, "O")))
					if err != nil {
						t.Fatal(err)
					}
					choice, err := p.Choose(read, "cardano:preprod:"+strings.ReplaceAll(str(t, fixed, "O", "payTo"), "_", "%5F"), nil, 0, "ref")
					if err != nil {
						t.Fatal(err)
					}
					other := mustHash(t, "0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
					complete := func(h [32]byte, tx string) {
						t.Helper()
						u, err := p.Build(choice, nil, h)
						if err != nil {
							t.Fatal(err)
						}
						if _, err := p.Complete(u, jsonv.Obj("transaction", tx, "nonce", str(t, fixed, "nonce")), rails.Chosen{}); !isRefusal(err, want) {
							t.Fatalf("complete: %v", err)
						}
					}
					complete(other, v2text)
					complete(H, str(t, f, "V3", "transactionBase64"))
					complete(H, txWith(bodyWith(cardano.KeyTTL, nil), nil, nil, nil))
				default:
					t.Fatalf("a row this test does not know: %s", jsonv.String(r))
				}
			})
		}
	})
	t.Run("B2", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B2")
		in := obj(t, r, "input")
		s := newATRSeller(t)
		s.serveBytes(unhex(t, str(t, in, "servesHex")))
		node := cardanorpc.NewNode(cardano.Params{MinFeeA: 44, MinFeeB: 155381, CoinsPerUTxOByte: 4310}, cardano.Tip{BlockHeight: 5216538, Slot: 134617495})
		srv, err := loopback.Start(node, "cardano-preprod.blockfrost.example")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.Close)
		rpc := &cardanorpc.Client{URL: "https://cardano-preprod.blockfrost.example/api/v0", Net: "cardano:preprod", HTTP: srv.Client()}
		key, err := signer.CardanoFromSeed(signer.CardanoDevSeed, "cardano:preprod", rpc)
		if err != nil {
			t.Fatal(err)
		}
		node.Fund(key.Address(), cardano.Input{TxID: [32]byte{0x22}, Index: 1}, 10_000_000)
		// The row's account is the vectors' payTo, whose key is not
		// published: the plant declines before any signer is asked.
		sg := &countingSigner{inner: &accountAs{Signer: key, account: str(t, in, "account")}}
		now, _ := jsonv.AsSafeInt(get(t, in, "now"))
		_, err = s.gateFor(now, nil).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), sg, nil)
		wantDecline(t, err, gate.Code(str(t, r, "expect", "decline")), "")
		if sg.calls.Load() != 0 || s.fetches.Load() != 1 || node.Calls.Load() != 0 {
			t.Fatalf("%d signer calls, %d fetches, %d node calls", sg.calls.Load(), s.fetches.Load(), node.Calls.Load())
		}
		// The control: the terms it advertises, paid once by the
		// development key; the transaction built, signed, bound, and
		// accepted by the node's ledger checks.
		s.serveBytes([]byte("abc"))
		dev := &countingSigner{inner: key}
		res, err := s.gateFor(now, nil).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), dev, nil)
		if err != nil || dev.calls.Load() != 1 {
			t.Fatalf("control: %v (%d calls)", err, dev.calls.Load())
		}
		if h, err := p.Bound(res.Signed); err != nil || h != H.String() {
			t.Fatalf("control bound %s, %v", h, err)
		}
		cref, err := cardano.PaymentReference(res.Signed)
		if err != nil || cref.TTLSlot != 134617495+60 {
			t.Fatalf("control reference %+v, %v", cref, err)
		}
		text, _ := jsonv.AsString(get(t, res.Signed, "payload", "transaction"))
		if _, err := rpc.Submit(context.Background(), rawOf(t, text)); err != nil {
			t.Fatalf("the node refused the control: %v", err)
		}
		if st := cardano.PaymentStatus(context.Background(), cref, rpc); st.State != "settled" {
			t.Fatalf("control status %+v", st)
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
