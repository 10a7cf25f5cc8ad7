package evm

import (
	"bytes"
	"math/big"
	"strconv"

	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// MPPTransaction is mpp/charge/evm/transaction (docs/mpp-evm.md,
// "transaction and hash"): the payer signs a whole EIP-1559 transaction of
// the token's transfer(recipient, amount), which the seller broadcasts.
//
// Where H goes: only the challenge id (base64url of H and the position) and
// its opaque carry H; the signed transaction carries nothing of it, so the
// payment is no public proof. The gate first pays the agreement URL the
// challenge's opaque names (docs/agreement.md), whose payment carries H,
// and Bound answers mpp/no-signed-place.
type MPPTransaction struct{}

// MPPTransactionID is the pairing id.
const MPPTransactionID = mpp.PairingEVMTransaction

// CodeNoSignedPlace: the credential has no signed value that carries H.
const CodeNoSignedPlace = "mpp/no-signed-place"

func (MPPTransaction) ID() string { return MPPTransactionID }

func (MPPTransaction) Pattern() rails.Pattern {
	return rails.Pattern{Name: "opaque-challenge", PublicProof: false}
}

func (MPPTransaction) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

// Choose takes no input: the transfer is the challenge's.
func (MPPTransaction) Choose(read rails.Read, account string, _ *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	return chooseMPPCall(read, account, now, MPPTransactionID)
}

func chooseMPPCall(read rails.Read, account string, now int64, pairing string) (jsonv.Value, error) {
	challenge, from, err := mpp.Choose(read, account, pairing)
	if err != nil {
		return nil, err
	}
	return mpp.Choice(challenge, from, now, &jsonv.Object{}), nil
}

type mppCallUnsigned struct {
	challenge *jsonv.Object
	source    string
	request   *jsonv.Object
	chain     int64
	to        string // the token
	data      []byte
}

// transferSelector is transfer(address,uint256)'s selector.
var transferSelector = []byte{0xa9, 0x05, 0x9c, 0xbb}

// TransferCalldata is transfer(to, amount)'s calldata.
func TransferCalldata(to string, amount *big.Int) []byte {
	data := append([]byte(nil), transferSelector...)
	data = append(data, common.LeftPadBytes(common.HexToAddress(to).Bytes(), 32)...)
	return append(data, common.LeftPadBytes(amount.Bytes(), 32)...)
}

func (MPPTransaction) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	return buildMPPCall(choice, h, MPPTransactionID, false)
}

// buildMPPCall asks for the one call transfer(recipient, amount) to the
// currency, broadcast by the signer (hash) or handed back signed
// (transaction).
func buildMPPCall(choice jsonv.Value, h atr.Hash, pairing string, broadcast bool) (rails.Unsigned, error) {
	o, err := mpp.OfferFor(choice, h, pairing)
	if err != nil {
		return nil, err
	}
	if err := checkedChallengeAddresses(o); err != nil {
		return nil, err
	}
	chain := mpp.ChargeChain(o.Checked)
	amount, _ := mpp.Uint256(mpp.String(o.Request, "amount"))
	currency := mpp.String(o.Request, "currency")
	data := TransferCalldata(mpp.String(o.Request, "recipient"), amount)
	req := jsonv.Obj("kind", "evm-call", "chainId", chain,
		"call", jsonv.Obj("to", currency, "data", hex0x(data)), "broadcast", broadcast)
	return &mppCallUnsigned{challenge: o.Challenge, source: mpp.Source(chain, o.From), request: req, chain: chain, to: currency, data: data}, nil
}

func (MPPTransaction) Request(u rails.Unsigned) (rails.Request, error) {
	return u.(*mppCallUnsigned).request.Clone(), nil
}

// Summarize states what signing an evm-call request grants: the transfer
// its calldata makes of the called token, to its recipient, on its chain,
// with no deadline (a signed transaction stays valid until its nonce is
// used). Anything but one transfer(address,uint256) with no value is
// CodeRequestUnreadable.
func (MPPTransaction) Summarize(req rails.Request) (rails.Grant, error) { return summarizeMPPCall(req) }

