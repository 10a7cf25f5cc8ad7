package stellar

import (
	"encoding/base64"
	"math"

	"github.com/stellar/go-stellar-sdk/xdr"
)

// Signing is an authorization ready to sign: the simulated envelope with the
// payer's entry set to expire at the chosen ledger, and its preimage.
type Signing struct {
	*Transfer
	Network  string
	Preimage []byte
	// Ledgers is how many ledgers past the buyer's current ledger the
	// authorization stays valid, and ValidUntil (Unix seconds, 0 when the
	// build had no clock) the end of that at the nominal close time: the
	// request states it so that a spend policy can bound how long a
	// signature is payable (grant.go).
	Ledgers    int64
	ValidUntil int64
}

// SigningFor builds the authorization of a simulated envelope (docs/stellar.md,
// "The authorization"): ReadSignedTransfer's checks, then an expiration that
// is a u32 (stellar/tx-malformed), a payer that is an account, G…
// (stellar/no-address-auth; a contract wallet cannot sign here) whose signed
// invocation pays from it (stellar/no-address-auth), a plain v1
// envelope, not a fee bump (stellar/tx-malformed). With zeroSource the
// transaction's source becomes the all-zero account (a sponsor rewrites it).
// The envelope is decoded afresh, so the caller's text is never changed.
func SigningFor(simulated, network string, expiration int64, zeroSource bool) (*Signing, error) {
	t, err := ReadSignedTransfer(simulated, network)
	if err != nil {
		return nil, err
	}
	if expiration < 0 || expiration > math.MaxUint32 {
		return nil, refuse(CodeTxMalformed)
	}
	if _, ok := DecodeAccount(t.From); !ok {
		return nil, refuse(CodeNoAddressAuth)
	}
	// The entry's address signs; an invocation it authorizes that pays from
	// another account is no authorization that address can give.
	if signed, _ := transferCall(t.Fn); signed.from != t.From {
		return nil, refuse(CodeNoAddressAuth)
	}
	if t.Env.Type != xdr.EnvelopeTypeEnvelopeTypeTx {
		return nil, refuse(CodeTxMalformed)
	}
	if zeroSource {
		var zero xdr.Uint256
		t.Env.V1.Tx.SourceAccount = xdr.MuxedAccount{Type: xdr.CryptoKeyTypeKeyTypeEd25519, Ed25519: &zero}
	}
	t.Creds.SignatureExpirationLedger = xdr.Uint32(expiration)
	p, err := t.preimage(network)
	if err != nil {
		return nil, err
	}
	return &Signing{Transfer: t, Network: network, Preimage: p}, nil
}

// SignatureBytes is the length of an Ed25519 signature.
const SignatureBytes = 64

// Complete writes the payer's signature into the entry, as the Soroban
// account contract reads it: a vector of one map {public_key: bytes(32),
// signature: bytes(64)}, and returns the envelope as padded base64. A
// signature that is not 64 bytes is stellar/tx-malformed.
func (s *Signing) Complete(sig []byte) (string, error) {
	if len(sig) != SignatureBytes {
		return "", refuse(CodeTxMalformed)
	}
	key, _ := DecodeAccount(s.From)
	pub := xdr.ScBytes(key[:])
	sg := xdr.ScBytes(append([]byte(nil), sig...))
	symKey, symSig := xdr.ScSymbol("public_key"), xdr.ScSymbol("signature")
	m := &xdr.ScMap{
		{Key: xdr.ScVal{Type: xdr.ScValTypeScvSymbol, Sym: &symKey}, Val: xdr.ScVal{Type: xdr.ScValTypeScvBytes, Bytes: &pub}},
		{Key: xdr.ScVal{Type: xdr.ScValTypeScvSymbol, Sym: &symSig}, Val: xdr.ScVal{Type: xdr.ScValTypeScvBytes, Bytes: &sg}},
	}
	vec := &xdr.ScVec{{Type: xdr.ScValTypeScvMap, Map: &m}}
	saved := s.Creds.Signature
	s.Creds.Signature = xdr.ScVal{Type: xdr.ScValTypeScvVec, Vec: &vec}
	raw, err := s.Env.MarshalBinary()
	s.Creds.Signature = saved // the Signing can be completed again with another answer
	if err != nil {
		return "", refuse(CodeTxMalformed)
	}
	return base64.StdEncoding.EncodeToString(raw), nil
}
