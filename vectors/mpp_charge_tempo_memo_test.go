package vectors_test

// mpp-charge-tempo-memo.json: MV7, MV8, plant, pattern, splits (with its
// agreed refusals) and the buyer rows B2 and B6.

import (
	"bytes"
	"crypto/sha256"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
)

// memoRefFor is the memo charges' reference as the MV7 row and the reference
// it was computed with spell it: the currency's TransferWithMemo carrying
// the memo in topic 3, the same log identified by the digest of its to and
// value, and the filter that finds it; settleBy "" when none.
func memoRefFor(t testing.TB, mv7, fixed *jsonv.Object, settleBy string) *jsonv.Object {
	t.Helper()
	pathUSD, memo := str(t, fixed, "pathUSD"), str(t, mv7, "expectMemo")
	topic := "0x" + hexOf(crypto.Keccak256([]byte(str(t, mv7, "topicSignature"))))
	ref := jsonv.Obj("network", "eip155:42431")
	if settleBy != "" {
		ref.Set("settleBy", settleBy)
	}
	ref.Set("bindingLog", jsonv.Obj("address", pathUSD, "topic0", topic, "index", 3, "value", memo))
	ref.Set("transferLog", jsonv.Obj("address", pathUSD, "topic0", topic, "identity", "to,value", "digest", str(t, mv7, "expectReferenceDigest")))
	ref.Set("search", jsonv.Obj("address", pathUSD, "topics", []jsonv.Value{topic, nil, nil, memo}))
	return ref
}

// tempoWireT is MV7's wire T: 0x76 ‖ rlp([42431, 1, 2, 100000, [[pathUSD, 0,
// calldata]], [], 0, 0, 1790000060, "", pathUSD, "", [], 0x11 × 65]).
func tempoWireT(t testing.TB, calldata []byte) []byte {
	t.Helper()
	pathUSD := tempo.PathUSD
	tx := tempo.Tx{
		ChainID: big.NewInt(42431), MaxPriorityFeePerGas: big.NewInt(1), MaxFeePerGas: big.NewInt(2), GasLimit: 100000,
		Calls:       []tempo.Call{{To: &pathUSD, Value: new(big.Int), Input: calldata}},
		ValidBefore: 1790000060, FeeToken: &pathUSD, Signature: bytes.Repeat([]byte{0x11}, 65),
	}
	wire, err := tx.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return wire
}

