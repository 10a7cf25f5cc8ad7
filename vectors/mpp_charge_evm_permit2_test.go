package vectors_test

// mpp-charge-evm-permit2.json: MV6 (single), MV6b (batch, with its
// split-only receipt), plant, pattern and the buyer rows B2 and B6.

import (
	"context"
	"crypto/sha256"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/signer"
)

func TestMPPChargeEVMPermit2(t *testing.T) {
	f := load(t, "mpp-charge-evm-permit2.json")
	fixed := obj(t, f, "fixed")
	fx := loadMPPFixture(t)
	p := evm.MPPPermit2{}
	now, _ := jsonv.AsSafeInt(get(t, fixed, "now"))
	choiceFor := func(request string) *jsonv.Object {
		placed := fx.placed(t, fx.challenge("evm", "charge", request))
		return jsonv.Obj("challenge", placed, "from", str(t, fixed, "payer"), "now", now, "spender", str(t, fixed, "spender"))
	}
	l, err := signer.FromHex(str(t, fixed, "payerKey"), "eip155:84532")
	if err != nil {
		t.Fatal(err)
	}
	// pay builds, signs and completes a choice, and returns the typed data
	// signed, the signature and the credential.
	pay := func(t *testing.T, choice *jsonv.Object) (*jsonv.Object, string, *jsonv.Object) {
		t.Helper()
		u, err := p.Build(choice, nil, fx.H)
		if err != nil {
			t.Fatal(err)
		}
		req, err := p.Request(u)
		if err != nil {
			t.Fatal(err)
		}
		sig, err := l.Sign(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		done, err := p.Complete(u, sig, rails.Chosen{})
		if err != nil {
			t.Fatal(err)
		}
		return obj(t, req, "typedData"), sig.(string), done.Signed.(*jsonv.Object)
	}
	b6 := row(t, get(t, f, "buyer", "rows"), "B6")

	t.Run("pattern", func(t *testing.T) {
		v := obj(t, f, "pattern")
		pat := p.Pattern()
		if pat.Name != str(t, v, "pattern") || pat.PublicProof != get(t, v, "publicProof") {
			t.Fatalf("pattern %+v", pat)
		}
	})

	t.Run("MV6", func(t *testing.T) {
		v := obj(t, f, "MV6")
		td, sig, cred := pay(t, choiceFor(fx.RE))
		parts, err := evm.TypedDataHashes(td)
		if err != nil {
			t.Fatal(err)
		}
		if got := "0x" + hexOf(parts.Digest[:]); got != str(t, v, "expectDigest") {
			t.Fatalf("digest %s", got)
		}
		wantAffixes(t, "0x"+hexOf(parts.DomainSeparator[:]), get(t, v, "expectDomainSeparator"), "domain separator")
		if sig != str(t, v, "expectSignature") {
			t.Fatalf("signature %s", sig)
		}
		// The credential is the one B6 holds, byte for byte.
		if got, want := jsonv.String(cred), jsonv.String(get(t, b6, "input", "presented")); got != want {
			t.Fatalf("credential\n got %s\nwant %s", got, want)
		}
		if h, err := p.Bound(cred); err != nil || h != fx.H.String() {
			t.Fatalf("bound %s (%v)", h, err)
		}
		// The MPP draft's witness type string, taken literally (a space
		// after its comma), is another type and so another digest: the
		// build signs the EIP-712 type of the witness struct instead.
		literal := str(t, v, "literalWitnessString")
		stub := "PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,"
		typeHash := crypto.Keccak256([]byte(stub + literal))
		wantAffixes(t, "0x"+hexOf(typeHash), get(t, v, "expectLiteralTypeHash"), "literal type hash")
		msg := obj(t, td, "message")
		w := obj(t, msg, "witness")
		witnessType := literal[strings.Index(literal, ")")+1 : strings.Index(literal, "TokenPermissions(")]
		witnessHash := crypto.Keccak256(crypto.Keccak256([]byte(witnessType)), common.FromHex(str(t, w, "challengeHash")), crypto.Keccak256([]byte(str(t, w, "externalId"))))
		perm := obj(t, msg, "permitted")
		permHash := crypto.Keccak256(crypto.Keccak256([]byte("TokenPermissions(address token,uint256 amount)")),
			common.LeftPadBytes(common.HexToAddress(str(t, perm, "token")).Bytes(), 32), word(t, str(t, perm, "amount")))
		structHash := crypto.Keccak256(typeHash, permHash, common.LeftPadBytes(common.HexToAddress(str(t, msg, "spender")).Bytes(), 32),
			word(t, str(t, msg, "nonce")), word(t, str(t, msg, "deadline")), witnessHash)
		digest := crypto.Keccak256([]byte{0x19, 0x01}, parts.DomainSeparator[:], structHash)
		wantAffixes(t, "0x"+hexOf(digest), get(t, v, "expectLiteralDigest"), "literal digest")
	})

	t.Run("MV6b", func(t *testing.T) {
		v := obj(t, f, "MV6b")
		got, err := mpp.PairingsOf(fx.challenge("evm", "charge", str(t, fixed, "R_E6b")))
		if err != nil || jsonv.String(stringList(got)) != jsonv.String(get(t, v, "expectPairings")) {
			t.Fatalf("pairings %v (%v)", got, err)
		}
		_, err = mpp.PairingsOf(fx.challenge("evm", "charge", str(t, fixed, "R_E6bAuthorizationOnly")))
		wantRefusal(t, err, str(t, v, "expectAuthorizationOnly", "code"))

		td, sig, cred := pay(t, choiceFor(str(t, fixed, "R_E6b")))
		parts, err := evm.TypedDataHashes(td)
		if err != nil || "0x"+hexOf(parts.Digest[:]) != str(t, v, "expectDigest") {
			t.Fatalf("digest %x (%v)", parts.Digest, err)
		}
		if got := "0x" + hexOf(crypto.Keccak256([]byte(
			"PermitBatchWitnessTransferFrom(TokenPermissions[] permitted,address spender,uint256 nonce,uint256 deadline,PaymentWitness witness)PaymentWitness(bytes32 challengeHash,string externalId)TokenPermissions(address token,uint256 amount)"))); got != str(t, v, "expectTypeHash") {
			t.Fatalf("type hash %s", got)
		}
		if sig != str(t, v, "expectSignature") {
			t.Fatalf("signature %s", sig)
		}
		payload := obj(t, cred, "payload")
		if g, w := jsonv.String(get(t, payload, "transferDetails")), jsonv.String(get(t, v, "expectTransferDetails")); g != w {
			t.Fatalf("transferDetails %s, want %s", g, w)
		}
		if h, err := p.Bound(cred); err != nil || h != fx.H.String() {
			t.Fatalf("bound %s (%v)", h, err)
		}
		// The primary transfer's identity: SHA-256(from ‖ to ‖ value).
		first := get(t, payload, "transferDetails").([]jsonv.Value)[0]
		identity := sha256.Sum256(append(append(common.HexToAddress(str(t, fixed, "payer")).Bytes(),
			common.HexToAddress(str(t, first, "to")).Bytes()...), word(t, str(t, first, "requestedAmount"))...))
		if "0x"+hexOf(identity[:]) != str(t, v, "expectPrimaryIdentity") {
			t.Fatalf("identity %x", identity)
		}
		ref, err := p.Reference(cred)
		if err != nil {
			t.Fatal(err)
		}
		if got := str(t, ref, "transferLog", "digest"); got != str(t, v, "expectPrimaryIdentity") {
			t.Fatalf("reference digest %s", got)
		}

		t.Run("splitOnlyReceipt", func(t *testing.T) {
			r := obj(t, v, "splitOnlyReceipt")
			usdc := mpp.String(mustObject(t, fx.RE), "currency")
			split := get(t, v, "expectTransferDetails").([]jsonv.Value)[1]
			transfer := "0x" + hexOf(crypto.Keccak256([]byte("Transfer(address,address,uint256)")))
			receipt := receiptOf("100", logOf(usdc, "0x"+hexOf(word(t, str(t, split, "requestedAmount"))),
				transfer, topicOf(str(t, fixed, "payer")), topicOf(str(t, split, "to"))))
			withTx := ref.Clone()
			withTx.Set("transaction", "0x"+strings.Repeat("ab", 32))
			wantStatus(t, p.Status(withTx, readerFor("eip155:84532", receipt)), get(t, r, "expect"), "split only")
			// The same receipt with the recipient's transfer settles.
			receipt.Set("logs", append(get(t, receipt, "logs").([]jsonv.Value), logOf(usdc, "0x"+hexOf(word(t, "9500")),
				transfer, topicOf(str(t, fixed, "payer")), topicOf(str(t, first, "to")))))
			if s := p.Status(withTx, readerFor("eip155:84532", receipt)); s.State != evm.StateSettled {
				t.Fatalf("with the primary transfer: %s", jsonv.String(s.JSON()))
			}
			noSource := cred.Clone()
			noSource.Delete("source")
			_, err := p.Reference(noSource)
			wantRefusal(t, err, mpp.CodeSourceRequired)
		})

	})

	t.Run("plant", func(t *testing.T) {
		// MV6b's batch credential, its witness the hash of another challenge of the same ATR.
		_, _, cred := pay(t, choiceFor(str(t, fixed, "R_E6b")))
		pl := obj(t, f, "plant")
		id := str(t, obj(t, cred, "challenge"), "id")
		position1 := mpp.ChallengeHash(strings.TrimSuffix(id, ".0")+".1", fx.realm)
		if atr.Hash(position1).String() != str(t, pl, "challengeHashOfPosition1") {
			t.Fatalf("challenge hash of .1: %x", position1)
		}
		planted := cred.Clone()
		obj(t, planted, "payload", "witness").Set("challengeHash", str(t, pl, "challengeHashOfPosition1"))
		_, err := p.Bound(planted)
		wantRefusal(t, err, str(t, pl, "expect", "code"))
	})

	mppBuyerRows(t, f, str(t, fixed, "payerKey"))
}

// word is a decimal as a 32-byte big-endian word.
func word(t testing.TB, decimal string) []byte {
	t.Helper()
	n, ok := new(big.Int).SetString(decimal, 10)
	if !ok {
		t.Fatalf("not a decimal: %q", decimal)
	}
	return common.LeftPadBytes(n.Bytes(), 32)
}

func stringList(s []string) []jsonv.Value {
	out := make([]jsonv.Value, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

func mustObject(t testing.TB, text string) *jsonv.Object {
	t.Helper()
	v, err := jsonv.Parse([]byte(text))
	o, ok := jsonv.AsObject(v)
	if err != nil || !ok {
		t.Fatalf("not an object: %s", text)
	}
	return o
}
