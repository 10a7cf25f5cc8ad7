package stellar

import (
	"math/big"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/x402"
)

// Exact is x402/exact/stellar: an x402 v2 "exact" option on a Stellar
// network, paid by the payer's Soroban authorization of a token transfer to
// the option's payTo, the seller's muxed address carrying H's first 8 bytes.
type Exact struct{}

// ExactID is the pairing id.
const ExactID = "x402/exact/stellar"

func (Exact) ID() string { return ExactID }

// Pattern: the transfer event names the muxed id, so the payment is public;
// but only 8 bytes of H ride in it (a truncated field).
func (Exact) Pattern() rails.Pattern {
	return rails.Pattern{Name: "truncated-field", PublicProof: true}
}

// serves is the option filter: exact, a Stellar network, a C… asset, a G…
// or M… payTo, and fees sponsored by the facilitator.
func serves(o *jsonv.Object) bool {
	if s, _ := o.GetString("scheme"); s != "exact" {
		return false
	}
	if n, _ := o.GetString("network"); n != Pubnet && n != Testnet {
		return false
	}
	asset, _ := o.GetString("asset")
	if _, ok := DecodeContract(asset); !ok {
		return false
	}
	payTo, _ := o.GetString("payTo")
	_, isG := DecodeAccount(payTo)
	_, isM := DecodeMuxed(payTo)
	if !isG && !isM {
		return false
	}
	extra, ok := o.GetObject("extra")
	if !ok {
		return false
	}
	sponsored, _ := extra.Get("areFeesSponsored")
	return sponsored == true
}

func (Exact) Read(doc jsonv.Value) (rails.Read, error) { return x402.Read(doc, serves) }

// Choose takes the first served option on the account's network; the buyer
// gives the simulated envelope and the current ledger.
func (Exact) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	payer, network, ok := stellarAccount(account)
	if !ok {
		return nil, rails.Refuse(x402.CodeNoPayableOption)
	}
	for _, opt := range read.Options {
		o, _ := jsonv.AsObject(opt)
		if n, _ := o.GetString("network"); n != network {
			continue
		}
		sim, ledger, ok := buyerInputs(inputs)
		if !ok {
			return nil, rails.Refuse(codeX402InputMissing)
		}
		// now is kept only to state the request's deadline (grant.go); the
		// expiration itself is counted in ledgers.
		return jsonv.Obj("required", read.Required, "accepted", o, "payer", payer,
			"simulatedXdr", sim, "currentLedger", ledger, "now", now), nil
	}
	return nil, rails.Refuse(x402.CodeNoPayableOption)
}

// stellarAccount reads a CAIP-10 account stellar:<network>:G….
func stellarAccount(account string) (payer, network string, ok bool) {
	a, ok := rails.ParseAccount(account)
	if !ok || a.Namespace != "stellar" || !IsAccountShaped(a.Address) {
		return "", "", false
	}
	return a.Address, a.Network(), true
}

// Inputs the buyer gives both pairings: the simulated envelope (a non-empty
// string) and the ledger it was simulated at (a non-negative safe integer).
const (
	InputSimulatedXdr  = "simulatedXdr"
	InputCurrentLedger = "currentLedger"
)

func buyerInputs(inputs *jsonv.Object) (sim string, ledger jsonv.Value, ok bool) {
	sim, _ = inputs.GetString(InputSimulatedXdr)
	ledger, _ = inputs.Get(InputCurrentLedger)
	if _, isInt := jsonv.AsSafeInt(ledger); sim == "" || !isInt {
		return "", nil, false
	}
	return sim, ledger, true
}

var twoTo127 = new(big.Int).Lsh(big.NewInt(1), 127)

// positiveI128 reads ^[1-9][0-9]{0,37}$ below 2^127.
func positiveI128(s string) (*big.Int, bool) {
	if len(s) < 1 || len(s) > 38 || s[0] == '0' || !rails.IsDecimal(s) {
		return nil, false
	}
	n, _ := new(big.Int).SetString(s, 10)
	return n, n.Cmp(twoTo127) < 0
}

type exactUnsigned struct {
	required, accepted *jsonv.Object
	signing            *Signing
}

// Build checks the choice and builds the authorization, in the reference's
// order: the option in the document and served (x402 codes), payable
// (x402/option-malformed), the ledger (stellar/tx-malformed), payTo carrying
// H (stellar/carrier-mismatch), the simulated envelope (SigningFor's codes),
// then what it transfers against the option: to, agreement of the operation
// and the signed call, asset, amount, payer.
func (Exact) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, required, accepted, err := x402.ChosenOption(choice, serves)
	if err != nil {
		return nil, err
	}
	amountText, _ := accepted.GetString("amount")
	amount, okAmount := positiveI128(amountText)
	mts, _ := accepted.Get("maxTimeoutSeconds")
	timeout, okTimeout := jsonv.AsSafeInt(mts)
	if !okAmount || !okTimeout || timeout <= 0 {
		return nil, rails.Refuse(x402.CodeOptionMalformed)
	}
	lv, _ := c.Get(InputCurrentLedger)
	ledger, ok := jsonv.AsSafeInt(lv)
	if !ok {
		return nil, refuse(CodeTxMalformed)
	}
	payTo, _ := accepted.GetString("payTo")
	if !carries(payTo, h) {
		return nil, refuse(CodeCarrierMismatch)
	}
	network, _ := accepted.GetString("network")
	sim, _ := c.GetString(InputSimulatedXdr)
	s, err := SigningFor(sim, network, ledger+(timeout+4)/5, false)
	if err != nil {
		return nil, err
	}
	s.Ledgers = (timeout + 4) / 5
	if nv, has := c.Get("now"); has {
		if now, ok := jsonv.AsSafeInt(nv); ok {
			s.ValidUntil = now + s.Ledgers*NominalLedgerSeconds
		}
	}
	asset, _ := accepted.GetString("asset")
	payer, _ := c.GetString("payer")
	if err := s.matches(payTo, asset, amount, payer); err != nil {
		return nil, err
	}
	return &exactUnsigned{required: required, accepted: accepted, signing: s}, nil
}

