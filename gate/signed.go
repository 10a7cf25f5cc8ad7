package gate

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
)

// The details of Finish's signature check (code signer-failed): a signature
// made elsewhere is checked against the account the choice names before the
// payment is returned.
const (
	DetailSignerNotAccount = "The signature does not recover to the chosen account."
	DetailWindowClosed     = "The signed payment's validity window has already closed."
	// DetailSignatureMalformed: the answer to an EIP-712 request or a key
	// authorization is not a signature at all (too short, not hex), so it
	// is the signature that is wrong, not the binding.
	DetailSignatureMalformed = "The signature is not 0x-prefixed hex of 65 to 8192 bytes (an ECDSA signature is 65: r, s, v)."
)

// signatureForm checks the form of an answer to req made elsewhere: an
// eip712 request is answered with 0x hex of 65 (ECDSA) to
// evm.MaxSignatureBytes (a contract wallet's) bytes, a key authorization
// with exactly 65. Other requests' answers are left to the pairing.
func signatureForm(req rails.Request, answer jsonv.Value) *Decline {
	if req == nil {
		return nil
	}
	most := evm.MaxSignatureBytes
	switch kind, _ := req.GetString("kind"); kind {
	case "eip712":
	case tempo.KindTempoKeyAuthorization:
		most = 65
	default:
		return nil
	}
	s, ok := answer.(string)
	if !ok {
		return decline(SignerFailed, DetailSignatureMalformed).because(fmt.Errorf("the signature is %.80s, not a string", jsonv.Marshal(answer)))
	}
	shown := s
	if len(shown) > 80 {
		shown = shown[:80] + "…"
	}
	b, ok := evm.HexBytes(s)
	switch {
	case !ok:
		return decline(SignerFailed, DetailSignatureMalformed).because(fmt.Errorf("%q is not 0x and an even number of hex digits", shown))
	case len(b) < evm.MinSignatureBytes || len(b) > most:
		return decline(SignerFailed, DetailSignatureMalformed).because(fmt.Errorf("%q is %d bytes", shown, len(b)))
	}
	return nil
}

// checkSigned checks an answer to req whose signer is recoverable: an eip712
// request answered with a 65-byte signature, a tempo-call answered with a
// signed transaction, a tempo-key-authorization answered with a 65-byte
// signature of its digest. The signer must be from (the address the choice
// names) and the request's deadline (an EIP-3009 validBefore, a Permit2
// deadline, a Tempo
// transaction's valid_before, a key authorization's expiry) after now. Any
// other answer (a smart-wallet signature longer than 65 bytes, a broadcast
// transaction's hash) is not checked here: only the chain can.
func checkSigned(req rails.Request, answer jsonv.Value, from string, now int64) *Decline {
	if req == nil || !evm.IsAddress(from) {
		return nil
	}
	s, ok := answer.(string)
	if !ok {
		return nil
	}
	want := common.HexToAddress(from)
	var signer common.Address
	var deadline *big.Int // nil: none
	switch kind, _ := req.GetString("kind"); kind {
	case "eip712":
		sig, ok := mpp.HexBytes(s, 65, 65)
		td, okTD := req.GetObject("typedData")
		if !ok || !okTD {
			return nil
		}
		digest, err := evm.TypedDataDigest(td)
		if err != nil {
			return nil
		}
		if signer, ok = recoverAddress(digest, sig); !ok {
			return decline(SignerFailed, DetailSignerNotAccount)
		}
		msg, _ := td.GetObject("message")
		pt, _ := td.GetString("primaryType")
		if vb, ok := msg.GetString("validBefore"); ok && evm.IsUint256Decimal(vb) {
			deadline, _ = new(big.Int).SetString(vb, 10)
		} else if d, ok := msg.GetString("deadline"); ok && evm.IsUint256Decimal(d) && strings.HasPrefix(pt, "Permit") {
			// A Permit2 transfer is good at its deadline too.
			deadline, _ = new(big.Int).SetString(d, 10)
			deadline.Add(deadline, big.NewInt(1))
		}
	case tempo.KindTempoCall:
		wire, ok := mpp.HexBytes(s, 1, tempo.MaxWireBytes)
		if !ok {
			return nil
		}
		tx, err := tempo.DecodeTx(wire)
		if err != nil {
			return nil // the read-back declines what does not decode
		}
		if signer, err = tx.Sender(); err != nil {
			return decline(SignerFailed, DetailSignerNotAccount)
		}
		if tx.ValidBefore != nil && tx.ValidBefore.Sign() > 0 {
			deadline = tx.ValidBefore
		}
	case tempo.KindTempoKeyAuthorization:
		sig, ok := mpp.HexBytes(s, 65, 65)
		d, okD := mpp.HexBytes(mpp.String(req, "digest"), 32, 32)
		if !ok || !okD {
			return nil
		}
		if signer, ok = recoverAddress([32]byte(d), sig); !ok {
			return decline(SignerFailed, DetailSignerNotAccount)
		}
		auth, _ := req.GetObject("authorization")
		if e, ok := mpp.Uint256(mpp.String(auth, "expiry")); ok && e.Sign() > 0 {
			deadline = e
		}
	default:
		return nil
	}
	if signer != want {
		return decline(SignerFailed, DetailSignerNotAccount)
	}
	if deadline != nil && deadline.Cmp(big.NewInt(now)) <= 0 {
		return decline(SignerFailed, DetailWindowClosed)
	}
	return nil
}

// recoverAddress is the address whose key made the 65-byte signature
// (r ‖ s ‖ v, v 0/1 or 27/28) of digest.
func recoverAddress(digest [32]byte, sig []byte) (common.Address, bool) {
	sig = append([]byte(nil), sig...)
	if sig[64] >= 27 {
		sig[64] -= 27
	}
	pub, err := crypto.SigToPub(digest[:], sig)
	if err != nil {
		return common.Address{}, false
	}
	return crypto.PubkeyToAddress(*pub), true
}

// checkFinished is Finish's signature check: the first request's answer
// (the only one, or the first of a multi-step payment's) against the
// choice's from.
func checkFinished(chosen rails.Chosen, req rails.Request, first jsonv.Value, now int64) *Decline {
	c, _ := jsonv.AsObject(chosen.Choice)
	from, _ := c.GetString("from")
	if req == nil || !evm.IsAddress(from) {
		return nil
	}
	return checkSigned(req, first, from, now)
}
