package hedera

// mpp/session/hedera: H goes in the escrow channel's salt. The payer's
// open(payee, token, deposit, salt, authorizedSigner) call on the escrow
// contract (over Hedera's EVM, through the JSON-RPC relay) has salt H, and
// the channel id, keccak256 over (payer, payee, token, salt,
// authorizedSigner, escrow, chainId), commits to it; the escrow's
// ChannelOpened log (data word 2) records it on chain. Vouchers carry no
// H: they name the channel the opening opened.

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
)

// Session is the mpp/session/hedera pairing.
type Session struct{}

// SessionID is the pairing id.
const SessionID = mpp.PairingHederaSession

// The session's codes, as the reference names them.
const (
	CodeChannelLogNotFound = "hedera/channel-log-not-found"
	CodeChannelIDMismatch  = "hedera/channel-id-mismatch"
	CodeReverted           = "hedera/reverted"
	CodeNotBoundWithin     = "mpp/not-bound-within"
	CodeWithinNotBuilt     = "mpp/within-action-not-built"
	CodeCarrierNotChalenge = "mpp/carrier-not-challenge"
	// MaxLandedLogs bounds the escrow logs kept from a landed receipt.
	MaxLandedLogs = 64
)

// The escrow's events: ChannelOpened(bytes32 indexed channelId, address
// indexed payer, address indexed payee, address token, address
// authorizedSigner, bytes32 salt, uint256 deposit) and ChannelClosed,
// both with the channel id as topic 1.
const (
	TopicChannelOpened = "0xcd6e60364f8ee4c2b0d62afc07a1fb04fd267ce94693f93f8f85daaa099b5c94"
	TopicChannelClosed = "0x92ed5fe0fe56b3f4185e688efb342e92a4492b9df29ad5de596c44e64d097b51"
)

const zeroAddress = "0x0000000000000000000000000000000000000000"

var (
	selectorOpen    = []byte{0xc7, 0x9e, 0xa4, 0x85} // open(address,address,uint128,bytes32,address)
	selectorApprove = []byte{0x09, 0x5e, 0xa7, 0xb3} // approve(address,uint256)
	two128          = new(big.Int).Lsh(big.NewInt(1), 128)
)

// SessionNetwork is the network of an EIP-155 chain id MPP's Hedera method
// names: 295 mainnet, 296 testnet.
func SessionNetwork(chain int64) (string, bool) {
	switch chain {
	case 295:
		return "hedera:mainnet", true
	case 296:
		return "hedera:testnet", true
	}
	return "", false
}

// SessionChain is SessionNetwork's inverse (0 for another network).
func SessionChain(network string) int64 {
	switch network {
	case "hedera:mainnet":
		return 295
	case "hedera:testnet":
		return 296
	}
	return 0
}

func word(b []byte) []byte { return common.LeftPadBytes(b, 32) }

func addrWord(a string) []byte { return word(common.HexToAddress(a).Bytes()) }

// ChannelID is keccak256(abi.encode(payer, payee, token, salt,
// authorizedSigner, escrow, chainId)).
func ChannelID(payer, payee, token string, salt atr.Hash, signer, escrow string, chain int64) atr.Hash {
	return atr.Hash(crypto.Keccak256(addrWord(payer), addrWord(payee), addrWord(token), salt[:], addrWord(signer),
		addrWord(escrow), word(big.NewInt(chain).Bytes())))
}

// ApproveCalldata is the token's approve(spender, amount).
func ApproveCalldata(spender string, amount *big.Int) []byte {
	return append(append(append([]byte(nil), selectorApprove...), addrWord(spender)...), word(amount.Bytes())...)
}

// OpenCalldata is the escrow's open(payee, token, deposit, salt,
// authorizedSigner): 164 bytes, the salt at bytes 100 to 132.
func OpenCalldata(payee, token string, deposit *big.Int, salt atr.Hash, signer string) []byte {
	out := append([]byte(nil), selectorOpen...)
	for _, w := range [][]byte{addrWord(payee), addrWord(token), word(deposit.Bytes()), salt[:], addrWord(signer)} {
		out = append(out, w...)
	}
	return out
}

