package evm

import (
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// MPPSession is mpp/session/evm (docs/mpp-evm.md, "session"): a payment
// channel in an EVM escrow, opened by the payer and spent by vouchers.
//
// Where H goes: the channel's salt is H, and the channel id, keccak256 over
// (payer, payee, token, salt, authorizedSigner, escrow, chainId), commits to
// it. The opening is signed as an EIP-3009 ReceiveWithAuthorization to the
// escrow whose nonce is keccak256 over (payer, payee, token, salt,
// authorizedSigner), as a Permit2 transfer whose ChannelOpenWitness carries
// the salt, or as the escrow's open call with the salt (broadcast by the
// payer). Vouchers carry no H: they name the channel the opening opened.
type MPPSession struct{}

// MPPSessionID is the pairing id.
const MPPSessionID = mpp.PairingSessionEVM

// The session's refusal codes, as the reference names them.
const (
	CodeSaltNotThisHash = "mpp/salt-not-this-hash"
	CodeChannelNotBound = "mpp/channel-not-bound"
	CodeNonceNotChannel = "mpp/nonce-not-channel"
	CodeNotAnOpening    = "mpp/not-an-opening"
	CodeNotBoundWithin  = "mpp/not-bound-within"
	CodeWithinNotBuilt  = "mpp/within-action-not-built"
)

// The escrow's open(address payee, address token, uint128 deposit, bytes32
// salt, address authorizedSigner) and ERC-20 approve(address, uint256).
var (
	selectorOpen    = []byte{0xc7, 0x9e, 0xa4, 0x85}
	selectorApprove = []byte{0x09, 0x5e, 0xa7, 0xb3}
)

// KindEVMCalls is the request of a hash-type opening: {kind, chainId,
// calls: [approve, open], broadcast: true}, each call its own transaction,
// sent in order by the payer's signer and answered with {hash} of the last.
const KindEVMCalls = "evm-calls"

func (MPPSession) ID() string { return MPPSessionID }

func (MPPSession) Pattern() rails.Pattern {
	return rails.Pattern{Name: "native-field", PublicProof: true}
}

func (MPPSession) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

var (
	sessionAddressInput = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)
	sessionTypeInput    = regexp.MustCompile(`^(authorization|permit2|hash)$`)
)

// Choose takes the deposit and the optional authorizedSigner (default the
// zero address: the payer signs vouchers), credentialType and tokenDomain
// (needed for an authorization opening).
func (MPPSession) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	challenge, from, err := mpp.Choose(read, account, MPPSessionID)
	if err != nil {
		return nil, err
	}
	given, err := mpp.Inputs(inputs,
		mpp.Input{Name: "deposit", Kind: "decimal"},
		mpp.Input{Name: "authorizedSigner", Pattern: sessionAddressInput, Optional: true},
		mpp.Input{Name: "credentialType", Pattern: sessionTypeInput, Optional: true},
		mpp.Input{Name: "tokenDomain", Kind: "object", Optional: true},
	)
	if err != nil {
		return nil, err
	}
	return mpp.Choice(challenge, from, now, given), nil
}

// channelParams are what an EVM session challenge fixes of its channel.
type channelParams struct {
	chain                int64
	escrow, token, payee string
	permit2              string
	request, details     *jsonv.Object
}

func evmChannelParams(c *mpp.Checked) channelParams {
	chain, _ := mpp.ChainIDOf(c.Details, "chainId") // required by the method check
	return channelParams{
		chain: chain, escrow: mpp.String(c.Details, "escrowContract"), token: mpp.String(c.Request, "currency"),
		payee: mpp.String(c.Request, "recipient"), permit2: mpp.String(c.Details, "permit2Contract"),
		request: c.Request, details: c.Details,
	}
}

func word(b []byte) []byte { return common.LeftPadBytes(b, 32) }

func addrWord(a string) []byte { return word(common.HexToAddress(a).Bytes()) }

