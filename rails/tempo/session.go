package tempo

import (
	"math/big"
	"regexp"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
)

// Session is mpp/session/tempo's opening (docs/protocol.md, "Tempo"): the
// buyer signs a Tempo transaction calling the escrow's open, then the zero
// voucher on the channel it opens. Payments inside the open channel are the
// channels work, not this file.
//
// Where H goes: the salt argument of the signed open call. The channel id
// commits to the salt (on v2 through the descriptor the credential carries),
// so every voucher of the channel signs a commitment to H. Signing takes two
// steps because a v2 channel id depends on the signed transaction.
type Session struct{}

// SessionID is the pairing id.
const SessionID = mpp.PairingSessionTempo

// The code of a credential that is no opening.
const CodeNotAnOpening = "mpp/not-an-opening"

func (Session) ID() string { return SessionID }

func (Session) Pattern() rails.Pattern { return rails.Pattern{Name: "native-field", PublicProof: true} }

func (Session) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

var (
	addressInput        = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)
	credentialTypeInput = regexp.MustCompile(`^(authorization|permit2|hash)$`)
)

// Choose takes the deposit and the optional authorizedSigner,
// credentialType and tokenDomain (the last two are read on EVM sessions, and
// only carried here).
func (Session) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	challenge, from, err := mpp.Choose(read, account, SessionID)
	if err != nil {
		return nil, err
	}
	if err := checkAddresses(from); err != nil {
		return nil, err
	}
	given, err := mpp.Inputs(inputs,
		mpp.Input{Name: "deposit", Kind: "decimal"},
		mpp.Input{Name: "authorizedSigner", Pattern: addressInput, Optional: true},
		mpp.Input{Name: "credentialType", Pattern: credentialTypeInput, Optional: true},
		mpp.Input{Name: "tokenDomain", Kind: "object", Optional: true},
	)
	if err != nil {
		return nil, err
	}
	signer, _ := given.GetString("authorizedSigner")
	if err := evm.CheckAddresses("authorizedSigner", signer); err != nil {
		return nil, err
	}
	return mpp.Choice(challenge, from, now, given), nil
}

// sessionParams are the chain and escrow of a Tempo session challenge.
type sessionParams struct {
	chain   int64
	escrow  string // as written
	v2      bool
	request *jsonv.Object
	details *jsonv.Object
}

func paramsOf(c *mpp.Checked) (*sessionParams, error) {
	chain, err := mpp.SessionChain(c)
	if err != nil {
		return nil, err
	}
	escrow := mpp.String(c.Details, "escrowContract")
	if !mpp.IsAddress(escrow) {
		return nil, rails.Refuse(mpp.CodeEscrowMalformed)
	}
	v, _ := c.Details.GetString("sessionProtocol")
	return &sessionParams{chain: chain, escrow: escrow, v2: v == "v2", request: c.Request, details: c.Details}, nil
}

var (
	two96  = new(big.Int).Lsh(big.NewInt(1), 96)
	two128 = new(big.Int).Lsh(big.NewInt(1), 128)
)

const zeroAddress = "0x0000000000000000000000000000000000000000"

type sessionUnsigned struct {
	p         *sessionParams
	challenge *jsonv.Object
	from      string
	payee     string
	operator  string
	token     string
	signer    string
	salt      atr.Hash
	source    string
	funding   rails.Request
}

