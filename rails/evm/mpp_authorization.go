package evm

import (
	"strconv"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// MPPAuthorization is mpp/charge/evm/authorization (docs/protocol.md,
// "EVM pairings on MPP"): an EIP-3009 TransferWithAuthorization answering an MPP charge
// challenge on an EVM chain.
//
// Where H goes: the challenge id is base64url(H) and its position, and the
// signed nonce is keccak256(id ‖ realm), the challenge hash. The token emits
// the nonce in AuthorizationUsed, so a holder of the ATR and the realm can
// recompute it; the read-back checks that the nonce is the echoed
// challenge's hash and reads H from the echoed id.
type MPPAuthorization struct{}

// MPPAuthorizationID is the pairing id.
const MPPAuthorizationID = mpp.PairingEVMAuthorization

// CodeNonceNotChallengeHash refuses a credential whose nonce is not the
// echoed challenge's hash.
const CodeNonceNotChallengeHash = "mpp/nonce-not-challenge-hash"

func (MPPAuthorization) ID() string { return MPPAuthorizationID }

func (MPPAuthorization) Pattern() rails.Pattern {
	return rails.Pattern{Name: "id-reuse", PublicProof: true}
}

func (MPPAuthorization) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

// Choose takes the required tokenDomain, the token's EIP-712 name and
// version, which an MPP challenge does not carry.
func (MPPAuthorization) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	challenge, from, err := mpp.Choose(read, account, MPPAuthorizationID)
	if err != nil {
		return nil, err
	}
	if err := CheckMPPAddresses(challenge, from); err != nil {
		return nil, err
	}
	given, err := mpp.Inputs(inputs, mpp.Input{Name: "tokenDomain", Kind: "object"})
	if err != nil {
		return nil, err
	}
	return mpp.Choice(challenge, from, now, given), nil
}

type mppAuthorizationUnsigned struct {
	challenge     *jsonv.Object
	source        string
	authorization *jsonv.Object // {from, to, value, validAfter, validBefore, nonce}
	typedData     *jsonv.Object
}

// Build signs to the recipient the amount, valid until the challenge
// expires, under the nonce keccak256(id ‖ realm).
func (MPPAuthorization) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	o, err := mpp.OfferFor(choice, h, MPPAuthorizationID)
	if err != nil {
		return nil, err
	}
	u, err := buildAuthorization(o)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return u, nil
}

// buildAuthorization builds from a checked offer: a bound one (Build) or
// one that publishes no terms (unbound.go). Either way the nonce is the
// challenge hash of the challenge's own id and realm.
func buildAuthorization(o *mpp.Offer) (*mppAuthorizationUnsigned, error) {
	nonce := mpp.ChallengeHash(mpp.String(o.Challenge, "id"), mpp.String(o.Challenge, "realm"))
	return buildMPPTransfer(o, mpp.ChargeChain(o.Checked), nonce)
}

// buildMPPTransfer is the EIP-3009 authorization an MPP charge signs (here
// and in mpp/charge/usdc/evm): the request's amount to its recipient, valid
// until the challenge expires, under nonce, in the token domain the buyer
// gave (tokenDomain.name and .version non-empty, mpp/input-malformed).
func buildMPPTransfer(o *mpp.Offer, chain int64, nonce [32]byte) (*mppAuthorizationUnsigned, error) {
	if err := checkedChallengeAddresses(o); err != nil {
		return nil, err
	}
	td, _ := o.Choice.GetObject("tokenDomain")
	name, _ := td.GetString("name")
	version, _ := td.GetString("version")
	if name == "" || version == "" {
		return nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	authorization := jsonv.Obj(
		"from", o.From, "to", mpp.String(o.Request, "recipient"), "value", mpp.String(o.Request, "amount"),
		"validAfter", "0", "validBefore", strconv.FormatInt(o.Expires, 10), "nonce", atr.Hash(nonce).String())
	return &mppAuthorizationUnsigned{
		challenge:     o.Challenge,
		source:        mpp.Source(chain, o.From),
		authorization: authorization,
		typedData:     TransferWithAuthorization(name, version, chain, mpp.String(o.Request, "currency"), authorization),
	}, nil
}

func (MPPAuthorization) Request(u rails.Unsigned) (rails.Request, error) {
	return jsonv.Obj("kind", "eip712", "typedData", u.(*mppAuthorizationUnsigned).typedData.Clone()), nil
}

// Summarize states what signing the request grants: it is the same EIP-3009
// authorization as x402's (SummarizeTransfer).
func (MPPAuthorization) Summarize(req rails.Request) (rails.Grant, error) {
	return SummarizeTransfer(req)
}

// Complete takes the signature, "0x" hex of 65–8192 bytes.
func (MPPAuthorization) Complete(u rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	return completeMPPTransfer(u.(*mppAuthorizationUnsigned), answer)
}

// completeMPPTransfer joins the signature to the authorization as the
// credential's payload {type: "authorization", …authorization, signature}.
func completeMPPTransfer(b *mppAuthorizationUnsigned, answer jsonv.Value) (rails.Completion, error) {
	sig, ok := answer.(string)
	if _, okHex := mpp.HexBytes(sig, MinSignatureBytes, MaxSignatureBytes); !ok || !okHex {
		return rails.Completion{}, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	payload := jsonv.Obj("type", "authorization")
	for _, m := range b.authorization.Members() {
		payload.Set(m.Key, m.Value)
	}
	payload.Set("signature", sig)
	return rails.Completion{Signed: mpp.Credential(b.challenge, b.source, payload)}, nil
}

// Bound reads H back: the echoed id, once the nonce is the echoed
// challenge's hash.
func (MPPAuthorization) Bound(presented jsonv.Value) (string, error) {
	e, err := mpp.Echoed(presented, MPPAuthorizationID)
	if err != nil {
		return "", err
	}
	if t, _ := e.Payload.GetString("type"); t != "authorization" {
		return "", rails.Refuse(mpp.CodeCredentialType)
	}
	nonceText, _ := e.Payload.GetString("nonce")
	nonce, err := atr.ParseHash(nonceText)
	if err != nil {
		return "", rails.Refuse(mpp.CodeCredentialMalformed)
	}
	if nonce != atr.Hash(mpp.ChallengeHash(mpp.String(e.Challenge, "id"), mpp.String(e.Challenge, "realm"))) {
		return "", rails.Refuse(CodeNonceNotChallengeHash)
	}
	return e.H.String(), nil
}

// checkedChallengeAddresses refuses a challenge whose currency or recipient
// is written in mixed case with a failing EIP-55 checksum
// (mpp/request-malformed): it was mistyped or altered, and is not paid.
// Split recipients are not checked: the shared vectors' own split
// (mpp-charge-evm-permit2.json, 0x8Ba1…) fails its checksum and the
// reference gates pay it (docs/mpp-evm.md, "permit2").
func checkedChallengeAddresses(o *mpp.Offer) error {
	if !CheckedAddress(mpp.String(o.Request, "currency")) || !CheckedAddress(mpp.String(o.Request, "recipient")) {
		return rails.Refuse(mpp.CodeRequestMalformed)
	}
	return nil
}
