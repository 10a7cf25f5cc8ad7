package stellar

import (
	"strconv"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// This file is the seller's side, for termsgate's own loopback seller, the
// inspect command and the vectors: placing the carrier in an offer, and the
// reference a facilitator settles by.

// PlaceOption returns a copy of an x402 option whose payTo, a G… account,
// becomes the muxed address carrying h (stellar/carrier-occupied when it is
// already muxed, stellar/option-malformed when it is no account).
func PlaceOption(option *jsonv.Object, h atr.Hash) (*jsonv.Object, error) {
	payTo, _ := option.GetString("payTo")
	m, err := Muxed(payTo, h)
	if err != nil {
		return nil, err
	}
	out := option.Clone()
	out.Set("payTo", m)
	return out, nil
}

// Reference is what a seller settles a payment by: {network, authDigest
// (SHA-256 of the signed preimage), asset, toBase, toId (decimal), expiration,
// fromLedger}. fromLedger is 0: the ledger to search from is the seller's
// to add.
func Reference(t *Transfer, network string) (*jsonv.Object, error) {
	if t.ToMux == nil {
		return nil, rails.Refuse(CodeNoCarrier)
	}
	d, err := t.PreimageHash(network)
	if err != nil {
		return nil, err
	}
	return jsonv.Obj(
		"network", network,
		"authDigest", "0x"+hexOf(d[:]),
		"asset", t.Asset,
		"toBase", t.ToMux.Base(),
		"toId", strconv.FormatUint(t.ToMux.ID, 10),
		"expiration", int64(t.Creds.SignatureExpirationLedger),
		"fromLedger", 0,
	), nil
}

// ReadPayment reads an x402/exact/stellar payment as Bound does and returns
// the transfer with the echoed H.
func (p Exact) ReadPayment(presented jsonv.Value) (*Transfer, string, error) {
	return p.read(presented)
}