// VoucherTypedData is the channel's voucher, Voucher(bytes32 channelId,
// uint128 cumulativeAmount) under "Hedera Stream Channel" version 1 and the
// escrow's domain (its address lowercase).
func VoucherTypedData(chain int64, escrow string, channel atr.Hash, cumulative *big.Int) *jsonv.Object {
	f := func(name, typ string) jsonv.Value { return jsonv.Obj("name", name, "type", typ) }
	return jsonv.Obj(
		"domain", jsonv.Obj("name", "Hedera Stream Channel", "version", "1", "chainId", chain,
			"verifyingContract", strings.ToLower(escrow)),
		"primaryType", "Voucher",
		"types", jsonv.Obj("EIP712Domain", []jsonv.Value{f("name", "string"), f("version", "string"),
			f("chainId", "uint256"), f("verifyingContract", "address")},
			"Voucher", []jsonv.Value{f("channelId", "bytes32"), f("cumulativeAmount", "uint128")}),
		"message", jsonv.Obj("channelId", channel.String(), "cumulativeAmount", cumulative.String()),
	)
}

func (Session) ID() string { return SessionID }

func (Session) Pattern() rails.Pattern { return rails.Pattern{Name: "native-field", PublicProof: true} }

func (Session) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

// sessionParams are what a Hedera session challenge fixes of its channel.
type sessionParams struct {
	network              string
	chain                int64
	escrow, token, payee string // lowercase
}

// paramsOf reads them from methodDetails and the request: chainId 295 or
// 296 (hedera/chain-id-unnamed), addresses (mpp/request-malformed).
func paramsOf(request, details *jsonv.Object) (sessionParams, error) {
	chain, _ := mpp.ChainIDOf(details, "chainId")
	network, ok := SessionNetwork(chain)
	if !ok {
		return sessionParams{}, rails.Refuse(mpp.CodeHederaChainIDUnnamed)
	}
	p := sessionParams{network: network, chain: chain, escrow: strings.ToLower(mpp.String(details, "escrowContract")),
		token: strings.ToLower(mpp.String(request, "currency")), payee: strings.ToLower(mpp.String(request, "recipient"))}
	if !evm.IsAddress(p.escrow) || !evm.IsAddress(p.token) || !evm.IsAddress(p.payee) {
		return sessionParams{}, rails.Refuse(mpp.CodeRequestMalformed)
	}
	return p, nil
}

// Choose takes the first placed challenge of this pairing on the account's
// network (hedera:<network>:<EVM address>, the payer's EVM account) and
// the deposit input; every address of the request must pass its checksum.
func (Session) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	acct, ok := rails.ParseAccount(account)
	if !ok || acct.Namespace != "hedera" || SessionChain(acct.Network()) == 0 || !evm.IsAddress(acct.Address) {
		return nil, rails.Refuse(mpp.CodeNoPayableOption)
	}
	var challenge *jsonv.Object
	for _, v := range read.Options {
		if !mpp.OffersPlaced(v, SessionID) {
			continue
		}
		if n, err := mpp.Network(v); err == nil && n == acct.Network() {
			challenge, _ = jsonv.AsObject(v)
			break
		}
	}
	if challenge == nil {
		return nil, rails.Refuse(mpp.CodeNoPayableOption)
	}
	if err := evm.CheckMPPAddresses(challenge, acct.Address); err != nil {
		return nil, err
	}
	given, err := mpp.Inputs(inputs, mpp.Input{Name: "deposit", Kind: "decimal"})
	if err != nil {
		return nil, err
	}
	return mpp.Choice(challenge.Clone(), acct.Address, now, given), nil
}

type sessionUnsigned struct {
	p         sessionParams
	challenge *jsonv.Object
	channel   atr.Hash
	request   rails.Request
}

