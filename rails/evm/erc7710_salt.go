package evm

import (
	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// ExactERC7710Salt is x402/exact/eip155/erc7710-salt. Where H goes: the
// salt of the leaf delegation (the first of payload.permissionContext's
// abi.encode(Delegation[])) that the payer's delegator signed under
// MetaMask's DelegationManager v1.3.0; the manager emits it in a
// RedeemedDelegation log when it redeems the context, so the payment is a
// public proof (docs/erc7710.md).
type ExactERC7710Salt struct{}

// ExactERC7710SaltID is the pairing id.
const ExactERC7710SaltID = "x402/exact/eip155/erc7710-salt"

var (
	_ rails.Pairing    = ExactERC7710Salt{}
	_ rails.Summarizer = ExactERC7710Salt{}
)

var exactERC7710Salt = x402ERC7710{id: ExactERC7710SaltID, salt: true}

func (ExactERC7710Salt) ID() string { return ExactERC7710SaltID }

func (ExactERC7710Salt) Pattern() rails.Pattern {
	return rails.Pattern{Name: "native-field", PublicProof: true}
}

// Read serves the erc7710 options (the two levels share them).
func (ExactERC7710Salt) Read(doc jsonv.Value) (rails.Read, error) { return exactERC7710Salt.read(doc) }

func (ExactERC7710Salt) Choose(read rails.Read, account string, _ *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	return chooseEVM(read, account, now)
}

// Build asks the wallet for a permission context under MetaMask's
// DelegationManager whose leaf salt is H.
func (ExactERC7710Salt) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	return exactERC7710Salt.build(choice, h)
}

func (ExactERC7710Salt) Request(u rails.Unsigned) (rails.Request, error) { return erc7710RequestOf(u) }

func (ExactERC7710Salt) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	return completeDelegation(u, answer, chosen)
}

// Bound reads H back: the manager must be MetaMask's on a chain where it is
// deployed (x402/manager-not-reference), the context must decode
// (x402/permission-context-malformed) and hold a delegation
// (x402/delegation-empty); H is the leaf's salt.
func (ExactERC7710Salt) Bound(presented jsonv.Value) (string, error) {
	d, _, err := saltLeaf(presented)
	if err != nil {
		return "", err
	}
	return hex0x(d.Salt[:]), nil
}

func saltLeaf(presented jsonv.Value) (Delegation, erc7710Presented, error) {
	got, err := exactERC7710Salt.presented(presented)
	if err != nil {
		return Delegation{}, got, err
	}
	network, _ := got.accepted.GetString("network")
	if !IsReferenceManager(got.manager, network) {
		return Delegation{}, got, rails.Refuse(CodeManagerNotReference)
	}
	raw, ok := HexBytes(got.context)
	if !ok {
		return Delegation{}, got, rails.Refuse(CodePermissionContextMalformed)
	}
	ds, err := DecodePermissionContext(raw)
	if err != nil {
		return Delegation{}, got, rails.Refuse(CodePermissionContextMalformed)
	}
	if len(ds) == 0 {
		return Delegation{}, got, rails.Refuse(CodeDelegationEmpty)
	}
	return ds[0], got, nil
}

// Summarize states what the request asks the wallet to delegate.
func (ExactERC7710Salt) Summarize(req rails.Request) (rails.Grant, error) {
	return summarizeERC7710(req)
}

// Reference is what a seller records at claim: the transfer from the
// delegator to payTo and the RedeemedDelegation whose leaf salt is H.
func (p ExactERC7710Salt) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	h, err := p.Bound(presented)
	if err != nil {
		return nil, err
	}
	return exactERC7710Salt.reference(presented, h)
}

// Status reads a reference with a transaction (RefStatus).
func (ExactERC7710Salt) Status(ref *jsonv.Object, r Reader) Status {
	s, _ := RefStatus(ref, r)
	return s
}

// Recover reads H from the settlement alone (RedeemedLeafRecover).
func (ExactERC7710Salt) Recover(ref *jsonv.Object, r Reader) (string, error) {
	return RedeemedLeafRecover(ref, r)
}

// Inspect states what a payment grants and where H sits.
func (p ExactERC7710Salt) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	h, err := p.Bound(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	in, err := exactERC7710Salt.inspect(payment, h,
		"payload.permissionContext: the salt of its first (leaf) delegation is H; on chain, data word 5 of the DelegationManager's RedeemedDelegation log")
	if err == nil {
		d, _, _ := saltLeaf(payment)
		in.Details.Set("leafDelegate", d.Delegate)
		in.Details.Set("leafDelegator", d.Delegator)
		in.Details.Set("leafCaveats", jsonv.Number(len(d.Caveats)))
	}
	return in, err
}
