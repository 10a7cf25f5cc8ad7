package stellar

import (
	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// Charge is mpp/charge/stellar: an MPP charge challenge with
// method="stellar", paid by the payer's Soroban authorization of a transfer
// to request.recipient, the seller's muxed address carrying H's first 8
// bytes. H is also the challenge id and in its opaque.
type Charge struct{}

// ChargeID is the pairing id.
const ChargeID = mpp.PairingStellarCharge

func (Charge) ID() string { return ChargeID }

func (Charge) Pattern() rails.Pattern {
	return rails.Pattern{Name: "truncated-field", PublicProof: true}
}

func (Charge) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

// Choose takes the first challenge offering the pairing on the account's
// network; the buyer gives the simulated envelope and the current ledger.
func (Charge) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	payer, network, ok := stellarAccount(account)
	if !ok {
		return nil, rails.Refuse(mpp.CodeNoPayableOption)
	}
	for _, v := range read.Options {
		if !mpp.OffersPlaced(v, ChargeID) {
			continue
		}
		if n, err := mpp.Network(v); err != nil || n != network {
			continue
		}
		sim, ledger, ok := buyerInputs(inputs)
		if !ok {
			return nil, rails.Refuse(mpp.CodeInputMissing)
		}
		c, _ := jsonv.AsObject(v)
		return jsonv.Obj("challenge", c.Clone(), "payer", payer, "now", now,
			"simulatedXdr", sim, "currentLedger", ledger), nil
	}
	return nil, rails.Refuse(mpp.CodeNoPayableOption)
}

type chargeUnsigned struct {
	challenge *jsonv.Object
	signing   *Signing
}

