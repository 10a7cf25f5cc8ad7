package near

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
)

// NearIntents is mpp/charge/nearintents (docs/nearintents.md). Where H
// goes: the challenge's request.externalId, H's LCP string
// "lcp:sha256:0x…", inside the challenge the seller's server binds (its id
// and opaque name H too). The buyer's deposit on the origin chain carries
// nothing of it: the NEAR Intents backend links the deposit address to the
// challenge. No public proof, so the agreement exchange runs first; the
// credential names the deposit by its transaction hash.
//
// termsgate pays the origin networks of EVM chains: the buyer's signer
// sends the token's transfer(recipient, amount) to the deposit address and
// answers its hash, as for mpp/charge/evm/hash.
type NearIntents struct{}

// NearIntentsID is the pairing id.
const NearIntentsID = mpp.PairingNearIntents

// Codes of mpp/charge/nearintents.
const (
	CodeCarrierOccupied     = "near/carrier-occupied"     // the issued externalId holds another value
	CodeNotHashCredential   = "near/not-hash-credential"  // the payload is no {type: "hash"} credential
	CodeCarrierNotChallenge = "mpp/carrier-not-challenge" // it names another hash than the challenge id
	CodeOriginNotServed     = "near/origin-not-served"    // the origin is no EVM chain with an ERC-20 currency
	CodeChallengeExpired    = "mpp/challenge-expired"     // expires is not after the choice's time
)

var (
	_ rails.Pairing    = NearIntents{}
	_ rails.Summarizer = NearIntents{}
	_ rails.Inspector  = NearIntents{}
	_ rails.Mover      = NearIntents{}

	// erc20Currency is CAIP-19 for an ERC-20 token on an EVM chain.
	erc20Currency = regexp.MustCompile(`^eip155:([1-9][0-9]{0,15})/erc20:(0x[0-9a-fA-F]{40})$`)
)

func (NearIntents) ID() string { return NearIntentsID }

func (NearIntents) Pattern() rails.Pattern {
	return rails.Pattern{Name: "opaque-challenge", PublicProof: false}
}

func (NearIntents) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

// origin is what the deposit is: the chain, the token and the deposit
// address, read from a checked challenge; an origin termsgate does not pay
// is near/origin-not-served.
type origin struct {
	chain     int64
	token     string
	recipient string
}

func originOf(c *mpp.Checked) (origin, error) {
	m := erc20Currency.FindStringSubmatch(mpp.String(c.Request, "currency"))
	network := mpp.String(c.Details, "originNetwork")
	if m == nil || network != "eip155:"+m[1] || !evm.IsAddress(mpp.String(c.Request, "recipient")) {
		return origin{}, rails.Refuse(CodeOriginNotServed)
	}
	chain, _ := strconv.ParseInt(m[1], 10, 64)
	return origin{chain: chain, token: m[2], recipient: mpp.String(c.Request, "recipient")}, nil
}

// Choose takes the first challenge offering the pairing whose origin is
// the account's EVM chain.
func (NearIntents) Choose(read rails.Read, account string, _ *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	a, ok := rails.ParseAccount(account)
	if !ok || a.Namespace != "eip155" || !evm.IsAddress(a.Address) {
		return nil, rails.Refuse(mpp.CodeNoPayableOption)
	}
	for _, v := range read.Options {
		if !mpp.OffersPlaced(v, NearIntentsID) {
			continue
		}
		c, _ := jsonv.AsObject(v)
		checked, err := mpp.CheckChallenge(c, true)
		if err != nil {
			continue
		}
		if o, err := originOf(checked); err != nil || "eip155:"+strconv.FormatInt(o.chain, 10) != a.Network() {
			continue
		}
		return mpp.Choice(c.Clone(), a.Address, now, &jsonv.Object{}), nil
	}
	return nil, rails.Refuse(mpp.CodeNoPayableOption)
}

type intentsUnsigned struct {
	challenge *jsonv.Object
	source    string
	request   rails.Request
}