// Build is step 1: the open call with salt = H, for the signer to sign as a
// Tempo transaction (not broadcast: the seller sends the opening).
func (Session) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, ok := jsonv.AsObject(choice)
	if !ok {
		return nil, rails.Refuse(mpp.CodeChoiceMalformed)
	}
	var deposit *big.Int
	if dv, has := c.Get("deposit"); has { // revive the deposit as the gate's choice() does
		s, _ := dv.(string)
		if deposit, ok = mpp.Uint256(s); !ok {
			return nil, rails.Refuse(mpp.CodeChoiceMalformed)
		}
	}
	o, err := mpp.OfferFor(choice, h, SessionID)
	if err != nil {
		return nil, err
	}
	p, err := paramsOf(o.Checked)
	if err != nil {
		return nil, err
	}
	limit := two128
	if p.v2 {
		limit = two96
	}
	if deposit == nil || deposit.Sign() <= 0 || deposit.Cmp(limit) >= 0 {
		return nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	signer := zeroAddress
	if v, has := c.Get("authorizedSigner"); has {
		if signer, ok = v.(string); !ok || !mpp.IsAddress(signer) {
			return nil, rails.Refuse(mpp.CodeInputMalformed)
		}
	}
	operator := zeroAddress
	if s, has := p.details.GetString("operator"); has {
		operator = s
	}
	u := &sessionUnsigned{
		p: p, challenge: o.Challenge, from: o.From, signer: signer, operator: operator, salt: h,
		payee: mpp.String(p.request, "recipient"), token: mpp.String(p.request, "currency"),
		source: mpp.Source(p.chain, o.From),
	}
	payee, token := common.HexToAddress(u.payee), common.HexToAddress(u.token)
	var data []byte
	if p.v2 {
		data = OpenV2Calldata(payee, common.HexToAddress(operator), token, deposit, h, common.HexToAddress(signer))
	} else {
		data = OpenV1Calldata(payee, token, deposit, h, common.HexToAddress(signer))
	}
	u.funding = jsonv.Obj("kind", KindTempoCall, "chainId", p.chain,
		"call", jsonv.Obj("to", p.escrow, "data", hex0x(data)), "validBefore", o.Expires, "broadcast", false)
	return u, nil
}

func (Session) Request(u rails.Unsigned) (rails.Request, error) {
	return u.(*sessionUnsigned).funding.Clone(), nil
}

