package aptos

import (
	"encoding/hex"
	"errors"
	"math/big"
	"strconv"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// What an aptos-transaction request grants (rails.Summarizer), and what an
// Aptos payment shows (rails.Inspector).

var (
	_ rails.Summarizer = Exact{}
	_ rails.Inspector  = Exact{}
)

var errUnreadable = errors.New("aptos: the signing request is not one this pairing builds")

// Request is an aptos-transaction request as read.
type Request struct {
	Network              string
	Chain                uint8
	Sender, Asset, PayTo Address
	Amount               uint64
	ExpiresAt            int64 // Unix seconds
}

// ReadRequest reads an aptos-transaction request: every member present
// and of its form.
func ReadRequest(req rails.Request) (Request, error) {
	if k, _ := req.GetString("kind"); k != KindTransaction {
		return Request{}, errUnreadable
	}
	var out Request
	var ok [6]bool
	out.Network = mpp.String(req, "network")
	out.Chain, ok[0] = ChainID(out.Network)
	out.Sender, ok[1] = longAddress(mpp.String(req, "sender"))
	out.Asset, ok[2] = longAddress(mpp.String(req, "asset"))
	out.PayTo, ok[3] = longAddress(mpp.String(req, "payTo"))
	out.Amount, ok[4] = u64Of(valueOf(req, "amount"))
	out.ExpiresAt, ok[5] = jsonv.AsSafeInt(valueOf(req, "expiresAt"))
	for _, k := range ok {
		if !k {
			return Request{}, errUnreadable
		}
	}
	if out.ExpiresAt <= 0 {
		return Request{}, errUnreadable
	}
	return out, nil
}

// APT is the native coin's fungible-asset metadata address (0xa), 8 decimals.
var APT = Address{31: 0x0a}

// KnownDecimals is the decimals of an asset the pairing knows (APT), else -1.
func KnownDecimals(network string, asset Address) int {
	if asset == APT {
		return 8
	}
	if d := rails.KnownDecimals(network, asset.String()); d >= 0 {
		return d
	}
	return -1
}

// Summarize: amount of the asset from sender to payTo on the request's
// network, payable until expiresAt. The gas (at most the wallet's
// max_gas_amount at its gas price, in APT) is the wallet's own and not in
// the grant.
func (Exact) Summarize(req rails.Request) (rails.Grant, error) {
	r, err := ReadRequest(req)
	if err != nil {
		return rails.Grant{}, err
	}
	return rails.Grant{Network: r.Network, Asset: r.Asset.String(), Decimals: KnownDecimals(r.Network, r.Asset),
		Amount: new(big.Int).SetUint64(r.Amount), Payer: r.Sender.String(), Payee: r.PayTo.String(),
		PayableUntil: time.Unix(r.ExpiresAt, 0).UTC()}, nil
}

// txDetails are a transaction's call, gas, bound and chain, and the
// transfer it makes when it is the x402 transfer.
func txDetails(s *Signed) *jsonv.Object {
	t := s.Tx
	p := &t.Payload
	d := jsonv.Obj("sender", t.Sender.String(), "sequenceNumber", strconv.FormatUint(t.SequenceNumber, 10),
		"function", p.Module.String()+"::"+p.Name+"::"+p.Function,
		"maxGasAmount", strconv.FormatUint(t.MaxGasAmount, 10), "gasUnitPrice", strconv.FormatUint(t.GasUnitPrice, 10),
		"expirationTimestampSecs", strconv.FormatUint(t.Expiration, 10), "chainId", jsonv.Number(t.ChainID))
	if s.FeePayer != nil {
		d.Set("feePayer", s.FeePayer.String())
	} else {
		d.Set("feePayer", nil)
	}
	if tr, err := t.ReadTransfer(); err == nil {
		d.Set("transfer", jsonv.Obj("metadata", tr.Metadata.String(), "recipient", tr.Recipient.String(),
			"amount", strconv.FormatUint(tr.Amount, 10)))
		d.Set("idDigest", "0x"+hex.EncodeToString(func() []byte { h := IDDigest(NormalForm(t.Sender, t.SequenceNumber, tr)); return h[:] }()))
	} else {
		d.Set("transfer", nil)
	}
	d.Set("signatureVerifies", s.Verifies())
	return d
}

// Inspect reads an x402/exact/aptos payment as Bound does and states its
// grant through Summarize over the request the payment answers (the
// option, the transaction's sender and expiration); the details say what
// the transaction itself moves and whether it is the option's transfer.
func (p Exact) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	h, err := p.Bound(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	s, _ := carried(payment)
	o, _ := jsonv.AsObject(payment)
	accepted, _ := o.GetObject("accepted")
	exp := s.Tx.Expiration
	if exp > 1<<52 {
		exp = 1 << 52
	}
	req := jsonv.Obj("kind", KindTransaction, "network", mpp.String(accepted, "network"), "sender", s.Tx.Sender.String(),
		"asset", mpp.String(accepted, "asset"), "amount", mpp.String(accepted, "amount"), "payTo", mpp.String(accepted, "payTo"),
		"expiresAt", jsonv.Number(exp))
	g, err := p.Summarize(req)
	if err != nil {
		return rails.Inspection{}, err
	}
	d := txDetails(s)
	tr, _ := s.Tx.ReadTransfer()
	d.Set("paysOption", pays(tr, accepted))
	return rails.Inspection{Pairing: ExactID, Kind: "payment", Grant: g, H: h,
		WhereH: "extensions.legalContext.info.value, echoed from the challenge (the transaction carries no H)", Details: d}, nil
}

// InspectTransaction reads a bare payload transaction, in either form
// DecodePayload reads, and states what it moves. Nothing is verified but
// the signature's own check, reported in the details; H sits nowhere in it.
func InspectTransaction(text, network string) (rails.Inspection, error) {
	return rails.Guard("aptos.InspectTransaction", "an Aptos transaction of "+strconv.Itoa(len(text))+" characters", func() (rails.Inspection, error) {
		s, err := DecodePayload(text)
		if err != nil {
			return rails.Inspection{}, errors.New("not an Aptos payment transaction (base64 of x402's {transaction, senderAuthenticator} or of a SignedTransaction with an Ed25519 key)")
		}
		in := rails.Inspection{Kind: "aptos-transaction", Details: txDetails(s), WhereH: "nowhere: an Aptos transfer carries no H (x402/exact/aptos echoes it in the challenge)"}
		in.Grant = rails.Grant{Network: network, Payer: s.Tx.Sender.String(), Decimals: -1}
		if tr, err := s.Tx.ReadTransfer(); err == nil {
			in.Grant.Amount, in.Grant.Payee, in.Grant.Asset = new(big.Int).SetUint64(tr.Amount), tr.Recipient.String(), tr.Metadata.String()
			in.Grant.Decimals = KnownDecimals(network, tr.Metadata)
		}
		return in, nil
	})
}
