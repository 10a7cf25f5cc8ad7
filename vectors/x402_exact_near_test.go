package vectors_test

// x402-exact-near.json: fixed, V1–V3, plant, agreedRefusals and the buyer
// rows B2 and B6; V1 is built and signed by the vectors' seed through the
// pairing and signer.Near, byte for byte.

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/near"
	"github.com/termsgate/termsgate/signer"
)

// nearReader answers from a row's outcome, final height and key nonce.
type nearReader struct {
	network   string
	relayers  []string
	outcome   jsonv.Value
	height    uint64
	keyNonce  jsonv.Value
	calls     int
	heightErr bool
}

func (r *nearReader) Network() string    { return r.network }
func (r *nearReader) Relayers() []string { return r.relayers }

func (r *nearReader) TxStatus(_ context.Context, _, _ string) (*near.Outcome, error) {
	r.calls++
	if r.outcome == "reader-error" {
		return nil, errors.New("the RPC did not answer")
	}
	o, ok := jsonv.AsObject(r.outcome)
	if !ok {
		return nil, nil
	}
	out := &near.Outcome{Status: algoStr(o, "status")}
	if d, ok := o.GetObject("delegate"); ok {
		n, _ := strconv.ParseUint(algoStr(d, "nonce"), 10, 64)
		args, _ := near.ArgsFromBase64(algoStr(d, "argsBase64"))
		out.Delegate = &near.Delegate{SenderID: algoStr(d, "senderId"), PublicKey: algoStr(d, "publicKey"), Nonce: n, Args: args}
	}
	rs, _ := o.Get("receipts")
	for _, rv := range rs.([]jsonv.Value) {
		ro := rv.(*jsonv.Object)
		out.Receipts = append(out.Receipts, near.Receipt{Executor: algoStr(ro, "executor"), Outcome: algoStr(ro, "outcome")})
	}
	return out, nil
}

func (r *nearReader) FinalHeight(context.Context) (uint64, error) {
	r.calls++
	if r.heightErr {
		return 0, errors.New("the RPC did not answer")
	}
	return r.height, nil
}

func (r *nearReader) AccessKeyNonce(context.Context, string, string) (uint64, bool, error) {
	r.calls++
	s, ok := r.keyNonce.(string)
	if !ok {
		return 0, false, nil
	}
	n, _ := strconv.ParseUint(s, 10, 64)
	return n, true, nil
}

func nearStatusIs(st near.Status, want *jsonv.Object) bool {
	return st.State == algoStr(want, "state") && st.Finality == algoStr(want, "finality") && st.Why == algoStr(want, "why")
}

