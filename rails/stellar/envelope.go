package stellar

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"math/big"

	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/termsgate/termsgate/rails"
)

// Bounds of an envelope read (docs/stellar.md, "Reading an envelope").
const (
	MaxEnvelopeChars = 8192 // base64 characters, checked before decoding
	MaxScValDepth    = 64   // vectors and maps nested in one ScVal, the outermost at level 1
	MaxScElements    = 1536 // vector elements and map entries in one envelope
	MaxInvocations   = 64   // authorized invocations nested, the root at level 1
)

func refuse(code string) error { return rails.Refuse(code) }

// DecodeBase64 is strict standard base64: only the standard alphabet (Go's
// decoder skips CR and LF), padded to a multiple of 4, zero padding bits.
func DecodeBase64(s string) ([]byte, bool) {
	if len(s)%4 != 0 {
		return nil, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return nil, false
		}
	}
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	return b, err == nil
}

// DecodeEnvelope reads a transaction envelope as a seller or a simulation
// hands it over: at most MaxEnvelopeChars of strict base64 of exactly one
// XDR TransactionEnvelope within the caps. Anything else is
// stellar/tx-too-large (the length) or stellar/tx-malformed.
//
// The SDK's decoder refuses trailing bytes, non-zero padding, booleans and
// optionals other than 0 or 1, unknown enum and union values and arrays over
// their bounds; it stops at a nesting of 1500, and the input is at most 6144
// bytes, so the decode and the caps walk after it are linear in the input.
func DecodeEnvelope(s string) (*xdr.TransactionEnvelope, error) {
	if s == "" {
		return nil, refuse(CodeTxMalformed)
	}
	if len(s) > MaxEnvelopeChars {
		return nil, refuse(CodeTxTooLarge)
	}
	raw, ok := DecodeBase64(s)
	if !ok {
		return nil, refuse(CodeTxMalformed)
	}
	var env xdr.TransactionEnvelope
	if err := xdr.SafeUnmarshal(raw, &env); err != nil {
		return nil, refuse(CodeTxMalformed)
	}
	if !envelopeWithinCaps(&env) {
		return nil, refuse(CodeTxMalformed)
	}
	return &env, nil
}

// Transfer is what an envelope's one operation transfers and what its
// payer's authorization entry signs.
type Transfer struct {
	Env    *xdr.TransactionEnvelope
	Entry  *xdr.SorobanAuthorizationEntry // the payer's entry, inside Env
	Creds  *xdr.SorobanAddressCredentials // its credentials, inside Env
	V2     bool                           // credentials SOROBAN_CREDENTIALS_ADDRESS_V2 (CAP-71)
	Op     *xdr.InvokeContractArgs        // the operation's call, inside Env
	Fn     *xdr.InvokeContractArgs        // the signed call: the entry's root invocation
	From   string                         // the operation's from, as a strkey
	Asset  string                         // the signed call's token contract, C…
	To     string                         // the signed call's to: G…, C… or M…
	ToMux  *MuxedAddress                  // to split, when it is muxed
	Amount *big.Int                       // the signed call's amount
	Agrees bool                           // the operation calls exactly what is signed
}

// ReadSignedTransfer reads an envelope as a payment (docs/stellar.md,
// "Reading an envelope"), in this order: the network
// (stellar/network-malformed), the envelope (DecodeEnvelope's codes), a v1
// transaction or a fee bump of one (stellar/tx-malformed), exactly one
// operation invoking transfer(from, to, amount) on a contract
// (stellar/not-one-transfer), exactly one address authorization entry of
// from (stellar/no-address-auth), whose root invocation is itself such a
// transfer with no sub-invocations (stellar/not-one-transfer). Whether the
// operation calls exactly the signed invocation is Agrees; the callers
// decide when it matters.
func ReadSignedTransfer(envelope, network string) (*Transfer, error) {
	if _, ok := NetworkID(network); !ok {
		return nil, refuse(CodeNetworkMalformed)
	}
	env, err := DecodeEnvelope(envelope)
	if err != nil {
		return nil, err
	}
	return readTransfer(env)
}