// Build checks the chosen challenge (its id names h, externalId is h's LCP
// string, unexpired at the choice's time) and asks the signer to send the
// deposit: transfer(recipient, amount) on the origin token, broadcast.
func (NearIntents) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	o, err := mpp.OfferFor(choice, h, NearIntentsID)
	if err != nil {
		return nil, err
	}
	if err := carrierOf(o.Checked, h); err != nil {
		return nil, err
	}
	now, _ := jsonv.AsSafeInt(member(o.Choice, "now"))
	if o.Expires <= now {
		return nil, rails.Refuse(CodeChallengeExpired)
	}
	dep, err := originOf(o.Checked)
	if err != nil {
		return nil, err
	}
	// Every EVM address is checked before anything is signed (a mixed-case
	// address whose case is not its EIP-55 checksum is refused); Choose
	// leaves it to the build, after the terms were compared.
	if err := evm.CheckAddresses("from", o.From, "currency", dep.token, "recipient", dep.recipient,
		"refundTo", mpp.String(o.Details, "refundTo")); err != nil {
		return nil, err
	}
	amount, _ := mpp.Uint256(mpp.String(o.Request, "amount"))
	data := evm.TransferCalldata(dep.recipient, amount)
	req := jsonv.Obj("kind", "evm-call", "chainId", dep.chain,
		"call", jsonv.Obj("to", dep.token, "data", "0x"+hexOf(data)), "broadcast", true)
	return &intentsUnsigned{challenge: o.Challenge, source: mpp.Source(dep.chain, o.From), request: req}, nil
}

func member(o *jsonv.Object, k string) jsonv.Value {
	v, _ := o.Get(k)
	return v
}

// carrierOf: the request's externalId is h's LCP string (near/memo-not-lcp
// when it is none, mpp/carrier-not-challenge when it names another hash).
func carrierOf(c *mpp.Checked, h atr.Hash) error {
	ext, ok := c.Request.GetString("externalId")
	lc, isLCP := mpp.ParseLegalContext(ext)
	if !ok || !isLCP {
		return rails.Refuse(CodeMemoNotLCP)
	}
	if !lc.Equal(h) {
		return rails.Refuse(CodeCarrierNotChallenge)
	}
	return nil
}

func (NearIntents) Request(u rails.Unsigned) (rails.Request, error) {
	return u.(*intentsUnsigned).request.Clone(), nil
}

// Moves: the signer sends the deposit itself.
func (NearIntents) Moves(first rails.Request) bool {
	b, _ := first.Get("broadcast")
	return b == true
}

// Summarize is the deposit's transfer (mpp/charge/evm/hash's request form).
func (NearIntents) Summarize(req rails.Request) (rails.Grant, error) {
	return evm.MPPHash{}.Summarize(req)
}

