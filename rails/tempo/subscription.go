package tempo

import (
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
)

// Subscription is mpp/subscription/tempo (docs/protocol.md, "Tempo"): the
// account's root key signs a key authorization granting the seller's access
// key a per-period limit on the currency, for transferWithMemo to the
// recipient only.
//
// Where H goes: the key authorization's witness. The chain emits it as topic
// 2 of the account keychain's KeyAuthorizationWitness log when the key is
// registered, so anyone holding the ATR can find the subscription. The
// challenge id is the bare base64url of H.
type Subscription struct{}

// SubscriptionID is the pairing id.
const SubscriptionID = mpp.PairingSubscription

func (Subscription) ID() string { return SubscriptionID }

func (Subscription) Pattern() rails.Pattern {
	return rails.Pattern{Name: "native-field", PublicProof: true}
}

func (Subscription) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

// Choose takes no inputs.
func (Subscription) Choose(read rails.Read, account string, _ *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	challenge, from, err := mpp.Choose(read, account, SubscriptionID)
	if err != nil {
		return nil, err
	}
	if err := checkAddresses(from); err != nil {
		return nil, err
	}
	return mpp.Choice(challenge, from, now, nil), nil
}

var keyTypes = map[string]int{"secp256k1": KeyTypeSecp256k1, "p256": KeyTypeP256, "webAuthn": KeyTypeWebAuthn}

// Seconds of a period unit.
const (
	day  = 86_400
	week = 604_800
)

var two64 = new(big.Int).Lsh(big.NewInt(1), 64)

type subscriptionUnsigned struct {
	auth      *KeyAuthorization
	request   rails.Request
	challenge *jsonv.Object
	source    string
}

// Build writes the key authorization with witness = H: the challenge's
// chain, the access key, expiry at subscriptionExpires, one limit of amount
// per periodCount periods on the currency, calls to the currency of
// transferWithMemo to the recipient.
func (Subscription) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	o, err := mpp.OfferFor(choice, h, SubscriptionID)
	if err != nil {
		return nil, err
	}
	auth, chain, err := subscriptionAuthorization(o.Request, o.Details, h)
	if err != nil {
		return nil, err
	}
	digest, err := auth.Digest()
	if err != nil {
		return nil, err
	}
	req := jsonv.Obj("kind", KindTempoKeyAuthorization, "authorization", auth.JSON(), "digest", hex0x(digest[:]))
	return &subscriptionUnsigned{auth: auth, request: req, challenge: o.Challenge, source: mpp.Source(chain, o.From)}, nil
}

// subscriptionAuthorization is the key authorization a subscription
// challenge's request r (with its methodDetails) asks for, witness h: what
// Build signs, and what Inspect compares a signed one with.
func subscriptionAuthorization(r, details *jsonv.Object, h atr.Hash) (*KeyAuthorization, int64, error) {
	bad := rails.Refuse(CodeKeyAuthorizationMalformed)
	key, _ := details.GetObject("accessKey")
	chain, _ := mpp.ChainIDOf(details, "chainId")
	expiry, _ := mpp.UnixOf(mpp.String(r, "subscriptionExpires"))
	amount, _ := mpp.Uint256(mpp.String(r, "amount"))
	count, _ := new(big.Int).SetString(mpp.String(r, "periodCount"), 10)
	unit := int64(day)
	if mpp.String(r, "periodUnit") == "week" {
		unit = week
	}
	if count == nil || count.Sign() < 0 {
		return nil, 0, bad
	}
	period := new(big.Int).Mul(count, big.NewInt(unit))
	if expiry < 0 || period.Cmp(two64) >= 0 || amount == nil {
		return nil, 0, bad
	}
	currency := mpp.String(r, "currency")
	return &KeyAuthorization{
		ChainID: uint64(chain),
		KeyType: keyTypes[mpp.String(key, "keyType")],
		KeyID:   mpp.String(key, "accessKeyAddress"),
		Expiry:  uint64(expiry),
		Limits:  []Limit{{Token: currency, Limit: amount, Period: period.Uint64()}},
		AllowedCalls: []Scope{{Target: currency, Rules: []SelectorRule{{
			Selector: SelectorTransferWithMemo, Recipients: []string{mpp.String(r, "recipient")},
		}}}},
		Witness: h,
	}, chain, nil
}