// Build is the opening: the request {kind: evm-calls, chainId, calls:
// [approve(escrow, deposit) on the token, open(payee, token, deposit, H,
// zero signer) on the escrow], broadcast: true}, both sent in order by the
// payer's signer, whose answer is {hash (the open's), landed?}.
func (Session) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, ok := jsonv.AsObject(choice)
	if !ok {
		return nil, rails.Refuse(mpp.CodeChoiceMalformed)
	}
	o, err := mpp.OfferFor(choice, h, SessionID)
	if err != nil {
		return nil, err
	}
	deposit, ok := mpp.Uint256(mpp.String(c, "deposit"))
	if !ok || deposit.Sign() <= 0 || deposit.Cmp(two128) >= 0 {
		return nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	p, err := paramsOf(o.Request, o.Details)
	if err != nil {
		return nil, err
	}
	channel := ChannelID(o.From, p.payee, p.token, h, zeroAddress, p.escrow, p.chain)
	req := jsonv.Obj("kind", evm.KindEVMCalls, "chainId", p.chain, "calls", []jsonv.Value{
		jsonv.Obj("to", p.token, "data", hex0x(ApproveCalldata(p.escrow, deposit))),
		jsonv.Obj("to", p.escrow, "data", hex0x(OpenCalldata(p.payee, p.token, deposit, h, zeroAddress))),
	}, "broadcast", true)
	return &sessionUnsigned{p: p, challenge: o.Challenge, channel: channel, request: req}, nil
}

func (Session) Request(u rails.Unsigned) (rails.Request, error) {
	return u.(*sessionUnsigned).request.Clone(), nil
}

// Moves: the opening is sent by the payer's signer.
func (Session) Moves(first rails.Request) bool {
	b, _ := first.Get("broadcast")
	return b == true
}

// sentAnswer reads the opening's answer {hash, landed?}: the open's
// transaction hash, and the receipt the signer saw land ({transaction,
// blockNumber, logs}, its transaction the hash).
func sentAnswer(answer jsonv.Value) (string, *jsonv.Object, error) {
	malformed := rails.Refuse(mpp.CodeCredentialMalformed)
	a, _ := jsonv.AsObject(answer)
	hash, ok := a.GetString("hash")
	if !ok || !mpp.IsWord32(hash) || a.Len() > 2 || a.Len() == 2 && !a.Has("landed") {
		return "", nil, malformed
	}
	hash = strings.ToLower(hash)
	lv, has := a.Get("landed")
	if !has {
		return hash, nil, nil
	}
	l, _ := jsonv.AsObject(lv)
	tx, _ := l.GetString("transaction")
	logs, okLogs := l.Get("logs")
	list, _ := jsonv.AsArray(logs)
	block, okBlock := mpp.Uint256(mpp.String(l, "blockNumber"))
	if !strings.EqualFold(tx, hash) || !okLogs || list == nil && logs != nil || !okBlock || len(list) > 4*MaxLandedLogs {
		return "", nil, malformed
	}
	return hash, jsonv.Obj("transaction", hash, "blockNumber", block.String(), "logs", jsonv.Clone(logs)), nil
}

