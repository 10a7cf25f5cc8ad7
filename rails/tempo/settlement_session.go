package tempo

// The settlement side of the Tempo channels: where an mpp/session/tempo
// opening and an mpp/subscription/tempo activation show on chain, and how
// they end. A session's opening is the escrow's ChannelOpened naming the
// channel (on v2 with H as its salt word; on v1 the channel id recomputed
// with H as the salt); its close is the escrow's ChannelClosed naming the
// channel. A subscription's activation is the account keychain's
// KeyAuthorizationWitness with H in topic 2 and the first period's Transfer;
// it ends when the keychain's KeyRevoked names the access key.

import (
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

// AccountKeychain is Tempo's account keychain precompile, which registers
// access keys and emits their witness.
const AccountKeychain = "0xaaaaaaaa00000000000000000000000000000000"

// The escrows' and the keychain's events, each the keccak256 of its
// signature.
var (
	TopicChannelOpenedV2         = eventTopic("ChannelOpened(bytes32,address,address,address,address,address,bytes32,bytes32,uint96)")
	TopicChannelOpenedV1         = eventTopic("ChannelOpened(bytes32,address,address,address,address,uint256)")
	TopicChannelClosedV2         = eventTopic("ChannelClosed(bytes32,address,address,uint96,uint96)")
	TopicChannelClosedV1         = eventTopic("ChannelClosed(bytes32,address,address,uint256,uint256)")
	TopicKeyAuthorizationWitness = eventTopic("KeyAuthorizationWitness(address,bytes32)")
	TopicKeyRevoked              = eventTopic("KeyRevoked(address,address)")
)

func eventTopic(signature string) string { return crypto.Keccak256Hash([]byte(signature)).Hex() }

// Reference is what a seller records at claim for an opening, once it reads
// back (Bound): {network, settleBy (the signed valid_before, else the
// challenge's expiry), search (the escrow's ChannelOpened naming the
// channel, to find the opening the seller broadcasts), opened {address
// (the escrow as written), version, channel, h, chainId}}, which
// SessionStatus reads.
func (p Session) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	h, err := p.Bound(presented)
	if err != nil {
		return nil, err
	}
	e, err := mpp.Echoed(presented, SessionID)
	if err != nil {
		return nil, err
	}
	params, err := paramsOf(e.Checked)
	if err != nil {
		return nil, err
	}
	wire, _ := mpp.HexBytes(mpp.String(e.Payload, "transaction"), 0, MaxWireBytes)
	tx, err := DecodeTx(wire)
	if err != nil {
		return nil, err
	}
	settleBy := strconv.FormatInt(e.Checked.Expires, 10)
	if tx.ValidBefore != nil {
		settleBy = tx.ValidBefore.String()
	}
	channel := strings.ToLower(mpp.String(e.Payload, "channelId"))
	version, topic := "v1", TopicChannelOpenedV1
	if params.v2 {
		version, topic = "v2", TopicChannelOpenedV2
	}
	return jsonv.Obj(
		"network", eip155(params.chain),
		"settleBy", settleBy,
		"search", jsonv.Obj("address", params.escrow, "topics", []jsonv.Value{topic, channel}),
		"opened", jsonv.Obj("address", params.escrow, "version", version, "channel", channel, "h", h, "chainId", params.chain),
	), nil
}

