package vectors_test

// x402-exact-algorand.json: fixed, V1–V4, plant, options and the buyer rows
// B2 and B6; the build answered with the file's signature gives V2's group
// byte for byte, and the local development key pays it through the gate.
// decoder-caps.json's msgpack rows (MC1–MC10) run in TestDecoderCapsMsgpack.

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/algorand"
	"github.com/termsgate/termsgate/signer"
)

// algorandDoc is a PaymentRequired offering option with fixed's resource,
// H and link.
func algorandDoc(t testing.TB, f *jsonv.Object, option jsonv.Value) *jsonv.Object {
	fixed := obj(t, f, "fixed")
	return jsonv.Obj("x402Version", 2, "resource", jsonv.Clone(get(t, fixed, "resource")),
		"accepts", []jsonv.Value{jsonv.Clone(option)},
		"extensions", jsonv.Obj("legalContext", jsonv.Obj("info",
			jsonv.Obj("type", "sha256", "value", str(t, fixed, "H"), "legalContextUrl", str(t, fixed, "link")),
			"schema", jsonv.Obj())))
}

// algorandBuild reads, chooses and builds option for fixed's payer with
// fixed's params.
func algorandBuild(t testing.TB, f *jsonv.Object, option jsonv.Value) (rails.Unsigned, rails.Request) {
	t.Helper()
	p := algorand.Exact{}
	fixed := obj(t, f, "fixed")
	read, err := p.Read(algorandDoc(t, f, option))
	if err != nil {
		t.Fatal(err)
	}
	choice, err := p.Choose(read, str(t, fixed, "network")+":"+str(t, fixed, "payer"), jsonv.Obj("params", jsonv.Clone(get(t, fixed, "params"))), 0, "ref")
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.Build(choice, []byte("abc"), mustHash(t, str(t, fixed, "H")))
	if err != nil {
		t.Fatal(err)
	}
	req, err := p.Request(u)
	if err != nil {
		t.Fatal(err)
	}
	return u, req
}

func reqBytes(t testing.TB, req rails.Request) []byte {
	return unhex(t, str(t, req, "bytes")[2:])
}

// avmReader answers an Indexer search from a vector's answer object
// (or "reader-error").
type avmReader struct {
	network string
	answers map[string]jsonv.Value
	calls   int
}

func (r *avmReader) Network() string { return r.network }

func (r *avmReader) Search(_ context.Context, txid string) (algorand.Answer, error) {
	r.calls++
	a, ok := r.answers[txid]
	if !ok || a == "reader-error" {
		return algorand.Answer{}, errors.New("the indexer did not answer")
	}
	o := a.(*jsonv.Object)
	var out algorand.Answer
	out.CurrentRound, _ = algoU64(algoStr(o, "currentRound"))
	if fv, _ := o.Get("found"); fv != nil {
		fo := fv.(*jsonv.Object)
		r, _ := algoU64(algoStr(fo, "confirmedRound"))
		out.Found = &algorand.Found{ConfirmedRound: r}
		if n, ok := fo.GetString("note"); ok {
			out.Found.Note, _ = base64.StdEncoding.DecodeString(n)
		}
	}
	return out, nil
}

func algoStr(o *jsonv.Object, k string) string { s, _ := o.GetString(k); return s }