// matches checks the transfer against what the offer asks, in the
// reference's order.
func (s *Signing) matches(to, asset string, amount *big.Int, payer string) error {
	switch {
	case s.To != to:
		return refuse(CodeCarrierMismatch)
	case !s.Agrees:
		return refuse(CodeNotOneTransfer)
	case s.Asset != asset:
		return refuse(CodeAssetMismatch)
	case s.Amount.Cmp(amount) != 0:
		return refuse(CodeAmountMismatch)
	case s.From != payer:
		return refuse(CodePayerMismatch)
	}
	return nil
}

// authRequest is the stellar-auth request of a built authorization.
func authRequest(s *Signing) rails.Request {
	r := jsonv.Obj("kind", KindAuth, "preimage", "0x"+hexOf(s.Preimage))
	if s.ValidUntil > 0 {
		r.Set("validUntil", jsonv.Number(s.ValidUntil))
	}
	return r
}

func (Exact) Request(u rails.Unsigned) (rails.Request, error) {
	return authRequest(u.(*exactUnsigned).signing), nil
}

// signature reads the signer's answer: "0x" and 64 bytes of hex.
func signature(answer jsonv.Value) ([]byte, bool) {
	s, ok := answer.(string)
	if !ok {
		return nil, false
	}
	return mpp.HexBytes(s, SignatureBytes, SignatureBytes)
}

// Complete writes the signature into the envelope and wraps it as the x402
// payment {x402Version, resource?, extensions?, accepted, payload:
// {transaction}}, the payment identifier appended where advertised.
func (Exact) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	b := u.(*exactUnsigned)
	sig, ok := signature(answer)
	if !ok {
		return rails.Completion{}, rails.Refuse(x402.CodeSignatureMalformed)
	}
	envelope, err := b.signing.Complete(sig)
	if err != nil {
		return rails.Completion{}, err
	}
	p := jsonv.Obj("x402Version", 2)
	for _, k := range []string{"resource", "extensions"} {
		if v, ok := b.required.Get(k); ok {
			p.Set(k, jsonv.Clone(v))
		}
	}
	p.Set("accepted", b.accepted.Clone())
	p.Set("payload", jsonv.Obj("transaction", envelope))
	if err := x402.AppendPaymentIdentifier(p, b.required, chosen.Ref); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: p}, nil
}

// Bound reads H back: the echoed legal context's hash, once the signed
// transfer pays the accepted payTo, a muxed address whose id is that hash's.
// The signature and expiration are not verified (the network does that).
func (p Exact) Bound(presented jsonv.Value) (string, error) {
	_, h, err := p.read(presented)
	return h, err
}

// read is Bound's reading, also giving the transfer.
func (Exact) read(presented jsonv.Value) (*Transfer, string, error) {
	o, ok := jsonv.AsObject(presented)
	if !ok {
		return nil, "", rails.Refuse(x402.CodeNotV2)
	}
	if v, _ := o.Get("x402Version"); v != jsonv.Number(2) {
		return nil, "", rails.Refuse(x402.CodeNotV2)
	}
	accepted, ok := o.GetObject("accepted")
	if !ok || !serves(accepted) {
		return nil, "", rails.Refuse(x402.CodeOptionNotThisPairing)
	}
	hText, err := x402.EchoedLegalContext(o)
	if err != nil {
		return nil, "", err
	}
	payload, ok := o.GetObject("payload")
	if !ok {
		return nil, "", rails.Refuse(x402.CodePayloadMalformed)
	}
	envelope, _ := payload.GetString("transaction")
	network, _ := accepted.GetString("network")
	t, err := ReadSignedTransfer(envelope, network)
	if err != nil {
		return nil, "", err
	}
	h, _ := atr.ParseHash(hText)
	payTo, _ := accepted.GetString("payTo")
	if err := t.carrier(payTo, h); err != nil {
		return nil, "", err
	}
	return t, hText, nil
}

// carrier is the read-back's check of the payee: muxed
// (stellar/no-carrier), the offered payee with H's id
// (stellar/carrier-mismatch), and the operation calling exactly the signed
// transfer (stellar/not-one-transfer).
func (t *Transfer) carrier(payee string, h atr.Hash) error {
	switch {
	case t.ToMux == nil:
		return refuse(CodeNoCarrier)
	case t.To != payee || t.ToMux.ID != MuxedID(h):
		return refuse(CodeCarrierMismatch)
	case !t.Agrees:
		return refuse(CodeNotOneTransfer)
	}
	return nil
}

const hexDigits = "0123456789abcdef"

func hexOf(b []byte) string {
	out := make([]byte, 2*len(b))
	for i, c := range b {
		out[2*i], out[2*i+1] = hexDigits[c>>4], hexDigits[c&15]
	}
	return string(out)
}

// codeX402InputMissing refuses a choice without the buyer's inputs.
const codeX402InputMissing = "x402/input-missing"