// SessionChannelID is keccak256(abi.encode(payer, payee, token, salt,
// authorizedSigner, escrow, chainId)).
func SessionChannelID(payer, payee, token string, salt atr.Hash, signer, escrow string, chain int64) atr.Hash {
	return atr.Hash(crypto.Keccak256(addrWord(payer), addrWord(payee), addrWord(token), salt[:], addrWord(signer),
		addrWord(escrow), word(big.NewInt(chain).Bytes())))
}

// SessionOpenNonce is the EIP-3009 nonce of an authorization opening:
// keccak256(abi.encode(payer, payee, token, salt, authorizedSigner)).
func SessionOpenNonce(payer, payee, token string, salt atr.Hash, signer string) atr.Hash {
	return atr.Hash(crypto.Keccak256(addrWord(payer), addrWord(payee), addrWord(token), salt[:], addrWord(signer)))
}

// SessionOpenCalldata is the escrow's open call.
func SessionOpenCalldata(payee, token string, deposit *big.Int, salt atr.Hash, signer string) []byte {
	out := append([]byte(nil), selectorOpen...)
	for _, w := range [][]byte{addrWord(payee), addrWord(token), word(deposit.Bytes()), salt[:], addrWord(signer)} {
		out = append(out, w...)
	}
	return out
}

// SessionVoucherTypedData is the EVM channel's voucher: Voucher(bytes32
// channelId, uint128 cumulativeAmount) under "EVM Payment Channel" version
// 1, the escrow's domain.
func SessionVoucherTypedData(chain int64, escrow string, channel atr.Hash, cumulative *big.Int) *jsonv.Object {
	return jsonv.Obj(
		"domain", jsonv.Obj("name", "EVM Payment Channel", "version", "1", "chainId", chain, "verifyingContract", escrow),
		"primaryType", "Voucher",
		"types", jsonv.Obj("EIP712Domain", eip712DomainType(),
			"Voucher", []jsonv.Value{field("channelId", "bytes32"), field("cumulativeAmount", "uint128")}),
		"message", jsonv.Obj("channelId", channel.String(), "cumulativeAmount", cumulative.String()),
	)
}

// channelOpenWitnessFields are the Permit2 opening's witness struct,
// ChannelOpenWitness {address payee, bytes32 salt, address authorizedSigner}.
var channelOpenWitnessFields = []string{"payee", "address", "salt", "bytes32", "authorizedSigner", "address"}

type mppSessionUnsigned struct {
	p         channelParams
	challenge *jsonv.Object
	source    string
	kind      string // authorization, permit2 or hash
	channel   atr.Hash
	base      *jsonv.Object // {action, channelId, cumulativeAmount, authorizedSigner, salt}
	auth      *jsonv.Object // the authorization member (authorization, permit2)
	funding   rails.Request
}

