package vectors_test

// x402-batch-settlement.json: EB1–EB8 (x402/batch-settlement/eip155), the
// agreedRefusals rows of the pairings termsgate implements, and the buyer
// rows B2 and B6 of each; EC1 and the Cloudflare rows in
// x402_batch_cloudflare_test.go; the ES rows, the SVM refusal row and the
// Solana buyer rows (x402/batch-settlement/solana) in
// x402_batch_solana_test.go.

import (
	"context"
	"crypto/sha256"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/signer"
)

// batchEVM is the file's fixed.evm with the B2 document that offers it.
type batchEVM struct {
	f, evm            *jsonv.Object
	H, Hp             atr.Hash
	doc               *jsonv.Object // buyer B2's document (legal context placed)
	option            *jsonv.Object
	payer, authorizer string
	payerKey, authKey string
	now               int64
}

func loadBatchEVM(t *testing.T) batchEVM {
	t.Helper()
	f := load(t, "x402-batch-settlement.json")
	e := obj(t, f, "fixed", "evm")
	b2 := batchRow(t, f, "B2", evm.BatchID)
	now, _ := jsonv.AsSafeInt(get(t, e, "now"))
	doc := obj(t, b2, "input", "doc")
	return batchEVM{
		f: f, evm: e, H: mustHash(t, str(t, f, "fixed", "H")), Hp: mustHash(t, str(t, f, "fixed", "Hprime")),
		doc: doc, option: get(t, doc, "accepts").([]jsonv.Value)[0].(*jsonv.Object),
		payer: str(t, e, "payer"), authorizer: str(t, e, "payerAuthorizer"),
		payerKey: str(t, e, "payerKey"), authKey: str(t, e, "payerAuthorizerKey"), now: now,
	}
}

// batchRow is the buyer row name of pairing.
func batchRow(t testing.TB, f *jsonv.Object, name, pairing string) *jsonv.Object {
	t.Helper()
	for _, r := range get(t, f, "buyer", "rows").([]jsonv.Value) {
		o, _ := jsonv.AsObject(r)
		if n, _ := o.GetString("name"); n == name {
			if p, _ := o.GetString("pairing"); p == pairing {
				return o
			}
		}
	}
	t.Fatalf("no buyer row %s for %s", name, pairing)
	return nil
}

func (b batchEVM) choice(t testing.TB, option *jsonv.Object, doc *jsonv.Object) *jsonv.Object {
	if doc == nil {
		doc = b.doc.Clone()
		doc.Set("accepts", []jsonv.Value{option})
	}
	return jsonv.Obj("required", doc, "accepted", option, "from", b.payer, "now", b.now,
		"payerAuthorizer", b.authorizer, "deposit", str(t, b.evm, "deposit"), "authSalt", str(t, b.evm, "authSalt"))
}

func (b batchEVM) requests(t *testing.T, choice *jsonv.Object, h atr.Hash) (rails.Unsigned, []*jsonv.Object) {
	t.Helper()
	p := evm.Batch{}
	u, err := p.Build(choice, nil, h)
	if err != nil {
		t.Fatal(err)
	}
	req, err := p.Request(u)
	if err != nil {
		t.Fatal(err)
	}
	var tds []*jsonv.Object
	for _, r := range get(t, req, "requests").([]jsonv.Value) {
		tds = append(tds, obj(t, r, "typedData"))
	}
	return u, tds
}

func (b batchEVM) config(t testing.TB, h atr.Hash) evm.ChannelConfig {
	return evm.ChannelConfig{Payer: b.payer, PayerAuthorizer: b.authorizer, Receiver: str(t, b.evm, "receiver"),
		ReceiverAuthorizer: str(t, b.evm, "receiverAuthorizer"), Token: str(t, b.evm, "token"), WithdrawDelay: 900, Salt: h}
}

// signTyped signs typed data with key as an eip712 request and checks the
// signature recovers to the key's address.
func signTyped(t *testing.T, key string, td *jsonv.Object) string {
	t.Helper()
	l, err := signer.FromHex(key, "eip155:84532")
	if err != nil {
		t.Fatal(err)
	}
	sig, err := l.Sign(context.Background(), jsonv.Obj("kind", "eip712", "typedData", td))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := evm.TypedDataDigest(td)
	raw, _ := evm.HexBytes(sig.(string))
	if who, err := evm.Recover(d, raw); err != nil || who != l.Address() {
		t.Fatalf("signature recovers to %s (%v)", who.Hex(), err)
	}
	return sig.(string)
}