// Complete is step 2 with the opening's answer alone: the next request is
// the zero voucher on the channel. With [opening answer, voucher signature]
// it is the credential {challenge, payload: {action: open, channelId,
// txHash, cumulativeAmount: "0", signature}}, with the landed receipt
// beside it when the signer reported one (Sent strips it).
func (Session) Complete(un rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	u := un.(*sessionUnsigned)
	malformed := rails.Refuse(mpp.CodeCredentialMalformed)
	list, isList := answer.([]jsonv.Value)
	if !isList {
		if _, _, err := sentAnswer(answer); err != nil {
			return rails.Completion{}, err
		}
		td := VoucherTypedData(u.p.chain, u.p.escrow, u.channel, new(big.Int))
		return rails.Completion{Next: jsonv.Obj("kind", "eip712", "typedData", td)}, nil
	}
	if len(list) != 2 {
		return rails.Completion{}, malformed
	}
	hash, landed, err := sentAnswer(list[0])
	if err != nil {
		return rails.Completion{}, err
	}
	sig, _ := list[1].(string)
	if _, ok := mpp.HexBytes(sig, evm.MinSignatureBytes, evm.MaxSignatureBytes); !ok {
		return rails.Completion{}, malformed
	}
	cred := jsonv.Obj("challenge", u.challenge.Clone(), "payload", jsonv.Obj("action", "open", "channelId", u.channel.String(),
		"txHash", hash, "cumulativeAmount", "0", "signature", sig))
	if landed != nil {
		cred.Set("landed", landed)
	}
	return rails.Completion{Signed: cred}, nil
}

// Sent strips landed: the seller reads the receipt itself.
func (Session) Sent(signed jsonv.Value) (sent, landed jsonv.Value) {
	o, ok := jsonv.AsObject(signed)
	if !ok || !o.Has("landed") {
		return signed, nil
	}
	l, _ := o.Get("landed")
	s := o.Clone()
	s.Delete("landed")
	return s, jsonv.Clone(l)
}

// sessionOpening is an opening read back as far as its payload.
type sessionOpening struct {
	e       *mpp.Bound
	p       sessionParams
	channel string // lowercase
	tx      string // lowercase
}

