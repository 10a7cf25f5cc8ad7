package algorand

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"math/big"
	"strconv"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// What an Algorand signature grants (rails.Summarizer), read from the
// signing request's bytes exactly as the key signs them, and what an
// Algorand payment shows (rails.Inspector).

var (
	_ rails.Summarizer = Exact{}
	_ rails.Inspector  = Exact{}
)

var errUnreadable = errors.New("algorand: the signing request is not one this pairing builds")

// ErrCannotState is a transaction whose effect a summary cannot state in
// one amount: it closes the account or the asset holding out (everything
// left goes to another address), rekeys the account (hands it to another
// key) or claws an asset back from a third account.
var ErrCannotState = errors.New("algorand: the transaction closes an account, rekeys it or claws back an asset: what it grants is not one amount")

// ReadSigningBytes reads what an algorand-txn request asks to sign: "TX"
// and one canonical pay or axfer transaction.
func ReadSigningBytes(b []byte) (*Txn, error) {
	if len(b) < 3 || string(b[:2]) != "TX" {
		return nil, errUnreadable
	}
	v, err := Decode(b[2:])
	if err != nil {
		return nil, err
	}
	return ReadTxn(v)
}

// TxnGrant states what t moves, on network: an axfer's asset amount, a
// pay's microALGO, from its sender to its receiver. A transaction that
// closes, rekeys or claws back is refused (ErrCannotState). The fee, paid
// in ALGO by the sender, and the rounds it is valid for are not in the
// grant; Inspect states them in its details.
func TxnGrant(t *Txn, network string) (rails.Grant, error) {
	if t.RekeyTo != ([32]byte{}) || t.CloseTo != ([32]byte{}) || t.AssetCloseTo != ([32]byte{}) || t.AssetSender != ([32]byte{}) {
		return rails.Grant{}, ErrCannotState
	}
	g := rails.Grant{Network: network, Payer: Address(t.Sender)}
	switch t.Type {
	case "axfer":
		g.Asset = strconv.FormatUint(t.AssetID, 10)
		g.Decimals = KnownDecimals(network, g.Asset)
		g.Amount = new(big.Int).SetUint64(t.AssetAmount)
		g.Payee = Address(t.AssetReceiver)
	case "pay":
		g.Asset, g.Decimals = "ALGO", 6
		g.Amount = new(big.Int).SetUint64(t.Amount)
		g.Payee = Address(t.Receiver)
	default:
		return rails.Grant{}, errUnreadable
	}
	return g, nil
}

// Summarize: the asset transfer's amount of its asset, from the payer to
// payTo, on the network whose genesis hash the transaction names (which
// must be the request's). Validity is in rounds, not a time: the request's
// validUntil, the buyer's own estimate of when the last valid round will
// have passed, is stated as PayableUntil; without it none is.
func (Exact) Summarize(req rails.Request) (rails.Grant, error) {
	t, network, err := requestTxn(req)
	if err != nil {
		return rails.Grant{}, err
	}
	if t.Type != "axfer" {
		return rails.Grant{}, errUnreadable
	}
	g, err := TxnGrant(t, network)
	if err != nil {
		return rails.Grant{}, err
	}
	if v, has := req.Get("validUntil"); has {
		n, ok := jsonv.AsSafeInt(v)
		if !ok || n <= 0 {
			return rails.Grant{}, errUnreadable
		}
		g.PayableUntil = time.Unix(n, 0).UTC()
	}
	return g, nil
}

// requestTxn reads an algorand-txn request: its network and transaction,
// whose genesis hash must be that network's.
func requestTxn(req rails.Request) (*Txn, string, error) {
	if k, _ := req.GetString("kind"); k != KindTxn {
		return nil, "", errUnreadable
	}
	network := mpp.String(req, "network")
	b, ok := mpp.HexBytes(mpp.String(req, "bytes"), 3, MaxEntryChars)
	if !ok || !IsNetwork(network) {
		return nil, "", errUnreadable
	}
	t, err := ReadSigningBytes(b)
	if err != nil {
		return nil, "", err
	}
	if NetworkOf(t.GenesisHash) != network {
		return nil, "", errUnreadable
	}
	return t, network, nil
}

// RequestTxn reads an algorand-txn request, for a signer that states what
// it signs: the transaction, its network and the bytes to sign.
func RequestTxn(req rails.Request) (*Txn, string, []byte, error) {
	t, network, err := requestTxn(req)
	if err != nil {
		return nil, "", nil, err
	}
	b, _ := mpp.HexBytes(mpp.String(req, "bytes"), 3, MaxEntryChars)
	return t, network, b, nil
}