func readTransfer(env *xdr.TransactionEnvelope) (*Transfer, error) {
	var tx *xdr.Transaction
	switch env.Type {
	case xdr.EnvelopeTypeEnvelopeTypeTx:
		tx = &env.V1.Tx
	case xdr.EnvelopeTypeEnvelopeTypeTxFeeBump:
		inner := &env.FeeBump.Tx.InnerTx
		if inner.Type != xdr.EnvelopeTypeEnvelopeTypeTx || inner.V1 == nil {
			return nil, refuse(CodeTxMalformed)
		}
		tx = &inner.V1.Tx
	default:
		return nil, refuse(CodeTxMalformed)
	}
	notOne := refuse(CodeNotOneTransfer)
	if len(tx.Operations) != 1 {
		return nil, notOne
	}
	body := &tx.Operations[0].Body
	if body.Type != xdr.OperationTypeInvokeHostFunction || body.InvokeHostFunctionOp == nil {
		return nil, notOne
	}
	ihf := body.InvokeHostFunctionOp
	if ihf.HostFunction.Type != xdr.HostFunctionTypeHostFunctionTypeInvokeContract || ihf.HostFunction.InvokeContract == nil {
		return nil, notOne
	}
	op := ihf.HostFunction.InvokeContract
	opCall, ok := transferCall(op)
	if !ok {
		return nil, notOne
	}
	t := &Transfer{Env: env, Op: op, From: opCall.from}
	for i := range ihf.Auth {
		e := &ihf.Auth[i]
		var c *xdr.SorobanAddressCredentials
		switch e.Credentials.Type {
		case xdr.SorobanCredentialsTypeSorobanCredentialsAddress:
			c = e.Credentials.Address
		case xdr.SorobanCredentialsTypeSorobanCredentialsAddressV2:
			c = e.Credentials.AddressV2
		default:
			continue // source-account and delegated credentials never qualify
		}
		if who, ok := addressStrkey(c.Address); !ok || who != t.From {
			continue
		}
		if t.Entry != nil {
			return nil, refuse(CodeNoAddressAuth)
		}
		t.Entry, t.Creds = e, c
		t.V2 = e.Credentials.Type == xdr.SorobanCredentialsTypeSorobanCredentialsAddressV2
	}
	if t.Entry == nil {
		return nil, refuse(CodeNoAddressAuth)
	}
	root := &t.Entry.RootInvocation
	if root.Function.Type != xdr.SorobanAuthorizedFunctionTypeSorobanAuthorizedFunctionTypeContractFn ||
		root.Function.ContractFn == nil || len(root.SubInvocations) != 0 {
		return nil, notOne
	}
	signed, ok := transferCall(root.Function.ContractFn)
	if !ok {
		return nil, notOne
	}
	t.Fn = root.Function.ContractFn
	t.Asset, t.To, t.ToMux, t.Amount = signed.contract, signed.to, signed.toMux, signed.amount
	a, errA := op.MarshalBinary()
	b, errB := t.Fn.MarshalBinary()
	t.Agrees = errA == nil && errB == nil && bytes.Equal(a, b)
	return t, nil
}

type call struct {
	contract, from, to string
	toMux              *MuxedAddress
	amount             *big.Int
}