// opened is the channel the signed transaction opens: on v1 the seven-word
// id; on v2 the descriptor, with the transaction's expiring nonce hash, and
// its nine-word id.
func (u *sessionUnsigned) opened(signedTx string) (channel [32]byte, descriptor *jsonv.Object, err error) {
	wire, ok := mpp.HexBytes(signedTx, 1, MaxWireBytes)
	if !ok {
		return channel, nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	from := common.HexToAddress(u.from)
	if !u.p.v2 {
		channel = ChannelIDV1(from, common.HexToAddress(u.payee), common.HexToAddress(u.token), u.salt,
			common.HexToAddress(u.signer), common.HexToAddress(u.p.escrow), u.p.chain)
		return channel, nil, nil
	}
	nonceHash, err := ExpiringNonceHash(wire, from.Bytes())
	if err != nil {
		return channel, nil, err
	}
	d := Descriptor{
		Payer: u.from, Payee: u.payee, Operator: u.operator, Token: u.token, Salt: u.salt.String(),
		AuthorizedSigner: u.signer, ExpiringNonceHash: hex0x(nonceHash[:]),
	}
	if channel, err = ChannelIDV2(d, u.p.escrow, u.p.chain); err != nil {
		return channel, nil, err
	}
	return channel, d.JSON(), nil
}

// JSON is the descriptor in the credential's member order.
func (d Descriptor) JSON() *jsonv.Object {
	return jsonv.Obj("payer", d.Payer, "payee", d.Payee, "operator", d.Operator, "token", d.Token,
		"salt", d.Salt, "authorizedSigner", d.AuthorizedSigner, "expiringNonceHash", d.ExpiringNonceHash)
}

// VoucherTypedData is the EIP-712 voucher of a Tempo channel: under "TIP20
// Channel Reserve" with uint96 on v2, "Tempo Stream Channel" with uint128 on
// v1. The reference request carries no EIP712Domain type (wallets derive it
// from the domain); termsgate lists the four-field domain type, which gives
// the same digest and lets apitypes-based signers hash it.
func VoucherTypedData(v2 bool, chain int64, escrow string, channel [32]byte, cumulative *big.Int) *jsonv.Object {
	name, width := "Tempo Stream Channel", "uint128"
	if v2 {
		name, width = "TIP20 Channel Reserve", "uint96"
	}
	field := func(n, t string) *jsonv.Object { return jsonv.Obj("name", n, "type", t) }
	return jsonv.Obj(
		"domain", jsonv.Obj("name", name, "version", "1", "chainId", chain, "verifyingContract", escrow),
		"primaryType", "Voucher",
		"types", jsonv.Obj(
			"EIP712Domain", []jsonv.Value{field("name", "string"), field("version", "string"), field("chainId", "uint256"), field("verifyingContract", "address")},
			"Voucher", []jsonv.Value{field("channelId", "bytes32"), field("cumulativeAmount", width)},
		),
		"message", jsonv.Obj("channelId", hex0x(channel[:]), "cumulativeAmount", cumulative.String()),
	)
}

// Complete is step 2 with the signed transaction alone (the next request:
// the zero voucher on the channel it opens), and the credential with
// [signed transaction, voucher signature].
func (Session) Complete(un rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	u := un.(*sessionUnsigned)
	malformed := rails.Refuse(mpp.CodeCredentialMalformed)
	if signedTx, ok := answer.(string); ok {
		channel, _, err := u.opened(signedTx)
		if err != nil {
			return rails.Completion{}, err
		}
		td := VoucherTypedData(u.p.v2, u.p.chain, u.p.escrow, channel, new(big.Int))
		return rails.Completion{Next: jsonv.Obj("kind", "eip712", "typedData", td)}, nil
	}
	answers, ok := answer.([]jsonv.Value)
	if !ok || len(answers) != 2 {
		return rails.Completion{}, malformed
	}
	signedTx, ok1 := answers[0].(string)
	voucherSig, ok2 := answers[1].(string)
	if !ok1 || !ok2 {
		return rails.Completion{}, malformed
	}
	channel, descriptor, err := u.opened(signedTx)
	if err != nil {
		return rails.Completion{}, err
	}
	if _, ok := mpp.HexBytes(voucherSig, 65, 8192); !ok {
		return rails.Completion{}, malformed
	}
	payload := jsonv.Obj("action", "open", "type", "transaction", "channelId", hex0x(channel[:]),
		"transaction", signedTx, "authorizedSigner", u.signer)
	if descriptor != nil {
		payload.Set("descriptor", descriptor)
	}
	payload.Set("cumulativeAmount", "0")
	payload.Set("signature", voucherSig)
	return rails.Completion{Signed: mpp.Credential(u.challenge, u.source, payload)}, nil
}

// Bound reads H back: the one open call of the version's selector to the
// escrow in the signed transaction, its salt word H; on v2 also the
// descriptor, whose channel id is the payload's and whose salt is H.
func (Session) Bound(presented jsonv.Value) (string, error) {
	e, err := mpp.Echoed(presented, SessionID)
	if err != nil {
		return "", err
	}
	action, _ := e.Payload.GetString("action")
	typ, _ := e.Payload.GetString("type")
	if action != "open" || typ != "transaction" {
		return "", rails.Refuse(CodeNotAnOpening)
	}
	p, err := paramsOf(e.Checked)
	if err != nil {
		return "", err
	}
	txText, ok := e.Payload.GetString("transaction")
	if !ok || !mpp.IsHex(txText) {
		return "", rails.Refuse(mpp.CodeCredentialMalformed)
	}
	if (len(txText)-2)/2 > MaxWireBytes {
		return "", rails.Refuse(CodeTxTooLarge)
	}
	wire, _ := mpp.HexBytes(txText, 0, MaxWireBytes)
	tx, err := DecodeTx(wire)
	if err != nil {
		return "", err
	}
	selector, size, saltAt := SelectorOpenV1, 164, 4+32*3
	if p.v2 {
		selector, size, saltAt = SelectorOpenV2, 196, 4+32*4
	}
	escrow := common.HexToAddress(p.escrow)
	var opens []DecodedCall
	for _, c := range tx.Calls {
		if len(c.To) == 20 && common.BytesToAddress(c.To) == escrow && len(c.Input) >= 4 && [4]byte(c.Input[:4]) == selector {
			opens = append(opens, c)
		}
	}
	switch {
	case len(opens) == 0:
		return "", rails.Refuse(CodeOpenNotFound)
	case len(opens) > 1:
		return "", rails.Refuse(CodeOpenAmbiguous)
	}
	input := opens[0].Input
	if len(input) != size {
		return "", rails.Refuse(CodeTxMalformed)
	}
	if atr.Hash(input[saltAt:saltAt+32]) != e.H {
		return "", rails.Refuse(CodeSaltNotBound)
	}
	channelText, _ := e.Payload.GetString("channelId")
	channel, ok := parseWord(channelText)
	if !ok {
		return "", rails.Refuse(mpp.CodeCredentialMalformed)
	}
	if p.v2 {
		if salt, err := descriptorSalt(e.Payload, p, channel); err != nil || salt != e.H {
			return "", rails.Refuse(CodeDescriptorMismatch)
		}
	}
	return e.H.String(), nil
}

// descriptorSalt is the v2 descriptor's salt, when the descriptor's channel
// id, with the challenge's escrow and chain, is the payload's channel.
func descriptorSalt(payload *jsonv.Object, p *sessionParams, channel [32]byte) (atr.Hash, error) {
	bad := rails.Refuse(CodeDescriptorMismatch)
	o, ok := payload.GetObject("descriptor")
	if !ok {
		return atr.Hash{}, bad
	}
	var fields [7]string
	for i, k := range []string{"payer", "payee", "operator", "token", "salt", "authorizedSigner", "expiringNonceHash"} {
		if fields[i], ok = o.GetString(k); !ok {
			return atr.Hash{}, bad
		}
	}
	d := Descriptor{fields[0], fields[1], fields[2], fields[3], fields[4], fields[5], fields[6]}
	id, err := ChannelIDV2(d, p.escrow, p.chain)
	if err != nil || id != channel {
		return atr.Hash{}, bad
	}
	salt, _ := parseWord(d.Salt)
	return atr.Hash(salt), nil
}

var _ rails.WithinSummarizer = Session{}

// Summarize states what signing the opening grants: the deposit the open
// call escrows, of its token, for its payee, on the request's chain, until
// validBefore. Only the first request (the open call) is summarized: the
// zero voucher that follows it grants nothing.
func (Session) Summarize(req rails.Request) (rails.Grant, error) {
	c, ok := readTempoCall(req)
	if !ok {
		return rails.Grant{}, rails.Refuse(CodeRequestUnreadable)
	}
	o, ok := readOpen(c.input)
	if !ok {
		return rails.Grant{}, rails.Refuse(CodeRequestUnreadable)
	}
	network, token := eip155(c.chain), o.token.Hex()
	return rails.Grant{
		Network: network, Asset: token, Decimals: rails.KnownDecimals(network, token),
		Amount: o.deposit, Payee: o.payee.Hex(),
		PayableFrom: time.Unix(0, 0), PayableUntil: until(c.before),
	}, nil
}

// openCall is what an escrow's open call says.
type openCall struct {
	payee, token common.Address
	deposit      *big.Int
}

// readOpen reads OpenV1Calldata (164 bytes) or OpenV2Calldata (196 bytes):
// the selector, then address words with their 12 leading bytes zero.
func readOpen(input []byte) (openCall, bool) {
	word := func(i int) []byte { return input[4+32*i : 4+32*(i+1)] }
	isAddress := func(w []byte) bool {
		for _, b := range w[:12] {
			if b != 0 {
				return false
			}
		}
		return true
	}
	var payee, token, deposit []byte
	var addresses [][]byte
	switch {
	case len(input) == 164 && [4]byte(input[:4]) == SelectorOpenV1:
		payee, token, deposit = word(0), word(1), word(2)
		addresses = [][]byte{payee, token, word(4)}
	case len(input) == 196 && [4]byte(input[:4]) == SelectorOpenV2:
		payee, token, deposit = word(0), word(2), word(3)
		addresses = [][]byte{payee, word(1), token, word(5)}
	default:
		return openCall{}, false
	}
	for _, a := range addresses {
		if !isAddress(a) {
			return openCall{}, false
		}
	}
	return openCall{payee: common.BytesToAddress(payee), token: common.BytesToAddress(token), deposit: new(big.Int).SetBytes(deposit)}, true
}

// SummarizeWithin states what a voucher (or the close) signed in the
// channel opening opened grants: the batch of one eip712 Voucher, exactly
// as VoucherTypedData writes it, whose channel is the opening's and whose
// escrow and chain are the opening transaction's. Amount is the voucher's
// cumulative amount of the opening's token, for the opening's payee; a
// voucher has no deadline (the deposit bounds it), so PayableUntil is zero.
func (Session) SummarizeWithin(req rails.Request, opening *jsonv.Object) (rails.Grant, error) {
	bad := rails.Refuse(CodeRequestUnreadable)
	if req == nil || req.Len() != 2 {
		return rails.Grant{}, bad
	}
	if kind, _ := req.GetString("kind"); kind != rails.KindBatch {
		return rails.Grant{}, bad
	}
	rv, _ := req.Get("requests")
	list, ok := jsonv.AsArray(rv)
	if !ok || len(list) != 1 {
		return rails.Grant{}, bad
	}
	voucher, ok := jsonv.AsObject(list[0])
	if !ok || voucher.Len() != 2 {
		return rails.Grant{}, bad
	}
	td, _ := voucher.GetObject("typedData")
	if kind, _ := voucher.GetString("kind"); kind != "eip712" || td == nil {
		return rails.Grant{}, bad
	}
	// The opening: its channel id, and the open call its transaction makes.
	payload, _ := opening.GetObject("payload")
	channelText, okChannel := normalWord(member(payload, "channelId"))
	channel, _ := parseWord(channelText)
	wire, okWire := mpp.HexBytes(mpp.String(payload, "transaction"), 1, MaxWireBytes)
	if !okChannel || !okWire {
		return rails.Grant{}, bad
	}
	tx, err := DecodeTx(wire)
	if err != nil || len(tx.Calls) != 1 || len(tx.Calls[0].To) != 20 || !tx.ChainID.IsInt64() {
		return rails.Grant{}, bad
	}
	o, ok := readOpen(tx.Calls[0].Input)
	if !ok {
		return rails.Grant{}, bad
	}
	chain, escrow := tx.ChainID.Int64(), common.BytesToAddress(tx.Calls[0].To)
	// The voucher, rebuilt from its version, escrow, chain, channel and
	// amount, must be the one asked for, member for member.
	domain, _ := td.GetObject("domain")
	name, _ := domain.GetString("name")
	msg, _ := td.GetObject("message")
	cumulative, okAmount := mpp.Uint256(mpp.String(msg, "cumulativeAmount"))
	if !okAmount || name != "TIP20 Channel Reserve" && name != "Tempo Stream Channel" {
		return rails.Grant{}, bad
	}
	v2 := name == "TIP20 Channel Reserve"
	if contract, _ := domain.GetString("verifyingContract"); !mpp.IsAddress(contract) || common.HexToAddress(contract) != escrow {
		return rails.Grant{}, bad
	}
	contract, _ := domain.GetString("verifyingContract")
	if !jsonv.Equal(td, VoucherTypedData(v2, chain, contract, channel, cumulative)) {
		return rails.Grant{}, bad
	}
	network, token := eip155(chain), o.token.Hex()
	return rails.Grant{
		Network: network, Asset: token, Decimals: rails.KnownDecimals(network, token),
		Amount: cumulative, Payee: o.payee.Hex(),
	}, nil
}