func TestX402ExactNEAR(t *testing.T) {
	f := load(t, "x402-exact-near.json")
	p := near.Exact{}
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	b6 := obj(t, row(t, get(t, f, "buyer", "rows"), "B6"), "input", "presented")
	withSDA := func(sda jsonv.Value) *jsonv.Object {
		pay := b6.Clone()
		pay.Set("payload", jsonv.Obj("signedDelegateAction", jsonv.Clone(sda)))
		return pay
	}
	key, err := signer.NearFromSeed(str(t, fixed, "seedHex"), "near:testnet", "")
	if err != nil {
		t.Fatal(err)
	}
	inputs := func() *jsonv.Object {
		return jsonv.Obj("publicKey", str(t, fixed, "publicKey"), "accessKeyNonce", str(t, fixed, "accessKeyNonce"), "finalHeight", str(t, fixed, "finalHeight"))
	}
	build := func(t *testing.T, in *jsonv.Object) (rails.Unsigned, error) {
		read, err := p.Read(tronDoc(t, f, get(t, fixed, "O")))
		if err != nil {
			t.Fatal(err)
		}
		choice, err := p.Choose(read, "near:testnet:"+str(t, fixed, "payer"), in, 0, "ref")
		if err != nil {
			return nil, err
		}
		return p.Build(choice, []byte("abc"), H)
	}

	t.Run("fixed", func(t *testing.T) {
		if key.Account() != "near:testnet:"+str(t, fixed, "payer") || key.PublicKey() != str(t, fixed, "publicKey") {
			t.Fatalf("key %s %s", key.Account(), key.PublicKey())
		}
		if code := near.CheckOption(obj(t, fixed, "O")); code != "" {
			t.Fatalf("O refused: %s", code)
		}
	})
	var signedSDA string
	t.Run("V1", func(t *testing.T) {
		v1 := obj(t, f, "V1")
		u, err := build(t, inputs())
		if err != nil {
			t.Fatal(err)
		}
		req, _ := p.Request(u)
		d, _, h, err := near.RequestAction(req)
		if err != nil {
			t.Fatal(err)
		}
		args := d.Actions[0].Args
		sum := sha256.Sum256(args)
		if string(args) != str(t, v1, "expectArgsUtf8") || hex.EncodeToString(sum[:]) != str(t, v1, "expectArgsSha256") {
			t.Fatalf("args %s", args)
		}
		if n, _ := jsonv.AsSafeInt(get(t, v1, "expectDelegateActionBytes")); int64(len(d.Encode())) != n {
			t.Fatalf("%d bytes", len(d.Encode()))
		}
		prefix := binary.LittleEndian.AppendUint32(nil, near.NEP461Delegate)
		if hex.EncodeToString(prefix) != str(t, v1, "expectPrefix") || hex.EncodeToString(h[:]) != str(t, v1, "expectRequestHash") {
			t.Fatalf("hash %x", h)
		}
		sg := &countingSigner{inner: key}
		answer, err := sg.Sign(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		sig := str(t, answer, "bytes")[2:]
		if !strings.HasPrefix(sig, str(t, v1, "expectSignature", "prefix")) || !strings.HasSuffix(sig, str(t, v1, "expectSignature", "suffix")) {
			t.Fatalf("signature %s", sig)
		}
		c, err := p.Complete(u, answer, rails.Chosen{Ref: "ref"})
		if err != nil {
			t.Fatal(err)
		}
		signedSDA = str(t, c.Signed, "payload", "signedDelegateAction")
		g, err := p.Summarize(req)
		if err != nil || g.Asset != "usdc.testnet" || g.Amount.String() != "1000000" || g.Payee != "merchant.testnet" || g.Payer != str(t, fixed, "payer") {
			t.Fatalf("grant %+v, %v", g, err)
		}
		// Another key's signature.
		other, _ := signer.NearFromSeed("0202020202020202020202020202020202020202020202020202020202020202", "near:testnet", str(t, fixed, "payer"))
		if _, err := other.Sign(context.Background(), req); err == nil {
			t.Fatal("another key signed the payer's delegate action")
		}
		bad := jsonv.Obj("keyType", 0, "bytes", "0x"+strings.Repeat("00", 64))
		if _, err := p.Complete(u, bad, rails.Chosen{}); !isRefusal(err, near.CodeSignatureInvalid) {
			t.Fatalf("a zero signature: %v", err)
		}
	})
	t.Run("V2", func(t *testing.T) {
		v2 := obj(t, f, "V2")
		if signedSDA != str(t, v2, "expectSignedDelegateAction") {
			t.Fatalf("signed delegate action %s", signedSDA)
		}
		pay := withSDA(signedSDA)
		if h, err := p.Bound(pay); err != nil || h != str(t, v2, "expectBound") {
			t.Fatalf("bound %s, %v", h, err)
		}
		ref, err := near.PaymentReference(pay)
		w := obj(t, v2, "expectReference")
		if err != nil || ref.Network != str(t, w, "network") || ref.Asset != str(t, w, "asset") || ref.Payer != str(t, w, "payer") ||
			ref.PublicKey != str(t, w, "publicKey") || strconv.FormatUint(ref.Nonce, 10) != str(t, w, "nonce") ||
			strconv.FormatUint(ref.MaxBlockHeight, 10) != str(t, w, "maxBlockHeight") {
			t.Fatalf("reference %+v, %v", ref, err)
		}
		for _, rv := range get(t, v2, "refusals").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				if _, err := p.Bound(withSDA(str(t, r, "signedDelegateAction"))); !isRefusal(err, str(t, r, "expect")) {
					t.Fatalf("bound: %v, want %s", err, str(t, r, "expect"))
				}
			})
		}
	})
	v3 := obj(t, f, "V3")
	rv3 := obj(t, v3, "ref")
	relayers := []string{}
	for _, r := range get(t, v3, "relayers").([]jsonv.Value) {
		relayers = append(relayers, r.(string))
	}
	nonce, _ := strconv.ParseUint(str(t, rv3, "nonce"), 10, 64)
	mbh, _ := strconv.ParseUint(str(t, rv3, "maxBlockHeight"), 10, 64)
	ref := near.Reference{Network: str(t, rv3, "network"), Asset: str(t, rv3, "asset"), Payer: str(t, rv3, "payer"),
		PublicKey: str(t, rv3, "publicKey"), Nonce: nonce, MaxBlockHeight: mbh, Transaction: str(t, rv3, "transaction")}
	t.Run("V3", func(t *testing.T) {
		for _, sv := range get(t, v3, "status").([]jsonv.Value) {
			r := sv.(*jsonv.Object)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				rd := &nearReader{network: ref.Network, relayers: relayers, outcome: get(t, r, "outcome")}
				if st := near.PaymentStatus(context.Background(), ref, rd); !nearStatusIs(st, obj(t, r, "expect")) || rd.calls > 1 {
					t.Fatalf("status %+v (%d reads)", st, rd.calls)
				}
			})
		}
		for _, lv := range get(t, v3, "lapsed").([]jsonv.Value) {
			r := lv.(*jsonv.Object)
			t.Run("lapsed/"+str(t, r, "case"), func(t *testing.T) {
				h, _ := strconv.ParseUint(str(t, r, "finalHeight"), 10, 64)
				rd := &nearReader{network: ref.Network, relayers: relayers, height: h, keyNonce: get(t, r, "keyNonce")}
				if got := near.Lapsed(context.Background(), ref, rd); got != (get(t, r, "expect") == true) || rd.calls > 2 {
					t.Fatalf("lapsed %v (%d reads)", got, rd.calls)
				}
			})
		}
		for _, cv := range get(t, v3, "recover").([]jsonv.Value) {
			r := cv.(*jsonv.Object)
			t.Run("recover/"+str(t, r, "case"), func(t *testing.T) {
				rd := &nearReader{network: ref.Network, relayers: relayers, outcome: get(t, r, "outcome")}
				if h, err := near.Recover(context.Background(), ref.Network, ref.Transaction, rd); err != nil || h.String() != str(t, r, "expect") {
					t.Fatalf("recover %v, %v", h, err)
				}
			})
		}
		if st := near.PaymentStatus(context.Background(), ref, &nearReader{network: "near:mainnet", relayers: relayers}); st.Why != "unreadable" {
			t.Fatalf("another network's reader: %+v", st)
		}
	})
	t.Run("plant", func(t *testing.T) {
		pl := obj(t, f, "plant")
		rd := &nearReader{network: ref.Network, relayers: relayers, outcome: get(t, pl, "outcome")}
		if st := near.PaymentStatus(context.Background(), ref, rd); !nearStatusIs(st, obj(t, pl, "expect")) {
			t.Fatalf("status %+v", st)
		}
	})
	t.Run("agreedRefusals", func(t *testing.T) {
		for _, av := range get(t, f, "agreedRefusals", "rows").([]jsonv.Value) {
			r := av.(*jsonv.Object)
			want := str(t, r, "expect")
			t.Run(str(t, r, "case"), func(t *testing.T) {
				switch {
				case r.Has("option"):
					if code := near.CheckOption(obj(t, r, "option")); code != want {
						t.Fatalf("option: %q", code)
					}
				case r.Has("signedDelegateAction"):
					if _, err := p.Bound(withSDA(get(t, r, "signedDelegateAction"))); !isRefusal(err, want) {
						t.Fatalf("bound: %v", err)
					}
				case r.Has("publicKey"):
					in := inputs()
					in.Set("publicKey", str(t, r, "publicKey"))
					if _, err := build(t, in); !isRefusal(err, want) {
						t.Fatalf("build: %v", err)
					}
				case r.Has("signatureBytes"):
					u, _ := build(t, inputs())
					n, _ := jsonv.AsSafeInt(get(t, r, "signatureBytes"))
					if _, err := p.Complete(u, jsonv.Obj("keyType", 0, "bytes", "0x"+strings.Repeat("00", int(n))), rails.Chosen{}); !isRefusal(err, want) {
						t.Fatalf("complete: %v", err)
					}
				case want == "near/unreadable":
					rd := &nearReader{network: ref.Network, relayers: relayers, outcome: "reader-error"}
					if _, err := near.Recover(context.Background(), ref.Network, ref.Transaction, rd); !isRefusal(err, want) {
						t.Fatalf("recover: %v", err)
					}
				case want == "near/no-relayer":
					rd := &nearReader{network: ref.Network}
					if _, err := near.Recover(context.Background(), ref.Network, ref.Transaction, rd); !isRefusal(err, want) || rd.calls != 0 {
						t.Fatalf("recover: %v", err)
					}
				case want == "near/peer-missing":
					// The reference gates' optional SDK peers; termsgate's
					// borsh codec is compiled in, so the state cannot arise.
					if _, err := p.Bound(b6); err != nil {
						t.Fatalf("bound: %v", err)
					}
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
		if key.Account() != str(t, in, "account") {
			t.Fatalf("account %s", key.Account())
		}
		sg := &countingSigner{inner: key}
		now, _ := jsonv.AsSafeInt(get(t, in, "now"))
		_, err := s.gateFor(now, nil).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), sg, &gate.TransactOptions{Inputs: obj(t, in, "inputs")})
		wantDecline(t, err, gate.Code(str(t, r, "expect", "decline")), "")
		if sg.calls.Load() != 0 || s.fetches.Load() != 1 {
			t.Fatalf("%d signer calls, %d fetches", sg.calls.Load(), s.fetches.Load())
		}
		// The control: the terms it advertises, paid once: V2's signed delegate action.
		s.serveBytes([]byte("abc"))
		res, err := s.gateFor(now, nil).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), sg, &gate.TransactOptions{Inputs: obj(t, in, "inputs")})
		if err != nil || sg.calls.Load() != 1 {
			t.Fatalf("control: %v (%d calls)", err, sg.calls.Load())
		}
		if got := str(t, res.Signed, "payload", "signedDelegateAction"); got != str(t, f, "V2", "expectSignedDelegateAction") {
			t.Fatalf("control's signed delegate action %s", got)
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
	_ = base64.StdEncoding
}