// Build is step 1, the opening for the credential type chosen: the one the
// buyer named (it must be listed: mpp/credential-types), else the first
// listed one termsgate's signers sign whole (authorization, permit2), else
// hash. The challenge's list defaults to hash alone.
func (MPPSession) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, ok := jsonv.AsObject(choice)
	if !ok {
		return nil, rails.Refuse(mpp.CodeChoiceMalformed)
	}
	var deposit *big.Int
	if dv, has := c.Get("deposit"); has {
		s, _ := dv.(string)
		if deposit, ok = mpp.Uint256(s); !ok {
			return nil, rails.Refuse(mpp.CodeChoiceMalformed)
		}
	}
	o, err := mpp.OfferFor(choice, h, MPPSessionID)
	if err != nil {
		return nil, err
	}
	if deposit == nil || deposit.Sign() <= 0 || deposit.Cmp(two128) >= 0 {
		return nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	signer := zeroAddress
	if v, has := c.Get("authorizedSigner"); has {
		if signer, ok = v.(string); !ok || !CheckedAddress(signer) {
			return nil, rails.Refuse(mpp.CodeInputMalformed)
		}
	}
	p := evmChannelParams(o.Checked)
	if !CheckedAddress(p.token) || !CheckedAddress(p.payee) || !CheckedAddress(p.escrow) || p.permit2 != "" && !CheckedAddress(p.permit2) {
		return nil, rails.Refuse(mpp.CodeRequestMalformed)
	}
	kind, err := sessionType(p.details, mpp.String(c, "credentialType"))
	if err != nil {
		return nil, err
	}
	channel := SessionChannelID(o.From, p.payee, p.token, h, signer, p.escrow, p.chain)
	u := &mppSessionUnsigned{p: p, challenge: o.Challenge, source: mpp.Source(p.chain, o.From), kind: kind, channel: channel,
		base: jsonv.Obj("action", "open", "channelId", channel.String(), "cumulativeAmount", "0", "authorizedSigner", signer, "salt", h.String())}
	deadline := strconv.FormatInt(o.Expires, 10)
	switch kind {
	case "authorization":
		td, _ := c.GetObject("tokenDomain")
		name, version := mpp.String(td, "name"), mpp.String(td, "version")
		if name == "" || version == "" {
			return nil, rails.Refuse(mpp.CodeInputMalformed)
		}
		nonce := SessionOpenNonce(o.From, p.payee, p.token, h, signer)
		u.auth = jsonv.Obj("from", o.From, "to", p.escrow, "value", deposit.String(), "validAfter", "0",
			"validBefore", deadline, "nonce", nonce.String())
		u.funding = jsonv.Obj("kind", "eip712", "typedData", ReceiveWithAuthorization(name, version, p.chain, p.token, u.auth))
	case "permit2":
		witness := jsonv.Obj("payee", p.payee, "salt", h.String(), "authorizedSigner", signer)
		permit := Permit2Permit{
			ChainID: p.chain, Permitted: []Permit2Token{{Token: p.token, Amount: deposit.String()}}, Spender: p.escrow,
			Nonce: NonceDecimal(h), Deadline: deadline, VerifyingContract: p.permit2,
			Witness: &Permit2Witness{Type: "ChannelOpenWitness", Fields: channelOpenWitnessFields, Value: witness},
		}
		td, err := permit.TypedData()
		if err != nil {
			return nil, rails.Refuse(mpp.CodeInputMalformed)
		}
		u.auth = jsonv.Obj("from", o.From, "permitted", jsonv.Obj("token", p.token, "amount", deposit.String()),
			"nonce", permit.Nonce, "deadline", deadline, "witness", witness.Clone())
		u.funding = jsonv.Obj("kind", "eip712", "typedData", td)
	default: // hash: approve the escrow, then open, both sent by the payer
		approve := append(append([]byte(nil), selectorApprove...), append(addrWord(p.escrow), word(deposit.Bytes())...)...)
		u.funding = jsonv.Obj("kind", KindEVMCalls, "chainId", p.chain, "calls", []jsonv.Value{
			jsonv.Obj("to", p.token, "data", hex0x(approve)),
			jsonv.Obj("to", p.escrow, "data", hex0x(SessionOpenCalldata(p.payee, p.token, deposit, h, signer))),
		}, "broadcast", true)
	}
	return u, nil
}

// sessionType is the opening's credential type (Build).
func sessionType(details *jsonv.Object, asked string) (string, error) {
	listed := []string{"hash"}
	if v, has := details.Get("credentialTypes"); has {
		list, _ := jsonv.AsArray(v) // the method check read it
		listed = listed[:0]
		for _, t := range list {
			listed = append(listed, t.(string))
		}
	}
	if asked != "" {
		if !containsString(listed, asked) {
			return "", rails.Refuse(mpp.CodeCredentialTypes)
		}
		return asked, nil
	}
	for _, t := range listed {
		if t == "authorization" || t == "permit2" {
			return t, nil
		}
	}
	return "hash", nil
}

func (MPPSession) Request(u rails.Unsigned) (rails.Request, error) {
	return u.(*mppSessionUnsigned).funding.Clone(), nil
}

// Moves: a hash opening is sent by the payer's signer.
func (MPPSession) Moves(first rails.Request) bool {
	b, _ := first.Get("broadcast")
	return b == true
}