func wantDigest(t *testing.T, td *jsonv.Object, want string) {
	t.Helper()
	parts, err := evm.TypedDataHashes(td)
	if err != nil {
		t.Fatal(err)
	}
	if ref, err := apitypesHashes(td); err != nil || ref != parts {
		t.Fatalf("go-ethereum's apitypes disagrees: %x (%v)", ref.Digest, err)
	}
	if got := "0x" + hexOf(parts.Digest[:]); got != want {
		t.Fatalf("digest %s, want %s", got, want)
	}
}

func TestX402BatchSettlement(t *testing.T) {
	b := loadBatchEVM(t)
	f := b.f
	p := evm.Batch{}

	t.Run("EB1", func(t *testing.T) {
		v := obj(t, f, "EB1")
		if got := "0x" + hexOf(crypto.Keccak256([]byte(str(t, b.evm, "channelConfigType")))); got != evm.TypeHashChannelConfig.Hex() {
			t.Fatalf("type hash %s", got)
		}
		c := b.config(t, b.H)
		if jsonv.String(c.JSON()) != jsonv.String(obj(t, b.evm, "config")) {
			t.Fatalf("config %s", jsonv.Marshal(c.JSON()))
		}
		sep, sh := evm.BatchDomainSeparator(84532), c.StructHash()
		for name, got := range map[string][32]byte{
			"channelId": c.ChannelID(84532), "domainSeparator": sep, "structHash": sh,
			"onBase8453": c.ChannelID(8453), "withHprime": b.config(t, b.Hp).ChannelID(84532),
		} {
			if g := "0x" + hexOf(got[:]); g != str(t, v, name) {
				t.Fatalf("%s %s", name, g)
			}
		}
		// The voucher the build asks for names this channel.
		_, tds := b.requests(t, b.choice(t, b.option, nil), b.H)
		if got := str(t, tds[1], "message", "channelId"); got != str(t, v, "channelId") {
			t.Fatalf("voucher channel %s", got)
		}
	})

	t.Run("EB2", func(t *testing.T) {
		v := obj(t, f, "EB2")
		_, tds := b.requests(t, b.choice(t, b.option, nil), b.H)
		if got := str(t, tds[1], "message", "maxClaimableAmount"); got != str(t, v, "maxClaimableAmount") {
			t.Fatalf("maxClaimableAmount %s", got)
		}
		wantDigest(t, tds[1], str(t, v, "digest"))
		if sig := signTyped(t, b.authKey, tds[1]); sig != str(t, v, "signature") {
			t.Fatalf("signature %s", sig)
		}
	})

	t.Run("EB3", func(t *testing.T) {
		v := obj(t, f, "EB3")
		_, tds := b.requests(t, b.choice(t, b.option, nil), b.H)
		var salt [32]byte
		salt[31] = 1
		nonce := evm.DepositNonce(b.config(t, b.H).ChannelID(84532), salt)
		if got := "0x" + hexOf(nonce[:]); got != str(t, v, "depositNonce") || str(t, tds[0], "message", "nonce") != got {
			t.Fatalf("deposit nonce %s", got)
		}
		if str(t, tds[0], "primaryType") != "ReceiveWithAuthorization" || str(t, tds[0], "message", "to") != evm.ERC3009DepositCollector ||
			str(t, tds[0], "message", "validBefore") != str(t, b.evm, "validBefore") {
			t.Fatalf("token authorization %s", jsonv.Marshal(tds[0]))
		}
		wantDigest(t, tds[0], str(t, v, "digest"))
		if sig := signTyped(t, b.payerKey, tds[0]); sig != str(t, v, "signature") {
			t.Fatalf("signature %s", sig)
		}
	})

	t.Run("EB4", func(t *testing.T) {
		v := obj(t, f, "EB4")
		o := b.option.Clone()
		extra, _ := o.GetObject("extra")
		extra.Set("assetTransferMethod", "permit2")
		_, tds := b.requests(t, b.choice(t, o, nil), b.H)
		msg := obj(t, tds[0], "message")
		if str(t, msg, "nonce") != str(t, v, "nonce") || str(t, msg, "deadline") != str(t, v, "deadline") {
			t.Fatalf("permit2 message %s", jsonv.Marshal(msg))
		}
		wantDigest(t, tds[0], str(t, v, "digest"))
	})

	t.Run("EB5", func(t *testing.T) {
		v := obj(t, f, "EB5")
		if got := "0x" + hexOf(crypto.Keccak256([]byte(str(t, v, "channelCreatedDeclaration")))); got != evm.TopicChannelCreated.Hex() || got != str(t, v, "channelCreatedTopic") {
			t.Fatalf("ChannelCreated topic %s", got)
		}
		if evm.TopicDeposited.Hex() != str(t, v, "depositedTopic") {
			t.Fatalf("Deposited topic %s", evm.TopicDeposited.Hex())
		}
		words := b.config(t, b.H).Words()
		if got := "0x" + hexOf(words); got != str(t, v, "configData") {
			t.Fatalf("config data %s", got)
		}
		if sum := sha256.Sum256(words); hexOf(sum[:]) != str(t, v, "configDataSha256") {
			t.Fatalf("config data SHA-256 %x", sum)
		}
	})

	// The EB6 payment: the opening Complete makes from EB3's and EB2's
	// signatures is B6's presented payment, byte for byte.
	b6 := batchRow(t, f, "B6", evm.BatchID)
	presented := obj(t, b6, "input", "presented")
	t.Run("EB6", func(t *testing.T) {
		v := obj(t, f, "EB6")
		u, _ := b.requests(t, b.choice(t, b.option, b.doc), b.H)
		c, err := p.Complete(u, []jsonv.Value{str(t, f, "EB3", "signature"), str(t, f, "EB2", "signature")}, rails.Chosen{Ref: rails.NewRef()})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := jsonv.String(c.Signed), jsonv.String(presented); got != want {
			t.Fatalf("payment\n got %s\nwant %s", got, want)
		}
		if h, err := p.Bound(presented); err != nil || h != str(t, v, "expectBound") {
			t.Fatalf("bound %s (%v)", h, err)
		}
		if k, err := p.ChannelKind(presented); err != nil || string(k) != str(t, v, "expectKindDeposit") {
			t.Fatalf("kind %s (%v)", k, err)
		}
		ref, err := p.ChannelRef(presented)
		if err != nil || ref.Network != str(t, v, "expectRef", "network") || ref.Channel != str(t, v, "expectRef", "channel") {
			t.Fatalf("ref %+v (%v)", ref, err)
		}
		within := func(action rails.WithinAction, cumulative string, refund string) jsonv.Value {
			w := rails.Within{Opening: presented, Cumulative: mustBig(t, cumulative), Action: action, Required: b.doc, Accepted: b.option}
			if refund != "" {
				w.RefundAmount = mustBig(t, refund)
			}
			built, err := p.BuildWithin(w, b.H)
			if err != nil {
				t.Fatal(err)
			}
			td := obj(t, built.Requests()[0], "typedData")
			signed, err := built.Complete([]string{signTyped(t, b.authKey, td)})
			if err != nil {
				t.Fatal(err)
			}
			return signed
		}
		voucher := within(rails.WithinVoucher, "2000", "")
		if k, err := p.ChannelKind(voucher); err != nil || string(k) != str(t, v, "expectKindVoucher") {
			t.Fatalf("voucher kind %s (%v)", k, err)
		}
		if h, err := p.BoundWithin(voucher); err != nil || h != str(t, v, "expectBoundWithin") {
			t.Fatalf("bound within %s (%v)", h, err)
		}
		if r, err := p.ChannelRef(voucher); err != nil || r != ref {
			t.Fatalf("voucher ref %+v (%v)", r, err)
		}
		if k, err := p.ChannelKind(within(rails.WithinClose, "2000", "")); err != nil || string(k) != str(t, v, "expectKindRefund") {
			t.Fatalf("refund kind %s (%v)", k, err)
		}
		partial := within(rails.WithinRefund, "2000", str(t, v, "refundAmount"))
		if k, err := p.ChannelKind(partial); err != nil || string(k) != str(t, v, "expectKindPartialRefund") {
			t.Fatalf("partial refund kind %s (%v)", k, err)
		}
		if str(t, partial, "payload", "amount") != str(t, v, "refundAmount") {
			t.Fatalf("partial refund %s", jsonv.Marshal(partial))
		}
		t.Run("plant", func(t *testing.T) {
			pl := obj(t, v, "plant")
			planted := jsonv.Clone(voucher).(*jsonv.Object)
			obj(t, planted, "payload", "channelConfig").Set("salt", b.Hp.String())
			_, err := p.ChannelRef(planted)
			wantRefusal(t, err, str(t, pl, "expect"))
			_, err = p.BoundWithin(planted)
			wantRefusal(t, err, str(t, pl, "expect"))
			obj(t, planted, "payload", "voucher").Set("channelId", str(t, pl, "matchedChannelId"))
			if h, err := p.BoundWithin(planted); err != nil || h != str(t, pl, "expectBoundWithinMatched") {
				t.Fatalf("matched: bound within %s (%v)", h, err)
			}
		})
	})

	t.Run("EB7", func(t *testing.T) {
		v := obj(t, f, "EB7")
		ref, err := p.Reference(presented)
		if err != nil {
			t.Fatal(err)
		}
		if got := str(t, ref, "transferLog", "digest"); got != str(t, v, "transferDigest") {
			t.Fatalf("transfer digest %s", got)
		}
		ref.Set("transaction", "0x"+strings.Repeat("ab", 32))
		reader := func(receipt jsonv.Value) *fixtureReader {
			return &fixtureReader{network: "eip155:84532", receipt: receipt,
				finalized: blockOf(t, str(t, v, "reader", "finalized")), safe: blockOf(t, str(t, v, "reader", "safe"))}
		}
		wantStatus(t, p.Status(ref, reader(get(t, v, "receipt"))), get(t, v, "expect"), "EB7")
		for _, k := range []string{"plantGift", "plantOtherContract"} {
			wantStatus(t, p.Status(ref, reader(get(t, v, k, "receipt"))), get(t, v, k, "expect"), k)
		}
	})

	t.Run("EB8", func(t *testing.T) {
		v := obj(t, f, "EB8")
		c, err := evm.ChannelCreated(evm.ParseLog(get(t, v, "log")), 84532)
		if err != nil || "0x"+hexOf(c.Salt[:]) != str(t, v, "expect") {
			t.Fatalf("salt %x (%v)", c.Salt, err)
		}
		_, err = evm.ChannelCreated(evm.ParseLog(get(t, v, "word0Changed")), 84532)
		wantRefusal(t, err, str(t, v, "expectWord0"))
		ref := jsonv.Obj("network", "eip155:84532", "transaction", "0x"+strings.Repeat("cd", 32))
		h, err := p.Recover(ref, readerFor("eip155:84532", receiptOf("100", get(t, v, "log"))))
		if err != nil || h != str(t, v, "expect") {
			t.Fatalf("recover %s (%v)", h, err)
		}
	})

	batchSolanaRows(t, f) // ES1–ES7 (x402_batch_solana_test.go)
	t.Run("EC1", func(t *testing.T) { ec1(t, f) })

	t.Run("agreedRefusals", func(t *testing.T) {
		for i, r := range get(t, f, "agreedRefusals", "rows").([]jsonv.Value) {
			code := str(t, r, "expect")
			t.Run(str(t, r, "case"), func(t *testing.T) {
				errs := batchAgreedRefusal(t, i, b, presented)
				if errs == nil {
					t.Skip("the pairing this row is about is not implemented yet")
				}
				for _, err := range errs {
					wantRefusal(t, err, code)
				}
			})
		}
	})

	t.Run("buyer", func(t *testing.T) {
		t.Run("B2/"+evm.BatchID, func(t *testing.T) {
			r := batchRow(t, f, "B2", evm.BatchID)
			in := obj(t, r, "input")
			s := newATRSeller(t)
			s.serveBytes(unhex(t, str(t, in, "servesHex")))
			sg := newCountingSigner(t, b.payerKey, "eip155:84532")
			if sg.Account() != str(t, in, "account") {
				t.Fatalf("account %s", sg.Account())
			}
			now, _ := jsonv.AsSafeInt(get(t, in, "now"))
			_, err := s.gateFor(now, nil).Transact(context.Background(), get(t, in, "doc"), evm.BatchID, sg,
				&gate.TransactOptions{Inputs: obj(t, in, "inputs")})
			wantDecline(t, err, gate.Code(str(t, r, "expect", "decline")), "")
			if sg.calls.Load() != 0 || s.fetches.Load() != 1 {
				t.Fatalf("%d signer calls, %d fetches", sg.calls.Load(), s.fetches.Load())
			}
		})
		t.Run("B6/"+evm.BatchID, func(t *testing.T) {
			checks := get(t, b6, "input", "check").([]jsonv.Value)
			expects := get(t, b6, "expect").([]jsonv.Value)
			g := &gate.Gate{}
			h, err := g.Check(unhex(t, str(t, checks[0], "bytesHex")), evm.BatchID, presented)
			if err != nil || h.String() != str(t, expects[0], "h") {
				t.Fatalf("check = %v, %v", h, err)
			}
			_, err = g.Check(unhex(t, str(t, checks[1], "bytesHex")), evm.BatchID, presented)
			wantDecline(t, err, gate.Code(str(t, expects[1], "decline")), "")
		})
		cloudflareBuyerRows(t, f)
		batchSolanaBuyerRows(t, f)
	})
}