// opening reads an opening: the echoed challenge of this pairing, the
// action open (mpp/session-action), the channel and transaction hashes
// (mpp/credential-malformed).
func opening(presented jsonv.Value) (*sessionOpening, error) {
	e, err := mpp.Echoed(presented, SessionID)
	if err != nil {
		return nil, err
	}
	if mpp.String(e.Payload, "action") != "open" {
		return nil, rails.Refuse(mpp.CodeSessionAction)
	}
	p, err := paramsOf(e.Checked.Request, e.Checked.Details)
	if err != nil {
		return nil, err
	}
	s := &sessionOpening{e: e, p: p, channel: strings.ToLower(mpp.String(e.Payload, "channelId")),
		tx: strings.ToLower(mpp.String(e.Payload, "txHash"))}
	if !mpp.IsWord32(s.channel) || !mpp.IsWord32(s.tx) {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	return s, nil
}

// channelOpened is the one ChannelOpened log read back.
type channelOpened struct {
	payer, payee, token, signer string
	salt                        atr.Hash
	deposit                     *big.Int
}

// opened reads the landed ChannelOpened: landed beside the credential
// (hedera/read-first without it, as FetchSessionPresented writes it), exactly one
// log from the escrow with four topics, the event's, the channel, and 128
// bytes of data (else hedera/channel-log-not-found); its salt H
// (mpp/carrier-not-challenge); the channel id recomputed from the event
// the payload's (hedera/channel-id-mismatch).
func (s *sessionOpening) opened() (*channelOpened, error) {
	landed, ok := s.e.Credential.GetObject("landed")
	lv, has := landed.Get("logs")
	list, okList := jsonv.AsArray(lv)
	if !ok || !has || !okList && lv != nil {
		return nil, rails.Refuse(CodeReadFirst)
	}
	var found *evm.Log
	count := 0
	for i, v := range list {
		if i >= 4*MaxLandedLogs {
			break
		}
		l := evm.ParseLog(v)
		data, okData := evm.HexBytes(l.Data)
		if !l.WellFormed || !evm.SameAddress(l.Address, s.p.escrow) || len(l.Topics) != 4 ||
			!evm.SameBytes(l.Topics[0], TopicChannelOpened) || !evm.SameBytes(l.Topics[1], s.channel) || !okData || len(data) != 128 {
			continue
		}
		count++
		found = &l
	}
	if count != 1 {
		return nil, rails.Refuse(CodeChannelLogNotFound)
	}
	data, _ := evm.HexBytes(found.Data)
	o := &channelOpened{salt: atr.Hash(data[64:96]), deposit: new(big.Int).SetBytes(data[96:128]),
		token: hex0x(data[12:32]), signer: hex0x(data[44:64])}
	if o.salt != s.e.H {
		return nil, rails.Refuse(CodeCarrierNotChalenge)
	}
	payer, ok1 := evm.TopicAddress(found.Topics[2])
	payee, ok2 := evm.TopicAddress(found.Topics[3])
	if !ok1 || !ok2 {
		return nil, rails.Refuse(CodeChannelLogNotFound)
	}
	o.payer, o.payee = payer, payee
	if ChannelID(payer, payee, o.token, o.salt, o.signer, s.p.escrow, s.p.chain).String() != s.channel {
		return nil, rails.Refuse(CodeChannelIDMismatch)
	}
	return o, nil
}

func hex0x(b []byte) string { return "0x" + common.Bytes2Hex(b) }

// Bound reads H back from an opening with its landed receipt (opened).
func (Session) Bound(presented jsonv.Value) (string, error) {
	s, err := opening(presented)
	if err != nil {
		return "", err
	}
	if _, err := s.opened(); err != nil {
		return "", err
	}
	return s.e.H.String(), nil
}

// FetchSessionPresented is the seller's read of an opening: the receipt of
// payload.txHash from the relay r, which must serve the challenge's network
// (hedera/unreadable); no receipt is hedera/not-found, a failed read
// hedera/unreadable, a revert hedera/reverted (reads to repeat). It
// returns the credential with landed {transaction, blockNumber, logs (the
// escrow's, at most MaxLandedLogs)} beside it.
func FetchSessionPresented(presented jsonv.Value, r evm.Reader) (*jsonv.Object, error) {
	s, err := opening(presented)
	if err != nil {
		return nil, err
	}
	if r == nil || r.Network() != s.p.network {
		return nil, rails.Refuse(CodeUnreadable)
	}
	v, err := r.Receipt(s.tx)
	if err != nil {
		return nil, rails.Refuse(CodeUnreadable)
	}
	if v == nil {
		return nil, rails.Refuse(CodeNotFound)
	}
	receipt, ok := evm.ParseReceipt(v)
	if !ok || !receipt.AllWellFormed() {
		return nil, rails.Refuse(CodeUnreadable)
	}
	if !receipt.Succeeded {
		return nil, rails.Refuse(CodeReverted)
	}
	logs := []jsonv.Value{}
	for _, l := range receipt.Logs {
		if len(logs) < MaxLandedLogs && evm.SameAddress(l.Address, s.p.escrow) {
			logs = append(logs, l.Raw.Clone())
		}
	}
	out := s.e.Credential.Clone()
	out.Set("landed", jsonv.Obj("transaction", s.tx, "blockNumber", strconv.FormatUint(receipt.BlockNumber, 10), "logs", logs))
	return out, nil
}

// Reference is what a seller records for an opening: {network,
// transaction (payload.txHash), bindingLog (the escrow's ChannelOpened
// with the channel as topic 1)}, read by evm.RefStatus.
func (Session) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	s, err := opening(presented)
	if err != nil {
		return nil, err
	}
	return jsonv.Obj("network", s.p.network, "transaction", s.tx,
		"bindingLog", jsonv.Obj("address", s.p.escrow, "topic0", TopicChannelOpened, "index", 1, "value", s.channel)), nil
}

