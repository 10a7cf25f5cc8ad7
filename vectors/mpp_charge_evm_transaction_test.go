package vectors_test

// mpp-charge-evm-transaction.json (MV11, pattern, B2) and
// mpp-charge-evm-hash.json (MV12, pattern, B2): the EVM charges whose
// payment carries nothing of H.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/signer"
)

func TestMPPChargeEVMTransaction(t *testing.T) {
	f := load(t, "mpp-charge-evm-transaction.json")
	fixed := obj(t, f, "fixed")
	fx := loadMPPFixture(t)
	p := evm.MPPTransaction{}
	now, _ := jsonv.AsSafeInt(get(t, fixed, "now"))

	t.Run("pattern", func(t *testing.T) { wantNoProofPattern(t, p, obj(t, f, "pattern")) })

	t.Run("MV11", func(t *testing.T) {
		v := obj(t, f, "MV11")
		got, err := mpp.PairingsOf(fx.challenge("evm", "charge", str(t, fixed, "R_ENoTypes")))
		if err != nil || jsonv.String(stringList(got)) != jsonv.String(get(t, v, "expectPairings")) {
			t.Fatalf("pairings %v (%v)", got, err)
		}
		_, err = mpp.PairingsOf(fx.challenge("evm", "charge", str(t, fixed, "R_ESplitsCallTypes")))
		wantRefusal(t, err, str(t, v, "expectSplitsCallTypes", "code"))

		placed := fx.placed(t, fx.challenge("evm", "charge", str(t, fixed, "R_ENoTypes")))
		choice := jsonv.Obj("challenge", placed, "from", str(t, fixed, "payer"), "now", now)
		u, err := p.Build(choice, nil, fx.H)
		if err != nil {
			t.Fatal(err)
		}
		req, err := p.Request(u)
		if err != nil {
			t.Fatal(err)
		}
		if got := str(t, req, "call", "data"); got != str(t, v, "expectCalldata") {
			t.Fatalf("calldata %s", got)
		}
		tx := obj(t, v, "transaction")
		if str(t, req, "call", "to") != str(t, tx, "to") || jsonv.String(get(t, req, "chainId")) != jsonv.String(get(t, tx, "chainId")) {
			t.Fatalf("request %s", jsonv.String(req))
		}
		// The Anvil key's EIP-1559 transaction of the call, with the row's
		// fee fields, nonce and gas.
		s := rowEVMSigner(t, str(t, fixed, "payerKey"), tx)
		answer, err := s.Sign(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		raw := unhex(t, strings.TrimPrefix(answer.(string), "0x"))
		sum := sha256.Sum256(raw)
		n, _ := jsonv.AsSafeInt(get(t, v, "expectRawLength"))
		if int64(len(raw)) != n || "0x"+hexOf(sum[:]) != str(t, v, "expectRawSha256") {
			t.Fatalf("raw %d bytes, sha256 %x", len(raw), sum)
		}
		if got := "0x" + hexOf(crypto.Keccak256(raw)); got != str(t, v, "expectTxHash") {
			t.Fatalf("tx hash %s", got)
		}
		occ, _ := jsonv.AsSafeInt(get(t, v, "expectHOccurrences"))
		if c := bytes.Count(raw, fx.H[:]); int64(c) != occ {
			t.Fatalf("H occurs %d times in the transaction", c)
		}
		done, err := p.Complete(u, answer, rails.Chosen{})
		if err != nil {
			t.Fatal(err)
		}
		// No signed place: the credential claims nothing (expectClaims false).
		_, err = p.Bound(done.Signed)
		wantRefusal(t, err, str(t, v, "expectBound", "code"))
		if get(t, v, "expectClaims") != false {
			t.Fatal("the row expects a claim")
		}
		// A signer that signed another transaction has not paid this.
		other := rowEVMSigner(t, str(t, fixed, "payerKey"), tx)
		wire, _, err := other.SignEVMTransaction(84532, other.Address(), unhex(t, strings.TrimPrefix(str(t, v, "expectCalldata"), "0x")), *other.Fees)
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Complete(u, "0x"+hexOf(wire), rails.Chosen{})
		wantRefusal(t, err, mpp.CodeCredentialMalformed)
	})

	mppBuyerRows(t, f, str(t, fixed, "payerKey"))
}

func TestMPPChargeEVMHash(t *testing.T) {
	f := load(t, "mpp-charge-evm-hash.json")
	fixed := obj(t, f, "fixed")
	fx := loadMPPFixture(t)
	p := evm.MPPHash{}
	now, _ := jsonv.AsSafeInt(get(t, fixed, "now"))

	t.Run("pattern", func(t *testing.T) { wantNoProofPattern(t, p, obj(t, f, "pattern")) })

	t.Run("MV12", func(t *testing.T) {
		v := obj(t, f, "MV12")
		// The challenge of the file's B2 (C_E without credentialTypes, so
		// offering transaction and hash), placed for H.
		placed := obj(t, get(t, row(t, get(t, f, "buyer", "rows"), "B2"), "input", "doc").([]jsonv.Value)[0])
		u, err := p.Build(jsonv.Obj("challenge", placed, "from", str(t, fixed, "payer"), "now", now), nil, fx.H)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := p.Request(u)
		if b, _ := req.Get("broadcast"); b != true || !p.Moves(req) {
			t.Fatalf("request %s: the signer must broadcast", jsonv.String(req))
		}
		done, err := p.Complete(u, jsonv.Obj("hash", str(t, v, "hash")), rails.Chosen{})
		if err != nil {
			t.Fatal(err)
		}
		cred := done.Signed.(*jsonv.Object)
		if str(t, cred, "payload", "hash") != str(t, v, "hash") || str(t, cred, "payload", "type") != "hash" {
			t.Fatalf("credential %s", jsonv.String(cred))
		}
		_, err = p.Bound(cred)
		wantRefusal(t, err, evm.CodeNoSignedPlace)

		// reference({challenge: C_E}): the network and the asset alone.
		ref, err := p.Reference(jsonv.Obj("challenge", fx.challenge("evm", "charge", fx.RE)))
		if err != nil || jsonv.String(ref) != jsonv.String(get(t, v, "expectReference")) {
			t.Fatalf("reference %s (%v)", jsonv.String(ref), err)
		}
		ref.Set("transaction", str(t, v, "hash"))
		asset := str(t, ref, "asset")
		transfer := func(from string) *jsonv.Object {
			return logOf(from, wordOf(10000), "0x"+hexOf(crypto.Keccak256([]byte("Transfer(address,address,uint256)"))),
				topicOf(str(t, fixed, "payer")), topicOf("0x209693Bc6afc0C5328bA36FaF03C514EF312287C"))
		}
		wantStatus(t, p.Status(ref, readerFor("eip155:84532", receiptOf("100", transfer(asset)))), get(t, v, "expectSettled"), "settled")
		wantStatus(t, p.Status(ref, readerFor("eip155:84532", receiptOf("100", transfer("0x0000000000000000000000000000000000000bad")))), get(t, v, "expectOtherEmitter"), "other emitter")
		reverted := receiptOf("100", transfer(asset))
		reverted.Set("status", jsonv.Number(0))
		wantStatus(t, p.Status(ref, readerFor("eip155:84532", reverted)), get(t, v, "expectReverted"), "reverted")
	})

	mppBuyerRows(t, f, str(t, fixed, "payerKey"))
}

// wantNoProofPattern: the row's pattern name, and no public proof.
func wantNoProofPattern(t *testing.T, p rails.Pairing, v *jsonv.Object) {
	t.Helper()
	pat := p.Pattern()
	if pat.Name != str(t, v, "pattern") || pat.PublicProof != get(t, v, "publicProof") || pat.PublicProof {
		t.Fatalf("pattern %+v", pat)
	}
}

// rowEVMSigner is the key's EVM signer with a row's fixed transaction
// fields {nonce, maxPriorityFeePerGas, maxFeePerGas, gas}.
func rowEVMSigner(t testing.TB, key string, tx *jsonv.Object) *signer.EVM {
	t.Helper()
	l, err := signer.FromHex(key, "eip155:84532")
	if err != nil {
		t.Fatal(err)
	}
	nonce, _ := jsonv.AsSafeInt(get(t, tx, "nonce"))
	gas, _ := jsonv.AsSafeInt(get(t, tx, "gas"))
	tip, _ := new(big.Int).SetString(str(t, tx, "maxPriorityFeePerGas"), 10)
	max, _ := new(big.Int).SetString(str(t, tx, "maxFeePerGas"), 10)
	return &signer.EVM{Local: l, Fees: &signer.EVMFees{MaxPriorityFeePerGas: tip, MaxFeePerGas: max, Gas: uint64(gas), Nonce: uint64(nonce)}}
}