func TestMPPChargeTempoMemo(t *testing.T) {
	f := load(t, "mpp-charge-tempo-memo.json")
	fixed := obj(t, f, "fixed")
	fx := loadMPPFixture(t)
	p := tempo.Memo{}
	placed := fx.placed(t, fx.challenge("tempo", "charge", fx.RT))
	id0 := mpp.String(placed, "id")
	id1, _ := mpp.ChallengeID(fx.H, 1)
	payer := str(t, fixed, "payer")
	now, _ := jsonv.AsSafeInt(get(t, fixed, "now"))
	b6 := row(t, get(t, f, "buyer", "rows"), "B6")

	t.Run("MV7", func(t *testing.T) {
		v := obj(t, f, "MV7")
		memo := mpp.AttributionMemo(fx.realm, id0, "", false)
		if got := "0x" + hexOf(memo[:]); got != str(t, v, "expectMemo") {
			t.Fatalf("memo %s", got)
		}
		memo1 := mpp.AttributionMemo(fx.realm, id1, "", false)
		if got := "0x" + hexOf(memo1[:]); got != str(t, v, "expectMemoPosition1") {
			t.Fatalf("memo at position 1 %s", got)
		}
		if err := mpp.CheckAttribution(str(t, v, "expectMemo"), fx.realm, id0); err != nil {
			t.Fatalf("own memo: %v", err)
		}
		// The client id is not read.
		withClient := mpp.AttributionMemo(fx.realm, id0, "agent-7", true)
		if err := mpp.CheckAttribution("0x"+hexOf(withClient[:]), fx.realm, id0); err != nil {
			t.Fatalf("memo with a client id: %v", err)
		}
		wantRefusal(t, mpp.CheckAttribution(str(t, v, "expectMemoPosition1"), fx.realm, id0), str(t, v, "expectMismatch", "code"))
		wantRefusal(t, mpp.CheckAttribution(str(t, v, "expectMemo"), str(t, fixed, "otherRealm"), id0), str(t, v, "expectMismatch", "code"))
		wantRefusal(t, mpp.CheckAttribution(str(t, v, "memoMalformed"), fx.realm, id0), str(t, v, "expectMalformed", "code"))

		u, err := p.Build(jsonv.Obj("challenge", placed, "from", payer, "now", now), nil, fx.H)
		if err != nil {
			t.Fatal(err)
		}
		req, err := p.Request(u)
		if err != nil {
			t.Fatal(err)
		}
		want := jsonv.Obj("kind", "tempo-call", "chainId", 42431,
			"call", jsonv.Obj("to", str(t, fixed, "pathUSD"), "data", str(t, v, "expectCalldata")),
			"validBefore", fx.expiresUnix, "broadcast", false)
		if got := jsonv.String(req); got != jsonv.String(want) {
			t.Fatalf("request\n got %s\nwant %s", got, jsonv.String(want))
		}
		sel := crypto.Keccak256([]byte(str(t, v, "selectorSignature")))[:4]
		if "0x"+hexOf(sel) != str(t, v, "expectSelector") || !bytes.Equal(sel, tempo.SelectorTransferWithMemo[:]) {
			t.Fatalf("selector %x", sel)
		}
		topic := crypto.Keccak256([]byte(str(t, v, "topicSignature")))
		if common.BytesToHash(topic) != tempo.TopicTransferWithMemo {
			t.Fatalf("topic %x", topic)
		}
		calldata, _ := mpp.HexBytes(str(t, v, "expectCalldata"), 100, 100)
		wire := tempoWireT(t, calldata)
		n, _ := jsonv.AsSafeInt(get(t, v, "expectWireLength"))
		sum := sha256.Sum256(wire)
		if int64(len(wire)) != n || "0x"+hexOf(sum[:]) != str(t, v, "expectWireSha256") {
			t.Fatalf("wire T: %d bytes, sha256 %x", len(wire), sum)
		}
		wireHex := "0x" + hexOf(wire)
		if wireHex != str(t, b6, "input", "presented", "payload", "signature") {
			t.Fatal("wire T is not B6's payload")
		}
		done, err := p.Complete(u, wireHex, rails.Chosen{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := jsonv.String(done.Signed), jsonv.String(get(t, b6, "input", "presented")); got != want {
			t.Fatalf("credential\n got %s\nwant %s", got, want)
		}
		if h, err := p.Bound(done.Signed); err != nil || h != fx.H.String() {
			t.Fatalf("bound %s (%v)", h, err)
		}
		t.Run("reference", func(t *testing.T) {
			ref, err := p.Reference(done.Signed)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := jsonv.String(ref), jsonv.String(memoRefFor(t, v, fixed, strconv.FormatInt(fx.expiresUnix, 10))); got != want {
				t.Fatalf("reference\n got %s\nwant %s", got, want)
			}
		})
	})

	t.Run("MV8", func(t *testing.T) {
		v := obj(t, f, "MV8")
		ref, err := p.Reference(get(t, b6, "input", "presented"))
		if err != nil {
			t.Fatal(err)
		}
		ref.Set("transaction", "0x"+strings.Repeat("33", 32))
		pathUSD, recipient := str(t, fixed, "pathUSD"), str(t, fixed, "recipient")
		transfer := "0x" + hexOf(crypto.Keccak256([]byte("Transfer(address,address,uint256)")))
		memoTopic := "0x" + hexOf(crypto.Keccak256([]byte(str(t, f, "MV7", "topicSignature"))))
		amount := wordOf(1000000)
		logs := func(emitter string) []jsonv.Value {
			return []jsonv.Value{
				logOf(pathUSD, amount, transfer, topicOf(payer), topicOf(recipient)),
				logOf(emitter, amount, memoTopic, topicOf(payer), topicOf(recipient), str(t, f, "MV7", "expectMemo")),
			}
		}
		status := func(l []jsonv.Value) evm.Status {
			return p.Status(ref, readerFor("eip155:42431", receiptOf("100", l...)))
		}
		wantStatus(t, status(logs(pathUSD)), get(t, v, "expectSettled"), "settled")
		wantStatus(t, status(logs("0x0000000000000000000000000000000000000001")), get(t, v, "expectOtherEmitter"), "other emitter")
		blocked := []jsonv.Value{logOf(pathUSD, amount, transfer, topicOf(payer), topicOf(str(t, v, "guard")))}
		wantStatus(t, status(blocked), get(t, v, "expectBlocked"), "blocked")
	})

	t.Run("plant", func(t *testing.T) {
		v := obj(t, f, "plant")
		calldata, _ := mpp.HexBytes(str(t, f, "MV7", "expectCalldata"), 100, 100)
		memo1 := mpp.AttributionMemo(fx.realm, id1, "", false)
		copy(calldata[68:], memo1[:])
		presented := jsonv.Clone(get(t, b6, "input", "presented")).(*jsonv.Object)
		obj(t, presented, "payload").Set("signature", "0x"+hexOf(tempoWireT(t, calldata)))
		_, err := p.Bound(presented)
		wantRefusal(t, err, str(t, v, "expect", "code"))
	})

	t.Run("pattern", func(t *testing.T) {
		v := obj(t, f, "pattern")
		pat := p.Pattern()
		if pat.Name != str(t, v, "pattern") || pat.PublicProof != get(t, v, "publicProof") {
			t.Fatalf("pattern %+v", pat)
		}
	})

	t.Run("splits", func(t *testing.T) {
		v := obj(t, f, "splits")
		splitDoc := fx.placed(t, fx.challenge("tempo", "charge", str(t, v, "request")))
		read, err := p.Read([]jsonv.Value{splitDoc})
		if err != nil {
			t.Fatal(err)
		}
		account := "eip155:42431:" + payer
		choice, err := p.Choose(read, account, &jsonv.Object{}, now, rails.NewRef())
		if err != nil {
			t.Fatal(err)
		}
		u, err := p.Build(choice, nil, fx.H)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := p.Request(u)
		if k, _ := req.GetString("kind"); k != "tempo-calls" {
			t.Fatalf("kind %s", k)
		}
		if got, want := jsonv.String(get(t, req, "calls")), jsonv.String(get(t, v, "expectCalls")); got != want {
			t.Fatalf("calls\n got %s\nwant %s", got, want)
		}
		primary, _ := mpp.HexBytes(str(t, get(t, req, "calls").([]jsonv.Value)[0], "data"), 100, 100)
		if new(big.Int).SetBytes(primary[36:68]).String() != str(t, v, "expectPrimaryAmount") {
			t.Fatal("primary amount")
		}
		t.Run("agreedRefusals", func(t *testing.T) {
			for _, r := range get(t, v, "agreedRefusals", "rows").([]jsonv.Value) {
				t.Run(str(t, r, "case"), func(t *testing.T) {
					req, _ := jsonv.Parse([]byte(str(t, v, "request")))
					obj(t, req, "methodDetails").Set("splits", get(t, r, "splits"))
					doc := fx.placed(t, fx.challenge("tempo", "charge", jsonv.String(req)))
					read, err := p.Read([]jsonv.Value{doc})
					if err != nil {
						t.Fatal(err)
					}
					_, err = p.Choose(read, account, &jsonv.Object{}, now, rails.NewRef())
					wantRefusal(t, err, str(t, r, "expect"))
				})
			}
		})
	})

	mppBuyerRows(t, f, str(t, fixed, "payerKey"))

	// A clientId, when given, is a non-empty string, and goes into the memo.
	t.Run("clientId", func(t *testing.T) {
		read, err := p.Read([]jsonv.Value{placed})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Choose(read, "eip155:42431:"+payer, jsonv.Obj("clientId", ""), now, "")
		wantRefusal(t, err, mpp.CodeInputMissing)
		choice, err := p.Choose(read, "eip155:42431:"+payer, jsonv.Obj("clientId", "agent-7"), now, "")
		if err != nil {
			t.Fatal(err)
		}
		u, err := p.Build(choice, nil, fx.H)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := p.Request(u)
		memo := mpp.AttributionMemo(fx.realm, id0, "agent-7", true)
		if data := str(t, req, "call", "data"); !strings.HasSuffix(data, hexOf(memo[:])) {
			t.Fatalf("data %s", data)
		}
	})
}
