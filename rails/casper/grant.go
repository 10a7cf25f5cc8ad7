package casper

import (
	"encoding/hex"
	"errors"
	"math/big"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

var (
	_ rails.Summarizer = Exact{}
	_ rails.Inspector  = Exact{}
)

var errUnreadable = errors.New("casper: the signing request is not one this pairing builds")

// canonicalTypes is the types member every casper-eip712 request carries,
// in any member order.
var canonicalTypes = string(jsonv.Canonical(typesTemplate))

// isTypes reports CEP-3009's types: as Request writes them (compared in
// place, nothing written), or in another member order (compared in JCS).
func isTypes(v jsonv.Value) bool {
	return jsonv.Equal(v, typesTemplate) || string(jsonv.Canonical(v)) == canonicalTypes
}

// readAuthorization reads a message and domain as Build writes them.
func readAuthorization(domain, message *jsonv.Object) (*Authorization, bool) {
	if domain.Len() != 4 || message.Len() != 6 {
		return nil, false
	}
	nv, _ := domain.Get("name")
	vv, _ := domain.Get("version")
	pkg, okP := mpp.HexBytes("0x"+mpp.String(domain, "contract_package_hash"), 32, 32)
	chain := mpp.String(domain, "chain_name")
	value, ok1 := Uint256(mget(message, "value"))
	after, ok2 := Uint256(mget(message, "validAfter"))
	before, ok3 := Uint256(mget(message, "validBefore"))
	nonce, ok4 := mpp.HexBytes("0x"+mpp.String(message, "nonce"), 32, 32)
	from, to := mpp.String(message, "from"), mpp.String(message, "to")
	if !isName(nv) || !isName(vv) || !okP || !IsNetwork(chain) || !ok1 || !ok2 || !ok3 || !ok4 || !IsAddress(from) || !IsAddress(to) {
		return nil, false
	}
	return &Authorization{From: from, To: to, Value: value, ValidAfter: after, ValidBefore: before, Nonce: [32]byte(nonce),
		Name: nv.(string), Version: vv.(string), ChainName: chain, ContractPackageHash: [32]byte(pkg)}, true
}

func mget(o *jsonv.Object, k string) jsonv.Value { v, _ := o.Get(k); return v }

// RequestAuthorization reads a casper-eip712 request: CEP-3009's types
// exactly, a domain and message as Build writes them, the network its
// chain_name, and a digest that is the typed data's.
func RequestAuthorization(req rails.Request) (*Authorization, error) {
	if k, _ := req.GetString("kind"); k != KindEIP712 {
		return nil, errUnreadable
	}
	td, ok := req.GetObject("typedData")
	if !ok || td.Len() != 4 || mpp.String(td, "primaryType") != "TransferWithAuthorization" {
		return nil, errUnreadable
	}
	if types, _ := td.Get("types"); !isTypes(types) {
		return nil, errUnreadable
	}
	domain, ok1 := td.GetObject("domain")
	message, ok2 := td.GetObject("message")
	if !ok1 || !ok2 {
		return nil, errUnreadable
	}
	a, ok := readAuthorization(domain, message)
	if !ok || mpp.String(req, "network") != a.ChainName {
		return nil, errUnreadable
	}
	digest, ok := mpp.HexBytes(mpp.String(req, "digest"), 32, 32)
	if d := a.Digest(); !ok || [32]byte(digest) != d {
		return nil, errors.New("casper: the request's digest is not its typed data's")
	}
	return a, nil
}

func unixOf(n *big.Int) time.Time {
	if n.Sign() == 0 {
		return time.Time{}
	}
	if !n.IsInt64() || n.Int64() > 1<<53 {
		return time.Unix(1<<53, 0).UTC()
	}
	return time.Unix(n.Int64(), 0).UTC()
}

func grantOf(a *Authorization) rails.Grant {
	return rails.Grant{Network: a.ChainName, Asset: hex.EncodeToString(a.ContractPackageHash[:]), AssetName: a.Name, Decimals: -1,
		Amount: new(big.Int).Set(a.Value), Payer: a.From, Payee: a.To, PayableFrom: unixOf(a.ValidAfter), PayableUntil: unixOf(a.ValidBefore)}
}

// Summarize: value of the token whose contract package hash the domain
// names, from from to to, valid after validAfter (none when 0) and until
// validBefore, read from the typed data the key signs.
func (Exact) Summarize(req rails.Request) (rails.Grant, error) {
	a, err := RequestAuthorization(req)
	if err != nil {
		return rails.Grant{}, err
	}
	return grantOf(a), nil
}

// Inspect reads an x402/exact/casper payment as Bound does and states its
// grant from the authorization and the accepted option's domain.
func (Exact) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	c, err := carried(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	a, ok := PaymentAuthorization(c)
	if !ok {
		return rails.Inspection{}, rails.Refuse(CodePayloadMalformed)
	}
	d := a.Digest()
	det := jsonv.Obj("publicKey", c.PublicKey, "signatureTag", c.Signature[:2], "validAfter", a.ValidAfter.String(),
		"validBefore", a.ValidBefore.String(), "domain", jsonv.Obj("name", a.Name, "version", a.Version, "chain_name", a.ChainName),
		"digest", "0x"+hex.EncodeToString(d[:]))
	return rails.Inspection{Pairing: ExactID, Kind: "payment", Grant: grantOf(a), H: c.Nonce.String(),
		WhereH: "payload.authorization.nonce: CEP-3009's 32-byte nonce is H", Details: det}, nil
}

// PaymentAuthorization is the authorization a payment signs, under the
// domain of its accepted option; false when a member does not read.
func PaymentAuthorization(c *Carried) (*Authorization, bool) {
	a := optionAuthorization(c.Accepted)
	m := c.Authorization
	value, ok1 := Uint256(mget(m, "value"))
	after, ok2 := Uint256(mget(m, "validAfter"))
	before, ok3 := Uint256(mget(m, "validBefore"))
	a.From, a.To = mpp.String(m, "from"), mpp.String(m, "to")
	if !ok1 || !ok2 || !ok3 || !IsAddress(a.From) || !IsAddress(a.To) {
		return nil, false
	}
	a.Value, a.ValidAfter, a.ValidBefore, a.Nonce = value, after, before, c.Nonce
	return a, true
}
