package tempo

// The settlement side of the Tempo charges: the reference a seller records
// for a memo or push credential (the TIP-20's TransferWithMemo log with the
// attribution memo in topic 3, and the transfer it identifies), its status
// on the chain, and the receipt read that completes a push credential with
// what landed. Tempo serves eip155 JSON-RPC, so the reader is evm.Reader and
// the status is evm.RefStatus. Nothing here fetches: the caller's reader
// does, and every outcome is a value.

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
)

// Refusal codes of a Tempo receipt read. Each is a read to repeat, not a
// refusal of the payment.
const (
	CodeNotFound   = "tempo/not-found"  // the node holds no receipt (yet)
	CodeUnreadable = "tempo/unreadable" // the read failed, or its answer does not read
	CodeReverted   = "tempo/reverted"   // the transaction reverted
)

// ReadReceipt reads tx's receipt on network, one read: tx not a 32-byte hash,
// or no receipt, is tempo/not-found; a reader of another network, a failed
// read, or a receipt (or any of its logs) that does not read is
// tempo/unreadable; a revert is tempo/reverted.
func ReadReceipt(network, tx string, r evm.Reader) (*evm.Receipt, error) {
	if !mpp.IsWord32(tx) {
		return nil, rails.Refuse(CodeNotFound)
	}
	receipt, f := evm.ReadReceipt(network, strings.ToLower(tx), r)
	switch f {
	case evm.ReadOK:
		if !receipt.AllWellFormed() {
			return nil, rails.Refuse(CodeUnreadable)
		}
		return receipt, nil
	case evm.ReadNoReceipt:
		return nil, rails.Refuse(CodeNotFound)
	case evm.ReadReverted:
		return nil, rails.Refuse(CodeReverted)
	}
	return nil, rails.Refuse(CodeUnreadable)
}

// Reference is what a seller records at claim for a memo credential, once it
// reads back (Bound): {network, settleBy (the signed valid_before, else the
// challenge's expiry), bindingLog (the currency's TransferWithMemo with the
// memo in topic 3), transferLog (the same log, whose to and value hash to
// the signed call's), search}.
func (p Memo) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	if _, err := p.Bound(presented); err != nil {
		return nil, err
	}
	e, err := mpp.Echoed(presented, MemoID)
	if err != nil {
		return nil, err
	}
	wire, _ := mpp.HexBytes(mpp.String(e.Payload, "signature"), 0, MaxWireBytes)
	tx, err := DecodeTx(wire)
	if err != nil {
		return nil, err
	}
	currency := common.HexToAddress(mpp.String(e.Checked.Request, "currency"))
	realm, id := mpp.String(e.Challenge, "realm"), mpp.String(e.Challenge, "id")
	for _, c := range tx.Calls {
		memo, ok := MemoOf(c, currency)
		if !ok || mpp.CheckAttributionBytes(memo, realm, id) != nil {
			continue
		}
		settleBy := big.NewInt(e.Checked.Expires)
		if tx.ValidBefore != nil {
			settleBy = tx.ValidBefore
		}
		to := hex0x(c.Input[16:36])
		value := new(big.Int).SetBytes(c.Input[36:68])
		return memoReference(e.Checked, hex0x(memo[:]), to, value, settleBy.String())
	}
	return nil, rails.Refuse(CodeMemoNotBound) // Bound found it; unreachable
}

// Reference is what a seller records for a push credential with what
// landed: Memo's reference read from the landed TransferWithMemo log, with
// no settleBy (the transaction has landed). A memo log whose to or value does
// not read is mpp/credential-malformed.
func (p Push) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	if _, err := p.Bound(presented); err != nil {
		return nil, err
	}
	e, err := mpp.Echoed(presented, PushID)
	if err != nil {
		return nil, err
	}
	currency := mpp.String(e.Checked.Request, "currency")
	realm, id := mpp.String(e.Challenge, "realm"), mpp.String(e.Challenge, "id")
	landed, _ := e.Credential.GetObject("landed")
	lv, _ := landed.Get("logs")
	logs, _ := jsonv.AsArray(lv)
	topic := TopicTransferWithMemo.Hex()
	for _, v := range logs {
		l := evm.ParseLog(v)
		if len(l.Topics) != 4 || !evm.SameBytes(l.Address, currency) || !evm.SameBytes(l.Topics[0], topic) {
			continue
		}
		if mpp.CheckAttribution(l.Topics[3], realm, id) != nil {
			continue
		}
		parts, ok := evm.TransferPartsOf(l, currency, topic)
		if !ok {
			return nil, rails.Refuse(mpp.CodeCredentialMalformed)
		}
		return memoReference(e.Checked, strings.ToLower(l.Topics[3]), parts.To, parts.Value, "")
	}
	return nil, rails.Refuse(CodeMemoNotBound) // Bound found it; unreachable
}

