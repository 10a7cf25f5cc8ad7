package stellar

import (
	"crypto/sha256"
	"strconv"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// NominalLedgerSeconds is the ledger close time the builds count an
// expiration in (5 s, the network's target).
const NominalLedgerSeconds = 5

// summarize states what signing a stellar-auth request grants, read from
// its preimage: the token contract may move Amount from the payer to the
// payee on the network, until the expiration ledger. A ledger is no clock
// time: PayableUntil is now plus the request's ledgers (how many ledgers
// past the buyer's current one the build set the expiration) at the
// nominal close time; a request without them has no deadline, which a
// spend policy refuses.
func summarize(req rails.Request) (rails.Grant, error) {
	if k, _ := req.GetString("kind"); k != KindAuth {
		return rails.Grant{}, refuse(CodeTxMalformed)
	}
	text, _ := req.GetString("preimage")
	p, ok := mpp.HexBytes(text, 1, MaxPreimageBytes)
	if !ok {
		return rails.Grant{}, refuse(CodeTxMalformed)
	}
	a, err := ReadPreimage(p)
	if err != nil {
		return rails.Grant{}, err
	}
	g := rails.Grant{
		Network: a.Network, Asset: a.Asset, Decimals: -1, Amount: a.Amount,
		Payer: a.From, Payee: a.To,
	}
	if v, has := req.Get("validUntil"); has {
		u, ok := jsonv.AsSafeInt(v)
		if !ok || u == 0 {
			return rails.Grant{}, refuse(CodeTxMalformed)
		}
		g.PayableUntil = time.Unix(u, 0)
	}
	return g, nil
}

// Summarize implements rails.Summarizer.
func (Exact) Summarize(req rails.Request) (rails.Grant, error) { return summarize(req) }

// inspect is what a signed transfer grants and where H sits in it: the
// payer's authorization preimage, rebuilt from the envelope, is read by
// Summarize as the spend policy read it before signing.
func inspect(pairing, kind string, t *Transfer, network, h, where string) (rails.Inspection, error) {
	pre, err := t.preimage(network)
	if err != nil {
		return rails.Inspection{}, err
	}
	g, err := summarize(jsonv.Obj("kind", KindAuth, "preimage", "0x"+hexOf(pre)))
	if err != nil {
		return rails.Inspection{}, err
	}
	d := sha256.Sum256(pre)
	return rails.Inspection{Pairing: pairing, Kind: kind, Grant: g, H: h, WhereH: where, Details: transferDetails(t, d[:])}, nil
}

// transferDetails are what a transfer says beside its grant: the ledger
// after which its authorization is worthless, its credentials' form, the
// muxed payee's account and id, and the digest the payer signed.
func transferDetails(t *Transfer, authDigest []byte) *jsonv.Object {
	o := jsonv.Obj("expirationLedger", int64(t.Creds.SignatureExpirationLedger), "credentials", "address")
	if t.V2 {
		o.Set("credentials", "address-v2")
	}
	if t.ToMux != nil {
		o.Set("payeeAccount", t.ToMux.Base())
		o.Set("muxedId", strconv.FormatUint(t.ToMux.ID, 10))
	}
	if authDigest != nil {
		o.Set("authDigest", "0x"+hexOf(authDigest))
	}
	return o
}

// Inspect implements rails.Inspector: the payment read as Bound reads it.
func (p Exact) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	t, h, err := p.read(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	return inspect(ExactID, "payment", t, acceptedNetwork(payment), h,
		"payload.transaction: the signed transfer's to is a muxed address whose id is H's first 8 bytes; the full H is extensions.legalContext.info.value")
}

// acceptedNetwork is the accepted option's network of an x402 payment.
func acceptedNetwork(payment jsonv.Value) string {
	o, _ := jsonv.AsObject(payment)
	accepted, _ := o.GetObject("accepted")
	n, _ := accepted.GetString("network")
	return n
}
