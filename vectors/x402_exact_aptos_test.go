package vectors_test

// x402-exact-aptos.json: fixed (fixture F's RawTransaction rebuilt byte
// for byte), V1–V4, plant, agreedRefusals and the buyer row B2. The
// payload's signature is made by a key generated at each run, as the file
// says; B2's control pays through the pairing with the Aptos development
// key against a loopback node, which commits it.

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
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
	"github.com/termsgate/termsgate/rails/aptos"
	"github.com/termsgate/termsgate/rails/aptos/aptosrpc"
	"github.com/termsgate/termsgate/signer"
)

// aptosStatusReader answers a status row from the row's answers.
type aptosStatusReader struct {
	byHash, bySeq *jsonv.Object
	usecs         uint64
	fail          bool
	network       string
}

func (r aptosStatusReader) Network() string { return r.network }

func (r aptosStatusReader) ByHash(context.Context, [32]byte) (*jsonv.Object, error) {
	if r.fail {
		return nil, errors.New("the node did not answer")
	}
	return r.byHash, nil
}

func (r aptosStatusReader) BySequence(context.Context, aptos.Address, uint64) (*jsonv.Object, error) {
	if r.fail {
		return nil, errors.New("the node did not answer")
	}
	return r.bySeq, nil
}

func (r aptosStatusReader) LedgerUsecs(context.Context) (uint64, error) { return r.usecs, nil }

func aptosAddr(t testing.TB, s string) aptos.Address {
	t.Helper()
	a, ok := aptos.ParseAddress(s)
	if !ok {
		t.Fatalf("address %q", s)
	}
	return a
}