// txnDetails are a transaction's id, type, fee, rounds, group and note.
func txnDetails(t *Txn) *jsonv.Object {
	d := jsonv.Obj("txid", t.ID(), "type", t.Type, "fee", strconv.FormatUint(t.Fee, 10),
		"firstValid", strconv.FormatUint(t.FirstValid, 10), "lastValid", strconv.FormatUint(t.LastValid, 10),
		"genesisId", t.GenesisID, "genesisHash", base64.StdEncoding.EncodeToString(t.GenesisHash[:]))
	if t.Group != ([32]byte{}) {
		d.Set("group", base64.StdEncoding.EncodeToString(t.Group[:]))
	}
	if len(t.Note) > 0 {
		d.Set("note", string(t.Note))
		if !isText(t.Note) {
			d.Set("note", "0x"+hex.EncodeToString(t.Note))
		}
	}
	return d
}

func isText(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// Inspect reads an x402/exact/algorand payment as Bound does and states
// what the payer's transfer grants through Summarize, over the very bytes
// it signed; the details name every entry of the group by id and sender
// (the fee payer's payment carries the fees).
func (p Exact) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	c, accepted, err := carried(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	network := mpp.String(accepted, "network")
	g, err := p.Summarize(jsonv.Obj("kind", KindTxn, "network", network, "bytes", "0x"+hex.EncodeToString(c.Txn.SigningBytes())))
	if err != nil {
		return rails.Inspection{}, err
	}
	d := txnDetails(c.Txn)
	d.Set("paymentIndex", jsonv.Number(c.Index))
	d.Set("signed", c.Signed.Sig != nil)
	entries := make([]jsonv.Value, 0, len(c.Group))
	for i, e := range c.Group {
		if i == c.Index {
			entries = append(entries, jsonv.Obj("index", jsonv.Number(i), "txid", c.Txn.ID(), "role", "payment"))
			continue
		}
		s, err := decodeEntry(e)
		if err != nil {
			entries = append(entries, jsonv.Obj("index", jsonv.Number(i), "unreadable", err.Error()))
			continue
		}
		t, err := ReadTxn(s.Txn)
		if err != nil {
			entries = append(entries, jsonv.Obj("index", jsonv.Number(i), "unreadable", err.Error()))
			continue
		}
		entries = append(entries, jsonv.Obj("index", jsonv.Number(i), "txid", t.ID(), "type", t.Type, "sender", Address(t.Sender),
			"fee", strconv.FormatUint(t.Fee, 10), "signed", s.Sig != nil))
	}
	d.Set("group", entries)
	return rails.Inspection{Pairing: ExactID, Kind: "payment", Grant: g, H: c.H.String(),
		WhereH: "payload.paymentGroup[" + strconv.Itoa(c.Index) + "].txn.note: the LCP string \"lcp:sha256:\" + H (UTF-8)", Details: d}, nil
}

// InspectSignedTxn reads a bare signed transaction, base64 of its msgpack
// as a payment group entry holds it, and states what it grants and where
// H sits: in the note, when the note is an LCP string. Nothing is
// verified, not even the signature.
func InspectSignedTxn(s string) (rails.Inspection, error) {
	return rails.Guard("algorand.InspectSignedTxn", "an Algorand signed transaction of "+strconv.Itoa(len(s))+" characters", func() (rails.Inspection, error) {
		st, err := decodeEntry(s)
		if err != nil {
			return rails.Inspection{}, errors.New("not an Algorand signed transaction (base64 of canonical msgpack {sig, txn}, at most 8192 characters)")
		}
		t, err := ReadTxn(st.Txn)
		if err != nil {
			return rails.Inspection{}, err
		}
		network := NetworkOf(t.GenesisHash)
		g, err := TxnGrant(t, network)
		if err != nil {
			return rails.Inspection{}, err
		}
		in := rails.Inspection{Kind: "algorand-signed-transaction", Grant: g, Details: txnDetails(t),
			WhereH: "nowhere: the note is not an LCP string"}
		in.Details.Set("signed", st.Sig != nil)
		if h, ok := mpp.ParseLegalContext(string(t.Note)); ok && string(t.Note) == mpp.LegalContextValue(h) {
			in.H, in.WhereH = h.String(), "txn.note: the LCP string \"lcp:sha256:\" + H (an x402/exact/algorand payment)"
		}
		return in, nil
	})
}
