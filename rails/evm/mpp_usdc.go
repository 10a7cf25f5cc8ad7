package evm

import (
	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// MPPUSDC is mpp/charge/usdc/evm (docs/mpp-evm.md, "usdc"): MPP's usdc
// method, EVM profile, answered with an EIP-3009 TransferWithAuthorization.
//
// Where H goes: the challenge id is base64url(H) and its position; the
// signed EIP-3009 nonce is keccak256 of the RFC 8785 JSON {id, intent,
// method, realm, requestHash}, requestHash being keccak256 of the request
// parameter's bytes. The token emits the nonce in AuthorizationUsed; the
// read-back recomputes it from the echoed challenge and reads H from the id.
type MPPUSDC struct{}

// MPPUSDCID is the pairing id.
const MPPUSDCID = mpp.PairingUSDCEVM

func (MPPUSDC) ID() string { return MPPUSDCID }

func (MPPUSDC) Pattern() rails.Pattern { return rails.Pattern{Name: "id-reuse", PublicProof: true} }

func (MPPUSDC) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

// Choose takes the required tokenDomain (the token's EIP-712 name and
// version), which the challenge does not carry.
func (MPPUSDC) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	challenge, from, err := mpp.Choose(read, account, MPPUSDCID)
	if err != nil {
		return nil, err
	}
	given, err := mpp.Inputs(inputs, mpp.Input{Name: "tokenDomain", Kind: "object"})
	if err != nil {
		return nil, err
	}
	return mpp.Choice(challenge, from, now, given), nil
}

// Build signs the request's amount to its recipient, valid until the
// challenge expires, under usdc's nonce over the chosen challenge.
func (MPPUSDC) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	o, err := mpp.OfferFor(choice, h, MPPUSDCID)
	if err != nil {
		return nil, err
	}
	nonce, err := usdcNonceOf(o.Challenge)
	if err != nil {
		return nil, err
	}
	u, err := buildMPPTransfer(o, usdcChain(o.Checked), nonce)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return u, nil
}

// usdcNonceOf is usdc's nonce over a challenge's id, realm and request.
func usdcNonceOf(c *jsonv.Object) ([32]byte, error) {
	rh, err := mpp.USDCRequestHash(mpp.String(c, "request"))
	if err != nil {
		return [32]byte{}, err
	}
	return mpp.USDCNonce(mpp.String(c, "id"), mpp.String(c, "realm"), rh), nil
}

// usdcChain is the EVM profile's chainId (its check requires it).
func usdcChain(c *mpp.Checked) int64 {
	_, p, _ := mpp.USDCProfile(c.Details)
	n, _ := mpp.ChainIDOf(p, "chainId")
	return n
}

func (MPPUSDC) Request(u rails.Unsigned) (rails.Request, error) {
	return jsonv.Obj("kind", "eip712", "typedData", u.(*mppAuthorizationUnsigned).typedData.Clone()), nil
}

// Summarize states what signing grants: an EIP-3009 authorization, read as
// x402's is (SummarizeTransfer).
func (MPPUSDC) Summarize(req rails.Request) (rails.Grant, error) { return SummarizeTransfer(req) }

// Complete takes the signature, "0x" hex of 65–8192 bytes.
func (MPPUSDC) Complete(u rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	return completeMPPTransfer(u.(*mppAuthorizationUnsigned), answer)
}

// Bound reads H back: the echoed id, once the nonce is usdc's nonce over
// the echoed challenge (mpp/nonce-not-usdc-derivation).
func (MPPUSDC) Bound(presented jsonv.Value) (string, error) {
	e, err := mpp.Echoed(presented, MPPUSDCID)
	if err != nil {
		return "", err
	}
	if t, _ := e.Payload.GetString("type"); t != "authorization" {
		return "", rails.Refuse(mpp.CodeCredentialType)
	}
	nonce, err := atr.ParseHash(mpp.String(e.Payload, "nonce"))
	if err != nil {
		return "", rails.Refuse(mpp.CodeCredentialMalformed)
	}
	want, err := usdcNonceOf(e.Challenge)
	if err != nil {
		return "", err
	}
	if nonce != atr.Hash(want) {
		return "", rails.Refuse(mpp.CodeNotUSDCNonce)
	}
	// A payload without the transfer it authorizes signs nothing a seller
	// could submit: refused here as Inspect refuses it.
	if _, err := mppTransferGrant(e, ""); err != nil {
		return "", err
	}
	return e.H.String(), nil
}