// CloseReference is the read keys of a close from the challenge the seller
// issued and the channel: {phase: close, network, escrow, channel, search
// (the escrow's ChannelClosed naming the channel)}. With the reported
// transaction added, CloseStatus reads it.
func CloseReference(chosen jsonv.Value, channel string) (*jsonv.Object, error) {
	c, ok := mpp.IsChallengeShape(chosen)
	if !ok || mpp.String(c, "method") != "hedera" || mpp.String(c, "intent") != "session" {
		return nil, rails.Refuse(mpp.CodeNotThisPairing)
	}
	r, ok := mpp.DecodeObject(mpp.String(c, "request"))
	if !ok {
		return nil, rails.Refuse(mpp.CodeRequestMalformed)
	}
	d, _ := r.GetObject("methodDetails")
	p, err := paramsOf(r, d)
	if err != nil {
		return nil, err
	}
	ch := strings.ToLower(channel)
	if !mpp.IsWord32(ch) {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	return jsonv.Obj("phase", "close", "network", p.network, "escrow", p.escrow, "channel", ch,
		"search", jsonv.Obj("address", p.escrow, "topics", []jsonv.Value{TopicChannelClosed, ch})), nil
}

// SessionStatus reads an opening's reference (Reference) or a close's
// (CloseReference with transaction), as evm.RefStatus reads any EVM
// payment through the relay: the close's binding log is the escrow's
// ChannelClosed naming the channel.
func SessionStatus(ref *jsonv.Object, r evm.Reader) evm.Status {
	if phase, _ := ref.GetString("phase"); phase == "close" {
		str := func(k string) string { s, _ := ref.GetString(k); return s }
		ref = jsonv.Obj("network", str("network"), "transaction", str("transaction"),
			"bindingLog", jsonv.Obj("address", str("escrow"), "topic0", TopicChannelClosed, "index", 1, "value", str("channel")))
	}
	s, _ := evm.RefStatus(ref, r)
	return s
}

// Summarize states what sending the opening grants: the deposit of the
// token into the channel for the open call's payee. The request must be
// exactly as Build writes it: approve(escrow, deposit) on the token, then
// open on that escrow for that token and deposit.
func (Session) Summarize(req rails.Request) (rails.Grant, error) {
	bad := rails.Refuse(evm.CodeRequestUnreadable)
	cv, _ := req.Get("chainId")
	chain, _ := jsonv.AsSafeInt(cv)
	network, okN := SessionNetwork(chain)
	v, _ := req.Get("calls")
	calls, _ := jsonv.AsArray(v)
	b, _ := req.Get("broadcast")
	if k, _ := req.GetString("kind"); k != evm.KindEVMCalls || req.Len() != 4 || !okN || len(calls) != 2 || b != true {
		return rails.Grant{}, bad
	}
	approve, _ := jsonv.AsObject(calls[0])
	open, _ := jsonv.AsObject(calls[1])
	a, okA := mpp.HexBytes(mpp.String(approve, "data"), 68, 68)
	d, okD := mpp.HexBytes(mpp.String(open, "data"), 164, 164)
	token, escrow := mpp.String(approve, "to"), mpp.String(open, "to")
	if !okA || !okD || approve.Len() != 2 || open.Len() != 2 || !evm.IsAddress(token) || !evm.IsAddress(escrow) ||
		string(a[:4]) != string(selectorApprove) || string(d[:4]) != string(selectorOpen) {
		return rails.Grant{}, bad
	}
	deposit := new(big.Int).SetBytes(d[68:100])
	if !evm.SameAddress(hex0x(a[16:36]), escrow) || new(big.Int).SetBytes(a[36:68]).Cmp(deposit) != 0 ||
		!evm.SameAddress(hex0x(d[48:68]), token) {
		return rails.Grant{}, bad
	}
	return rails.Grant{Network: network, Asset: strings.ToLower(token), Decimals: rails.KnownDecimals(network, token),
		Amount: deposit, Payee: hex0x(d[16:36])}, nil
}

var _ rails.WithinSummarizer = Session{}

// SummarizeWithin states what a voucher in the held channel grants: the
// batch of one Voucher exactly as VoucherTypedData writes it for the
// opening's channel, escrow and chain; its cumulative amount of the
// channel's token, for its payee.
func (Session) SummarizeWithin(req rails.Request, held *jsonv.Object) (rails.Grant, error) {
	bad := rails.Refuse(evm.CodeRequestUnreadable)
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
	s, err := opening(held)
	if err != nil {
		return rails.Grant{}, bad
	}
	o, err := s.opened()
	if err != nil {
		return rails.Grant{}, bad
	}
	msg, _ := td.GetObject("message")
	cumulative, ok := mpp.Uint256(mpp.String(msg, "cumulativeAmount"))
	channel, _ := atr.ParseHash(s.channel)
	if !ok || !jsonv.Equal(td, VoucherTypedData(s.p.chain, s.p.escrow, channel, cumulative)) {
		return rails.Grant{}, bad
	}
	return rails.Grant{Network: s.p.network, Asset: o.token, Decimals: rails.KnownDecimals(s.p.network, o.token),
		Amount: cumulative, Payer: o.payer, Payee: o.payee}, nil
}

// ChannelKind: open, within (voucher, topUp) or close; any other action
// mpp/session-action.
func (Session) ChannelKind(signed jsonv.Value) (rails.ChannelKind, error) {
	return mpp.SessionChannelKind(signed)
}

// ChannelRef is the echoed challenge's network (read without the opening's
// checks: a later challenge names the channel) and the payload's
// channelId, lowercase.
func (Session) ChannelRef(signed jsonv.Value) (rails.ChannelRef, error) {
	payload, err := mpp.SessionPayload(signed)
	if err != nil {
		return rails.ChannelRef{}, err
	}
	o, _ := jsonv.AsObject(signed)
	c, _ := o.Get("challenge")
	network, _, err := sessionChallenge(c)
	if err != nil {
		return rails.ChannelRef{}, err
	}
	channel := strings.ToLower(mpp.String(payload, "channelId"))
	if !mpp.IsWord32(channel) {
		return rails.ChannelRef{}, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	return rails.ChannelRef{Network: network, Channel: channel}, nil
}

// sessionChallenge reads a Hedera session challenge's network and
// methodDetails without the offer checks.
func sessionChallenge(v jsonv.Value) (string, *jsonv.Object, error) {
	c, ok := mpp.IsChallengeShape(v)
	if !ok {
		return "", nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	if mpp.String(c, "intent") != "session" || mpp.String(c, "method") != "hedera" {
		return "", nil, rails.Refuse(mpp.CodeNotThisPairing)
	}
	r, ok := mpp.DecodeObject(mpp.String(c, "request"))
	if !ok {
		return "", nil, rails.Refuse(mpp.CodeRequestMalformed)
	}
	d, _ := r.GetObject("methodDetails")
	chain, _ := mpp.ChainIDOf(d, "chainId")
	network, ok := SessionNetwork(chain)
	if !ok {
		return "", nil, rails.Refuse(mpp.CodeHederaChainIDUnnamed)
	}
	return network, d, nil
}

// BoundWithin: a voucher carries no H (mpp/not-bound-within).
func (Session) BoundWithin(jsonv.Value) (string, error) { return "", rails.Refuse(CodeNotBoundWithin) }

// NamedChannel is the channel a later challenge names to resume
// (methodDetails.channelId, lowercase), on its network.
func (Session) NamedChannel(challenge jsonv.Value) (rails.ChannelRef, bool, error) {
	network, d, err := sessionChallenge(challenge)
	if err != nil {
		return rails.ChannelRef{}, false, err
	}
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

type sessionWithin struct {
	challenge  *jsonv.Object
	action     rails.WithinAction
	channel    string
	cumulative string
	request    rails.Request
}

func (u *sessionWithin) Requests() []rails.Request { return []rails.Request{u.request.Clone()} }

// Complete takes the voucher signature: {challenge, payload: {action,
// channelId, cumulativeAmount, signature}}.
func (u *sessionWithin) Complete(answers []string) (jsonv.Value, error) {
	if len(answers) != 1 {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	if _, ok := mpp.HexBytes(answers[0], evm.MinSignatureBytes, evm.MaxSignatureBytes); !ok {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	return jsonv.Obj("challenge", u.challenge.Clone(), "payload", jsonv.Obj("action", string(u.action),
		"channelId", u.channel, "cumulativeAmount", u.cumulative, "signature", answers[0])), nil
}

// BuildWithin builds a voucher (or the close's final voucher) on the held
// opening's channel: the within challenge (mpp/input-malformed,
// mpp/not-this-pairing), the opening read back with its landed log and
// carrying h (mpp/id-not-ours), the cumulative amount below 2^128
// (mpp/input-malformed), the action. Channel, escrow and chain come from
// the opening.
func (Session) BuildWithin(w rails.Within, h atr.Hash) (rails.InChannel, error) {
	c, err := mpp.WithinChallenge(w.Challenge, "hedera")
	if err != nil {
		return nil, err
	}
	if w.Opening == nil {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	s, err := opening(w.Opening)
	if err != nil {
		return nil, err
	}
	if _, err := s.opened(); err != nil {
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
	channel, _ := atr.ParseHash(s.channel)
	td := VoucherTypedData(s.p.chain, s.p.escrow, channel, w.Cumulative)
	return &sessionWithin{challenge: c, action: w.Action, channel: s.channel, cumulative: w.Cumulative.String(),
		request: jsonv.Obj("kind", "eip712", "typedData", td)}, nil
}

// Inspect reads an opening with its landed receipt (channel-open: the
// deposit from the payer to the payee, H the salt), or a voucher or close
// (channel-within, channel-close: the cumulative amount on the channel,
// no H of its own).
func (p Session) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	kind, err := p.ChannelKind(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	if kind != rails.ChannelOpen {
		ref, err := p.ChannelRef(payment)
		if err != nil {
			return rails.Inspection{}, err
		}
		payload, _ := mpp.SessionPayload(payment)
		cumulative, ok := mpp.Uint256(mpp.String(payload, "cumulativeAmount"))
		if _, okS := mpp.HexBytes(mpp.String(payload, "signature"), evm.MinSignatureBytes, evm.MaxSignatureBytes); !ok || !okS {
			return rails.Inspection{}, rails.Refuse(mpp.CodeCredentialMalformed)
		}
		return rails.Inspection{Pairing: SessionID, Kind: "channel-" + string(kind),
			Grant:  rails.Grant{Network: ref.Network, Decimals: -1, Amount: cumulative},
			WhereH: "none in a voucher: it names the channel (payload.channelId) whose opening's salt is H",
			Details: jsonv.Obj("channelId", ref.Channel, "action", mpp.String(payload, "action"),
				"cumulativeAmount", cumulative.String())}, nil
	}
	s, err := opening(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	o, err := s.opened()
	if err != nil {
		return rails.Inspection{}, err
	}
	g := rails.Grant{Network: s.p.network, Asset: o.token, Decimals: rails.KnownDecimals(s.p.network, o.token),
		Amount: o.deposit, Payer: o.payer, Payee: o.payee}
	return rails.Inspection{Pairing: SessionID, Kind: "channel-open", Grant: g, H: s.e.H.String(),
		WhereH: "the escrow channel's salt: open(payee, token, deposit, salt, authorizedSigner) and the landed ChannelOpened log (data word 2); the channel id (keccak256 over payer, payee, token, salt, authorizedSigner, escrow, chainId) commits to it",
		Details: jsonv.Obj("channelId", s.channel, "escrow", s.p.escrow, "transaction", s.tx,
			"authorizedSigner", o.signer)}, nil
}

var (
	_ rails.Channel       = Session{}
	_ rails.ChannelNamer  = Session{}
	_ rails.WithinBuilder = Session{}
	_ rails.Summarizer    = Session{}
	_ rails.Mover         = Session{}
	_ rails.Sender        = Session{}
	_ rails.Inspector     = Session{}
)