// Build, in the reference's order: the choice an object
// (stellar/tx-malformed); the challenge as placed, offering the pairing and
// naming h (the MPP codes); the recipient carrying H
// (stellar/carrier-mismatch); the ledger and the clock
// (stellar/tx-malformed); the simulated envelope (SigningFor's codes); then
// the transfer against the request as x402/exact/stellar does.
func (Charge) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, ok := jsonv.AsObject(choice)
	if !ok {
		return nil, refuse(CodeTxMalformed)
	}
	challenge, ok := c.GetObject("challenge")
	if !ok {
		return nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	if _, shaped := mpp.IsChallengeShape(challenge); !shaped || !challenge.Has("id") {
		return nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	checked, err := mpp.CheckChosen(challenge, ChargeID, h)
	if err != nil {
		return nil, err
	}
	recipient := mpp.String(checked.Request, "recipient")
	if !carries(recipient, h) {
		return nil, refuse(CodeCarrierMismatch)
	}
	lv, _ := c.Get(InputCurrentLedger)
	ledger, okLedger := jsonv.AsSafeInt(lv)
	nv, _ := c.Get("now")
	now, okNow := jsonv.AsSafeInt(nv)
	if !okLedger || !okNow {
		return nil, refuse(CodeTxMalformed)
	}
	wait := checked.Expires - now
	if wait < 0 {
		wait = 0
	}
	fp, _ := checked.Details.Get("feePayer")
	sim, _ := c.GetString(InputSimulatedXdr)
	s, err := SigningFor(sim, mpp.String(checked.Details, "network"), ledger+(wait+4)/5, fp == true)
	if err != nil {
		return nil, err
	}
	s.Ledgers = (wait + 4) / 5
	s.ValidUntil = now + s.Ledgers*NominalLedgerSeconds
	amount, ok := mpp.Uint256(mpp.String(checked.Request, "amount"))
	if !ok {
		return nil, refuse(CodeAmountMismatch) // unreachable: the rail check read it
	}
	payer, _ := c.GetString("payer")
	if err := s.matches(recipient, mpp.String(checked.Request, "currency"), amount, payer); err != nil {
		return nil, err
	}
	return &chargeUnsigned{challenge: challenge, signing: s}, nil
}

func (Charge) Request(u rails.Unsigned) (rails.Request, error) {
	return authRequest(u.(*chargeUnsigned).signing), nil
}

// Complete answers the challenge with the credential {challenge, payload:
// {type: "transaction", transaction}}, the challenge echoed as chosen.
func (Charge) Complete(u rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	b := u.(*chargeUnsigned)
	sig, ok := signature(answer)
	if !ok {
		return rails.Completion{}, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	envelope, err := b.signing.Complete(sig)
	if err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: jsonv.Obj(
		"challenge", b.challenge.Clone(),
		"payload", jsonv.Obj("type", "transaction", "transaction", envelope),
	)}, nil
}

// Bound reads H back: the echoed challenge's, once the signed transfer pays
// the echoed recipient, a muxed address whose id is that H's.
func (p Charge) Bound(presented jsonv.Value) (string, error) {
	_, _, h, err := p.read(presented)
	return h, err
}

func (Charge) read(presented jsonv.Value) (*Transfer, string, string, error) {
	e, err := mpp.Echoed(presented, ChargeID)
	if err != nil {
		return nil, "", "", err
	}
	typ, _ := e.Payload.GetString("type")
	if typ != "transaction" && typ != "hash" {
		return nil, "", "", rails.Refuse(mpp.CodeCredentialType)
	}
	tv, has := e.Payload.Get("transaction")
	if !has {
		if typ == "hash" {
			return nil, "", "", refuse(CodeReadFirst) // a pushed payment is the seller's to fetch first
		}
		return nil, "", "", refuse(CodeTxMalformed)
	}
	envelope, ok := tv.(string)
	if !ok {
		return nil, "", "", refuse(CodeTxMalformed)
	}
	network := mpp.String(e.Checked.Details, "network")
	t, err := ReadSignedTransfer(envelope, network)
	if err != nil {
		return nil, "", "", err
	}
	if err := t.carrier(mpp.String(e.Checked.Request, "recipient"), e.H); err != nil {
		return nil, "", "", err
	}
	return t, network, e.H.String(), nil
}

// ReadCredential reads a credential as Bound does and returns the transfer,
// its network and the echoed H.
func (p Charge) ReadCredential(presented jsonv.Value) (*Transfer, string, string, error) {
	return p.read(presented)
}

// Summarize implements rails.Summarizer.
func (Charge) Summarize(req rails.Request) (rails.Grant, error) { return summarize(req) }

// Inspect implements rails.Inspector.
func (p Charge) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	t, network, h, err := p.read(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	return inspect(ChargeID, "credential", t, network, h,
		"payload.transaction: the signed transfer's to is a muxed address whose id is H's first 8 bytes; the full H is the challenge id and its opaque legalContext")
}

// PlaceRequest returns a copy of a Stellar charge request whose recipient,
// a G… account, becomes the muxed address carrying h: the seller's
// placement (stellar/carrier-occupied, stellar/option-malformed).
func PlaceRequest(request *jsonv.Object, h atr.Hash) (*jsonv.Object, error) {
	to, _ := request.GetString("recipient")
	m, err := Muxed(to, h)
	if err != nil {
		return nil, err
	}
	out := request.Clone()
	out.Set("recipient", m)
	return out, nil
}

// PlaceChallenge returns a copy of a Stellar charge challenge as issued whose
// request names the muxed recipient carrying h, re-encoded as base64url of
// canonical JSON; mpp.Place then adds the id and opaque.
func PlaceChallenge(challenge *jsonv.Object, h atr.Hash) (*jsonv.Object, error) {
	request, ok := mpp.DecodeObject(mpp.String(challenge, "request"))
	if !ok {
		return nil, rails.Refuse(mpp.CodeRequestMalformed)
	}
	placed, err := PlaceRequest(request, h)
	if err != nil {
		return nil, err
	}
	out := challenge.Clone()
	out.Set("request", mpp.EncodeObject(placed))
	return out, nil
}
