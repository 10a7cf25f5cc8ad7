package tempo

import (
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// mpp/session/tempo's channel members (docs/protocol.md, "Channels", "Tempo"): the
// vouchers the buyer signs inside a channel it opened, and the readings of a
// channel payment the gate checks before and after they are signed.
//
// Where H is: the opening's salt. A voucher signs (channelId,
// cumulativeAmount) under the escrow's EIP-712 domain, and the channel id
// commits to the salt; on v2 the voucher's credential carries the opening's
// descriptor, whose salt is H and whose nine-word hash is the channel id, so
// BoundWithin reads H from it. A v1 voucher carries no descriptor: its H is
// the opening's, through the channel it names (mpp/not-bound-within).
//
// A payment inside the channel answers a challenge the seller issues with its
// own id, often naming the channel (methodDetails.channelId), which the
// opening's checks refuse as a resume; so these members read a challenge's
// chain and escrow without those checks (channelParamsOf).

// Refusal codes of the channel members, as the reference names them.
const (
	CodeSessionAction        = mpp.CodeSessionAction         // a payload action no session payment has
	CodeNotBoundWithin       = "mpp/not-bound-within"        // a voucher carrying no H of its own (v1)
	CodeWithinActionNotBuilt = "mpp/within-action-not-built" // topUp and the other actions the buyer does not build
)

var (
	_ rails.Channel       = Session{}
	_ rails.WithinBuilder = Session{}
	_ rails.ChannelNamer  = Session{}
)

// channelParams are the chain and escrow of a session challenge (or the chain
// of a subscription's), read without the opening's checks.
type channelParams struct {
	chain   int64
	escrow  string // as written
	v2      bool
	details *jsonv.Object
}

// network is "eip155:<chain>", the form a ChannelRef names.
func (p *channelParams) network() string { return eip155(p.chain) }

// channelParamsOf reads a session/tempo challenge's request: its chain
// (chainId, or 4217 when a session names none), escrow and version. Codes:
// mpp/credential-malformed (no challenge with a request string),
// mpp/not-this-pairing, mpp/request-malformed, mpp/chain-id-required,
// mpp/escrow-malformed.
func channelParamsOf(v jsonv.Value) (*channelParams, error) {
	return settlementParamsOf(v, "session")
}

// normalWord is a bytes32 in lowercase ("0x" and 64 hex in either case as
// given), the one spelling channel ids are compared in.
func normalWord(v jsonv.Value) (string, bool) {
	s, ok := v.(string)
	if !ok || !mpp.IsWord32(s) {
		return "", false
	}
	return strings.ToLower(s), true
}

// payloadOf is the payment's payload object.
func payloadOf(signed jsonv.Value) (*jsonv.Object, error) { return mpp.SessionPayload(signed) }

// credentialOf is a credential's shape: an object whose challenge has the
// challenge shape and a string id (any id: the seller issues within
// challenges itself), with a payload object and a string source where
// present.
func credentialOf(v jsonv.Value) (*jsonv.Object, error) {
	cred, ok := jsonv.AsObject(v)
	if !ok {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	cv, _ := cred.Get("challenge")
	c, ok := mpp.IsChallengeShape(cv)
	if !ok {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	if _, ok := c.GetString("id"); !ok {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	if _, ok := cred.GetObject("payload"); !ok {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	if s, has := cred.Get("source"); has {
		if _, ok := s.(string); !ok {
			return nil, rails.Refuse(mpp.CodeCredentialMalformed)
		}
	}
	return cred, nil
}

// ChannelKind: open for the opening, within for a voucher (or a top-up,
// which the buyer does not build but a seller may show), close for the
// close.
func (Session) ChannelKind(signed jsonv.Value) (rails.ChannelKind, error) {
	return mpp.SessionChannelKind(signed)
}

// ChannelRef is the network of the payment's challenge and its payload's
// channelId, in lowercase.
func (Session) ChannelRef(signed jsonv.Value) (rails.ChannelRef, error) {
	p, err := payloadOf(signed)
	if err != nil {
		return rails.ChannelRef{}, err
	}
	cred, _ := jsonv.AsObject(signed) // payloadOf read it as an object
	c, _ := cred.Get("challenge")
	params, err := channelParamsOf(c)
	if err != nil {
		return rails.ChannelRef{}, err
	}
	channel, ok := normalWord(member(p, "channelId"))
	if !ok {
		return rails.ChannelRef{}, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	return rails.ChannelRef{Network: params.network(), Channel: channel}, nil
}

func member(o *jsonv.Object, k string) jsonv.Value {
	v, _ := o.Get(k)
	return v
}

// BoundWithin reads H from a v2 voucher's descriptor: its nine-word hash,
// with the challenge's escrow and chain, must be the payload's channel
// (tempo/descriptor-mismatch), and its salt is H. A v1 voucher carries no
// descriptor: mpp/not-bound-within.
func (Session) BoundWithin(signed jsonv.Value) (string, error) {
	cred, err := credentialOf(signed)
	if err != nil {
		return "", err
	}
	c, _ := cred.Get("challenge")
	params, err := channelParamsOf(c)
	if err != nil {
		return "", err
	}
	if !params.v2 {
		return "", rails.Refuse(CodeNotBoundWithin)
	}
	payload, _ := cred.GetObject("payload")
	channel, ok := parseWord(mpp.String(payload, "channelId"))
	if !ok {
		return "", rails.Refuse(CodeDescriptorMismatch)
	}
	salt, err := descriptorSalt(payload, &sessionParams{chain: params.chain, escrow: params.escrow, v2: true}, channel)
	if err != nil {
		return "", err
	}
	return atr.Hash(salt).String(), nil
}

// NamedChannel is the channel a session challenge names for the buyer to
// resume (methodDetails.channelId, a bytes32, compared in lowercase), on the
// challenge's network; named is false when it names none. A challenge that
// is not a session/tempo one is mpp/not-this-pairing; a channel id that is
// no bytes32 is mpp/request-malformed.
func (Session) NamedChannel(challenge jsonv.Value) (ref rails.ChannelRef, named bool, err error) {
	p, err := channelParamsOf(challenge)
	if err != nil {
		return rails.ChannelRef{}, false, err
	}
	v, has := p.details.Get("channelId")
	if !has {
		return rails.ChannelRef{}, false, nil
	}
	channel, ok := normalWord(v)
	if !ok {
		return rails.ChannelRef{}, false, rails.Refuse(mpp.CodeRequestMalformed)
	}
	return rails.ChannelRef{Network: p.network(), Channel: channel}, true, nil
}

// withinUnsigned is one voucher on a held channel.
type withinUnsigned struct {
	challenge  *jsonv.Object
	action     rails.WithinAction
	channel    string
	cumulative string
	descriptor *jsonv.Object // v2: the opening's
	request    rails.Request
}

func (u *withinUnsigned) Requests() []rails.Request { return []rails.Request{u.request.Clone()} }

// Complete takes the voucher signature (65 to 8192 bytes of hex) and returns
// the credential {challenge, payload: {action, channelId, cumulativeAmount,
// signature, descriptor?}}, the challenge a copy of the within challenge.
// It carries no source: the channel names the payer.
func (u *withinUnsigned) Complete(answers []string) (jsonv.Value, error) {
	if len(answers) != 1 {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	if _, ok := mpp.HexBytes(answers[0], 65, 8192); !ok {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	payload := jsonv.Obj("action", string(u.action), "channelId", u.channel,
		"cumulativeAmount", u.cumulative, "signature", answers[0])
	if u.descriptor != nil {
		payload.Set("descriptor", u.descriptor.Clone())
	}
	return jsonv.Obj("challenge", u.challenge.Clone(), "payload", payload), nil
}

// BuildWithin builds the voucher (or the close's final voucher) on the
// held opening's channel, in the reference's order of checks: the within
// challenge's shape with a string id (mpp/input-malformed) and its intent
// and method (mpp/not-this-pairing); the opening read back as the opening
// check reads it (its codes), carrying h (mpp/id-not-ours); the cumulative
// amount below 2^96 on v2, 2^128 on v1 (mpp/input-malformed); the action.
// The channel id, escrow, chain and descriptor all come from the opening.
func (Session) BuildWithin(w rails.Within, h atr.Hash) (rails.InChannel, error) {
	c, err := mpp.WithinChallenge(w.Challenge, "tempo")
	if err != nil {
		return nil, err
	}
	if w.Opening == nil {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	if _, err := credentialOf(w.Opening); err != nil {
		return nil, err
	}
	inside, err := Session{}.Bound(w.Opening)
	if err != nil {
		return nil, err
	}
	if !atr.EqualText(inside, h) {
		return nil, rails.Refuse(mpp.CodeIDNotOurs)
	}
	oc, _ := w.Opening.Get("challenge")
	p, err := channelParamsOf(oc)
	if err != nil {
		return nil, err
	}
	limit := two128
	if p.v2 {
		limit = two96
	}
	if w.Cumulative == nil || w.Cumulative.Sign() < 0 || w.Cumulative.Cmp(limit) >= 0 {
		return nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	switch w.Action {
	case rails.WithinVoucher, rails.WithinClose:
	case "topUp", "use", "bearer":
		return nil, rails.Refuse(CodeWithinActionNotBuilt)
	default:
		return nil, rails.Refuse(CodeSessionAction)
	}
	payload, _ := w.Opening.GetObject("payload")
	channelText, _ := normalWord(member(payload, "channelId")) // Bound checked it
	channel, _ := parseWord(channelText)
	u := &withinUnsigned{
		challenge: c, action: w.Action, channel: channelText, cumulative: w.Cumulative.String(),
		request: jsonv.Obj("kind", "eip712", "typedData", VoucherTypedData(p.v2, p.chain, p.escrow, channel, w.Cumulative)),
	}
	if p.v2 {
		u.descriptor, _ = payload.GetObject("descriptor") // Bound checked it
	}
	return u, nil
}