// CloseRef is the read keys of the channel's close, from the challenge the
// opening answered and the channel id: {network, bindingLog (the escrow's
// ChannelClosed naming the channel in topic 1), search (the same as a
// filter)}. The challenge is read without the opening's checks, so that one
// naming the channel reads too.
func (Session) CloseRef(chosen jsonv.Value, channel string) (*jsonv.Object, error) {
	p, err := settlementParamsOf(chosen, "session")
	if err != nil {
		return nil, err
	}
	if !mpp.IsWord32(channel) {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	c := strings.ToLower(channel)
	topic := TopicChannelClosedV1
	if p.v2 {
		topic = TopicChannelClosedV2
	}
	return jsonv.Obj(
		"network", eip155(p.chain),
		"bindingLog", jsonv.Obj("address", p.escrow, "topic0", topic, "index", 1, "value", c),
		"search", jsonv.Obj("address", p.escrow, "topics", []jsonv.Value{topic, c}),
	), nil
}

// Status is SessionStatus.
func (Session) Status(ref *jsonv.Object, r evm.Reader) evm.Status { return SessionStatus(ref, r) }

// SessionStatus reads a session or subscription reference (with the
// settling transaction added): evm.RefStatus on its logs, then, where the
// ref has opened, one ChannelOpened log from the escrow naming the channel
// whose salt is h (v2: data word 3; v1: the channel id recomputed from the
// event with salt h), else failed binding-log-not-found. A ref whose opened
// does not read, or one naming an EVM session's close (closes) or a transfer
// under an access key (accessKey.account), which are not read here, is
// pending unreadable: a status never says settled of what it did not check.
func SessionStatus(ref *jsonv.Object, r evm.Reader) evm.Status {
	unreadable := evm.Status{State: evm.StatePending, Why: evm.WhyUnreadable}
	if key, _ := ref.GetObject("accessKey"); ref.Has("closes") || key.Has("account") {
		return unreadable
	}
	o, ok := openedOf(ref)
	if !ok {
		return unreadable
	}
	s, receipt := evm.RefStatus(ref, r)
	if s.State != evm.StateSettled || o == nil {
		return s
	}
	for _, l := range receipt.Logs {
		if o.opens(l) {
			return s
		}
	}
	return evm.Status{State: evm.StateFailed, Why: evm.WhyBindingLogNotFound}
}

// opened is a ref's opened member.
type opened struct {
	escrow, channel string
	h               atr.Hash
	v2              bool
	chain           int64
}

// openedOf reads ref.opened: nil when absent, ok false when it does not read.
func openedOf(ref *jsonv.Object) (*opened, bool) {
	v, has := ref.Get("opened")
	if !has {
		return nil, true
	}
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, false
	}
	x := &opened{escrow: mpp.String(o, "address"), channel: mpp.String(o, "channel")}
	version := mpp.String(o, "version")
	h, err := atr.ParseHash(mpp.String(o, "h"))
	chain, okChain := mpp.ChainIDOf(o, "chainId")
	if !mpp.IsAddress(x.escrow) || !mpp.IsWord32(x.channel) || (version != "v1" && version != "v2") || err != nil || !okChain {
		return nil, false
	}
	x.h, x.v2, x.chain = h, version == "v2", chain
	return x, true
}

// opens: a ChannelOpened from the escrow, with four topics, naming the
// channel in topic 1, whose salt is h.
func (o *opened) opens(l evm.Log) bool {
	if !evm.SameAddress(l.Address, o.escrow) || len(l.Topics) != 4 || !evm.SameBytes(l.Topics[1], o.channel) {
		return false
	}
	if o.v2 {
		salt, ok := l.DataWord(3)
		return ok && evm.SameBytes(l.Topics[0], TopicChannelOpenedV2) && atr.Hash(salt) == o.h
	}
	// v1's event carries no salt: the channel id, recomputed from the event's
	// payer, payee, token and signer with salt h, must be the channel.
	token, okToken := l.DataWord(0)
	signer, okSigner := l.DataWord(1)
	payer, okPayer := evm.TopicAddress(l.Topics[2])
	payee, okPayee := evm.TopicAddress(l.Topics[3])
	if !evm.SameBytes(l.Topics[0], TopicChannelOpenedV1) || !okToken || !okSigner || !okPayer || !okPayee {
		return false
	}
	id := ChannelIDV1(common.HexToAddress(payer), common.HexToAddress(payee), common.BytesToAddress(token[12:]),
		o.h, common.BytesToAddress(signer[12:]), common.HexToAddress(o.escrow), o.chain)
	return evm.SameBytes(hex0x(id[:]), o.channel)
}

// Reference is what a seller records at claim for a subscription, once it
// reads back (Bound): {network, bindingLog (the keychain's
// KeyAuthorizationWitness with H in topic 2), transferLog (the currency's
// Transfer of the first period's amount to the recipient), search (the
// witness filter, which finds the activation from H alone), accessKey {keyId
// (the signed authorization's, lowercase), token, to (the digest of the
// recipient alone, for the transfers later made under the key)}}.
func (p Subscription) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	h, err := p.Bound(presented)
	if err != nil {
		return nil, err
	}
	e, err := mpp.Echoed(presented, SubscriptionID)
	if err != nil {
		return nil, err
	}
	k, err := DecodeKeyAuthorization(mpp.String(e.Payload, "signature"))
	if err != nil {
		return nil, err
	}
	chain, _ := mpp.ChainIDOf(e.Checked.Details, "chainId")
	currency, recipient := mpp.String(e.Checked.Request, "currency"), mpp.String(e.Checked.Request, "recipient")
	amount, _ := mpp.Uint256(mpp.String(e.Checked.Request, "amount"))
	digest, err1 := evm.TransferDigest(evm.TransferFields{To: recipient, Value: amount})
	to, err2 := evm.TransferDigest(evm.TransferFields{To: recipient})
	if err1 != nil || err2 != nil {
		return nil, rails.Refuse(mpp.CodeRequestMalformed) // the challenge check read both; unreachable
	}
	return jsonv.Obj(
		"network", eip155(chain),
		"bindingLog", jsonv.Obj("address", AccountKeychain, "topic0", TopicKeyAuthorizationWitness, "index", 2, "value", h),
		"transferLog", jsonv.Obj("address", currency, "topic0", evm.TopicTransfer.Hex(), "identity", "to,value", "digest", hex0x(digest[:])),
		"search", jsonv.Obj("address", AccountKeychain, "topics", []jsonv.Value{TopicKeyAuthorizationWitness, nil, h}),
		"accessKey", jsonv.Obj("keyId", hex0x(k.KeyID), "token", currency, "to", hex0x(to[:])),
	), nil
}