func aptosU64(t testing.TB, s string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// aptosFixture is fixture F's RawTransaction.
func aptosFixture(t testing.TB, fixed *jsonv.Object) *aptos.RawTransaction {
	F := obj(t, fixed, "fixtureF")
	chain, _ := jsonv.AsSafeInt(get(t, F, "chainId"))
	return aptos.TransferTransaction(aptosAddr(t, str(t, F, "sender")), aptosU64(t, str(t, F, "sequenceNumber")),
		aptos.Transfer{Metadata: aptosAddr(t, str(t, F, "metadata")), Recipient: aptosAddr(t, str(t, F, "recipient")), Amount: aptosU64(t, str(t, F, "amount"))},
		aptosU64(t, str(t, F, "maxGasAmount")), aptosU64(t, str(t, F, "gasUnitPrice")), aptosU64(t, str(t, F, "expiresAt")), uint8(chain))
}

// x402Form writes x402's payload form of raw, with a fee payer when fp is
// not nil, signed by key over the matching signing message.
func aptosX402Form(raw []byte, fp *aptos.Address, key ed25519.PrivateKey) string {
	sig := ed25519.Sign(key, aptos.SigningMessage(raw, fp))
	auth := aptos.Ed25519Authenticator(key.Public().(ed25519.PublicKey), sig)
	simple := append([]byte{}, raw...)
	if fp == nil {
		simple = append(simple, 0)
	} else {
		simple = append(append(simple, 1), fp[:]...)
	}
	list := func(b []byte) []jsonv.Value {
		out := make([]jsonv.Value, len(b))
		for i, c := range b {
			out[i] = jsonv.Number(c)
		}
		return out
	}
	return base64.StdEncoding.EncodeToString(jsonv.Marshal(jsonv.Obj("transaction", list(simple), "senderAuthenticator", list(auth))))
}

func TestX402ExactAptos(t *testing.T) {
	f := load(t, "x402-exact-aptos.json")
	p := aptos.Exact{}
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	F := obj(t, fixed, "fixtureF")
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	fp := aptosAddr(t, str(t, F, "feePayer"))
	b2 := row(t, get(t, f, "buyer", "rows"), "B2")
	doc := obj(t, b2, "input", "doc")
	accepted := obj(t, fixed, "O")
	payment := func(tx jsonv.Value, withExtensions bool) *jsonv.Object {
		pay := jsonv.Obj("x402Version", 2, "resource", jsonv.Clone(get(t, fixed, "resource")), "accepted", accepted.Clone(),
			"payload", jsonv.Obj("transaction", tx))
		if withExtensions {
			pay.Set("extensions", jsonv.Obj("legalContext", jsonv.Obj("info", jsonv.Clone(get(t, f, "V3", "echoedInfo")))))
		}
		return pay
	}
	raw := aptosFixture(t, fixed).Encode()

	t.Run("fixed", func(t *testing.T) {
		n, _ := jsonv.AsSafeInt(get(t, F, "rawTransactionBytes"))
		d := sha256.Sum256(raw)
		if int64(len(raw)) != n || "0x"+hex.EncodeToString(d[:]) != str(t, F, "rawTransactionSha256") {
			t.Fatalf("%d bytes, sha256 %x", len(raw), d)
		}
		tx, err := aptos.DecodeRawTransaction(raw)
		if err != nil || string(tx.Encode()) != string(raw) {
			t.Fatalf("decode: %v", err)
		}
		tr, err := tx.ReadTransfer()
		if err != nil || tr.Amount != aptosU64(t, str(t, F, "amount")) || tr.Recipient.String() != str(t, F, "recipient") {
			t.Fatalf("transfer %+v, %v", tr, err)
		}
		if aptos.CheckOption(accepted) != "" {
			t.Fatalf("O: %s", aptos.CheckOption(accepted))
		}
	})

	t.Run("V1", func(t *testing.T) {
		v1 := obj(t, f, "V1")
		normal, _, _, ok := aptos.Committed(obj(t, fixed, "committed"))
		d := aptos.IDDigest(normal)
		if !ok || string(jsonv.Canonical(normal)) != str(t, v1, "expectCanonical") ||
			string(jsonv.Canonical(normal)) != string(jsonv.Canonical(get(t, v1, "expectNormalForm"))) ||
			"0x"+hex.EncodeToString(d[:]) != str(t, v1, "expectIdDigest") {
			t.Fatalf("V1: %s", jsonv.Canonical(normal))
		}
	})

	refJSON := func(r aptos.Reference) *jsonv.Object {
		return jsonv.Obj("network", r.Network, "sender", r.Sender.String(), "sequenceNumber", strconv.FormatUint(r.Sequence, 10),
			"expiresAt", strconv.FormatUint(r.ExpiresAt, 10), "idDigest", "0x"+hex.EncodeToString(r.IDDigest[:]))
	}
	t.Run("V2", func(t *testing.T) {
		v2 := obj(t, f, "V2")
		want := string(jsonv.Canonical(get(t, v2, "expectReference")))
		sig := ed25519.Sign(key, aptos.SigningMessage(raw, nil))
		signedTx := append(append([]byte{}, raw...), aptos.Ed25519Authenticator(key.Public().(ed25519.PublicKey), sig)...)
		forms := map[string]string{
			"x402 form, fee payer":    aptosX402Form(raw, &fp, key),
			"x402 form, no fee payer": aptosX402Form(raw, nil, key),
			"raw SignedTransaction":   base64.StdEncoding.EncodeToString(signedTx),
		}
		for name, text := range forms {
			ref, err := aptos.PaymentReference(payment(text, true))
			if err != nil || string(jsonv.Canonical(refJSON(ref))) != want {
				t.Fatalf("%s: %v, %v", name, jsonv.String(refJSON(ref)), err)
			}
			s, err := aptos.DecodePayload(text)
			// The run's key signed it, and it is not the sender's key.
			if err != nil || !s.SignatureVerifies() || s.Verifies() {
				t.Fatalf("%s: signature %v, as the sender's %v (%v)", name, s.SignatureVerifies(), s.Verifies(), err)
			}
		}
		// chainMismatch: chain id 2 on aptos:1.
		other := aptosFixture(t, fixed)
		other.ChainID = 2
		if _, err := aptos.PaymentReference(payment(aptosX402Form(other.Encode(), &fp, key), true)); !isRefusal(err, str(t, v2, "chainMismatch", "expect")) {
			t.Fatalf("chainMismatch: %v", err)
		}
		// script: the payload's variant 0.
		script := append([]byte{}, raw...)
		script[40] = 0
		if _, err := aptos.PaymentReference(payment(aptosX402Form(script, nil, key), true)); !isRefusal(err, str(t, v2, "script", "expect")) {
			t.Fatalf("script: %v", err)
		}
	})

	t.Run("V3", func(t *testing.T) {
		v3 := obj(t, f, "V3")
		text := aptosX402Form(raw, &fp, key)
		if h, err := p.Bound(payment(text, true)); err != nil || h != str(t, v3, "expectBound") || h != H.String() {
			t.Fatalf("bound %s, %v", h, err)
		}
		if _, err := p.Bound(payment(text, false)); !isRefusal(err, str(t, v3, "noLegalContext")) {
			t.Fatalf("no legal context: %v", err)
		}
	})

	statusRow := func(t *testing.T, r *jsonv.Object) {
		ref := obj(t, r, "ref")
		rr := aptos.Reference{Network: str(t, ref, "network"), Sender: aptosAddr(t, str(t, ref, "sender")),
			Sequence: aptosU64(t, str(t, ref, "sequenceNumber")), ExpiresAt: aptosU64(t, str(t, ref, "expiresAt")),
			IDDigest: [32]byte(unhex(t, str(t, ref, "idDigest")[2:]))}
		if tx, ok := ref.GetString("transaction"); ok {
			h := [32]byte(unhex(t, tx[2:]))
			rr.Transaction = &h
		}
		rd := aptosStatusReader{usecs: aptosU64(t, str(t, r, "ledgerUsecs")), network: "aptos:1"}
		if e, _ := r.Get("readerError"); e == true {
			rd.fail = true
		}
		if n, ok := r.GetString("readerNetwork"); ok {
			rd.network = n
		}
		bh, _ := r.Get("byHash")
		bs, _ := r.Get("bySequence")
		rd.byHash, _ = jsonv.AsObject(bh)
		rd.bySeq, _ = jsonv.AsObject(bs)
		st := aptos.PaymentStatus(context.Background(), rr, rd)
		got := jsonv.Obj("state", st.State)
		if st.Why != "" {
			got.Set("why", st.Why)
		}
		if st.State == "settled" {
			got.Set("version", st.Version)
			got.Set("transaction", st.Hash)
		}
		if string(jsonv.Canonical(got)) != string(jsonv.Canonical(get(t, r, "expect"))) {
			t.Fatalf("status %s, want %s", jsonv.String(got), jsonv.String(get(t, r, "expect")))
		}
	}
	t.Run("V4", func(t *testing.T) {
		for i, rv := range get(t, f, "V4", "status").([]jsonv.Value) {
			r, _ := jsonv.AsObject(rv)
			t.Run(strconv.Itoa(i)+" "+str(t, r, "case"), func(t *testing.T) { statusRow(t, r) })
		}
	})
	t.Run("plant", func(t *testing.T) { statusRow(t, obj(t, f, "plant")) })

	t.Run("agreedRefusals", func(t *testing.T) {
		good := aptosX402Form(raw, &fp, key)
		for _, rv := range get(t, f, "agreedRefusals", "rows").([]jsonv.Value) {
			r, _ := jsonv.AsObject(rv)
			c, want := str(t, r, "case"), str(t, r, "expect")
			t.Run(c, func(t *testing.T) {
				refuses := func(what string, pay jsonv.Value) {
					t.Helper()
					if _, err := aptos.PaymentReference(pay); !isRefusal(err, want) {
						t.Fatalf("%s: %v, want %s", what, err, want)
					}
				}
				switch want {
				case "aptos/tx-malformed":
					if strings.Contains(c, "base64") {
						refuses("a newline", payment(good[:8]+"\n"+good[8:], true))
						// A raw SignedTransaction that reads in standard base64,
						// in the URL alphabet.
						sig := ed25519.Sign(key, aptos.SigningMessage(raw, nil))
						st := append(append([]byte{}, raw...), aptos.Ed25519Authenticator(key.Public().(ed25519.PublicKey), sig)...)
						std, url := base64.StdEncoding.EncodeToString(st), base64.URLEncoding.EncodeToString(st)
						if _, err := aptos.PaymentReference(payment(std, true)); err != nil || std == url {
							t.Fatalf("the standard form: %v (same text in both alphabets: %v)", err, std == url)
						}
						refuses("url alphabet", payment(url, true))
						// 364 bytes: standard base64 pads with "==".
						if !strings.HasSuffix(std, "==") {
							t.Fatalf("%d bytes, no padding", len(st))
						}
						refuses("unpadded", payment(strings.TrimRight(std, "="), true))
						return
					}
					for _, n := range []int{0, 10, 40, len(raw) - 1} {
						refuses("prefix "+strconv.Itoa(n), payment(base64.StdEncoding.EncodeToString(raw[:n]), true))
					}
					// The function name's length as a ULEB128 with a trailing
					// zero group (not its shortest form), and one over 2^32-1.
					long := append(append(append([]byte{}, raw[:73]...), raw[73]|0x80, 0x00), raw[74:]...)
					refuses("not shortest", payment(aptosX402Form(long, nil, key), true))
					over := append(append(append([]byte{}, raw[:73]...), 0xff, 0xff, 0xff, 0xff, 0x7f), raw[74:]...)
					refuses("over 2^32-1", payment(aptosX402Form(over, nil, key), true))
				case "aptos/not-an-x402-transfer":
					tx := aptosFixture(t, fixed)
					tx.Payload.TypeArgs = []aptos.TypeTag{{Variant: 2}}
					refuses("u64 type argument", payment(aptosX402Form(tx.Encode(), nil, key), true))
					tx = aptosFixture(t, fixed)
					tx.Payload.TypeArgs[0].Struct.TypeArgs = []aptos.TypeTag{{Variant: 1}}
					refuses("generic struct", payment(aptosX402Form(tx.Encode(), nil, key), true))
				case "aptos/network-malformed":
					for _, n := range []string{"aptos:0", "aptos:01", "aptos:256", "aptos:", "aptos:x"} {
						o := accepted.Clone()
						o.Set("network", n)
						if got := aptos.CheckOption(o); got != want {
							t.Fatalf("%s: %q", n, got)
						}
					}
					if got := aptos.CheckOption(accepted); got != "" {
						t.Fatalf("aptos:1: %q", got)
					}
				case "x402/payload-malformed":
					refuses("a number", payment(jsonv.Number(1), true))
					refuses("absent", jsonv.Obj("x402Version", 2, "accepted", accepted.Clone(), "payload", jsonv.Obj()))
				case "x402/signed-not-bound":
					read, err := p.Read(doc)
					if err != nil {
						t.Fatal(err)
					}
					payer := str(t, F, "sender")
					choice, err := p.Choose(read, "aptos:1:"+payer, nil, 1790300895-60, "")
					if err != nil {
						t.Fatal(err)
					}
					u, err := p.Build(choice, nil, H)
					if err != nil {
						t.Fatal(err)
					}
					other := aptosFixture(t, fixed)
					other.ChainID = 2
					_, err = p.Complete(u, jsonv.Obj("transaction", aptosX402Form(other.Encode(), nil, key)), rails.Chosen{})
					if !isRefusal(err, want) {
						t.Fatalf("complete: %v", err)
					}
				case "pending unreadable":
					r := obj(t, f, "plant").Clone()
					r.Set("readerNetwork", "aptos:2")
					r.Set("expect", jsonv.Obj("state", "pending", "why", "unreadable"))
					statusRow(t, r)
					r = obj(t, f, "plant").Clone()
					r.Delete("ref")
					ref := obj(t, f, "plant", "ref").Clone()
					ref.Delete("transaction")
					r.Set("ref", ref)
					by := obj(t, f, "plant", "byHash").Clone()
					by.Set("sequence_number", "219")
					r.Set("byHash", nil)
					r.Set("bySequence", by)
					r.Set("expect", jsonv.Obj("state", "pending", "why", "unreadable"))
					statusRow(t, r)
				default:
					t.Fatalf("a row this test does not know: %s", jsonv.String(r))
				}
			})
		}
	})

	t.Run("B2", func(t *testing.T) {
		in := obj(t, b2, "input")
		s := newATRSeller(t)
		s.serveBytes(unhex(t, str(t, in, "servesHex")))
		node := aptosrpc.NewNode(1, 100, 1790000000*1_000_000)
		srv, err := loopback.Start(node, "aptos-node.example")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.Close)
		rpc := &aptosrpc.Client{URL: "https://aptos-node.example", Net: "aptos:1", HTTP: srv.Client()}
		wallet, err := signer.AptosFromSeed(signer.AptosDevSeed, "aptos:1", rpc)
		if err != nil {
			t.Fatal(err)
		}
		// The row's account is the vectors' sender, whose key is not
		// published: the plant declines before any signer is asked.
		sg := &countingSigner{inner: &accountAs{Signer: wallet, account: str(t, in, "account")}}
		now, _ := jsonv.AsSafeInt(get(t, in, "now"))
		_, err = s.gateFor(now, rails.NewRegistry(p)).Transact(context.Background(), doc, str(t, b2, "pairing"), sg, nil)
		wantDecline(t, err, gate.Code(str(t, b2, "expect", "decline")), "")
		if sg.calls.Load() != 0 || s.fetches.Load() != 1 || node.Calls.Load() != 0 {
			t.Fatalf("%d signer calls, %d fetches, %d node calls", sg.calls.Load(), s.fetches.Load(), node.Calls.Load())
		}
		// The control: the development key's wallet builds and signs the
		// transfer the pairing asks for, the pairing completes it, the node
		// commits it and the seller's status finds it settled.
		read, err := p.Read(doc)
		if err != nil {
			t.Fatal(err)
		}
		choice, err := p.Choose(read, wallet.Account(), nil, now, "")
		if err != nil {
			t.Fatal(err)
		}
		u, err := p.Build(choice, nil, H)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := p.Request(u)
		node.SetSequence(wallet.Address(), 7)
		dev := &countingSigner{inner: wallet}
		answer, err := dev.Sign(context.Background(), req)
		if err != nil || dev.calls.Load() != 1 {
			t.Fatalf("sign: %v", err)
		}
		done, err := p.Complete(u, answer, rails.Chosen{})
		if err != nil {
			t.Fatalf("complete: %v", err)
		}
		if h, err := p.Bound(done.Signed); err != nil || h != H.String() {
			t.Fatalf("control bound %s, %v", h, err)
		}
		ref, err := aptos.PaymentReference(done.Signed)
		if err != nil || ref.Sequence != 7 || ref.ExpiresAt != uint64(now)+60 {
			t.Fatalf("control reference %+v, %v", ref, err)
		}
		text, _ := jsonv.AsString(get(t, done.Signed, "payload", "transaction"))
		sd, _ := aptos.DecodePayload(text)
		signedTx, ok := sd.SignedTransaction()
		if !ok {
			t.Fatal("no SignedTransaction")
		}
		if _, err := rpc.Submit(context.Background(), signedTx); err != nil {
			t.Fatalf("the node refused the control: %v", err)
		}
		if st := aptos.PaymentStatus(context.Background(), ref, rpc); st.State != "settled" {
			t.Fatalf("control status %+v", st)
		}
		// The wallet's transaction with another amount does not complete.
		tampered := aptos.TransferTransaction(wallet.Address(), 8, aptos.Transfer{Metadata: sd.Tx.Payload.Module, Amount: 1}, 15000, 100, uint64(now)+60, 1)
		if _, err := p.Complete(u, jsonv.Obj("transaction", aptosX402Form(tampered.Encode(), nil, key)), rails.Chosen{}); !isRefusal(err, aptos.CodeTransferMismatch) {
			t.Fatalf("tampered: %v", err)
		}
	})
}
