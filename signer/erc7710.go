package signer

import (
	"context"
	"fmt"
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
)

// DelegationIssuer decides the leaf delegation the local key issues for an
// erc7710 request (rails/evm's KindERC7710): who may redeem it (a delegate,
// or evm.AnyDelegate) and the caveats that hold it to the requested
// payment. The key knows no caveat enforcers of its own, and an
// unrestricted delegation would let the delegate act as the account, so
// without an issuer the key refuses erc7710 requests.
type DelegationIssuer func(req rails.Request) (delegate string, caveats []evm.Caveat, err error)

// WithDelegations returns l answering erc7710 requests with leaf
// delegations that issue shapes.
func (l *Local) WithDelegations(issue DelegationIssuer) *Local {
	c := *l
	c.delegations = issue
	return &c
}

// signDelegation answers an erc7710 request: a root delegation from the
// key's address with the request's salt, signed as the DelegationManager
// verifies it (EIP-712 under its domain), in a permission context of its
// own: {delegationManager, permissionContext, delegator}.
func (l *Local) signDelegation(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if l.delegations == nil {
		return nil, fmt.Errorf("signer: the local key issues ERC-7710 delegations only with a DelegationIssuer (WithDelegations)")
	}
	manager, _ := req.GetString("delegationManager")
	delegator, _ := req.GetString("delegator")
	saltText, _ := req.GetString("salt")
	cv, _ := req.Get("chainId")
	chain, okChain := jsonv.AsSafeInt(cv)
	salt, err := atr.ParseHash(saltText)
	if !evm.IsAddress(manager) || !okChain || chain <= 0 || err != nil {
		return nil, fmt.Errorf("signer: erc7710 request without a manager, chain id or 32-byte salt")
	}
	if !strings.EqualFold(delegator, l.address.Hex()) {
		return nil, fmt.Errorf("signer: erc7710 request for delegator %s, not this key's %s", delegator, l.address.Hex())
	}
	delegate, caveats, err := l.delegations(req)
	if err != nil {
		return nil, fmt.Errorf("signer: erc7710: %w", err)
	}
	if !evm.IsAddress(delegate) || len(caveats) == 0 {
		return nil, fmt.Errorf("signer: erc7710: the issuer gave no delegate or no caveats")
	}
	d := evm.Delegation{Delegate: delegate, Delegator: l.address.Hex(), Caveats: caveats, Salt: salt}
	root, _ := evm.HexBytes(evm.RootAuthority)
	copy(d.Authority[:], root)
	digest, err := evm.TypedDataDigest(evm.DelegationTypedData(chain, manager, d))
	if err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	sig, err := l.signDigest(digest)
	if err != nil {
		return nil, err
	}
	d.Signature, _ = evm.HexBytes(sig)
	return jsonv.Obj("delegationManager", manager,
		"permissionContext", "0x"+fmt.Sprintf("%x", evm.EncodePermissionContext([]evm.Delegation{d})),
		"delegator", l.address.Hex()), nil
}