// CloseRef is the read keys of the subscription's end: {network, bindingLog
// (the keychain's KeyRevoked naming the challenge's access key in topic 2)}.
// A subscription ends by revoking its key, whatever the channel, so channel
// is not read; it is there so that both channel pairings close alike.
func (Subscription) CloseRef(chosen jsonv.Value, _ string) (*jsonv.Object, error) {
	p, err := settlementParamsOf(chosen, "subscription")
	if err != nil {
		return nil, err
	}
	key, _ := p.details.GetObject("accessKey")
	address := mpp.String(key, "accessKeyAddress")
	if !mpp.IsAddress(address) {
		return nil, rails.Refuse(mpp.CodeAccessKeyMalformed)
	}
	word := common.LeftPadBytes(common.HexToAddress(address).Bytes(), 32)
	return jsonv.Obj(
		"network", eip155(p.chain),
		"bindingLog", jsonv.Obj("address", AccountKeychain, "topic0", TopicKeyRevoked, "index", 2, "value", hex0x(word)),
	), nil
}

// Status is SessionStatus.
func (Subscription) Status(ref *jsonv.Object, r evm.Reader) evm.Status { return SessionStatus(ref, r) }

// Recover reads H from an activation transaction alone, ref {network,
// transaction}: topic 2 of its one KeyAuthorizationWitness log from the
// account keychain, lowercase. None is tempo/no-witness, several
// tempo/ambiguous, a witness that is not 32 bytes tempo/unreadable; the
// receipt read's refusals are ReadReceipt's. One read.
func (Subscription) Recover(ref *jsonv.Object, r evm.Reader) (string, error) {
	receipt, err := ReadReceipt(mpp.String(ref, "network"), mpp.String(ref, "transaction"), r)
	if err != nil {
		return "", err
	}
	var witnesses []string
	for _, l := range receipt.Logs {
		if !evm.SameAddress(l.Address, AccountKeychain) || len(l.Topics) != 3 || !evm.SameBytes(l.Topics[0], TopicKeyAuthorizationWitness) {
			continue
		}
		if !mpp.IsWord32(l.Topics[2]) {
			return "", rails.Refuse(CodeUnreadable)
		}
		witnesses = append(witnesses, strings.ToLower(l.Topics[2]))
	}
	switch len(witnesses) {
	case 0:
		return "", rails.Refuse(CodeNoWitness)
	case 1:
		return witnesses[0], nil
	}
	return "", rails.Refuse(CodeAmbiguous)
}

// settlementParamsOf reads a Tempo session's or subscription's challenge
// (intent as given) without the opening's checks: its chain (chainId; a
// session naming none is on 4217), and a session's escrow and version.
// Codes: mpp/credential-malformed (no challenge with a request string),
// mpp/not-this-pairing, mpp/request-malformed, mpp/chain-id-required,
// mpp/escrow-malformed.
func settlementParamsOf(v jsonv.Value, intent string) (*channelParams, error) {
	c, ok := jsonv.AsObject(v)
	reqText, okRequest := c.GetString("request")
	if !ok || !okRequest {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	if mpp.String(c, "intent") != intent || mpp.String(c, "method") != "tempo" {
		return nil, rails.Refuse(mpp.CodeNotThisPairing)
	}
	request, ok := mpp.DecodeObject(reqText)
	if !ok {
		return nil, rails.Refuse(mpp.CodeRequestMalformed)
	}
	details, ok := request.GetObject("methodDetails")
	if !ok {
		details = &jsonv.Object{}
	}
	p := &channelParams{details: details}
	if p.chain, ok = mpp.ChainIDOf(details, "chainId"); !ok {
		if intent != "session" || details.Has("chainId") {
			return nil, rails.Refuse(mpp.CodeChainIDRequired)
		}
		p.chain = mpp.TempoSessionDefaultChain
	}
	if intent == "session" {
		p.escrow = mpp.String(details, "escrowContract")
		if !mpp.IsAddress(p.escrow) {
			return nil, rails.Refuse(mpp.CodeEscrowMalformed)
		}
		p.v2 = mpp.String(details, "sessionProtocol") == "v2"
	}
	return p, nil
}

func eip155(chain int64) string { return "eip155:" + strconv.FormatInt(chain, 10) }