func summarizeMPPCall(req rails.Request) (rails.Grant, error) {
	bad := rails.Refuse(CodeRequestUnreadable)
	if req == nil || req.Len() != 4 {
		return rails.Grant{}, bad
	}
	kind, _ := req.GetString("kind")
	cv, _ := req.Get("chainId")
	chain, okChain := jsonv.AsSafeInt(cv)
	b, _ := req.Get("broadcast")
	_, okB := b.(bool)
	c, okCall := req.GetObject("call")
	if kind != "evm-call" || !okChain || chain <= 0 || !okB || !okCall || c.Len() != 2 {
		return rails.Grant{}, bad
	}
	token := mpp.String(c, "to")
	data, okData := mpp.HexBytes(mpp.String(c, "data"), 68, 68)
	if !IsAddress(token) || !okData || !bytes.Equal(data[:4], transferSelector) || !isZero(data[4:16]) {
		return rails.Grant{}, bad
	}
	network := "eip155:" + strconv.FormatInt(chain, 10)
	return rails.Grant{
		Network: network, Asset: token, Decimals: rails.KnownDecimals(network, token),
		Amount: new(big.Int).SetBytes(data[36:68]), Payee: common.BytesToAddress(data[16:36]).Hex(),
	}, nil
}

func isZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// maxSignedTransaction bounds the signed transaction an answer may be.
const maxSignedTransaction = MaxEIP1559Bytes

// Complete takes the signed transaction, "0x" hex, and checks it is the
// transaction asked for: an EIP-1559 transaction (read strictly,
// DecodeEIP1559) on the chain, to the token,
// of the transfer's calldata, with no value (mpp/credential-malformed
// otherwise: a signer that signed something else has not paid this).
func (MPPTransaction) Complete(u rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	b := u.(*mppCallUnsigned)
	malformed := rails.Refuse(mpp.CodeCredentialMalformed)
	s, _ := answer.(string)
	wire, ok := mpp.HexBytes(s, 1, maxSignedTransaction)
	if !ok {
		return rails.Completion{}, malformed
	}
	tx, err := DecodeEIP1559(wire)
	if err != nil {
		return rails.Completion{}, malformed
	}
	if !tx.ChainID.IsInt64() || tx.ChainID.Int64() != b.chain || tx.To == nil || *tx.To != common.HexToAddress(b.to) ||
		tx.Value.Sign() != 0 || !bytes.Equal(tx.Data, b.data) {
		return rails.Completion{}, malformed
	}
	return rails.Completion{Signed: mpp.Credential(b.challenge, b.source, jsonv.Obj("type", "transaction", "signature", s))}, nil
}

// Bound reads the echoed challenge (the shared steps) and then refuses
// mpp/no-signed-place: nothing signed carries H. The gate takes that as
// this pairing's answer once the agreement was paid.
func (MPPTransaction) Bound(presented jsonv.Value) (string, error) { return noSignedPlace(presented) }

func noSignedPlace(presented jsonv.Value) (string, error) {
	if _, err := mpp.ChallengeBound(presented); err != nil {
		return "", err
	}
	return "", rails.Refuse(CodeNoSignedPlace)
}

// Reference is what a seller records for a payment that claims nothing:
// the challenge's network and asset (its currency), read from the
// challenge alone (mpp/credential-malformed without one; mpp/not-this-pairing
// for a challenge that is no EVM charge).
func (MPPTransaction) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	return mppCallReference(presented)
}

func mppCallReference(presented jsonv.Value) (*jsonv.Object, error) {
	o, _ := jsonv.AsObject(presented)
	c, ok := o.GetObject("challenge")
	if !ok {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	checked, err := mpp.CheckChallenge(c, true)
	if err != nil {
		return nil, err
	}
	if checked.Method != "evm" || checked.Intent != "charge" {
		return nil, rails.Refuse(mpp.CodeNotThisPairing)
	}
	return jsonv.Obj("network", "eip155:"+strconv.FormatInt(mpp.ChargeChain(checked), 10),
		"asset", mpp.String(checked.Request, "currency")), nil
}

// Status reads a Reference with the reported settling transaction added:
// RefStatus, and settled also needs one Transfer log (three topics) from
// the asset, else failed transfer-not-found. It reads that a token moved,
// not that this payment did: the payment carries nothing to tell them
// apart by.
func (MPPTransaction) Status(ref *jsonv.Object, r Reader) Status { return transferPresent(ref, r) }

func transferPresent(ref *jsonv.Object, r Reader) Status {
	asset, _ := ref.GetString("asset")
	if !IsAddress(asset) {
		return pending(WhyUnreadable)
	}
	s, receipt := RefStatus(ref, r)
	if receipt == nil {
		return s
	}
	if !anyLog(receipt.Logs, func(l Log) bool { _, ok := TransferPartsOf(l, asset, TopicTransfer.Hex()); return ok }) {
		return failed(WhyTransferNotFound)
	}
	return s
}