func (Subscription) Request(u rails.Unsigned) (rails.Request, error) {
	return u.(*subscriptionUnsigned).request.Clone(), nil
}

// Complete takes the root key's signature of the digest (65–8192 bytes) and
// writes the signed authorization, rlp([authorization, signature]).
func (Subscription) Complete(un rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	u := un.(*subscriptionUnsigned)
	s, _ := answer.(string)
	sig, ok := mpp.HexBytes(s, 65, 8192)
	if !ok {
		return rails.Completion{}, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	signed, err := u.auth.EncodeSigned(sig)
	if err != nil {
		return rails.Completion{}, err
	}
	payload := jsonv.Obj("type", "keyAuthorization", "signature", hex0x(signed))
	return rails.Completion{Signed: mpp.Credential(u.challenge, u.source, payload)}, nil
}

// Bound reads H back: the signed authorization's witness.
func (Subscription) Bound(presented jsonv.Value) (string, error) {
	e, err := mpp.Echoed(presented, SubscriptionID)
	if err != nil {
		return "", err
	}
	if t, _ := e.Payload.GetString("type"); t != "keyAuthorization" {
		return "", rails.Refuse(CodeNotAnOpening)
	}
	signed, ok := e.Payload.GetString("signature")
	if !ok {
		return "", rails.Refuse(CodeKeyAuthorizationMalformed)
	}
	k, err := DecodeKeyAuthorization(signed)
	if err != nil {
		return "", err
	}
	if k.Witness == nil {
		return "", rails.Refuse(CodeNoWitness)
	}
	if atr.Hash(k.Witness) != e.H {
		return "", rails.Refuse(CodeWitnessNotBound)
	}
	return e.H.String(), nil
}

// Summarize states what signing the key authorization grants: the access
// key may move the limit of its one token every period, to the one
// recipient its one scope allows, on the authorization's chain, until its
// expiry (no expiry, 0, is never). Amount is the limit per Period. Anything
// the summary could not state in one Grant (several limits, scopes, rules
// or recipients, a scope on another target than the limited token, a call
// other than transferWithMemo) is refused, as is a digest that is not the
// authorization's.
func (Subscription) Summarize(req rails.Request) (rails.Grant, error) {
	bad := rails.Refuse(CodeRequestUnreadable)
	if req == nil || req.Len() != 3 {
		return rails.Grant{}, bad
	}
	if kind, _ := req.GetString("kind"); kind != KindTempoKeyAuthorization {
		return rails.Grant{}, bad
	}
	ao, _ := req.GetObject("authorization")
	digestText, _ := req.GetString("digest")
	if ao == nil {
		return rails.Grant{}, bad
	}
	auth, err := KeyAuthorizationFromJSON(ao)
	if err != nil || !jsonv.Equal(ao, auth.JSON()) {
		return rails.Grant{}, bad
	}
	digest, err := auth.Digest()
	if d, ok := parseWord(digestText); err != nil || !ok || d != digest {
		return rails.Grant{}, bad
	}
	if len(auth.Limits) != 1 || len(auth.AllowedCalls) != 1 || auth.ChainID > 1<<53 {
		return rails.Grant{}, bad
	}
	l, scope := auth.Limits[0], auth.AllowedCalls[0]
	if len(scope.Rules) != 1 || len(scope.Rules[0].Recipients) != 1 || scope.Rules[0].Selector != SelectorTransferWithMemo ||
		common.HexToAddress(scope.Target) != common.HexToAddress(l.Token) || l.Period == 0 || l.Period > 1<<40 {
		return rails.Grant{}, bad
	}
	network := eip155(int64(auth.ChainID))
	until := time.Unix(evm.MaxUnix, 0)
	if auth.Expiry != 0 && auth.Expiry < evm.MaxUnix {
		until = time.Unix(int64(auth.Expiry), 0)
	}
	return rails.Grant{
		Network: network, Asset: l.Token, Decimals: rails.KnownDecimals(network, l.Token),
		Amount: new(big.Int).Set(l.Limit), Payee: scope.Rules[0].Recipients[0],
		PayableFrom: time.Unix(0, 0), PayableUntil: until, Period: time.Duration(l.Period) * time.Second,
	}, nil
}
