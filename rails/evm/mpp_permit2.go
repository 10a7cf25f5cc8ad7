package evm

import (
	"math/big"
	"strconv"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// MPPPermit2 is mpp/charge/evm/permit2 (docs/mpp-evm.md, "permit2"): a
// Permit2 PermitWitnessTransferFrom (one transfer) or
// PermitBatchWitnessTransferFrom (the recipient and each split) answering
// an MPP charge challenge on an EVM chain.
//
// Where H goes: the challenge id is base64url(H) and its position, and the
// signed witness's challengeHash is keccak256(id ‖ realm); the Permit2 nonce
// is that hash read as a number. The read-back checks the witness against
// the echoed challenge and reads H from the echoed id.
type MPPPermit2 struct{}

// MPPPermit2ID is the pairing id.
const MPPPermit2ID = mpp.PairingEVMPermit2

// CodeWitnessNotChallengeHash refuses a credential whose witness is not
// the echoed challenge's hash.
const CodeWitnessNotChallengeHash = "mpp/witness-not-challenge-hash"

func (MPPPermit2) ID() string { return MPPPermit2ID }

func (MPPPermit2) Pattern() rails.Pattern { return rails.Pattern{Name: "id-reuse", PublicProof: true} }

func (MPPPermit2) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

// Choose takes the required spender: the address the seller submits the
// permit from (Permit2 lets only it transfer), which a challenge does not
// name.
func (MPPPermit2) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	challenge, from, err := mpp.Choose(read, account, MPPPermit2ID)
	if err != nil {
		return nil, err
	}
	given, err := mpp.Inputs(inputs, mpp.Input{Name: "spender", Kind: "string"})
	if err != nil {
		return nil, err
	}
	return mpp.Choice(challenge, from, now, given), nil
}

type mppPermit2Unsigned struct {
	challenge *jsonv.Object
	source    string
	payload   *jsonv.Object // the credential's payload without its signature
	typedData *jsonv.Object
}

// transfer is one leg of a permit: to whom, how much.
type transfer struct {
	to     string
	amount *big.Int
}