// Complete takes {hash}, the deposit transaction's hash (0x and 64 hex
// digits, mpp/credential-malformed otherwise): the credential {challenge,
// source, payload: {type: "hash", hash}}.
func (NearIntents) Complete(u rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	b := u.(*intentsUnsigned)
	a, _ := jsonv.AsObject(answer)
	hash, ok := a.GetString("hash")
	if !ok || !mpp.IsWord32(hash) {
		return rails.Completion{}, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	return rails.Completion{Signed: mpp.Credential(b.challenge, b.source, jsonv.Obj("type", "hash", "hash", strings.ToLower(hash)))}, nil
}

// echoed is the read-back: the shared MPP steps, a {type: "hash"} payload
// (near/not-hash-credential), externalId naming the challenge's H.
func (NearIntents) echoed(presented jsonv.Value) (*mpp.Bound, error) {
	e, err := mpp.Echoed(presented, NearIntentsID)
	if err != nil {
		return nil, err
	}
	if t, _ := e.Payload.Get("type"); t != "hash" {
		return nil, rails.Refuse(CodeNotHashCredential)
	}
	if err := carrierOf(e.Checked, e.H); err != nil {
		return nil, err
	}
	return e, nil
}

// Bound is H from the echoed challenge's externalId, for a hash credential
// whose challenge id names that H.
func (p NearIntents) Bound(presented jsonv.Value) (string, error) {
	e, err := p.echoed(presented)
	if err != nil {
		return "", err
	}
	return e.H.String(), nil
}

// Inspect states the deposit the credential reports: the request's amount
// of its currency to the deposit address on the origin network, and what
// the solver delivers (Details).
func (p NearIntents) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	e, err := p.echoed(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	r, d := e.Checked.Request, e.Checked.Details
	amount, ok := mpp.Uint256(mpp.String(r, "amount"))
	if !ok {
		return rails.Inspection{}, rails.Refuse(mpp.CodeRequestMalformed)
	}
	network := mpp.String(d, "originNetwork")
	asset := mpp.String(r, "currency")
	decimals := -1
	if m := erc20Currency.FindStringSubmatch(asset); m != nil {
		decimals = rails.KnownDecimals("eip155:"+m[1], m[2])
	}
	payer, _ := mpp.SourceAddress(mpp.String(e.Credential, "source"))
	if payer == "" {
		payer = mpp.String(d, "refundTo") // the address the solver refunds is the payer's
	}
	details := jsonv.Obj("depositTransaction", mpp.String(e.Payload, "hash"),
		"destinationNetwork", mpp.String(d, "destinationNetwork"), "destinationAsset", mpp.String(d, "destinationAsset"),
		"destinationRecipient", mpp.String(d, "destinationRecipient"), "amountOut", mpp.String(d, "amountOut"),
		"refundTo", mpp.String(d, "refundTo"), "realm", mpp.String(e.Challenge, "realm"))
	return rails.Inspection{Pairing: NearIntentsID, Kind: "credential", H: e.H.String(),
		Grant: rails.Grant{Network: network, Asset: asset, Decimals: decimals, Amount: amount, Payer: payer,
			Payee: mpp.String(r, "recipient"), PayableUntil: unixUTC(e.Checked.Expires)},
		WhereH:  "challenge.request.externalId (lcp:sha256:0x…), in the challenge the seller's server binds; also the challenge id; the deposit carries nothing",
		Details: details}, nil
}

// Advertise is the seller's side: the challenge placed (id, opaque, the
// agreement URL), then externalId set to H's LCP string; an issued
// externalId holding another value is near/carrier-occupied.
func (NearIntents) Advertise(doc []jsonv.Value, h atr.Hash, link string, offer *jsonv.Object, agreement string) ([]jsonv.Value, error) {
	if req, ok := mpp.DecodeObject(mpp.String(offer, "request")); ok {
		if ext, has := req.Get("externalId"); has && ext != mpp.LegalContextValue(h) {
			return nil, rails.Refuse(CodeCarrierOccupied)
		}
	}
	placed, err := mpp.Place(doc, h, link, offer, agreement)
	if err != nil {
		return nil, err
	}
	for i, c := range placed {
		o, _ := jsonv.AsObject(c)
		if id, _ := mpp.ChallengeID(h, i); o == nil || mpp.String(o, "id") != id || mpp.String(o, "request") != mpp.String(offer, "request") {
			continue
		}
		req, ok := mpp.DecodeObject(mpp.String(o, "request"))
		if !ok {
			return nil, rails.Refuse(mpp.CodeRequestMalformed)
		}
		req = req.Clone()
		req.Set("externalId", mpp.LegalContextValue(h))
		text := jsonv.Canonical(req)
		if len(text) > mpp.MaxDecoded {
			return nil, rails.Refuse(mpp.CodeRequestMalformed)
		}
		o = o.Clone()
		o.Set("request", mpp.EncodeB64URL(text))
		placed[i] = o
		return placed, nil
	}
	return nil, rails.Refuse(mpp.CodeNotThisPairing)
}

func unixUTC(s int64) time.Time { return time.Unix(s, 0).UTC() }
