package xrpl

import (
	"encoding/binary"
	"errors"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// What an XRPL signature grants (rails.Summarizer), read from the request's
// txJson exactly as the signer will serialize it, and what an XRPL payment
// shows (rails.Inspector).

var errUnreadable = errors.New("xrpl: the signing request is not one this pairing builds")

// rippleEpoch is the Unix time of the XRP Ledger's epoch (2000-01-01), from
// which CancelAfter counts.
const rippleEpoch = 946_684_800

var (
	_ rails.Summarizer = Exact{}
	_ rails.Summarizer = Charge{}
	_ rails.Summarizer = Session{}
	_ rails.Inspector  = Exact{}
	_ rails.Inspector  = Charge{}
	_ rails.Inspector  = Session{}
)

// txGrant reads a request's network and txJson: the network the request
// names (a transaction carries NetworkID only above 1024, which must then
// agree), the payer, payee and what the Amount moves.
func txGrant(req rails.Request, wantType string) (rails.Grant, Fields, error) {
	network, _ := req.GetString("network")
	id, ok := NetworkID(network)
	txJSON, ok2 := req.GetObject("txJson")
	if !ok || !ok2 {
		return rails.Grant{}, nil, errUnreadable
	}
	if t, _ := txJSON.GetString("TransactionType"); t != wantType {
		return rails.Grant{}, nil, errUnreadable
	}
	fs, err := FromJSON(txJSON)
	if err != nil {
		return rails.Grant{}, nil, err
	}
	nid, has := fs.Get(FieldNetworkID)
	if has && binary.BigEndian.Uint32(nid.Value) != id || !has && id > maxImplicitNetworkID {
		return rails.Grant{}, nil, errUnreadable
	}
	payer, ok1 := addressOf(fs, FieldAccount)
	payee, ok2 := addressOf(fs, FieldDestination)
	amt, ok3 := fs.Get(FieldAmount)
	if !ok1 || !ok2 || !ok3 {
		return rails.Grant{}, nil, errUnreadable
	}
	g := rails.Grant{Network: network, Payer: payer, Payee: payee}
	if v, has := req.Get("validUntil"); has {
		n, ok := jsonv.AsSafeInt(v)
		if !ok || n <= 0 {
			return rails.Grant{}, nil, errUnreadable
		}
		g.PayableUntil = time.Unix(n, 0).UTC()
	}
	if err := amountGrant(&g, amt.Value); err != nil {
		return rails.Grant{}, nil, err
	}
	return g, fs, nil
}

// addressOf is the classic address of an account field: false when the
// field is absent or not the 20 bytes of an account id (a UNLModify's
// Account is empty, and the codec keeps it so).
func addressOf(fs Fields, id FieldID) (string, bool) {
	f, ok := fs.Get(id)
	if !ok || len(f.Value) != len(AccountID{}) {
		return "", false
	}
	return AccountID(f.Value).Address(), true
}

// amountGrant states an amount: XRP in drops (6 decimals); an issued
// amount as its value's digits with Decimals its fractional digits; an MPT
// in its own units.
func amountGrant(g *rails.Grant, v []byte) error {
	switch len(v) {
	case 8:
		g.Asset, g.Decimals = "XRP", 6
		g.Amount = new(big.Int).SetUint64(binary.BigEndian.Uint64(v) & (1<<62 - 1))
	case 33:
		g.Asset, g.Decimals = "MPT:"+upperHex(v[9:]), -1
		g.Amount = new(big.Int).SetUint64(binary.BigEndian.Uint64(v[1:9]))
	case 48:
		text := IssuedValueText(v[:8])
		if strings.HasPrefix(text, "-") {
			return errUnreadable
		}
		whole, frac, _ := strings.Cut(text, ".")
		g.Amount, _ = new(big.Int).SetString(whole+frac, 10)
		var issuer AccountID
		copy(issuer[:], v[28:])
		g.Asset, g.Decimals = currencyText(v[8:28])+"."+issuer.Address(), len(frac)
	default:
		return errUnreadable
	}
	return nil
}

// Summarize: the Payment's Amount to its Destination. The signature is
// worthless after LastLedgerSequence, a ledger index, not a time: the
// request's validUntil, the buyer's own estimate of when that ledger will
// have closed, is stated as PayableUntil; without it none is.
func (Exact) Summarize(req rails.Request) (rails.Grant, error) { return paymentGrant(req) }

// Summarize: as x402/exact/xrpl's.
func (Charge) Summarize(req rails.Request) (rails.Grant, error) { return paymentGrant(req) }

func paymentGrant(req rails.Request) (rails.Grant, error) {
	if k, _ := req.GetString("kind"); k != KindTx {
		return rails.Grant{}, errUnreadable
	}
	g, fs, err := txGrant(req, "Payment")
	if err != nil {
		return rails.Grant{}, err
	}
	// A SendMax above Amount could spend more than Amount: grant the larger.
	if sm, ok := fs.Get(FieldSendMax); ok {
		var s rails.Grant
		if err := amountGrant(&s, sm.Value); err != nil || s.Asset != g.Asset || s.Decimals != g.Decimals {
			return rails.Grant{}, errUnreadable
		}
		if s.Amount.Cmp(g.Amount) > 0 {
			g.Amount = s.Amount
		}
	}
	return g, nil
}

// Summarize: an opening grants its whole deposit (the channel holds it and
// the payee may claim up to what is signed), until CancelAfter when set. A
// claim alone (a batch of one xrpl-claim) grants its cumulative drops in
// the channel it names; what it adds is that less the largest amount
// signed before, which only the hold knows.
func (Session) Summarize(req rails.Request) (rails.Grant, error) {
	switch k, _ := req.GetString("kind"); k {
	case KindSessionOpen:
		g, fs, err := txGrant(req, "PaymentChannelCreate")
		if err != nil {
			return rails.Grant{}, err
		}
		if ca, ok := fs.Get(FieldCancelAfter); ok && g.PayableUntil.IsZero() {
			g.PayableUntil = time.Unix(int64(binary.BigEndian.Uint32(ca.Value))+rippleEpoch, 0).UTC()
		}
		return g, nil
	case rails.KindBatch:
		rv, _ := req.Get("requests")
		list, _ := jsonv.AsArray(rv)
		if len(list) != 1 {
			return rails.Grant{}, errUnreadable
		}
		o, _ := jsonv.AsObject(list[0])
		if k, _ := o.GetString("kind"); k != KindClaim {
			return rails.Grant{}, errUnreadable
		}
		b, ok := mpp.HexBytes(mpp.String(o, "bytes"), ClaimLen, ClaimLen)
		channel, drops, okClaim := ReadClaim(b)
		if !ok || !okClaim {
			return rails.Grant{}, errUnreadable
		}
		return rails.Grant{Asset: "XRP", Decimals: 6, Amount: new(big.Int).SetUint64(drops), Payee: "channel:" + upperHex(channel[:])}, nil
	}
	return rails.Grant{}, errUnreadable
}

// inspectTx is the common part of an XRPL payment's inspection: the signed
// transaction is read back into the signing request it answered ({kind,
// network, txJson}) and summarized as the spend policy summarized it
// before signing, so the two cannot disagree. LastLedgerSequence bounds the
// payment by a ledger, not a time, so no PayableUntil is stated; it is in
// the details with the hash and every field of the transaction as
// ripple-binary-codec's decode names them.
func inspectTx(pairing, kind, network string, tx *Tx, summarize func(rails.Request) (rails.Grant, error), h, whereH string) (rails.Inspection, error) {
	g, err := summarize(jsonv.Obj("kind", requestKind(tx.Type), "network", network, "txJson", tx.Fields.JSON()))
	if err != nil {
		return rails.Inspection{}, err
	}
	return rails.Inspection{Pairing: pairing, Kind: kind, Grant: g, H: h, WhereH: whereH, Details: txDetails(tx)}, nil
}

// requestKind is the signing request's kind a transaction of type t
// answers.
func requestKind(t string) string {
	if t == "PaymentChannelCreate" {
		return KindSessionOpen
	}
	return KindTx
}

// txDetails are a transaction's type, hash, ledger bound and fields.
func txDetails(tx *Tx) *jsonv.Object {
	d := jsonv.Obj("transactionType", tx.Type, "hash", tx.Hash)
	if lls, ok := tx.Fields.Get(FieldLastLedgerSequence); ok && len(lls.Value) == 4 {
		d.Set("lastLedgerSequence", jsonv.Number(binary.BigEndian.Uint32(lls.Value)))
	}
	d.Set("transaction", tx.Fields.JSON())
	return d
}

// Inspect reads an x402/exact/xrpl payment as Bound does and states what
// its Payment grants; H is the option's LCP string, whose SHA-256 is the
// InvoiceID.
func (p Exact) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	tx, h, err := p.boundTx(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	o, _ := jsonv.AsObject(payment)
	accepted, _ := o.GetObject("accepted")
	network, _ := accepted.GetString("network")
	return inspectTx(ExactID, "payment", network, tx, p.Summarize, h.String(), "transaction.InvoiceID = SHA-256(accepted.extra.invoiceId), the LCP string \"lcp:sha256:\" + H")
}

// Inspect reads an mpp/charge/xrpl credential as Bound does and states
// what its Payment grants; H is the InvoiceID.
func (p Charge) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	tx, e, err := p.boundTx(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	network, err := mpp.Network(e.Challenge)
	if err != nil {
		return rails.Inspection{}, err
	}
	return inspectTx(ChargeID, "credential", network, tx, p.Summarize, e.H.String(), "transaction.InvoiceID: H itself, and the challenge's id and opaque.legalContext")
}

// Inspect reads an mpp/session/xrpl opening as Bound does and states what
// its PaymentChannelCreate grants (the deposit, until CancelAfter), the
// channel it opens and the first claim; H is the LCP memo. A claim inside
// the channel states its channel and cumulative drops.
func (p Session) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	kind, err := p.ChannelKind(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	ref, err := p.ChannelRef(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	payloadObj, _ := payloadOf(payment)
	if kind != rails.ChannelOpen {
		in := rails.Inspection{Pairing: SessionID, Kind: "channel-" + string(kind),
			Grant:   rails.Grant{Network: ref.Network, Asset: "XRP", Decimals: 6, Payee: "channel:" + ref.Channel},
			WhereH:  "none: a claim names the channel, whose opening's memo carried H",
			Details: jsonv.Obj("channel", ref.Channel)}
		if s := mpp.String(payloadObj, "amount"); rails.IsDecimal(s) {
			in.Grant.Amount, _ = new(big.Int).SetString(s, 10)
		}
		return in, nil
	}
	tx, e, err := p.opening(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	at := "transaction.Memos[?].Memo.MemoData"
	memos, _ := tx.Fields.Get(FieldMemos)
	for i, m := range memos.Fields {
		if d, ok := Fields(m.Fields).Get(FieldMemoData); ok && string(d.Value) == "lcp:sha256:"+e.H.String() {
			at = "transaction.Memos[" + strconv.Itoa(i) + "].Memo.MemoData"
		}
	}
	in, err := inspectTx(SessionID, "channel-open", ref.Network, tx, p.Summarize, e.H.String(), at+" (the LCP string's UTF-8)")
	if err != nil {
		return rails.Inspection{}, err
	}
	in.Details.Set("channel", ref.Channel)
	in.Details.Set("firstClaim", mpp.String(payloadObj, "amount"))
	return in, nil
}

var _ rails.WithinSummarizer = Session{}

// SummarizeWithin states a claim inside the channel opening opened: the
// cumulative drops the payee may claim, on the opening's network, from its
// Account to its Destination. A claim for another channel is unreadable.
func (p Session) SummarizeWithin(req rails.Request, opening *jsonv.Object) (rails.Grant, error) {
	g, err := p.Summarize(req)
	if err != nil || g.Network != "" {
		return rails.Grant{}, errUnreadable
	}
	tx, _, err := p.opening(opening)
	if err != nil {
		return rails.Grant{}, err
	}
	ref, err := p.ChannelRef(opening)
	if err != nil || g.Payee != "channel:"+ref.Channel {
		return rails.Grant{}, errUnreadable
	}
	payer, ok1 := addressOf(tx.Fields, FieldAccount)
	payee, ok2 := addressOf(tx.Fields, FieldDestination)
	if !ok1 || !ok2 {
		return rails.Grant{}, errUnreadable
	}
	g.Network, g.Payer, g.Payee = ref.Network, payer, payee
	return g, nil
}