// Complete is step 2 with the opening's answer alone (a signature, or
// {hash} of the sent open call): the next request is the zero voucher on the
// channel. With [opening answer, voucher signature] it is the credential.
func (MPPSession) Complete(un rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	u := un.(*mppSessionUnsigned)
	malformed := rails.Refuse(mpp.CodeCredentialMalformed)
	if list, ok := answer.([]jsonv.Value); ok {
		if len(list) != 2 {
			return rails.Completion{}, malformed
		}
		funded, err := u.funded(list[0])
		if err != nil {
			return rails.Completion{}, err
		}
		voucherSig, _ := list[1].(string)
		if _, ok := mpp.HexBytes(voucherSig, MinSignatureBytes, MaxSignatureBytes); !ok {
			return rails.Completion{}, malformed
		}
		payload := u.base.Clone()
		payload.Set("type", u.kind)
		if u.kind == "hash" {
			payload.Set("hash", funded)
			payload.Set("signature", voucherSig)
		} else {
			payload.Set("authorization", u.auth.Clone())
			payload.Set("signature", funded)
			payload.Set("voucherSignature", voucherSig)
		}
		return rails.Completion{Signed: mpp.Credential(u.challenge, u.source, payload)}, nil
	}
	if _, err := u.funded(answer); err != nil {
		return rails.Completion{}, err
	}
	td := SessionVoucherTypedData(u.p.chain, u.p.escrow, u.channel, new(big.Int))
	return rails.Completion{Next: jsonv.Obj("kind", "eip712", "typedData", td)}, nil
}

// funded reads the opening's answer: a signature (65–8192 bytes of hex), or
// for hash {hash: 0x and 64 hex digits}.
func (u *mppSessionUnsigned) funded(answer jsonv.Value) (string, error) {
	malformed := rails.Refuse(mpp.CodeCredentialMalformed)
	if u.kind == "hash" {
		a, _ := jsonv.AsObject(answer)
		hash, ok := a.GetString("hash")
		if !ok || !mpp.IsWord32(hash) {
			return "", malformed
		}
		return hash, nil
	}
	sig, _ := answer.(string)
	if _, ok := mpp.HexBytes(sig, MinSignatureBytes, MaxSignatureBytes); !ok {
		return "", malformed
	}
	return sig, nil
}

// sessionOpened is an opening read back.
type sessionOpened struct {
	e       *mpp.Bound
	p       channelParams
	kind    string
	opening *jsonv.Object // the payload, or a voucher's deposit
	payer   string
	signer  string
	auth    *jsonv.Object
	channel atr.Hash
}

// openingOf is the opening in a session payload: the payload whose action
// is open, or a voucher's deposit whose action is open (mpp/not-an-opening).
func openingOf(payload *jsonv.Object) (*jsonv.Object, error) {
	if mpp.String(payload, "action") == "open" {
		return payload, nil
	}
	if d, ok := payload.GetObject("deposit"); ok && mpp.String(payload, "action") == "voucher" && mpp.String(d, "action") == "open" {
		return d, nil
	}
	return nil, rails.Refuse(CodeNotAnOpening)
}

