package tron

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/big"
	"strconv"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

var (
	_ rails.Summarizer = Exact{}
	_ rails.Inspector  = Exact{}
)

var errUnreadable = errors.New("tron: the signing request is not one this pairing builds")

// knownDecimals are Tether's USDT-TRC20 on mainnet
// (https://tron.network/usdt), the asset x402's Tron offers name.
var knownDecimals = map[[2]string]int{{"tron:728126428", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"}: 6}

// RawGrant states what raw moves on network: the transfer's amount of the
// token contract it calls, from the owner to the payee, until the
// expiration. A raw that is not a transfer call is an error.
func RawGrant(r *Raw, network string) (rails.Grant, error) {
	to, amount, ok := Transfer(r.CallData)
	if !ok || len(r.Owner) != 21 || len(r.ContractAddress) != 21 || r.Owner[0] != 0x41 || r.ContractAddress[0] != 0x41 {
		return rails.Grant{}, errUnreadable
	}
	asset := Address(r.ContractAddress).String()
	d, ok := knownDecimals[[2]string{network, asset}]
	if !ok {
		d = -1
	}
	g := rails.Grant{Network: network, Asset: asset, Decimals: d, Amount: new(big.Int).SetBytes(amount),
		Payer: Address(r.Owner).String(), Payee: to.String()}
	if r.Expiration > 0 {
		g.PayableUntil = time.UnixMilli(int64(r.Expiration)).UTC()
	}
	return g, nil
}

// RequestRaw reads a tron-txid request: the network, the raw bytes (which
// must hash to the txid) decoded strictly, and the id.
func RequestRaw(req rails.Request) (*Raw, string, [32]byte, error) {
	var id [32]byte
	if k, _ := req.GetString("kind"); k != KindTxID {
		return nil, "", id, errUnreadable
	}
	network := mpp.String(req, "network")
	txid, ok1 := mpp.HexBytes(mpp.String(req, "txid"), 32, 32)
	rawBytes, ok2 := mpp.HexBytes(mpp.String(req, "rawData"), 1, MaxTxHex/2)
	if !ok1 || !ok2 || !IsNetwork(network) || sha256.Sum256(rawBytes) != [32]byte(txid) {
		return nil, "", id, errUnreadable
	}
	r, err := DecodeRaw(rawBytes)
	if err != nil {
		return nil, "", id, err
	}
	return r, network, [32]byte(txid), nil
}

// Summarize: the TRC-20 transfer the raw data calls, read from the bytes
// whose SHA-256 is the id signed; payable until the transaction's
// expiration. The fee limit (TRX the payer may burn for energy) is not in
// the grant; Inspect states it.
func (Exact) Summarize(req rails.Request) (rails.Grant, error) {
	r, network, _, err := RequestRaw(req)
	if err != nil {
		return rails.Grant{}, err
	}
	return RawGrant(r, network)
}

func rawDetails(r *Raw, txid [32]byte) *jsonv.Object {
	d := jsonv.Obj("txid", hex.EncodeToString(txid[:]), "refBlockBytes", hex.EncodeToString(r.RefBlockBytes),
		"refBlockHash", hex.EncodeToString(r.RefBlockHash), "timestamp", strconv.FormatUint(r.Timestamp, 10),
		"expiration", strconv.FormatUint(r.Expiration, 10), "feeLimit", strconv.FormatUint(r.FeeLimit, 10),
		"callData", hex.EncodeToString(r.CallData))
	if isText(r.Data) {
		d.Set("data", string(r.Data))
	} else {
		d.Set("data", "0x"+hex.EncodeToString(r.Data))
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

// Inspect reads a payment as Bound does and states its transfer through
// Summarize over the very raw bytes signed; the details hold the id, the
// reference block, the times, the fee limit and the signer the signature
// recovers to.
func (p Exact) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	c, accepted, err := carried(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	req := jsonv.Obj("kind", KindTxID, "network", mpp.String(accepted, "network"), "txid", "0x"+hex.EncodeToString(c.TxID[:]),
		"rawData", "0x"+hex.EncodeToString(c.Tx.RawBytes))
	g, err := p.Summarize(req)
	if err != nil {
		return rails.Inspection{}, err
	}
	d := rawDetails(&c.Tx.Raw, c.TxID)
	if a, ok := Recover(c.TxID, c.Tx.Signatures[0]); ok {
		d.Set("signer", a.String())
	}
	d.Set("signatures", jsonv.Number(len(c.Tx.Signatures)))
	return rails.Inspection{Pairing: ExactID, Kind: "payment", Grant: g, H: c.H.String(),
		WhereH: "transaction raw_data.data (the memo): the LCP string \"lcp:sha256:\" + H", Details: d}, nil
}

// InspectTx reads a bare signed transaction in lowercase hex, as a payment
// holds it, and states what it grants and where H sits. The network is not
// in a Tron transaction: the grant names none.
func InspectTx(s string) (rails.Inspection, error) {
	return rails.Guard("tron.InspectTx", "a Tron transaction of "+strconv.Itoa(len(s))+" hex digits", func() (rails.Inspection, error) {
		tx, err := DecodeTx(s)
		if err != nil {
			return rails.Inspection{}, err
		}
		id := sha256.Sum256(tx.RawBytes)
		g, err := RawGrant(&tx.Raw, "")
		if err != nil {
			return rails.Inspection{}, err
		}
		in := rails.Inspection{Kind: "tron-transaction", Grant: g, Details: rawDetails(&tx.Raw, id),
			WhereH: "nowhere: the memo is not an LCP string"}
		in.Details.Set("network", "tron:? (a Tron transaction names no chain)")
		if a, ok := Recover(id, tx.Signatures[0]); ok {
			in.Details.Set("signer", a.String())
		}
		if h, ok := mpp.ParseLegalContext(string(tx.Raw.Data)); ok && string(tx.Raw.Data) == mpp.LegalContextValue(h) {
			in.H, in.WhereH = h.String(), "raw_data.data (the memo): the LCP string \"lcp:sha256:\" + H (an x402/exact/tron/lcp-trc20-memo payment)"
		}
		return in, nil
	})
}
