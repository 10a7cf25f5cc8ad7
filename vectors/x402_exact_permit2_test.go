package vectors_test

// x402-exact-eip155-permit2.json: the Permit2 witness transfer built,
// signed and read back (EV1), the settlement reads (EV6, plantEmitter), and
// the buyer rows B2 and B6.

import (
	"errors"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
)

// x402Fixed is the fixed part every x402 EVM breadth file shares.
type x402Fixed struct {
	f, fixed, option, required, choice *jsonv.Object
	h                                  string
	payer, key                         string
	now                                int64
}

func loadX402Fixed(t *testing.T, name string) x402Fixed {
	t.Helper()
	f := load(t, name)
	fixed := obj(t, f, "fixed")
	option := obj(t, fixed, "option")
	now, _ := jsonv.AsSafeInt(get(t, fixed, "now"))
	required := jsonv.Obj("x402Version", 2, "resource", get(t, fixed, "resource"), "accepts", []jsonv.Value{option})
	payer := str(t, fixed, "payer")
	return x402Fixed{f: f, fixed: fixed, option: option, required: required, h: str(t, fixed, "H"),
		payer: payer, key: str(t, fixed, "payerKey"), now: now,
		choice: jsonv.Obj("required", required, "accepted", option, "from", payer, "now", now)}
}

// requestOf builds the fixed choice with H and returns the unsigned payment
// and its signing request.
func (x x402Fixed) requestOf(t *testing.T, p rails.Pairing) (rails.Unsigned, rails.Request) {
	t.Helper()
	u, err := p.Build(x.choice, nil, mustHash(t, x.h))
	if err != nil {
		t.Fatal(err)
	}
	req, err := p.Request(u)
	if err != nil {
		t.Fatal(err)
	}
	return u, req
}

// signOf signs req with the fixed key and checks the digest first.
func (x x402Fixed) signOf(t *testing.T, req rails.Request, wantDigestHex, wantSig string) string {
	t.Helper()
	td := obj(t, req, "typedData")
	wantDigest(t, td, wantDigestHex)
	sig := signTyped(t, x.key, td)
	if wantSig != "" && sig != wantSig {
		t.Fatalf("signature %s, want %s", sig, wantSig)
	}
	return sig
}

// wantPrefixSuffix compares a value with a row's {prefix, suffix}.
func wantPrefixSuffix(t *testing.T, got string, want jsonv.Value, what string) {
	t.Helper()
	p, s := str(t, want, "prefix"), str(t, want, "suffix")
	if !strings.HasPrefix(got, p) || !strings.HasSuffix(got, s) {
		t.Fatalf("%s %s, want %s…%s", what, got, p, s)
	}
}

func keccakHex(s string) string { return "0x" + hexOf(crypto.Keccak256([]byte(s))) }

// permit2Payment builds, signs and completes the fixed choice and checks it
// against the file's B6 payment byte for byte.
func (x x402Fixed) permit2Payment(t *testing.T, p rails.Pairing, wantDigestHex string) *jsonv.Object {
	t.Helper()
	u, req := x.requestOf(t, p)
	b6 := obj(t, row(t, get(t, x.f, "buyer", "rows"), "B6"), "input", "presented")
	sig := x.signOf(t, req, wantDigestHex, str(t, b6, "payload", "signature"))
	done, err := p.Complete(u, sig, rails.Chosen{Pairing: p.ID(), Choice: x.choice, Ref: rails.NewRef()})
	if err != nil {
		t.Fatal(err)
	}
	// B6's payment carries the document's extensions; this build's
	// document has none, so compare with them taken out.
	want := b6.Clone()
	want.Delete("extensions")
	if g, w := jsonv.String(done.Signed), jsonv.String(want); g != w {
		t.Fatalf("payment\n got %s\nwant %s", g, w)
	}
	return done.Signed.(*jsonv.Object)
}

