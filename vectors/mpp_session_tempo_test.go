package vectors_test

// mpp-session-tempo.json: TS1–TS6, L1, plant1, pattern and the buyer rows B2
// and B6. Vouchers inside an open channel (TS4's 250 voucher) are the
// channels issue's.

import (
	"context"
	"crypto/sha256"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
	"github.com/termsgate/termsgate/signer"
)

// wantAffixes checks a value against a row's {prefix, suffix}.
func wantAffixes(t testing.TB, got string, v jsonv.Value, what string) {
	t.Helper()
	if !strings.HasPrefix(got, str(t, v, "prefix")) || !strings.HasSuffix(got, str(t, v, "suffix")) {
		t.Fatalf("%s %s, want %s…%s", what, got, str(t, v, "prefix"), str(t, v, "suffix"))
	}
}

func TestMPPSessionTempo(t *testing.T) {
	f := load(t, "mpp-session-tempo.json")
	fixed := obj(t, f, "fixed")
	fx := loadMPPFixture(t)
	p := tempo.Session{}
	payer := str(t, fixed, "payer")
	now, _ := jsonv.AsSafeInt(get(t, fixed, "now"))
	b6 := row(t, get(t, f, "buyer", "rows"), "B6")
	presented := obj(t, b6, "input", "presented")
	key := str(t, fixed, "payerKey")
	local, err := signer.FromHex(key, "eip155:42431")
	if err != nil {
		t.Fatal(err)
	}
	choiceFor := func(requestJSON string) *jsonv.Object {
		return jsonv.Obj("challenge", fx.placed(t, fx.challenge("tempo", "session", requestJSON)),
			"from", payer, "now", now, "deposit", str(t, fixed, "deposit"))
	}
	v2 := choiceFor(str(t, fixed, "requestV2"))
	v1 := choiceFor(str(t, fixed, "requestV1"))
	// steps runs the two signing steps with the local key and returns the
	// funding request, the signed transaction, the voucher request and the
	// credential.
	steps := func(t *testing.T, choice *jsonv.Object) (funding rails.Request, signedTx string, voucher rails.Request, cred *jsonv.Object) {
		t.Helper()
		u, err := p.Build(choice, nil, fx.H)
		if err != nil {
			t.Fatal(err)
		}
		funding, _ = p.Request(u)
		tx, err := local.Sign(context.Background(), funding)
		if err != nil {
			t.Fatal(err)
		}
		signedTx = tx.(string)
		next, err := p.Complete(u, signedTx, rails.Chosen{})
		if err != nil || next.Next == nil {
			t.Fatalf("step 1: %v", err)
		}
		sig, err := local.Sign(context.Background(), next.Next)
		if err != nil {
			t.Fatal(err)
		}
		done, err := p.Complete(u, []jsonv.Value{signedTx, sig}, rails.Chosen{})
		if err != nil {
			t.Fatal(err)
		}
		return funding, signedTx, next.Next, done.Signed.(*jsonv.Object)
	}
	funding, signedTx, voucher, cred := steps(t, v2)

	t.Run("TS1", func(t *testing.T) {
		v := obj(t, f, "TS1")
		data, _ := mpp.HexBytes(str(t, funding, "call", "data"), 0, 1024)
		n, _ := jsonv.AsSafeInt(get(t, v, "expectLength"))
		if int64(len(data)) != n || "0x"+hexOf(data[:4]) != str(t, v, "expectSelector") {
			t.Fatalf("open calldata %x", data)
		}
		if sel := crypto.Keccak256([]byte(str(t, f, "constants", "OPEN_V2")))[:4]; string(sel) != string(tempo.SelectorOpenV2[:]) {
			t.Fatal("v2 selector")
		}
		if sel := crypto.Keccak256([]byte(str(t, f, "constants", "OPEN_V1")))[:4]; string(sel) != string(tempo.SelectorOpenV1[:]) {
			t.Fatal("v1 selector")
		}
		if [32]byte(data[4+32*4:4+32*5]) != fx.H {
			t.Fatal("the salt word is not H")
		}
		want := jsonv.Obj("kind", "tempo-call", "chainId", 42431,
			"call", jsonv.Obj("to", str(t, fixed, "escrowV2"), "data", str(t, funding, "call", "data")),
			"validBefore", fx.expiresUnix, "broadcast", false)
		if jsonv.String(funding) != jsonv.String(want) {
			t.Fatalf("funding request %s", jsonv.String(funding))
		}
	})

	t.Run("TS2", func(t *testing.T) {
		v := obj(t, f, "TS2")
		wire, _ := mpp.HexBytes(signedTx, 0, tempo.MaxWireBytes)
		n, _ := jsonv.AsSafeInt(get(t, v, "expectLength"))
		sum := sha256.Sum256(wire)
		if int64(len(wire)) != n || "0x"+hexOf(sum[:]) != str(t, v, "expectSha256") {
			t.Fatalf("TS2: %d bytes, sha256 %x", len(wire), sum)
		}
		if signedTx != str(t, presented, "payload", "transaction") {
			t.Fatal("the signed transaction is not B6's")
		}
		nh, err := tempo.ExpiringNonceHash(wire, common.HexToAddress(payer).Bytes())
		if err != nil || "0x"+hexOf(nh[:]) != str(t, v, "expectNonceHash") {
			t.Fatalf("nonce hash %x (%v)", nh, err)
		}
		tx, err := tempo.DecodeTx(wire)
		if err != nil || len(tx.Calls) != 1 || tx.ValidBefore.Int64() != fx.expiresUnix || tx.ChainID.Int64() != 42431 {
			t.Fatalf("decoded %+v (%v)", tx, err)
		}
		// The sender's signature recovers to the payer, over the hash a
		// builder of the same fields signs.
		u := tempo.Tx{ChainID: big.NewInt(42431), MaxPriorityFeePerGas: big.NewInt(1), MaxFeePerGas: big.NewInt(2), GasLimit: 200000,
			Calls:    []tempo.Call{{To: ptr(common.HexToAddress(str(t, fixed, "escrowV2"))), Input: tx.Calls[0].Input}},
			NonceKey: tempo.MaxNonceKey, ValidBefore: 1790000060, FeeToken: ptr(tempo.PathUSD)}
		built, _ := u.SigningHash()
		read, _ := tx.SenderHash()
		who, err := tx.Sender()
		if err != nil || who.Hex() != payer || built != read {
			t.Fatalf("recovers %s (%v)", who.Hex(), err)
		}
	})

	t.Run("TS3", func(t *testing.T) {
		if got := str(t, cred, "payload", "channelId"); got != str(t, f, "TS3", "expectChannelId") {
			t.Fatalf("channel id %s", got)
		}
		t.Run("closeRef", func(t *testing.T) {
			closeRefRow(t, p, fx.challenge("tempo", "session", str(t, fixed, "requestV2")), obj(t, f, "TS3"), str(t, f, "constants", "CHANNEL_CLOSED_V2"))
		})
	})

	t.Run("TS4", func(t *testing.T) {
		v := obj(t, f, "TS4")
		parts, err := evm.TypedDataHashes(obj(t, voucher, "typedData"))
		if err != nil || "0x"+hexOf(parts.Digest[:]) != str(t, v, "expectVoucher0") {
			t.Fatalf("zero voucher %x (%v)", parts.Digest, err)
		}
		if got, want := jsonv.String(cred), jsonv.String(presented); got != want {
			t.Fatalf("credential\n got %s\nwant %s", got, want)
		}
		// The channel of the same opening under H2.
		d := descriptorOf(t, obj(t, presented, "payload", "descriptor"))
		d.Salt = str(t, fixed, "H2")
		h2Channel, err := tempo.ChannelIDV2(d, str(t, fixed, "escrowV2"), 42431)
		if err != nil {
			t.Fatal(err)
		}
		wantAffixes(t, "0x"+hexOf(h2Channel[:]), get(t, v, "expectChannelIdH2"), "H2 channel id")
		mismatch := presented.Clone()
		obj(t, mismatch, "payload", "descriptor").Set("salt", str(t, fixed, "H2"))
		_, err = p.Bound(mismatch)
		wantRefusal(t, err, str(t, v, "expectMismatch", "code"))
		// voucher250, a voucher inside the opened channel, is in channels_test.go.
	})

	t.Run("TS5", func(t *testing.T) {
		v := obj(t, f, "TS5")
		_, _, voucherV1, credV1 := steps(t, v1)
		if got := str(t, credV1, "payload", "channelId"); got != str(t, v, "expectChannelId") {
			t.Fatalf("v1 channel id %s", got)
		}
		if o := obj(t, credV1, "payload"); o.Has("descriptor") {
			t.Fatal("a v1 opening carries a descriptor")
		}
		parts, err := evm.TypedDataHashes(obj(t, voucherV1, "typedData"))
		if err != nil {
			t.Fatal(err)
		}
		wantAffixes(t, "0x"+hexOf(parts.Digest[:]), get(t, v, "expectVoucher"), "v1 zero voucher")
		if h, err := p.Bound(credV1); err != nil || h != fx.H.String() {
			t.Fatalf("v1 bound %s (%v)", h, err)
		}
		t.Run("closeRef", func(t *testing.T) {
			closeRefRow(t, p, fx.challenge("tempo", "session", str(t, fixed, "requestV1")), v, str(t, f, "constants", "CHANNEL_CLOSED_V1"))
		})
	})

	t.Run("TS6", func(t *testing.T) {
		v := obj(t, f, "TS6")
		h2 := str(t, fixed, "H2")
		pathUSD, recipient, deposit := str(t, fixed, "pathUSD"), str(t, fixed, "recipient"), str(t, fixed, "deposit")
		depositWord := "0x" + hexOf(common.LeftPadBytes(mustBig(t, deposit).Bytes(), 32))
		topicOfEvent := func(k string) string { return "0x" + hexOf(crypto.Keccak256([]byte(str(t, f, "constants", k)))) }
		// The opening's reference names the escrow's ChannelOpened; the
		// status reads it from the receipt of the transaction that opened.
		refOf := func(t *testing.T, cred *jsonv.Object, version, escrow, channel string) *jsonv.Object {
			t.Helper()
			ref, err := p.Reference(cred)
			if err != nil {
				t.Fatal(err)
			}
			want := jsonv.Obj("network", "eip155:42431", "settleBy", strconv.FormatInt(fx.expiresUnix, 10),
				"search", jsonv.Obj("address", escrow, "topics", []jsonv.Value{topicOfEvent("CHANNEL_OPENED_" + strings.ToUpper(version)), channel}),
				"opened", jsonv.Obj("address", escrow, "version", version, "channel", channel, "h", fx.H.String(), "chainId", 42431))
			if got := jsonv.String(ref); got != jsonv.String(want) {
				t.Fatalf("%s reference\n got %s\nwant %s", version, got, jsonv.String(want))
			}
			ref.Set("transaction", "0x"+strings.Repeat("77", 32))
			return ref
		}
		status := func(ref *jsonv.Object, l *jsonv.Object) evm.Status {
			return p.Status(ref, readerFor("eip155:42431", receiptOf("100", l)))
		}
		channel := str(t, f, "TS3", "expectChannelId")
		ref := refOf(t, cred, "v2", str(t, fixed, "escrowV2"), channel)
		openedV2 := func(address, salt string) *jsonv.Object {
			data := "0x" + strings.Repeat("0", 64) + topicOf(pathUSD)[2:] + strings.Repeat("0", 64) + salt[2:] +
				str(t, f, "TS2", "expectNonceHash")[2:] + depositWord[2:]
			return logOf(address, data, topicOfEvent("CHANNEL_OPENED_V2"), channel, topicOf(payer), topicOf(recipient))
		}
		wantStatus(t, status(ref, openedV2(str(t, fixed, "escrowV2"), fx.H.String())), get(t, v, "expectSettled"), "v2")
		wantStatus(t, status(ref, openedV2(str(t, fixed, "escrowV2"), h2)), get(t, v, "expectNotFound"), "v2 salt H2")
		wantStatus(t, status(ref, openedV2("0x20c0000000000000000000000000000000000001", fx.H.String())), get(t, v, "expectNotFound"), "v2 other emitter")

		_, _, _, credV1 := steps(t, v1)
		channelV1 := str(t, f, "TS5", "expectChannelId")
		refV1 := refOf(t, credV1, "v1", str(t, fixed, "escrowV1"), channelV1)
		openedV1 := logOf(str(t, fixed, "escrowV1"), "0x"+topicOf(pathUSD)[2:]+strings.Repeat("0", 64)+depositWord[2:],
			topicOfEvent("CHANNEL_OPENED_V1"), channelV1, topicOf(payer), topicOf(recipient))
		wantStatus(t, status(refV1, openedV1), get(t, v, "expectSettled"), "v1")
		obj(t, refV1, "opened").Set("h", h2)
		wantStatus(t, status(refV1, openedV1), get(t, v, "expectNotFound"), "v1 under H2")
	})

	t.Run("L1", func(t *testing.T) {
		v := obj(t, f, "L1")
		wire, _ := mpp.HexBytes(str(t, v, "raw"), 0, tempo.MaxWireBytes)
		n, _ := jsonv.AsSafeInt(get(t, v, "expectLength"))
		sum := sha256.Sum256(wire)
		if int64(len(wire)) != n {
			t.Fatalf("length %d", len(wire))
		}
		wantAffixes(t, "0x"+hexOf(sum[:]), get(t, v, "expectSha256"), "sha256")
		tx, err := tempo.DecodeTx(wire)
		if err != nil || len(tx.Calls) != 1 {
			t.Fatalf("decode: %v", err)
		}
		in := tx.Calls[0].Input
		if len(in) != 196 || [4]byte(in[:4]) != tempo.SelectorOpenV2 {
			t.Fatal("not a v2 open")
		}
		word := func(i int) []byte { return in[4+32*i : 4+32*(i+1)] }
		wantAffixes(t, "0x"+hexOf(word(4)), get(t, v, "expectSalt"), "salt")
		sender := common.HexToAddress(str(t, v, "sender"))
		nh, err := tempo.ExpiringNonceHash(wire, sender.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		wantAffixes(t, "0x"+hexOf(nh[:]), get(t, v, "expectNonceHash"), "nonce hash")
		addr := func(i int) string { return common.BytesToAddress(word(i)).Hex() }
		d := tempo.Descriptor{Payer: sender.Hex(), Payee: addr(0), Operator: addr(1), Token: addr(2),
			Salt: "0x" + hexOf(word(4)), AuthorizedSigner: addr(5), ExpiringNonceHash: "0x" + hexOf(nh[:])}
		channel, err := tempo.ChannelIDV2(d, common.BytesToAddress(tx.Calls[0].To).Hex(), tx.ChainID.Int64())
		if err != nil {
			t.Fatal(err)
		}
		wantAffixes(t, "0x"+hexOf(channel[:]), get(t, v, "expectChannelId"), "channel id")
		opened := get(t, v, "receipt", "logs").([]jsonv.Value)[1]
		if topic := get(t, opened, "topics").([]jsonv.Value)[1]; topic != "0x"+hexOf(channel[:]) {
			t.Fatalf("ChannelOpened names %v", topic)
		}
		// The envelope's signature recovers to the sender.
		if who, err := tx.Sender(); err != nil || who != sender {
			t.Fatalf("recovers %s (%v)", who.Hex(), err)
		}
	})

	t.Run("plant1", func(t *testing.T) {
		u, err := p.Build(v2, nil, fx.H)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := p.Request(u)
		h2 := strings.TrimPrefix(str(t, fixed, "H2"), "0x")
		call := obj(t, req, "call")
		call.Set("data", strings.Replace(str(t, call, "data"), strings.TrimPrefix(fx.H.String(), "0x"), h2, 1))
		resigned, err := local.Sign(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		planted := presented.Clone()
		obj(t, planted, "payload").Set("transaction", resigned)
		_, err = p.Bound(planted)
		wantRefusal(t, err, str(t, f, "plant1", "expect", "code"))
	})

	t.Run("pattern", func(t *testing.T) {
		v := obj(t, f, "pattern")
		if pat := p.Pattern(); pat.Name != str(t, v, "pattern") || pat.PublicProof != get(t, v, "publicProof") {
			t.Fatalf("pattern %+v", pat)
		}
	})

	mppBuyerRows(t, f, key)

	// The whole opening through the gate: two signer calls, and the
	// credential is B6's, byte for byte.
	t.Run("transact", func(t *testing.T) {
		b2 := row(t, get(t, f, "buyer", "rows"), "B2")
		s := newATRSeller(t)
		s.serveBytes([]byte("abc"))
		sg := newCountingSigner(t, key, "eip155:42431")
		done, err := s.gateFor(now, nil).Transact(context.Background(), get(t, b2, "input", "doc"), SessionIDForTest, sg,
			&gate.TransactOptions{Inputs: obj(t, b2, "input", "inputs")})
		if err != nil {
			t.Fatal(err)
		}
		if sg.calls.Load() != 2 || jsonv.String(done.Signed) != jsonv.String(presented) {
			t.Fatalf("%d calls, signed %s", sg.calls.Load(), jsonv.String(done.Signed))
		}
	})
}

// SessionIDForTest is the session pairing's id.
const SessionIDForTest = tempo.SessionID

// closeRefRow checks a row's expectCloseRef: the close of the row's channel
// under the issued challenge, byte for byte, under the escrow's
// ChannelClosed of the version.
func closeRefRow(t *testing.T, p tempo.Session, issued *jsonv.Object, row *jsonv.Object, closedSignature string) {
	t.Helper()
	ref, err := p.CloseRef(issued, str(t, row, "expectChannelId"))
	if err != nil {
		t.Fatal(err)
	}
	want := obj(t, row, "expectCloseRef")
	if got := jsonv.String(ref); got != jsonv.String(want) {
		t.Fatalf("close ref\n got %s\nwant %s", got, jsonv.String(want))
	}
	if topic := "0x" + hexOf(crypto.Keccak256([]byte(closedSignature))); str(t, want, "bindingLog", "topic0") != topic {
		t.Fatalf("the close ref's topic is not %s", closedSignature)
	}
}

func mustBig(t testing.TB, s string) *big.Int {
	t.Helper()
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		t.Fatalf("not a decimal: %q", s)
	}
	return n
}

func ptr[T any](v T) *T { return &v }

func descriptorOf(t *testing.T, o *jsonv.Object) tempo.Descriptor {
	t.Helper()
	return tempo.Descriptor{
		Payer: str(t, o, "payer"), Payee: str(t, o, "payee"), Operator: str(t, o, "operator"), Token: str(t, o, "token"),
		Salt: str(t, o, "salt"), AuthorizedSigner: str(t, o, "authorizedSigner"), ExpiringNonceHash: str(t, o, "expiringNonceHash"),
	}
}