// opened reads an opening back, in the reference's order: the shared
// steps; the opening; its type (mpp/credential-type); the salt, H
// (mpp/salt-not-this-hash); the authorized signer; the payer (the
// authorization's from, or for hash the source's did:pkh:
// mpp/source-required); the channel id recomputed (mpp/channel-not-bound);
// an authorization's nonce (mpp/nonce-not-channel) or a Permit2 witness's
// salt (mpp/salt-not-this-hash).
func (MPPSession) opened(presented jsonv.Value) (*sessionOpened, error) {
	e, err := mpp.Echoed(presented, MPPSessionID)
	if err != nil {
		return nil, err
	}
	o, err := openingOf(e.Payload)
	if err != nil {
		return nil, err
	}
	s := &sessionOpened{e: e, p: evmChannelParams(e.Checked), kind: mpp.String(o, "type"), opening: o}
	if s.kind != "hash" && s.kind != "authorization" && s.kind != "permit2" {
		return nil, rails.Refuse(mpp.CodeCredentialType)
	}
	malformed := rails.Refuse(mpp.CodeCredentialMalformed)
	salt, err := atr.ParseHash(mpp.String(o, "salt"))
	if err != nil {
		return nil, malformed
	}
	if salt != e.H {
		return nil, rails.Refuse(CodeSaltNotThisHash)
	}
	s.signer = zeroAddress
	if v, has := o.Get("authorizedSigner"); has {
		if s.signer, _ = v.(string); !IsAddress(s.signer) {
			return nil, malformed
		}
	}
	s.auth, _ = o.GetObject("authorization")
	if s.auth == nil {
		s.auth = &jsonv.Object{}
	}
	if s.kind == "hash" {
		var ok bool
		if s.payer, ok = mpp.SourceAddress(mpp.String(e.Credential, "source")); !ok {
			return nil, rails.Refuse(mpp.CodeSourceRequired)
		}
	} else if s.payer = mpp.String(s.auth, "from"); !IsAddress(s.payer) {
		return nil, malformed
	}
	s.channel = SessionChannelID(s.payer, s.p.payee, s.p.token, e.H, s.signer, s.p.escrow, s.p.chain)
	if got, err := atr.ParseHash(strings.ToLower(mpp.String(e.Payload, "channelId"))); err != nil || got != s.channel {
		return nil, rails.Refuse(CodeChannelNotBound)
	}
	switch s.kind {
	case "authorization":
		nonce, err := atr.ParseHash(mpp.String(s.auth, "nonce"))
		if err != nil || nonce != SessionOpenNonce(s.payer, s.p.payee, s.p.token, e.H, s.signer) {
			return nil, rails.Refuse(CodeNonceNotChannel)
		}
	case "permit2":
		w, _ := s.auth.GetObject("witness")
		ws, err := atr.ParseHash(mpp.String(w, "salt"))
		if err != nil || ws != e.H {
			return nil, rails.Refuse(CodeSaltNotThisHash)
		}
	}
	return s, nil
}

// Bound reads H back out of an opening (opened).
func (p MPPSession) Bound(presented jsonv.Value) (string, error) {
	s, err := p.opened(presented)
	if err != nil {
		return "", err
	}
	return s.e.H.String(), nil
}

// Reference is what a seller records for an opening: for an authorization
// opening the AuthorizationUsed nonce and the deposit's Transfer (from, to
// the escrow, value); for Permit2 that Transfer; for hash the transaction
// the payer sent and its Transfer (from, to).
func (p MPPSession) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	s, err := p.opened(presented)
	if err != nil {
		return nil, err
	}
	malformed := rails.Refuse(mpp.CodeCredentialMalformed)
	network := "eip155:" + strconv.FormatInt(s.p.chain, 10)
	transferLog := func(f TransferFields, identity string) (*jsonv.Object, error) {
		d, err := TransferDigest(f)
		if err != nil {
			return nil, malformed
		}
		return jsonv.Obj("address", s.p.token, "topic0", TopicTransfer.Hex(), "identity", identity, "digest", hex0x(d[:])), nil
	}
	switch s.kind {
	case "hash":
		tx, err := atr.ParseHash(strings.ToLower(mpp.String(s.opening, "hash")))
		if err != nil {
			return nil, malformed
		}
		tl, err := transferLog(TransferFields{From: s.payer, To: s.p.escrow}, "from,to")
		if err != nil {
			return nil, err
		}
		return jsonv.Obj("network", network, "transaction", tx.String(), "transferLog", tl,
			"opens", jsonv.Obj("escrow", s.p.escrow, "channel", s.channel.String(), "h", s.e.H.String(), "chainId", s.p.chain)), nil
	case "authorization":
		value, ok1 := mpp.Uint256(mpp.String(s.auth, "value"))
		before, ok2 := mpp.Uint256(mpp.String(s.auth, "validBefore"))
		nonce := strings.ToLower(mpp.String(s.auth, "nonce"))
		if !ok1 || !ok2 {
			return nil, malformed
		}
		tl, err := transferLog(TransferFields{From: s.payer, To: s.p.escrow, Value: value}, "from,to,value")
		if err != nil {
			return nil, err
		}
		topic := TopicAuthorizationUsed.Hex()
		return jsonv.Obj("network", network, "settleBy", before.String(),
			"bindingLog", jsonv.Obj("address", s.p.token, "topic0", topic, "index", 2, "value", nonce),
			"transferLog", tl, "search", jsonv.Obj("address", s.p.token, "topics", []jsonv.Value{topic, nil, nonce})), nil
	}
	permitted, _ := s.auth.GetObject("permitted")
	value, ok1 := mpp.Uint256(mpp.String(permitted, "amount"))
	deadline, ok2 := mpp.Uint256(mpp.String(s.auth, "deadline"))
	if !ok1 || !ok2 {
		return nil, malformed
	}
	tl, err := transferLog(TransferFields{From: s.payer, To: s.p.escrow, Value: value}, "from,to,value")
	if err != nil {
		return nil, err
	}
	return jsonv.Obj("network", network, "settleBy", deadline.String(), "transferLog", tl), nil
}

