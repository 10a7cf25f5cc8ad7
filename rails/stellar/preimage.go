package stellar

import (
	"math/big"

	"github.com/stellar/go-stellar-sdk/xdr"
)

// MaxPreimageBytes bounds a stellar-auth preimage a signer or a summary
// reads: an envelope's entry is at most what its 6144 bytes hold.
const MaxPreimageBytes = 6144

// Authorization is what a stellar-auth preimage authorizes, read from the
// preimage alone: on which network, until which ledger, which token
// contract moves how much from whom to whom.
type Authorization struct {
	Network    string
	Nonce      int64
	Expiration uint32 // the last ledger the signature is good for
	Asset      string // C…
	From, To   string // strkeys; To may be muxed
	ToMux      *MuxedAddress
	Amount     *big.Int
}

// ReadPreimage reads a preimage the rail builds: a HashIdPreimage of type 9
// or 10 on a known network whose invocation is exactly one
// transfer(from, to, amount), no sub-invocations, within the caps. For type
// 10 the credentials' address must be from. Anything else is
// stellar/tx-malformed or stellar/not-one-transfer: a signer signs nothing it
// cannot state.
func ReadPreimage(p []byte) (*Authorization, error) {
	if len(p) > MaxPreimageBytes {
		return nil, refuse(CodeTxTooLarge)
	}
	var hp xdr.HashIdPreimage
	if err := xdr.SafeUnmarshal(p, &hp); err != nil {
		return nil, refuse(CodeTxMalformed)
	}
	var (
		nid     xdr.Hash
		nonce   xdr.Int64
		exp     xdr.Uint32
		inv     *xdr.SorobanAuthorizedInvocation
		address *xdr.ScAddress
	)
	switch {
	case hp.Type == xdr.EnvelopeTypeEnvelopeTypeSorobanAuthorization && hp.SorobanAuthorization != nil:
		a := hp.SorobanAuthorization
		nid, nonce, exp, inv = a.NetworkId, a.Nonce, a.SignatureExpirationLedger, &a.Invocation
	case hp.Type == xdr.EnvelopeTypeEnvelopeTypeSorobanAuthorizationWithAddress && hp.SorobanAuthorizationWithAddress != nil:
		a := hp.SorobanAuthorizationWithAddress
		nid, nonce, exp, inv, address = a.NetworkId, a.Nonce, a.SignatureExpirationLedger, &a.Invocation, &a.Address
	default:
		return nil, refuse(CodeTxMalformed)
	}
	c := &caps{ok: true}
	c.invocation(inv, 1)
	if !c.ok {
		return nil, refuse(CodeTxMalformed)
	}
	network, ok := NetworkOfID(nid)
	if !ok {
		return nil, refuse(CodeNetworkMalformed)
	}
	if inv.Function.Type != xdr.SorobanAuthorizedFunctionTypeSorobanAuthorizedFunctionTypeContractFn ||
		inv.Function.ContractFn == nil || len(inv.SubInvocations) != 0 {
		return nil, refuse(CodeNotOneTransfer)
	}
	t, ok := transferCall(inv.Function.ContractFn)
	if !ok {
		return nil, refuse(CodeNotOneTransfer)
	}
	if address != nil {
		if who, ok := addressStrkey(*address); !ok || who != t.from {
			return nil, refuse(CodeNoAddressAuth)
		}
	}
	return &Authorization{Network: network, Nonce: int64(nonce), Expiration: uint32(exp),
		Asset: t.contract, From: t.from, To: t.to, ToMux: t.toMux, Amount: t.amount}, nil
}