// batchAgreedRefusal makes the inputs each agreedRefusals row describes
// and returns what the pairing answered; nil for a row about a pairing not
// implemented.
func batchAgreedRefusal(t *testing.T, i int, b batchEVM, presented *jsonv.Object) []error {
	t.Helper()
	p := evm.Batch{}
	with := func(path []string, key string, v jsonv.Value) *jsonv.Object {
		c := presented.Clone()
		o := obj(t, c, path...)
		if v == nil {
			o.Delete(key)
		} else {
			o.Set(key, v)
		}
		return c
	}
	readAll := func(payment *jsonv.Object) []error {
		_, e1 := p.Bound(payment)
		_, e2 := p.ChannelRef(payment)
		_, e3 := p.Reference(payment)
		return []error{e1, e2, e3}
	}
	v8 := obj(t, b.f, "EB8")
	recoverFrom := func(logs ...jsonv.Value) error {
		ref := jsonv.Obj("network", "eip155:84532", "transaction", "0x"+strings.Repeat("cd", 32))
		_, err := p.Recover(ref, readerFor("eip155:84532", receiptOf("100", logs...)))
		return err
	}
	switch i {
	case 0: // a channelConfig member missing or malformed, or a deposit amount not decimal
		var errs []error
		for _, k := range []string{"payer", "payerAuthorizer", "receiver", "receiverAuthorizer", "token", "withdrawDelay", "salt"} {
			errs = append(errs, readAll(with([]string{"payload", "channelConfig"}, k, nil))...)
		}
		errs = append(errs, readAll(with([]string{"payload", "channelConfig"}, "withdrawDelay", jsonv.Number(1<<40)))...)
		errs = append(errs, readAll(with([]string{"payload", "channelConfig"}, "salt", "0x1234"))...)
		_, err := p.Bound(with([]string{"payload", "deposit"}, "amount", "1e5"))
		return append(errs, err)
	case 1: // recover with no ChannelCreated log from the channel contract
		other := obj(t, v8, "log").Clone()
		other.Set("address", "0x000000000000000000000000000000000000bEEF")
		return []error{recoverFrom(), recoverFrom(other)}
	case 2: // recover with several
		return []error{recoverFrom(get(t, v8, "log"), get(t, v8, "log"))}
	case 3: // ChannelCreated with malformed data
		short := obj(t, v8, "log").Clone()
		short.Set("data", str(t, short, "data")[:len(str(t, short, "data"))-2])
		dirty := obj(t, v8, "log").Clone()
		dirty.Set("data", "0x01"+str(t, dirty, "data")[4:])
		_, e1 := evm.ChannelCreated(evm.ParseLog(short), 84532)
		_, e2 := evm.ChannelCreated(evm.ParseLog(dirty), 84532)
		return []error{e1, e2, recoverFrom(short)}
	case 4: // complete with a signature count other than the requests', or not 0x hex
		u, _ := b.requests(t, b.choice(t, b.option, nil), b.H)
		sig := str(t, b.f, "EB2", "signature")
		var errs []error
		for _, answer := range []jsonv.Value{
			[]jsonv.Value{sig}, []jsonv.Value{sig, sig, sig}, []jsonv.Value{sig, "0xabc"}, []jsonv.Value{"abcd", sig},
			[]jsonv.Value{sig, "0x"}, sig, []jsonv.Value{sig, jsonv.Number(1)},
		} {
			_, err := p.Complete(u, answer, rails.Chosen{Ref: rails.NewRef()})
			errs = append(errs, err)
		}
		return errs
	case 5: // the Solana row
		return batchSolanaAgreedRefusal(t, b.f)
	case 6: // a Cloudflare build whose legal context names another hash
		return cloudflareLegalContextConflict(t, b.f)
	}
	t.Fatalf("no inputs for agreedRefusals row %d", i)
	return nil
}