// memoReference is the charges' reference; settleBy "" is none.
func memoReference(c *mpp.Checked, memo, to string, value *big.Int, settleBy string) (*jsonv.Object, error) {
	digest, err := evm.TransferDigest(evm.TransferFields{To: to, Value: value})
	if err != nil {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	currency := mpp.String(c.Request, "currency")
	topic := TopicTransferWithMemo.Hex()
	ref := jsonv.Obj("network", "eip155:"+strconv.FormatInt(mpp.ChargeChain(c), 10))
	if settleBy != "" {
		ref.Set("settleBy", settleBy)
	}
	ref.Set("bindingLog", jsonv.Obj("address", currency, "topic0", topic, "index", 3, "value", memo))
	ref.Set("transferLog", jsonv.Obj("address", currency, "topic0", topic, "identity", "to,value", "digest", hex0x(digest[:])))
	ref.Set("search", jsonv.Obj("address", currency, "topics", []jsonv.Value{topic, nil, nil, memo}))
	return ref, nil
}

// Status reads a Reference (with the transaction the seller broadcast added)
// with evm.RefStatus.
func (Memo) Status(ref *jsonv.Object, r evm.Reader) evm.Status {
	s, _ := evm.RefStatus(ref, r)
	return s
}

// Status reads a Reference (with the pushed transaction added) with
// evm.RefStatus.
func (Push) Status(ref *jsonv.Object, r evm.Reader) evm.Status {
	s, _ := evm.RefStatus(ref, r)
	return s
}

// Landed is the seller's read of a push credential as sent (without
// landed): the pushed transaction's receipt, on the challenge's network,
// written back as landed {transaction (lowercase), blockNumber (decimal),
// logs (the receipt's logs the currency emitted, as given)}, which Bound and
// Reference then read. A credential that is not a hash credential is
// mpp/credential-malformed or mpp/credential-type; the receipt read's
// refusals are ReadReceipt's, to be read again later.
func (Push) Landed(presented jsonv.Value, r evm.Reader) (*jsonv.Object, error) {
	malformed := rails.Refuse(mpp.CodeCredentialMalformed)
	cred, ok := jsonv.AsObject(presented)
	payload, okPayload := cred.GetObject("payload")
	challenge, okChallenge := cred.GetObject("challenge")
	if !ok || !okPayload || !okChallenge {
		return nil, malformed
	}
	if t, _ := payload.GetString("type"); t != "hash" {
		return nil, rails.Refuse(mpp.CodeCredentialType)
	}
	hash, _ := payload.GetString("hash")
	if !mpp.IsWord32(hash) {
		return nil, malformed
	}
	checked, err := mpp.CheckChallenge(challenge, true)
	if err != nil {
		return nil, err
	}
	network := "eip155:" + strconv.FormatInt(mpp.ChargeChain(checked), 10)
	receipt, err := ReadReceipt(network, hash, r)
	if err != nil {
		return nil, err
	}
	currency := mpp.String(checked.Request, "currency")
	logs := []jsonv.Value{}
	for _, l := range receipt.Logs {
		if evm.SameBytes(l.Address, currency) {
			logs = append(logs, l.Raw.Clone())
		}
	}
	out := cred.Clone()
	out.Set("landed", jsonv.Obj("transaction", strings.ToLower(hash),
		"blockNumber", strconv.FormatUint(receipt.BlockNumber, 10), "logs", logs))
	return out, nil
}
