package casper

import (
	"encoding/hex"
	"errors"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// The bare forms a Casper payment carries, read by `termsgate inspect`
// without the offer around them: the CEP-3009 typed data the key signs
// (the casper-eip712 request's typedData), the payload
// {authorization, publicKey, signature}, and its authorization alone. The
// payer signs no deploy: the facilitator's transfer_with_authorization
// call carries the authorization to the chain.

var errBare = errors.New("casper: not CEP-3009 typed data, a Casper payload {authorization, publicKey, signature} or its authorization")

// whereBareH says where H sits in a bare form: the nonce is the whole H for
// the one Casper pairing, though the form names no offer.
const whereBareH = "authorization nonce: for x402/exact/casper, CEP-3009's 32-byte nonce is H"

// IsBare reports an object in one of the bare forms' shapes, for inspect
// to route it here (an EIP-3009 authorization has 20-byte addresses, a
// Casper one 33-byte tagged ones): typed data whose primaryType is
// TransferWithAuthorization under a domain naming a chain_name, an object
// with an authorization member, or six members whose from is a Casper
// address.
func IsBare(o *jsonv.Object) bool {
	if pt, _ := o.GetString("primaryType"); pt == "TransferWithAuthorization" {
		d, _ := o.GetObject("domain")
		return d.Has("chain_name")
	}
	if a, ok := o.GetObject("authorization"); ok {
		return IsAddress(mpp.String(a, "from"))
	}
	return o.Len() == 6 && IsAddress(mpp.String(o, "from"))
}

// InspectBare states a bare form: the typed data's whole grant (its domain
// names the network and the token), or the payload's or authorization's
// transfer, whose network and token its signature's domain names and it
// does not carry.
func InspectBare(o *jsonv.Object) (rails.Inspection, error) {
	return rails.Guard("casper.InspectBare", "bare Casper form", func() (rails.Inspection, error) {
		if o.Has("primaryType") {
			return inspectTypedData(o)
		}
		if a, ok := o.GetObject("authorization"); ok {
			return inspectPayload(o, a)
		}
		a, ok := bareAuthorization(o)
		if !ok {
			return rails.Inspection{}, errBare
		}
		return rails.Inspection{Kind: "casper-authorization", Grant: domainless(a), H: hexH(a),
			WhereH: whereBareH, Details: jsonv.Obj("nonce", hex.EncodeToString(a.Nonce[:]))}, nil
	})
}

func hexH(a *Authorization) string { return "0x" + hex.EncodeToString(a.Nonce[:]) }

func inspectTypedData(td *jsonv.Object) (rails.Inspection, error) {
	domain, ok1 := td.GetObject("domain")
	message, ok2 := td.GetObject("message")
	types, _ := td.Get("types")
	if td.Len() != 4 || mpp.String(td, "primaryType") != "TransferWithAuthorization" || !ok1 || !ok2 || !isTypes(types) {
		return rails.Inspection{}, errBare
	}
	a, ok := readAuthorization(domain, message)
	if !ok {
		return rails.Inspection{}, errBare
	}
	d := a.Digest()
	return rails.Inspection{Kind: "casper-typed-data", Grant: grantOf(a), H: hexH(a), WhereH: "message.nonce: for x402/exact/casper, CEP-3009's 32-byte nonce is H",
		Details: jsonv.Obj("domain", jsonv.Obj("name", a.Name, "version", a.Version, "chain_name", a.ChainName),
			"digest", "0x"+hex.EncodeToString(d[:]))}, nil
}

func inspectPayload(p, m *jsonv.Object) (rails.Inspection, error) {
	pk, _ := p.Get("publicKey")
	sig, _ := p.Get("signature")
	a, ok := bareAuthorization(m)
	if p.Len() != 3 || !ok || !isTagged(pk, MaxPublicKeyHex) || !isTagged(sig, MaxSignatureHex) {
		return rails.Inspection{}, errBare
	}
	// Whether the key's account is from can be read here; whether the
	// signature verifies needs the domain, which the payload does not carry.
	key, err := ParsePublicKey(pk.(string))
	det := jsonv.Obj("publicKey", pk, "signatureTag", sig.(string)[:2], "keyIsPayer", err == nil && key.IsAccount(a.From),
		"nonce", hex.EncodeToString(a.Nonce[:]))
	return rails.Inspection{Kind: "casper-payload", Grant: domainless(a), H: hexH(a), WhereH: whereBareH, Details: det}, nil
}

// domainless is the grant of an authorization read without its domain: no
// network and no token.
func domainless(a *Authorization) rails.Grant {
	g := grantOf(a)
	g.Network, g.Asset, g.AssetName = "", "", ""
	return g
}

// bareAuthorization reads the six members as Build writes them: from and
// to Casper addresses, value, validAfter and validBefore uint256 decimals,
// the nonce 64 hex digits (0x allowed, as the payment's reader allows). No
// domain: the grant's network and asset stay unstated.
func bareAuthorization(m *jsonv.Object) (*Authorization, bool) {
	if m.Len() != 6 {
		return nil, false
	}
	value, ok1 := Uint256(mget(m, "value"))
	after, ok2 := Uint256(mget(m, "validAfter"))
	before, ok3 := Uint256(mget(m, "validBefore"))
	n, ok4 := m.GetString("nonce")
	raw, err := hex.DecodeString(strings.TrimPrefix(n, "0x"))
	a := &Authorization{From: mpp.String(m, "from"), To: mpp.String(m, "to"), Value: value, ValidAfter: after, ValidBefore: before}
	if !ok1 || !ok2 || !ok3 || !ok4 || err != nil || len(raw) != 32 || !IsAddress(a.From) || !IsAddress(a.To) {
		return nil, false
	}
	a.Nonce = [32]byte(raw)
	return a, true
}
