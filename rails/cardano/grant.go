package cardano

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/big"
	"strconv"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// What a cardano-transaction request grants (rails.Summarizer), and what a
// Cardano payment shows (rails.Inspector).

var (
	_ rails.Summarizer = Exact{}
	_ rails.Inspector  = Exact{}
)

var errUnreadable = errors.New("cardano: the signing request is not one this pairing builds")

// Request is a cardano-transaction request as read.
type Request struct {
	Network, Asset  string
	Payer, PayTo    Address
	Amount          uint64
	H               atr.Hash
	Aux             []byte
	ValiditySeconds int64
}

// ReadRequest reads a cardano-transaction request: every member present and
// of its form, the auxiliary data exactly AuxiliaryData's for some H, both
// addresses on the request's network and the payer's a key hash.
func ReadRequest(req rails.Request) (Request, error) {
	if k, _ := req.GetString("kind"); k != KindTransaction {
		return Request{}, errUnreadable
	}
	var out Request
	var err1, err2 error
	var ok1, ok2 bool
	out.Network, out.Asset = mpp.String(req, "network"), mpp.String(req, "asset")
	out.Payer, err1 = ParseAddress(mpp.String(req, "payer"))
	out.PayTo, err2 = ParseAddress(mpp.String(req, "payTo"))
	out.Amount, ok1 = u64Of(mpp.String(req, "amount"))
	out.Aux, ok2 = mpp.HexBytes(mpp.String(req, "auxiliaryData"), 1, 1024)
	vs, _ := req.Get("validitySeconds")
	secs, ok3 := jsonv.AsSafeInt(vs)
	if err1 != nil || err2 != nil || !ok1 || !ok2 || !ok3 || secs < 1 || secs > MaxValidity || NetworkName(out.Network) != out.Network ||
		!IsAsset(out.Asset) || out.Payer.PaymentKeyHash() == nil || out.Payer.NetworkID() != NetworkID(out.Network) ||
		out.PayTo.NetworkID() != NetworkID(out.Network) {
		return Request{}, errUnreadable
	}
	out.ValiditySeconds = secs
	aux, err := decodeAux(out.Aux)
	if err != nil {
		return Request{}, errUnreadable
	}
	if out.H, err = Carrier(aux); err != nil || !bytes.Equal(AuxiliaryData(out.H), out.Aux) {
		return Request{}, errUnreadable
	}
	return out, nil
}

// KnownDecimals is the decimals of an asset: 6 for lovelace (ADA), else -1.
func KnownDecimals(asset string) int {
	if asset == Lovelace {
		return 6
	}
	return -1
}

// Summarize: amount of asset from payer to payTo, on the request's
// network, until the request's validUntil when it states one (the TTL is a
// slot the wallet sets from its node's tip). The fee is the payer's own and
// not in the grant.
func (Exact) Summarize(req rails.Request) (rails.Grant, error) {
	r, err := ReadRequest(req)
	if err != nil {
		return rails.Grant{}, err
	}
	g := rails.Grant{Network: r.Network, Asset: r.Asset, Decimals: KnownDecimals(r.Asset),
		Amount: new(big.Int).SetUint64(r.Amount), Payer: r.Payer.String(), Payee: r.PayTo.String()}
	if v, has := req.Get("validUntil"); has {
		n, ok := jsonv.AsSafeInt(v)
		if !ok || n <= 0 {
			return rails.Grant{}, errUnreadable
		}
		g.PayableUntil = time.Unix(n, 0).UTC()
	}
	return g, nil
}

// txDetails are a transaction's id, TTL, fee, inputs, outputs and witnesses.
func txDetails(t *Tx) *jsonv.Object {
	d := jsonv.Obj("txId", t.IDString(), "valid", t.Valid)
	if t.HasTTL {
		d.Set("ttlSlot", strconv.FormatUint(t.TTL, 10))
	} else {
		d.Set("ttlSlot", nil)
	}
	if f, ok := t.Fee(); ok {
		d.Set("fee", strconv.FormatUint(f, 10))
	} else {
		d.Set("fee", nil)
	}
	if ins, err := t.Inputs(); err == nil {
		list := make([]jsonv.Value, len(ins))
		for i, in := range ins {
			list[i] = in.String()
		}
		d.Set("inputs", list)
	} else {
		d.Set("inputs", nil)
	}
	if outs, err := t.Outputs(); err == nil {
		list := make([]jsonv.Value, len(outs))
		for i, o := range outs {
			e := jsonv.Obj("address", addressText(o.Address), "lovelace", strconv.FormatUint(o.Coin, 10))
			if len(o.Assets) > 0 {
				as := jsonv.Obj()
				for k, q := range o.Assets {
					as.Set(k, strconv.FormatUint(q, 10))
				}
				e.Set("assets", as)
			}
			list[i] = e
		}
		d.Set("outputs", list)
	} else {
		d.Set("outputs", nil)
	}
	d.Set("vkeyWitnesses", jsonv.Number(len(t.VKeyWitnesses())))
	return d
}