// Build permits the spender to move the request's amount of its currency,
// until the challenge expires: the recipient gets the amount less the
// splits, each split its own; the witness carries the challenge hash and
// the request's externalId ("" when it has none).
func (MPPPermit2) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	o, err := mpp.OfferFor(choice, h, MPPPermit2ID)
	if err != nil {
		return nil, err
	}
	if err := checkedChallengeAddresses(o); err != nil {
		return nil, err
	}
	if a, has := o.Details.GetString("permit2Address"); has && !CheckedAddress(a) {
		return nil, rails.Refuse(mpp.CodeRequestMalformed)
	}
	spender := mpp.String(o.Choice, "spender")
	if !CheckedAddress(spender) {
		return nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	chain := mpp.ChargeChain(o.Checked)
	currency := mpp.String(o.Request, "currency")
	total, _ := mpp.Uint256(mpp.String(o.Request, "amount"))
	legs := []transfer{{to: mpp.String(o.Request, "recipient")}}
	primary := new(big.Int).Set(total)
	v, batch := o.Details.Get("splits")
	splits, _ := jsonv.AsArray(v) // the method check read each split
	for _, s := range splits {
		so, _ := jsonv.AsObject(s)
		n, _ := mpp.Uint256(mpp.String(so, "amount"))
		legs = append(legs, transfer{to: mpp.String(so, "recipient"), amount: n})
		primary.Sub(primary, n)
	}
	if primary.Sign() <= 0 {
		return nil, rails.Refuse(mpp.CodeInputMalformed) // the splits take it all
	}
	legs[0].amount = primary
	challengeHash := mpp.ChallengeHash(mpp.String(o.Challenge, "id"), mpp.String(o.Challenge, "realm"))
	witness := jsonv.Obj("challengeHash", atr.Hash(challengeHash).String(), "externalId", mpp.String(o.Request, "externalId"))
	permit := Permit2Permit{
		ChainID: chain, Batch: batch, Spender: spender, Nonce: NonceDecimal(challengeHash),
		Deadline: strconv.FormatInt(o.Expires, 10), VerifyingContract: mpp.String(o.Details, "permit2Address"),
		Witness: &Permit2Witness{Type: "PaymentWitness", Fields: paymentWitnessFields, Value: witness},
	}
	permitted := make([]jsonv.Value, len(legs))
	details := make([]jsonv.Value, len(legs))
	for i, l := range legs {
		permit.Permitted = append(permit.Permitted, Permit2Token{Token: currency, Amount: l.amount.String()})
		permitted[i] = jsonv.Obj("token", currency, "amount", l.amount.String())
		details[i] = jsonv.Obj("to", l.to, "requestedAmount", l.amount.String())
	}
	typedData, err := permit.typedData(true) // kept in the build; Request hands out copies
	if err != nil {
		return nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	payload := jsonv.Obj("type", "permit2",
		"permit", jsonv.Obj("permitted", permitted, "nonce", permit.Nonce, "deadline", permit.Deadline),
		"transferDetails", details, "witness", witness)
	return &mppPermit2Unsigned{challenge: o.Challenge, source: mpp.Source(chain, o.From), payload: payload, typedData: typedData}, nil
}

// paymentWitnessFields are MPP's witness struct, PaymentWitness {bytes32
// challengeHash, string externalId}.
var paymentWitnessFields = []string{"challengeHash", "bytes32", "externalId", "string"}

func (MPPPermit2) Request(u rails.Unsigned) (rails.Request, error) {
	return jsonv.Obj("kind", "eip712", "typedData", u.(*mppPermit2Unsigned).typedData.Clone()), nil
}

// Complete takes the signature, "0x" hex of 65–8192 bytes.
func (MPPPermit2) Complete(u rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	b := u.(*mppPermit2Unsigned)
	sig, ok := answer.(string)
	if _, okHex := mpp.HexBytes(sig, MinSignatureBytes, MaxSignatureBytes); !ok || !okHex {
		return rails.Completion{}, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	payload := b.payload.Clone()
	payload.Set("signature", sig)
	return rails.Completion{Signed: mpp.Credential(b.challenge, b.source, payload)}, nil
}

// Bound reads H back: the echoed id, once the witness's challengeHash is
// the echoed challenge's hash.
func (MPPPermit2) Bound(presented jsonv.Value) (string, error) {
	e, err := mpp.Echoed(presented, MPPPermit2ID)
	if err != nil {
		return "", err
	}
	if t, _ := e.Payload.GetString("type"); t != "permit2" {
		return "", rails.Refuse(mpp.CodeCredentialType)
	}
	if _, err := readPermit2Payload(e.Payload); err != nil {
		return "", err
	}
	w, _ := e.Payload.GetObject("witness")
	got, err := atr.ParseHash(mpp.String(w, "challengeHash"))
	if err != nil {
		return "", rails.Refuse(mpp.CodeCredentialMalformed)
	}
	if got != atr.Hash(mpp.ChallengeHash(mpp.String(e.Challenge, "id"), mpp.String(e.Challenge, "realm"))) {
		return "", rails.Refuse(CodeWitnessNotChallengeHash)
	}
	return e.H.String(), nil
}

// Summarize states what signing a request Build made grants: the spender
// may move, until the deadline, the permitted amounts (summed) of the one
// token, on the domain's chain. The payee is the spender: the permit does
// not name the recipients (the spender names them when it submits), so
// the spender is whom it pays. The request must be exactly Build's shape
// (readPermit2Request), every entry the same token (CodeRequestUnreadable).
func (MPPPermit2) Summarize(req rails.Request) (rails.Grant, error) {
	bad := rails.Refuse(CodeRequestUnreadable)
	td, _ := req.GetObject("typedData")
	msg, _ := td.GetObject("message")
	want := Permit2Permit{Witness: &Permit2Witness{Type: "PaymentWitness", Fields: paymentWitnessFields}, Permitted: make([]Permit2Token, 1)}
	if pt, _ := td.GetString("primaryType"); pt == "PermitBatchWitnessTransferFrom" {
		v, _ := msg.Get("permitted")
		list, _ := jsonv.AsArray(v)
		if len(list) == 0 || len(list) > mpp.MaxSplits+1 {
			return rails.Grant{}, bad
		}
		want.Batch, want.Permitted = true, make([]Permit2Token, len(list))
	}
	r, err := readPermit2Request(req, want)
	if err != nil {
		return rails.Grant{}, err
	}
	g := r.grant()
	g.Payee = r.spender
	for _, t := range r.permitted[1:] {
		if !SameAddress(t.Token, g.Asset) {
			return rails.Grant{}, bad
		}
		n, _ := new(big.Int).SetString(t.Amount, 10)
		g.Amount.Add(g.Amount, n)
	}
	return g, nil
}

// Reference is what a seller records at claim for a permit2 credential
// that reads back: {network, settleBy (the deadline), transferLog (the
// currency's Transfer whose from, to and value hash to the first transfer,
// the recipient's)}. No log carries the witness, so no binding log is
// named. A source that is no did:pkh is mpp/source-required; a payload
// whose deadline or first transfer does not read is mpp/credential-malformed.
func (p MPPPermit2) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	if _, err := p.Bound(presented); err != nil {
		return nil, err
	}
	e, _ := mpp.Echoed(presented, MPPPermit2ID)
	from, ok := mpp.SourceAddress(mpp.String(e.Credential, "source"))
	if !ok {
		return nil, rails.Refuse(mpp.CodeSourceRequired)
	}
	malformed := rails.Refuse(mpp.CodeCredentialMalformed)
	permit, _ := e.Payload.GetObject("permit")
	deadline, okDeadline := mpp.Uint256(mpp.String(permit, "deadline"))
	dv, _ := e.Payload.Get("transferDetails")
	details, _ := jsonv.AsArray(dv)
	if !okDeadline || len(details) == 0 {
		return nil, malformed
	}
	first, _ := jsonv.AsObject(details[0])
	to := mpp.String(first, "to")
	value, okValue := mpp.Uint256(mpp.String(first, "requestedAmount"))
	if !IsAddress(to) || !okValue {
		return nil, malformed
	}
	digest, err := TransferDigest(TransferFields{From: from, To: to, Value: value})
	if err != nil {
		return nil, malformed
	}
	return jsonv.Obj(
		"network", "eip155:"+strconv.FormatInt(mpp.ChargeChain(e.Checked), 10),
		"settleBy", deadline.String(),
		"transferLog", jsonv.Obj("address", mpp.String(e.Checked.Request, "currency"), "topic0", TopicTransfer.Hex(),
			"identity", "from,to,value", "digest", hex0x(digest[:])),
	), nil
}

// Status reads a Reference (with the settling transaction added) with
// RefStatus: settled only when the recipient's own transfer is in the
// receipt, so a settlement that paid the splits alone is not the payment.
func (MPPPermit2) Status(ref *jsonv.Object, r Reader) Status {
	s, _ := RefStatus(ref, r)
	return s
}