// transferCall reads transfer(from, to, amount) on a contract: from and to
// addresses of an account, a contract or a muxed account, amount an i128.
func transferCall(c *xdr.InvokeContractArgs) (call, bool) {
	if c.ContractAddress.Type != xdr.ScAddressTypeScAddressTypeContract || c.ContractAddress.ContractId == nil ||
		string(c.FunctionName) != "transfer" || len(c.Args) != 3 {
		return call{}, false
	}
	out := call{contract: EncodeContract(*c.ContractAddress.ContractId)}
	var ok bool
	if c.Args[0].Type != xdr.ScValTypeScvAddress || c.Args[1].Type != xdr.ScValTypeScvAddress || c.Args[2].Type != xdr.ScValTypeScvI128 {
		return call{}, false
	}
	if out.from, ok = addressStrkey(*c.Args[0].Address); !ok {
		return call{}, false
	}
	to := c.Args[1].Address
	if out.to, ok = addressStrkey(*to); !ok {
		return call{}, false
	}
	if to.Type == xdr.ScAddressTypeScAddressTypeMuxedAccount {
		out.toMux = &MuxedAddress{Key: to.MuxedAccount.Ed25519, ID: uint64(to.MuxedAccount.Id)}
	}
	out.amount = i128(*c.Args[2].I128)
	return out, true
}

// addressStrkey writes an account, contract or muxed-account address as its
// strkey; claimable balances and liquidity pools are no payer or payee.
func addressStrkey(a xdr.ScAddress) (string, bool) {
	switch a.Type {
	case xdr.ScAddressTypeScAddressTypeAccount:
		if a.AccountId == nil || a.AccountId.Ed25519 == nil {
			return "", false
		}
		return EncodeAccount(*a.AccountId.Ed25519), true
	case xdr.ScAddressTypeScAddressTypeContract:
		if a.ContractId == nil {
			return "", false
		}
		return EncodeContract(*a.ContractId), true
	case xdr.ScAddressTypeScAddressTypeMuxedAccount:
		if a.MuxedAccount == nil {
			return "", false
		}
		return EncodeMuxed(a.MuxedAccount.Ed25519, uint64(a.MuxedAccount.Id)), true
	}
	return "", false
}

// i128 is hi·2^64 + lo with hi signed.
func i128(p xdr.Int128Parts) *big.Int {
	n := big.NewInt(int64(p.Hi))
	n.Lsh(n, 64)
	return n.Add(n, new(big.Int).SetUint64(uint64(p.Lo)))
}

// PreimageHash is SHA-256 of the authorization preimage of the entry as it
// stands (its expiration as written): what the payer's signature covers.
func (t *Transfer) PreimageHash(network string) ([32]byte, error) {
	p, err := t.preimage(network)
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256(p), nil
}

// preimage is the XDR HashIdPreimage of the payer's entry: type 9 (V1
// credentials) or 10 (V2, with the credentials' address) over the network
// id, nonce, expiration ledger and root invocation.
func (t *Transfer) preimage(network string) ([]byte, error) {
	nid, ok := NetworkID(network)
	if !ok {
		return nil, refuse(CodeNetworkMalformed)
	}
	var p xdr.HashIdPreimage
	if t.V2 {
		p = xdr.HashIdPreimage{
			Type: xdr.EnvelopeTypeEnvelopeTypeSorobanAuthorizationWithAddress,
			SorobanAuthorizationWithAddress: &xdr.HashIdPreimageSorobanAuthorizationWithAddress{
				NetworkId: nid, Nonce: t.Creds.Nonce, SignatureExpirationLedger: t.Creds.SignatureExpirationLedger,
				Address: t.Creds.Address, Invocation: t.Entry.RootInvocation,
			},
		}
	} else {
		p = xdr.HashIdPreimage{
			Type: xdr.EnvelopeTypeEnvelopeTypeSorobanAuthorization,
			SorobanAuthorization: &xdr.HashIdPreimageSorobanAuthorization{
				NetworkId: nid, Nonce: t.Creds.Nonce, SignatureExpirationLedger: t.Creds.SignatureExpirationLedger,
				Invocation: t.Entry.RootInvocation,
			},
		}
	}
	b, err := p.MarshalBinary()
	if err != nil {
		return nil, refuse(CodeTxMalformed)
	}
	return b, nil
}