func algoU64(s string) (uint64, bool) {
	var n uint64
	if s == "" {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

func TestX402ExactAlgorand(t *testing.T) {
	f := load(t, "x402-exact-algorand.json")
	p := algorand.Exact{}
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	sig := unhex(t, str(t, fixed, "signature"))
	payerKey, ok := algorand.ParseAddress(str(t, fixed, "payer"))
	if !ok {
		t.Fatal("fixed.payer is no address")
	}

	t.Run("fixed", func(t *testing.T) {
		gh, _ := base64.StdEncoding.DecodeString(str(t, fixed, "params", "genesisHash"))
		if got := algorand.NetworkOf([32]byte(gh)); got != str(t, fixed, "network") || got != algorand.TestNet {
			t.Fatalf("network of the genesis hash %s", got)
		}
		for _, k := range []string{"payer"} {
			if !algorand.IsAddress(str(t, fixed, k)) {
				t.Fatalf("%s is no address", k)
			}
		}
		if !algorand.IsAddress(str(t, fixed, "O", "payTo")) || !algorand.IsAddress(str(t, fixed, "O", "extra", "feePayer")) {
			t.Fatal("O's payTo or feePayer is no address")
		}
	})
	t.Run("V1", func(t *testing.T) {
		v1 := obj(t, f, "V1")
		u, req := algorandBuild(t, f, get(t, fixed, "OStandalone"))
		b := reqBytes(t, req)
		txn, err := algorand.ReadSigningBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		if txn.ID() != str(t, v1, "expectTxid") || txn.Fee != 1000 || txn.Group != ([32]byte{}) {
			t.Fatalf("txid %s, fee %d", txn.ID(), txn.Fee)
		}
		// The transaction's canonical msgpack (what follows "TX") is the
		// encoded length the file states.
		if n, _ := jsonv.AsSafeInt(get(t, v1, "expectEncodedLength")); int64(len(txn.Bytes())) != n || len(b) != len(txn.Bytes())+2 {
			t.Fatalf("encoded length %d, want %d", len(txn.Bytes()), n)
		}
		// The file's signature is over V2's transfer, not this one.
		if _, err := p.Complete(u, "0x"+hex.EncodeToString(sig), rails.Chosen{}); err == nil {
			t.Fatal("a signature over another transaction completed the payment")
		}
	})
	t.Run("V2", func(t *testing.T) {
		v2 := obj(t, f, "V2")
		u, req := algorandBuild(t, f, get(t, fixed, "O"))
		b := reqBytes(t, req)
		if hex.EncodeToString(b) != str(t, v2, "expectBytesToSign") {
			t.Fatalf("bytes to sign %x", b)
		}
		if !ed25519.Verify(payerKey[:], b, sig) {
			t.Fatal("the file's signature does not verify under the payer's key over the bytes built")
		}
		c, err := p.Complete(u, "0x"+hex.EncodeToString(sig), rails.Chosen{Ref: "ref"})
		if err != nil {
			t.Fatal(err)
		}
		payload := obj(t, c.Signed, "payload")
		group := get(t, payload, "paymentGroup").([]jsonv.Value)
		want := get(t, v2, "expectPaymentGroup").([]jsonv.Value)
		if len(group) != len(want) {
			t.Fatalf("group of %d", len(group))
		}
		for i := range want {
			if group[i] != want[i] {
				t.Fatalf("entry %d:\n%s\nwant\n%s", i, group[i], want[i])
			}
		}
		if get(t, payload, "paymentIndex") != get(t, v2, "expectPaymentIndex") {
			t.Fatalf("paymentIndex %v", get(t, payload, "paymentIndex"))
		}
		// Each entry's id and the group id, from the decoded transactions.
		var txns []*algorand.Txn
		for _, e := range group {
			raw, _ := base64.StdEncoding.DecodeString(e.(string))
			s, err := algorand.DecodeSigned(raw)
			if err != nil {
				t.Fatal(err)
			}
			txn, err := algorand.ReadTxn(s.Txn)
			if err != nil {
				t.Fatal(err)
			}
			txns = append(txns, txn)
		}
		if txns[0].ID() != str(t, v2, "expectFeePayerTxid") || txns[1].ID() != str(t, v2, "expectPaymentTxid") ||
			base64.StdEncoding.EncodeToString(txns[0].Group[:]) != str(t, v2, "expectGroupId") || txns[0].Fee != 2000 || txns[1].Fee != 0 {
			t.Fatalf("txids %s %s, group %x, fees %d %d", txns[0].ID(), txns[1].ID(), txns[0].Group, txns[0].Fee, txns[1].Fee)
		}
		ungrouped := []*algorand.Txn{{}, {}}
		*ungrouped[0], *ungrouped[1] = *txns[0], *txns[1]
		ungrouped[0].Group, ungrouped[1].Group = [32]byte{}, [32]byte{}
		if algorand.GroupID(ungrouped) != txns[0].Group {
			t.Fatal("the group id is not the hash of the two ids")
		}
		// A signature of the wrong length, or by another key.
		if _, err := p.Complete(u, "0x"+hex.EncodeToString(sig[:63]), rails.Chosen{}); !isRefusal(err, algorand.CodeSignatureMalformed) {
			t.Fatalf("short signature: %v", err)
		}
		bad := append([]byte(nil), sig...)
		bad[0] ^= 1
		if _, err := p.Complete(u, "0x"+hex.EncodeToString(bad), rails.Chosen{}); !isRefusal(err, algorand.CodeSignatureInvalid) {
			t.Fatalf("altered signature: %v", err)
		}
		// Summarize states the transfer from the bytes.
		g, err := p.Summarize(req)
		if err != nil || g.Network != algorand.TestNet || g.Asset != "10458941" || g.Decimals != 6 || g.Amount.String() != "10000" ||
			g.Payer != str(t, fixed, "payer") || g.Payee != str(t, fixed, "O", "payTo") {
			t.Fatalf("grant %+v, %v", g, err)
		}
	})
	b6 := obj(t, row(t, get(t, f, "buyer", "rows"), "B6"), "input", "presented")
	t.Run("V3", func(t *testing.T) {
		v3 := obj(t, f, "V3")
		h, err := p.Bound(b6)
		if err != nil || h != str(t, v3, "expectBound") {
			t.Fatalf("bound %q, %v", h, err)
		}
		ref, err := algorand.PaymentReference(b6)
		want := obj(t, v3, "expectReference")
		if err != nil || ref.Network != str(t, want, "network") || ref.TxID != str(t, want, "txid") || ref.LastValid != mustU64(t, str(t, want, "lastValid")) {
			t.Fatalf("reference %+v, %v", ref, err)
		}
		for _, rv := range get(t, v3, "refusals").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				pay := b6.Clone()
				pay.Set("payload", jsonv.Obj("paymentIndex", jsonv.Clone(get(t, r, "paymentIndex")), "paymentGroup", jsonv.Clone(get(t, r, "paymentGroup"))))
				if _, err := p.Bound(pay); !isRefusal(err, str(t, r, "expect")) {
					t.Fatalf("bound: %v, want %s", err, str(t, r, "expect"))
				}
			})
		}
	})
	t.Run("V4", func(t *testing.T) {
		v4 := obj(t, f, "V4")
		refObj := obj(t, v4, "reference")
		ref := algorand.Reference{Network: str(t, refObj, "network"), TxID: str(t, refObj, "txid"), LastValid: mustU64(t, str(t, refObj, "lastValid"))}
		for i, rv := range get(t, v4, "rows").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			t.Run("row"+string(rune('1'+i)), func(t *testing.T) {
				reader := &avmReader{network: str(t, v4, "readerNetwork"), answers: map[string]jsonv.Value{ref.TxID: get(t, r, "answer")}}
				st := algorand.PaymentStatus(context.Background(), ref, reader)
				if !statusIs(st, obj(t, r, "expect")) || reader.calls != 1 {
					t.Fatalf("status %+v (%d reads), want %s", st, reader.calls, jsonv.String(get(t, r, "expect")))
				}
			})
		}
		t.Run("recover", func(t *testing.T) {
			a := obj(t, v4, "recover", "answer").Clone()
			found := obj(t, a, "found")
			found.Set("note", str(t, v4, "note"))
			reader := &avmReader{network: str(t, v4, "readerNetwork"), answers: map[string]jsonv.Value{ref.TxID: a}}
			h, err := algorand.Recover(context.Background(), ref.Network, ref.TxID, reader)
			if err != nil || h.String() != str(t, v4, "recover", "expect") || reader.calls != 1 {
				t.Fatalf("recover %v, %v", h, err)
			}
			other := &avmReader{network: algorand.MainNet}
			if _, err := algorand.Recover(context.Background(), ref.Network, ref.TxID, other); !isRefusal(err, "avm/wrong-reader") || other.calls != 0 {
				t.Fatalf("a reader for another network: %v", err)
			}
		})
		// A reader for another network is never asked.
		other := &avmReader{network: algorand.MainNet}
		if st := algorand.PaymentStatus(context.Background(), ref, other); st.State != "pending" || st.Why != "unreadable" || other.calls != 0 {
			t.Fatalf("another network's reader: %+v", st)
		}
	})
	t.Run("plant", func(t *testing.T) {
		pl := obj(t, f, "plant")
		ref, _ := algorand.PaymentReference(b6)
		reader := &avmReader{network: ref.Network, answers: map[string]jsonv.Value{
			str(t, pl, "otherTxid"): get(t, pl, "otherAnswer"), ref.TxID: get(t, pl, "claimedAnswer")}}
		if st := algorand.PaymentStatus(context.Background(), ref, reader); !statusIs(st, obj(t, pl, "expect")) {
			t.Fatalf("status %+v", st)
		}
	})
	t.Run("options", func(t *testing.T) {
		for _, rv := range get(t, f, "options").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				served, code := algorand.CheckOption(obj(t, r, "option"))
				if served || code != str(t, r, "expect") {
					t.Fatalf("served %v, code %q", served, code)
				}
				if _, err := p.Read(algorandDoc(t, f, get(t, r, "option"))); !isRefusal(err, "x402/no-payable-option") {
					t.Fatalf("read: %v", err)
				}
			})
		}
		if served, code := algorand.CheckOption(obj(t, fixed, "O")); !served || code != "" {
			t.Fatalf("O: %v %q", served, code)
		}
	})
	t.Run("B2", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B2")
		in := obj(t, r, "input")
		s := newATRSeller(t)
		s.serveBytes(unhex(t, str(t, in, "servesHex")))
		sg := &countingSigner{inner: fixedAccount{str(t, in, "account")}}
		_, err := s.gateFor(0, nil).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), sg, &gate.TransactOptions{Inputs: obj(t, in, "inputs")})
		wantDecline(t, err, gate.Code(str(t, r, "expect", "decline")), "")
		if sg.calls.Load() != 0 || s.fetches.Load() != 1 {
			t.Fatalf("%d signer calls, %d fetches", sg.calls.Load(), s.fetches.Load())
		}
		// The control: the same document with the terms it advertises, paid
		// by the development key on the same network.
		dev, err := signer.AlgorandDev(str(t, fixed, "network"))
		if err != nil {
			t.Fatal(err)
		}
		s.serveBytes([]byte("abc"))
		paid := &countingSigner{inner: dev}
		res, err := s.gateFor(0, nil).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), paid, &gate.TransactOptions{Inputs: obj(t, in, "inputs")})
		if err != nil || paid.calls.Load() != 1 {
			t.Fatalf("control: %v (%d calls)", err, paid.calls.Load())
		}
		h, err := p.Bound(res.Signed)
		if err != nil || h != H.String() {
			t.Fatalf("control bound %q, %v", h, err)
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

// fixedAccount is a signer that names an account and cannot sign: the plant
// must decline before any signature is asked.
type fixedAccount struct{ account string }

func (a fixedAccount) Account() string { return a.account }
func (a fixedAccount) Sign(context.Context, rails.Request) (jsonv.Value, error) {
	return nil, errors.New("this signer holds no key")
}

func statusIs(st algorand.Status, want *jsonv.Object) bool {
	round, _ := algoU64(algoStr(want, "round"))
	return st.State == algoStr(want, "state") && st.Finality == algoStr(want, "finality") && st.Why == algoStr(want, "why") && st.Round == round
}

func mustU64(t testing.TB, s string) uint64 {
	n, ok := algoU64(s)
	if !ok {
		t.Fatalf("%q is no integer", s)
	}
	return n
}

// TestDecoderCapsMsgpack: decoder-caps.json's msgpack rows through the
// Algorand rail's caps scan, which every reader of a payment group entry
// runs first (algorand.Decode).
func TestDecoderCapsMsgpack(t *testing.T) {
	f := obj(t, load(t, "decoder-caps.json"), "msgpack")
	if d, _ := jsonv.AsSafeInt(get(t, f, "maxDepth")); d != algorand.MaxDepth {
		t.Fatalf("maxDepth %d", d)
	}
	for _, rv := range get(t, f, "rows").([]jsonv.Value) {
		r := rv.(*jsonv.Object)
		t.Run(str(t, r, "name"), func(t *testing.T) {
			b := unhex(t, str(t, r, "hex"))
			if got, want := algorand.WithinCaps(b), get(t, r, "accept") == true; got != want {
				t.Fatalf("accepted %v, want %v (%s)", got, want, str(t, r, "case"))
			}
			// Refused by the caps, refused by the decoder; an entry of a
			// payment group holding it is txn-malformed.
			if _, err := algorand.Decode(b); get(t, r, "accept") != true && !errors.Is(err, algorand.ErrCaps) {
				t.Fatalf("decode: %v", err)
			}
			if get(t, r, "accept") != true {
				_, err := algorand.Carrier(jsonv.Obj("paymentIndex", 0, "paymentGroup", []jsonv.Value{base64.StdEncoding.EncodeToString(b)}))
				if !isRefusal(err, algorand.CodeTxnMalformed) {
					t.Fatalf("carrier: %v", err)
				}
			}
		})
	}
}