// addressText is a Shelley address in bech32, another one's bytes in hex.
func addressText(a Address) string {
	if _, err := ParseAddress(a.String()); err == nil {
		return a.String()
	}
	return "0x" + hex.EncodeToString(a)
}

// payerOf is the address of the transaction's first vkey witness on
// networkID (an enterprise address of its key), "" without one.
func payerOf(t *Tx, networkID byte) string {
	if w := t.VKeyWitnesses(); len(w) > 0 {
		return EnterpriseAddress(w[0].VKey, networkID).String()
	}
	return ""
}

const whereH = "payload.transaction: the auxiliary data's metadata label 674 (a CIP-20 message, [\"lcp:sha256:0x\", H's 64 hex digits]), committed to by the body's key 7"

// Inspect reads an x402/exact/cardano payment as Bound does and states its
// grant through Summarize over the request the payment answers (the
// option and H; the payer as the enterprise address of the first witness'
// key, which signed the body); the details say what the transaction moves
// and whether it pays the option.
func (p Exact) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	c, err := bound(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	o, _ := jsonv.AsObject(payment)
	accepted, _ := o.GetObject("accepted")
	g := rails.Grant{Network: c.Network, Asset: mpp.String(accepted, "asset"), Decimals: KnownDecimals(mpp.String(accepted, "asset")),
		Payee: mpp.String(accepted, "payTo"), Payer: payerOf(c.Tx, NetworkID(c.Network))}
	if g.Payer != "" {
		req := jsonv.Obj("kind", KindTransaction, "network", c.Network, "payer", g.Payer, "payTo", g.Payee, "asset", g.Asset,
			"amount", mpp.String(accepted, "amount"), "auxiliaryData", "0x"+hex.EncodeToString(AuxiliaryData(c.H)), "validitySeconds", jsonv.Number(1))
		if g, err = p.Summarize(req); err != nil {
			return rails.Inspection{}, err
		}
	} else {
		amount, _ := u64Of(mpp.String(accepted, "amount"))
		g.Amount = new(big.Int).SetUint64(amount)
	}
	d := txDetails(c.Tx)
	d.Set("nonce", c.Nonce)
	d.Set("paysOption", Pays(c.Tx, accepted))
	d.Set("witnessVerifies", len(c.Tx.VKeyWitnesses()) > 0 && WitnessedBy(c.Tx, KeyHash(c.Tx.VKeyWitnesses()[0].VKey)))
	return rails.Inspection{Pairing: ExactID, Kind: "payment", Grant: g, H: c.H.String(), WhereH: whereH, Details: d}, nil
}

// InspectTransaction reads a bare transaction, base64 of its CBOR as a
// payment's payload holds it, and states its outputs and, when its
// auxiliary data carry one, H. Nothing is verified; network, when not "",
// names the network the grant states.
func InspectTransaction(s string, network string) (rails.Inspection, error) {
	return rails.Guard("cardano.InspectTransaction", "a Cardano transaction of "+strconv.Itoa(len(s))+" characters", func() (rails.Inspection, error) {
		t, err := DecodeTransaction(s)
		if err != nil {
			return rails.Inspection{}, errors.New("not a Cardano transaction (base64 of [body, witnesses, valid, auxiliary data] in strict CBOR, at most 65536 bytes)")
		}
		in := rails.Inspection{Kind: "cardano-transaction", Details: txDetails(t), WhereH: "nowhere: no CIP-20 message carrying H under the body's auxiliary data hash"}
		in.Grant = rails.Grant{Network: network, Decimals: -1}
		if outs, err := t.Outputs(); err == nil && len(outs) > 0 {
			in.Grant.Amount, in.Grant.Payee = new(big.Int).SetUint64(outs[0].Coin), addressText(outs[0].Address)
			if len(outs[0].Assets) == 0 {
				in.Grant.Asset, in.Grant.Decimals = Lovelace, 6
			}
			if net := outs[0].Address.NetworkID(); len(t.VKeyWitnesses()) > 0 {
				in.Grant.Payer = payerOf(t, net)
			}
		}
		if h, err := t.CarriedH(); err == nil {
			in.H = h.String()
			in.WhereH = "the auxiliary data's metadata label 674 (a CIP-20 message), committed to by the body's key 7 (an x402/exact/cardano payment)"
		} else if r, ok := err.(*rails.Refusal); ok {
			in.Details.Set("h", r.Code)
		}
		return in, nil
	})
}