// Summarize states what signing the opening grants: the deposit, of the
// token, into the channel. An authorization opening moves it to the escrow
// (the payee is the escrow: the signed data names no other); a Permit2
// opening lets the escrow take it for the witness's payee; a hash opening's
// open call names its payee. Only the first request is summarized: the
// zero voucher that follows grants nothing.
func (MPPSession) Summarize(req rails.Request) (rails.Grant, error) {
	bad := rails.Refuse(CodeRequestUnreadable)
	switch kind, _ := req.GetString("kind"); kind {
	case "eip712":
		td, _ := req.GetObject("typedData")
		if pt, _ := td.GetString("primaryType"); pt == "ReceiveWithAuthorization" {
			return SummarizeTransfer(asTransfer(req))
		}
		r, err := readPermit2Request(req, Permit2Permit{Permitted: make([]Permit2Token, 1),
			Witness: &Permit2Witness{Type: "ChannelOpenWitness", Fields: channelOpenWitnessFields}})
		if err != nil {
			return rails.Grant{}, err
		}
		g := r.grant()
		g.Payee = mpp.String(r.witness, "payee")
		return g, nil
	case KindEVMCalls:
		cv, _ := req.Get("chainId")
		chain, okChain := jsonv.AsSafeInt(cv)
		v, _ := req.Get("calls")
		calls, _ := jsonv.AsArray(v)
		if req.Len() != 4 || !okChain || chain <= 0 || len(calls) != 2 {
			return rails.Grant{}, bad
		}
		open, _ := jsonv.AsObject(calls[1])
		data, ok := mpp.HexBytes(mpp.String(open, "data"), 164, 164)
		if !ok || !IsAddress(mpp.String(open, "to")) || string(data[:4]) != string(selectorOpen) {
			return rails.Grant{}, bad
		}
		payee, token := common.BytesToAddress(data[4:36]).Hex(), common.BytesToAddress(data[36:68]).Hex()
		network := "eip155:" + strconv.FormatInt(chain, 10)
		return rails.Grant{Network: network, Asset: token, Decimals: rails.KnownDecimals(network, token),
			Amount: new(big.Int).SetBytes(data[68:100]), Payee: payee}, nil
	}
	return rails.Grant{}, bad
}

// asTransfer is a ReceiveWithAuthorization request read as the
// TransferWithAuthorization it shares its fields with, for
// SummarizeTransfer's strict reading.
func asTransfer(req rails.Request) rails.Request {
	td, _ := req.GetObject("typedData")
	types, _ := td.GetObject("types")
	if types == nil || types.Len() != 2 || !types.Has("ReceiveWithAuthorization") {
		return jsonv.Obj()
	}
	t := td.Clone()
	t.Set("primaryType", "TransferWithAuthorization")
	renamed := jsonv.Obj()
	for _, m := range types.Members() {
		k := m.Key
		if k == "ReceiveWithAuthorization" {
			k = "TransferWithAuthorization"
		}
		renamed.Set(k, m.Value)
	}
	t.Set("types", renamed)
	out := req.Clone()
	out.Set("typedData", t)
	return out
}