func TestX402ExactEIP155Permit2(t *testing.T) {
	x := loadX402Fixed(t, "x402-exact-eip155-permit2.json")
	p := evm.ExactPermit2{}
	var payment *jsonv.Object

	t.Run("EV1", func(t *testing.T) {
		v := obj(t, x.f, "EV1")
		_, req := x.requestOf(t, p)
		msg := obj(t, req, "typedData", "message")
		if got := str(t, msg, "spender"); got != str(t, v, "expectSpender") {
			t.Fatalf("spender %s", got)
		}
		if got := str(t, msg, "nonce"); got != str(t, v, "expectNonceDecimal") {
			t.Fatalf("nonce %s", got)
		}
		if got := str(t, msg, "deadline"); got != str(t, v, "expectDeadline") {
			t.Fatalf("deadline %s", got)
		}
		full := "PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline," + str(t, v, "witnessTypeString")
		wantPrefixSuffix(t, keccakHex(full), get(t, v, "expectTypeHash"), "type hash")
		wantPrefixSuffix(t, keccakHex("Witness(address to,uint256 validAfter)"), get(t, v, "expectWitnessTypeHash"), "witness type hash")
		payment = x.permit2Payment(t, p, str(t, v, "expectDigest"))
		if str(t, payment, "payload", "signature") != str(t, v, "expectSignature") {
			t.Fatal("signature is not EV1's")
		}
		if h, err := p.Bound(payment); err != nil || h != str(t, v, "expectBound") {
			t.Fatalf("bound %s (%v)", h, err)
		}
		hexNonce := payment.Clone()
		obj(t, hexNonce, "payload", "permit2Authorization").Set("nonce", x.h)
		if h, err := p.Bound(hexNonce); err != nil || h != str(t, v, "boundOfHexNonce") {
			t.Fatalf("bound of the hex nonce %s (%v)", h, err)
		}
		upto := payment.Clone()
		obj(t, upto, "payload", "permit2Authorization").Set("spender", str(t, v, "uptoProxyAsSpender", "spender"))
		_, err := p.Bound(upto)
		wantRefusal(t, err, str(t, v, "uptoProxyAsSpender", "expect", "code"))
		bad := payment.Clone()
		obj(t, bad, "payload", "permit2Authorization").Set("nonce", str(t, v, "nonceMalformed", "nonce"))
		_, err = p.Bound(bad)
		wantRefusal(t, err, str(t, v, "nonceMalformed", "expect", "code"))
		ref, err := p.Reference(payment)
		if err != nil {
			t.Fatal(err)
		}
		if got := str(t, ref, "transferLog", "digest"); got != str(t, v, "expectReferenceDigest") {
			t.Fatalf("reference digest %s", got)
		}
	})

	t.Run("EV6", func(t *testing.T) {
		v := obj(t, x.f, "EV6")
		ref := exactPermit2Ref(t, x, p, str(t, v, "transaction"))
		for _, name := range []string{"transferAt100", "value9999", "reverted", "none"} {
			c := obj(t, v, name)
			wantStatus(t, p.Status(ref, permit2Reader(t, v, get(t, c, "receipt"))), get(t, c, "expect"), name)
		}
	})

	t.Run("plantEmitter", func(t *testing.T) {
		v := obj(t, x.f, "plantEmitter")
		ref := exactPermit2Ref(t, x, p, str(t, x.f, "EV6", "transaction"))
		wantStatus(t, p.Status(ref, permit2Reader(t, obj(t, x.f, "EV6"), get(t, v, "receipt"))), get(t, v, "expect"), "plant")
	})

	mppBuyerRows(t, x.f, x.key)
}

// exactPermit2Ref is the reference of the B6 payment with the row's
// transaction named.
func exactPermit2Ref(t *testing.T, x x402Fixed, p interface {
	Reference(jsonv.Value) (*jsonv.Object, error)
}, tx string) *jsonv.Object {
	t.Helper()
	presented := get(t, row(t, get(t, x.f, "buyer", "rows"), "B6"), "input", "presented")
	ref, err := p.Reference(presented)
	if err != nil {
		t.Fatal(err)
	}
	ref.Set("transaction", tx)
	return ref
}

// ethCall is one eth_call a reader was asked.
type ethCall struct {
	To, Data string
	Block    uint64
}

// callReader is the fixture reader that also answers eth_call with one word,
// recording what it was asked.
type callReader struct {
	*fixtureReader
	word  string
	calls []ethCall
}

func (r *callReader) Call(to, data string, block uint64) (string, error) {
	r.calls = append(r.calls, ethCall{To: to, Data: data, Block: block})
	if r.word == "" {
		return "", errors.New("no answer")
	}
	return r.word, nil
}

func permit2Reader(t *testing.T, v *jsonv.Object, receipt jsonv.Value) *fixtureReader {
	rd := obj(t, v, "reader")
	return &fixtureReader{network: str(t, rd, "network"), receipt: receipt,
		finalized: blockOf(t, str(t, rd, "finalized")), safe: blockOf(t, str(t, rd, "safe"))}
}
