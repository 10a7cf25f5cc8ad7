package stacks

// mpp/charge/usdc/stacks: H sits in the memo argument of the signed SIP-010
// transfer, (some (buff 32)) holding H's 32 bytes, the fourth argument of
// the transaction's contract call of transfer; H is also the challenge id.
// The memo is in the mined transaction (docs/stacks.md).

import (
	"encoding/base64"
	"encoding/hex"
	"strconv"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/memo"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// ChargeUSDC is the mpp/charge/usdc/stacks pairing: MPP's usdc method with
// methodDetails.type "stacks", paid by a transaction the payer signs and the
// seller broadcasts (payload type "transaction").
type ChargeUSDC struct{}

// ChargeUSDCID is the pairing id.
const ChargeUSDCID = mpp.PairingUSDCStacks

// KindContractCall is the signing request's kind: the unsigned transaction,
// which the signer signs (filling nonce and fee when the request leaves
// them to it) and answers signed, as hex.
const KindContractCall = "stacks-contract-call"

// TransactionFormat is the payload's transactionFormat: the transaction's
// bytes as the chain serializes them.
const TransactionFormat = "stacks_transaction_v1"

// The pairing's refusal codes.
const (
	CodeTxMalformed = "mpp/stacks-tx-malformed"
	CodeMemoNotH    = "mpp/stacks-memo-not-h"
	CodeNotRequest  = "mpp/stacks-not-request" // the signed transaction is not the one built
)

var (
	_ rails.Pairing    = ChargeUSDC{}
	_ rails.Summarizer = ChargeUSDC{}
	_ rails.Inspector  = ChargeUSDC{}
)

func (ChargeUSDC) ID() string { return ChargeUSDCID }

func (ChargeUSDC) Pattern() rails.Pattern {
	return rails.Pattern{Name: "native-field", PublicProof: true}
}

func (ChargeUSDC) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

// payerOf reads a CAIP-10 Stacks account: a chain termsgate knows and a
// single-signature address of it (the only kind this pairing signs for).
func payerOf(account string) (Chain, Principal, bool) {
	a, ok := rails.ParseAccount(account)
	if !ok || a.Namespace != "stacks" {
		return Chain{}, Principal{}, false
	}
	c, ok := ChainOf(a.Network())
	if !ok {
		return Chain{}, Principal{}, false
	}
	p, ok := c.ParseStandard(a.Address)
	if !ok || p.Version != c.Single {
		return Chain{}, Principal{}, false
	}
	return c, p, true
}

// u64Text reads a decimal string that fits in 64 bits, without leading
// zeros.
func u64Text(s string) (uint64, bool) {
	if s == "" || len(s) > 20 || len(s) > 1 && s[0] == '0' || !rails.IsDecimal(s) {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

// Choose takes the first challenge offering the pairing on the account's
// network. The inputs nonce and fee (decimal strings, µSTX for the fee) are
// optional: given, the transaction is built with them; absent, the signer
// fills them from its node. Present and not a 64-bit decimal is
// mpp/input-missing.
func (ChargeUSDC) Choose(read rails.Read, account string, inputs *jsonv.Object, _ int64, _ string) (jsonv.Value, error) {
	c, payer, ok := payerOf(account)
	if !ok {
		return nil, rails.Refuse(mpp.CodeNoPayableOption)
	}
	var challenge *jsonv.Object
	for _, v := range read.Options {
		if !mpp.OffersPlaced(v, ChargeUSDCID) {
			continue
		}
		if n, err := mpp.Network(v); err == nil && n == c.Network {
			challenge, _ = jsonv.AsObject(v)
			break
		}
	}
	if challenge == nil {
		return nil, rails.Refuse(mpp.CodeNoPayableOption)
	}
	choice := jsonv.Obj("challenge", challenge.Clone(), "from", payer.String())
	for _, k := range []string{"nonce", "fee"} {
		v, has := inputs.Get(k)
		if !has {
			continue
		}
		s, _ := v.(string)
		if _, ok := u64Text(s); !ok {
			return nil, rails.Refuse(mpp.CodeInputMissing)
		}
		choice.Set(k, s)
	}
	return choice, nil
}

type chargeUnsigned struct {
	challenge  *jsonv.Object
	chain      Chain
	from       string
	tx         *Tx
	fixedNonce bool
	fixedFee   bool
}

// requestTransfer reads the usdc Stacks request into what the transfer
// pays: the contract, the asset's name, the amount (64 bits) and the
// recipient, each checked as the chain reads it (mpp/request-malformed).
func requestTransfer(checked *mpp.Checked) (Chain, Principal, string, uint64, Principal, error) {
	bad := rails.Refuse(mpp.CodeRequestMalformed)
	kind, p, err := mpp.USDCProfile(checked.Details)
	if err != nil {
		return Chain{}, Principal{}, "", 0, Principal{}, err
	}
	if kind != "stacks" {
		return Chain{}, Principal{}, "", 0, Principal{}, bad
	}
	network, err := mpp.StacksUSDCNetwork(checked.Request, p)
	if err != nil {
		return Chain{}, Principal{}, "", 0, Principal{}, err
	}
	c, _ := ChainOf(network)
	contract, okC := c.ParseContract(mpp.String(p, "contractAddress") + "." + mpp.String(p, "contractName"))
	recipient, okR := c.ParseStandard(mpp.String(checked.Request, "recipient"))
	amount, okA := u64Text(mpp.String(checked.Request, "amount"))
	asset := mpp.String(p, "assetName")
	if !okC || !okR || !okA || amount == 0 || !IsName(asset) {
		return Chain{}, Principal{}, "", 0, Principal{}, bad
	}
	return c, contract, asset, amount, recipient, nil
}

// chosen is what Build reads of a chosen challenge: the H its id names
// and the transfer its request asks for.
type chosen struct {
	h                   atr.Hash
	chain               Chain
	contract, recipient Principal
	asset               string
	amount              uint64
}

// chosenRead keeps the challenges Build read, by their exact text: the
// gate builds twice per payment (Build, then Finish's rebuild) from the
// same choice, and the challenge's request and opaque are base64url JSON
// to decode and check each time. Only challenges that passed every check
// are kept, and what is kept depends on the text alone (the checks read
// no clock), so a hit is the same answer (TestChosenMemoAgrees).
var chosenRead = memo.New[string, chosen](memoSize)

// chosenTransfer is mpp.CheckChosen (the challenge as placed, offering the
// pairing, its id naming h) and requestTransfer, read once per challenge.
func chosenTransfer(challenge *jsonv.Object, h atr.Hash) (chosen, error) {
	key := string(jsonv.Marshal(challenge))
	if t, ok := chosenRead.Get(key); ok {
		if t.h != h {
			return chosen{}, rails.Refuse(mpp.CodeIDNotOurs)
		}
		return t, nil
	}
	checked, err := mpp.CheckChosen(challenge, ChargeUSDCID, h)
	if err != nil {
		return chosen{}, err
	}
	c, contract, asset, amount, recipient, err := requestTransfer(checked)
	if err != nil {
		return chosen{}, err
	}
	t := chosen{h: h, chain: c, contract: contract, recipient: recipient, asset: asset, amount: amount}
	chosenRead.Put(key, t)
	return t, nil
}

// Build checks the choice (the challenge as placed, offering the pairing,
// its id naming h; the request as the chain reads it) and writes the
// unsigned transfer from the payer: TransferSpec.Build with the memo
// (some H), nonce and fee as the inputs gave them, else zero for the
// signer to fill.
func (ChargeUSDC) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	o, ok := jsonv.AsObject(choice)
	if !ok {
		return nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	challenge, ok := o.GetObject("challenge")
	if !ok {
		return nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	t, err := chosenTransfer(challenge, h)
	if err != nil {
		return nil, err
	}
	c, contract, asset, amount, recipient := t.chain, t.contract, t.asset, t.amount, t.recipient
	from := mpp.String(o, "from")
	payer, ok := c.ParseStandard(from)
	if !ok || payer.Version != c.Single {
		return nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	spec := TransferSpec{Chain: c, Origin: payer.Hash, Contract: contract, AssetName: asset, Amount: amount,
		Recipient: recipient, H: h}
	u := &chargeUnsigned{challenge: challenge, chain: c, from: from}
	if s, has := o.GetString("nonce"); has {
		if spec.Nonce, ok = u64Text(s); !ok {
			return nil, rails.Refuse(mpp.CodeInputMalformed)
		}
		u.fixedNonce = true
	}
	if s, has := o.GetString("fee"); has {
		if spec.Fee, ok = u64Text(s); !ok {
			return nil, rails.Refuse(mpp.CodeInputMalformed)
		}
		u.fixedFee = true
	}
	u.tx = spec.Build()
	return u, nil
}

// Request is {kind: "stacks-contract-call", network, transaction (0x hex of
// the unsigned transaction), nonce?, fee?}: nonce and fee present are the
// ones the transaction must be signed with; absent, the signer sets them.
func (ChargeUSDC) Request(u rails.Unsigned) (rails.Request, error) {
	b := u.(*chargeUnsigned)
	req := jsonv.Obj("kind", KindContractCall, "network", b.chain.Network, "transaction", "0x"+hex.EncodeToString(b.tx.Encode()))
	if b.fixedNonce {
		req.Set("nonce", strconv.FormatUint(b.tx.Nonce, 10))
	}
	if b.fixedFee {
		req.Set("fee", strconv.FormatUint(b.tx.Fee, 10))
	}
	return req, nil
}

// SignedOf reads a signer's answer, the signed transaction as hex (0x
// optional), into its bytes and decoded form.
func SignedOf(answer jsonv.Value) (*Tx, []byte, bool) {
	s, ok := answer.(string)
	if !ok || len(s) > 2+2*MaxTxBytes {
		return nil, nil, false
	}
	if len(s) > 1 && s[0] == '0' && s[1] == 'x' {
		s = s[2:]
	}
	raw, err := hex.DecodeString(s)
	if err != nil {
		return nil, nil, false
	}
	t, err := DecodeTx(raw)
	if err != nil {
		return nil, nil, false
	}
	return t, raw, true
}

// SameBut reports whether signed is built with only nonce, fee and the
// signature changed (and nonce or fee not even those when fixed).
func SameBut(built, signed *Tx, fixedNonce, fixedFee bool) bool {
	if fixedNonce && signed.Nonce != built.Nonce || fixedFee && signed.Fee != built.Fee {
		return false
	}
	c := *signed
	c.Nonce, c.Fee, c.Signature = built.Nonce, built.Fee, built.Signature
	return string(c.Encode()) == string(built.Encode())
}

// Complete takes the signer's signed transaction when it is the one built
// but for nonce, fee (when the request left them to the signer) and the
// signature (mpp/stacks-not-request), and writes the credential
// {challenge, source (the payer's CAIP-10 account), payload: {type:
// "transaction", transaction (base64), transactionFormat}}. The signature
// is not verified here: a bad one fails at the node, moving nothing.
func (ChargeUSDC) Complete(u rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	b := u.(*chargeUnsigned)
	t, raw, ok := SignedOf(answer)
	if !ok {
		return rails.Completion{}, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	if !SameBut(b.tx, t, b.fixedNonce, b.fixedFee) {
		return rails.Completion{}, rails.Refuse(CodeNotRequest)
	}
	payload := jsonv.Obj("type", "transaction", "transaction", base64.StdEncoding.EncodeToString(raw),
		"transactionFormat", TransactionFormat)
	return rails.Completion{Signed: mpp.Credential(b.challenge, b.chain.Network+":"+b.from, payload)}, nil
}

// Presented is a credential read as Bound reads it.
type Presented struct {
	Bound    *mpp.Bound
	Chain    Chain
	Tx       *Tx
	Raw      []byte
	Transfer *Transfer
}

// ReadPresented reads a credential: the echoed challenge (mpp's codes), a
// payload of type "transaction" (mpp/credential-type) whose format is
// stacks_transaction_v1 and whose transaction is base64 of one canonical
// transaction of the codec's shape, a SIP-010 transfer on the request's
// chain calling the request's contract (mpp/stacks-tx-malformed), and its
// memo (some H) of the echoed H (mpp/stacks-memo-not-h).
func ReadPresented(presented jsonv.Value) (*Presented, error) {
	e, err := mpp.Echoed(presented, ChargeUSDCID)
	if err != nil {
		return nil, err
	}
	if typ, _ := e.Payload.GetString("type"); typ != "transaction" {
		return nil, rails.Refuse(mpp.CodeCredentialType)
	}
	malformed := rails.Refuse(CodeTxMalformed)
	text, _ := e.Payload.GetString("transaction")
	if f, _ := e.Payload.GetString("transactionFormat"); f != TransactionFormat || len(text) > (MaxTxBytes+2)/3*4 {
		return nil, malformed
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(text)
	if err != nil {
		return nil, malformed
	}
	t, err := DecodeTx(raw)
	if err != nil {
		return nil, malformed
	}
	c, contract, _, _, _, err := requestTransfer(e.Checked)
	if err != nil {
		return nil, err
	}
	tr, ok := ReadTransfer(t)
	if !ok || tr.Chain != c || tr.Contract != contract {
		return nil, malformed
	}
	if h, ok := MemoH(tr.Memo); !ok || h != e.H {
		return nil, rails.Refuse(CodeMemoNotH)
	}
	return &Presented{Bound: e, Chain: c, Tx: t, Raw: raw, Transfer: tr}, nil
}

// Bound reads H back: ReadPresented's.
func (ChargeUSDC) Bound(presented jsonv.Value) (string, error) {
	p, err := ReadPresented(presented)
	if err != nil {
		return "", err
	}
	return p.Bound.H.String(), nil
}

// Reference is what a seller records to find the payment: {network,
// contract, origin, nonce, transaction (the txid)}.
func (ChargeUSDC) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	p, err := ReadPresented(presented)
	if err != nil {
		return nil, err
	}
	return p.Reference().JSON(), nil
}

// Reference names a payment on chain.
type Reference struct {
	Network, Contract, Origin string
	Nonce                     uint64
	TxID                      [32]byte
}

// Reference is the presented payment's.
func (p *Presented) Reference() Reference {
	return Reference{Network: p.Chain.Network, Contract: p.Transfer.Contract.String(), Origin: p.Transfer.Origin.String(),
		Nonce: p.Tx.Nonce, TxID: TxID(p.Raw)}
}

// JSON is the reference's wire form; the nonce a decimal string.
func (r Reference) JSON() *jsonv.Object {
	return jsonv.Obj("network", r.Network, "contract", r.Contract, "origin", r.Origin,
		"nonce", strconv.FormatUint(r.Nonce, 10), "transaction", "0x"+hex.EncodeToString(r.TxID[:]))
}

// Pays reports whether the transfer pays the echoed request: its amount to
// its recipient, from the origin itself, guarded by the post-condition,
// of the request's asset.
func (p *Presented) Pays() bool {
	_, contract, asset, amount, recipient, err := requestTransfer(p.Bound.Checked)
	t := p.Transfer
	return err == nil && t.Contract == contract && t.AssetName == asset && t.Amount == amount &&
		t.Recipient == recipient && t.Sender == t.Origin && t.Guarded
}