var _ rails.WithinSummarizer = MPPSession{}

// SummarizeWithin states what a voucher in the channel opening opened
// grants: the batch of one Voucher exactly as SessionVoucherTypedData
// writes it for the opening's channel, escrow and chain. Amount is the
// voucher's cumulative amount of the channel's token, for its payee.
func (p MPPSession) SummarizeWithin(req rails.Request, opening *jsonv.Object) (rails.Grant, error) {
	bad := rails.Refuse(CodeRequestUnreadable)
	rv, _ := req.Get("requests")
	list, _ := jsonv.AsArray(rv)
	if kind, _ := req.GetString("kind"); kind != rails.KindBatch || req.Len() != 2 || len(list) != 1 {
		return rails.Grant{}, bad
	}
	voucher, _ := jsonv.AsObject(list[0])
	td, _ := voucher.GetObject("typedData")
	if kind, _ := voucher.GetString("kind"); kind != "eip712" || voucher.Len() != 2 || td == nil {
		return rails.Grant{}, bad
	}
	s, err := p.opened(opening)
	if err != nil {
		return rails.Grant{}, bad
	}
	msg, _ := td.GetObject("message")
	cumulative, ok := mpp.Uint256(mpp.String(msg, "cumulativeAmount"))
	if !ok || !jsonv.Equal(td, SessionVoucherTypedData(s.p.chain, s.p.escrow, s.channel, cumulative)) {
		return rails.Grant{}, bad
	}
	network := "eip155:" + strconv.FormatInt(s.p.chain, 10)
	return rails.Grant{Network: network, Asset: s.p.token, Decimals: rails.KnownDecimals(network, s.p.token),
		Amount: cumulative, Payer: s.payer, Payee: s.p.payee}, nil
}

// ChannelKind: open for an opening (or a voucher carrying one in its
// deposit), within for a voucher or a top-up, close for the close.
func (MPPSession) ChannelKind(signed jsonv.Value) (rails.ChannelKind, error) {
	payload, err := mpp.SessionPayload(signed)
	if err != nil {
		return "", err
	}
	if d, ok := payload.GetObject("deposit"); ok && mpp.String(payload, "action") == "voucher" && mpp.String(d, "action") == "open" {
		return rails.ChannelOpen, nil
	}
	return mpp.SessionChannelKind(signed)
}

// ChannelRef is the challenge's network and the payload's channelId, in
// lowercase.
func (MPPSession) ChannelRef(signed jsonv.Value) (rails.ChannelRef, error) {
	payload, err := mpp.SessionPayload(signed)
	if err != nil {
		return rails.ChannelRef{}, err
	}
	o, _ := jsonv.AsObject(signed)
	c, _ := o.Get("challenge")
	network, err := sessionNetwork(c)
	if err != nil {
		return rails.ChannelRef{}, err
	}
	channel := strings.ToLower(mpp.String(payload, "channelId"))
	if !mpp.IsWord32(channel) {
		return rails.ChannelRef{}, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	return rails.ChannelRef{Network: network, Channel: channel}, nil
}

// sessionNetwork reads an EVM session challenge's network without the
// offer checks (a later challenge may name the channel to resume):
// methodDetails.chainId (mpp/chain-id-required) and an escrow
// (mpp/escrow-malformed).
func sessionNetwork(v jsonv.Value) (string, error) {
	c, ok := mpp.IsChallengeShape(v)
	if !ok {
		return "", rails.Refuse(mpp.CodeCredentialMalformed)
	}
	if mpp.String(c, "intent") != "session" || mpp.String(c, "method") != "evm" {
		return "", rails.Refuse(mpp.CodeNotThisPairing)
	}
	r, ok := mpp.DecodeObject(mpp.String(c, "request"))
	if !ok {
		return "", rails.Refuse(mpp.CodeRequestMalformed)
	}
	d, _ := r.GetObject("methodDetails")
	chain, ok := mpp.ChainIDOf(d, "chainId")
	if !ok {
		return "", rails.Refuse(mpp.CodeChainIDRequired)
	}
	if !IsAddress(mpp.String(d, "escrowContract")) {
		return "", rails.Refuse(mpp.CodeEscrowMalformed)
	}
	return "eip155:" + strconv.FormatInt(chain, 10), nil
}

// BoundWithin: a voucher carries no H (mpp/not-bound-within); it is bound
// through the channel the opening opened.
func (MPPSession) BoundWithin(jsonv.Value) (string, error) {
	return "", rails.Refuse(CodeNotBoundWithin)
}

// NamedChannel is the channel a later challenge names to resume
// (methodDetails.channelId, lowercase), on its network.
func (MPPSession) NamedChannel(challenge jsonv.Value) (rails.ChannelRef, bool, error) {
	network, err := sessionNetwork(challenge)
	if err != nil {
		return rails.ChannelRef{}, false, err
	}
	c, _ := jsonv.AsObject(challenge)
	r, _ := mpp.DecodeObject(mpp.String(c, "request"))
	d, _ := r.GetObject("methodDetails")
	v, has := d.Get("channelId")
	if !has {
		return rails.ChannelRef{}, false, nil
	}
	s, _ := v.(string)
	if !mpp.IsWord32(s) {
		return rails.ChannelRef{}, false, rails.Refuse(mpp.CodeRequestMalformed)
	}
	return rails.ChannelRef{Network: network, Channel: strings.ToLower(s)}, true, nil
}

type mppSessionWithin struct {
	challenge  *jsonv.Object
	action     rails.WithinAction
	channel    string
	cumulative string
	request    rails.Request
}

func (u *mppSessionWithin) Requests() []rails.Request { return []rails.Request{u.request.Clone()} }

// Complete takes the voucher signature and returns {challenge, payload:
// {action, channelId, cumulativeAmount, signature}}: no source, the channel
// names the payer.
func (u *mppSessionWithin) Complete(answers []string) (jsonv.Value, error) {
	if len(answers) != 1 {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	if _, ok := mpp.HexBytes(answers[0], MinSignatureBytes, MaxSignatureBytes); !ok {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	return jsonv.Obj("challenge", u.challenge.Clone(), "payload", jsonv.Obj("action", string(u.action),
		"channelId", u.channel, "cumulativeAmount", u.cumulative, "signature", answers[0])), nil
}

// BuildWithin builds a voucher (or the close's final voucher) on the held
// opening's channel: the within challenge (mpp/input-malformed,
// mpp/not-this-pairing), the opening read back carrying h
// (mpp/id-not-ours), the cumulative amount below 2^128
// (mpp/input-malformed), the action. Channel, escrow and chain come from
// the opening.
func (p MPPSession) BuildWithin(w rails.Within, h atr.Hash) (rails.InChannel, error) {
	c, err := mpp.WithinChallenge(w.Challenge, "evm")
	if err != nil {
		return nil, err
	}
	if w.Opening == nil {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	s, err := p.opened(w.Opening)
	if err != nil {
		return nil, err
	}
	if s.e.H != h {
		return nil, rails.Refuse(mpp.CodeIDNotOurs)
	}
	if w.Cumulative == nil || w.Cumulative.Sign() < 0 || w.Cumulative.Cmp(two128) >= 0 {
		return nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	switch w.Action {
	case rails.WithinVoucher, rails.WithinClose:
	case "topUp", "use", "bearer":
		return nil, rails.Refuse(CodeWithinNotBuilt)
	default:
		return nil, rails.Refuse(mpp.CodeSessionAction)
	}
	td := SessionVoucherTypedData(s.p.chain, s.p.escrow, s.channel, w.Cumulative)
	return &mppSessionWithin{challenge: c, action: w.Action, channel: s.channel.String(), cumulative: w.Cumulative.String(),
		request: jsonv.Obj("kind", "eip712", "typedData", td)}, nil
}

var (
	_ rails.Channel       = MPPSession{}
	_ rails.ChannelNamer  = MPPSession{}
	_ rails.WithinBuilder = MPPSession{}
	_ rails.Summarizer    = MPPSession{}
	_ rails.Mover         = MPPSession{}
)
