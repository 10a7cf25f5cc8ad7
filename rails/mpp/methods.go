package mpp

import (
	"math/big"
	"regexp"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// The pairing ids the method checks name.
const (
	PairingEVMPermit2       = "mpp/charge/evm/permit2"
	PairingEVMAuthorization = "mpp/charge/evm/authorization"
	PairingEVMTransaction   = "mpp/charge/evm/transaction"
	PairingEVMHash          = "mpp/charge/evm/hash"
	PairingTempoMemo        = "mpp/charge/tempo/memo"
	PairingTempoPush        = "mpp/charge/tempo/push"
	PairingSessionTempo     = "mpp/session/tempo"
	PairingSessionEVM       = "mpp/session/evm"
	PairingSubscription     = "mpp/subscription/tempo"
	PairingLightning        = "mpp/charge/lightning"
)

// methodCheck reads a decoded request and its methodDetails and names the
// pairings the challenge offers, or refuses with the method's code.
type methodCheck func(request, details *jsonv.Object) ([]string, error)

// methodChecks are the intents and methods termsgate reads. Other rails'
// methods (Solana, Stellar, XRPL, Hedera, …) come with their own pairings.
var methodChecks = map[string]methodCheck{
	"charge/evm":         evmCharge,
	"charge/tempo":       tempoCharge,
	"session/evm":        evmSession,
	"session/tempo":      tempoSession,
	"subscription/tempo": tempoSubscription,
	"charge/lightning":   lightningCharge,
	"session/lightning":  lightningSession,
	"charge/xrpl":        xrplCharge,
	"session/xrpl":       xrplSession,
}

var evmCredentialTypes = map[string]string{
	"permit2":       PairingEVMPermit2,
	"authorization": PairingEVMAuthorization,
	"transaction":   PairingEVMTransaction,
	"hash":          PairingEVMHash,
}

// evmCharge (docs/protocol.md, "EVM pairings on MPP"): chainId required; authorization is offered only when
// credentialTypes lists it; splits leave only permit2.
func evmCharge(r, d *jsonv.Object) ([]string, error) {
	if !isPositiveInt(d, "chainId") || !isAddressAt(r, "currency") || !isAddressAt(r, "recipient") || !isDecimalAt(r, "amount") {
		return nil, refuse(CodeRequestMalformed)
	}
	if d.Has("permit2Address") && !isAddressAt(d, "permit2Address") {
		return nil, refuse(CodeRequestMalformed)
	}
	if x, has := r.Get("externalId"); has {
		if _, ok := x.(string); !ok {
			return nil, refuse(CodeRequestMalformed)
		}
	}
	listed := []string{PairingEVMTransaction, PairingEVMHash}
	if types, has := d.Get("credentialTypes"); has {
		list, ok := jsonv.AsArray(types)
		if !ok || len(list) == 0 {
			return nil, refuse(CodeCredentialTypes)
		}
		listed = nil
		for _, t := range list {
			s, _ := t.(string)
			p, ok := evmCredentialTypes[s]
			if !ok {
				return nil, refuse(CodeCredentialTypes)
			}
			if !contains(listed, p) {
				listed = append(listed, p) // a repeated type counts once
			}
		}
	}
	if splits, has := d.Get("splits"); has {
		list, ok := jsonv.AsArray(splits)
		if !ok || len(list) < 1 || len(list) > MaxSplits {
			return nil, refuse(CodeSplitsMalformed)
		}
		for _, s := range list {
			o, ok := jsonv.AsObject(s)
			if !ok || !isAddressAt(o, "recipient") || !isNonZeroDecimalAt(o, "amount") {
				return nil, refuse(CodeSplitsMalformed)
			}
		}
		var kept []string
		for _, p := range listed {
			if p == PairingEVMPermit2 {
				kept = append(kept, p)
			}
		}
		listed = kept
	}
	if len(listed) == 0 {
		return nil, refuse(CodeCredentialTypes)
	}
	return listed, nil
}

// MaxSplits is the most split payments a charge may name.
const MaxSplits = 10

// tempoCharge (docs/protocol.md, "Tempo"): pull offers memo, push (without a fee payer) offers
// push; a seller memo takes LCP's carrier.
func tempoCharge(r, d *jsonv.Object) ([]string, error) {
	if !isAddressAt(r, "currency") || !isAddressAt(r, "recipient") || !isDecimalAt(r, "amount") {
		return nil, refuse(CodeRequestMalformed)
	}
	if d.Has("chainId") && !isPositiveInt(d, "chainId") {
		return nil, refuse(CodeRequestMalformed)
	}
	if d.Has("memo") {
		return nil, refuse(CodeCarrierTaken)
	}
	pull, push := true, true
	if modes, has := d.Get("supportedModes"); has {
		list, ok := jsonv.AsArray(modes)
		if !ok {
			return nil, refuse(CodeRequestMalformed)
		}
		pull, push = false, false
		for _, m := range list {
			switch m {
			case "pull":
				pull = true
			case "push":
				push = true
			default:
				return nil, refuse(CodeRequestMalformed)
			}
		}
	}
	if fp, _ := d.Get("feePayer"); fp == true {
		push = false // a sponsored transaction is the seller's to send
	}
	var out []string
	if pull {
		out = append(out, PairingTempoMemo)
	}
	if push {
		out = append(out, PairingTempoPush)
	}
	if len(out) == 0 {
		return nil, refuse(CodeModesPullOnly)
	}
	return out, nil
}

// evmSession only names mpp/session/evm (built by the EVM channels work,
// not here), so that its challenges check as the reference checks them.
func evmSession(r, d *jsonv.Object) ([]string, error) {
	if d.Has("channelId") || d.Has("sessionSnapshot") {
		return nil, refuse(CodeChannelNamed)
	}
	if !isAddressAt(d, "escrowContract") {
		return nil, refuse(CodeEscrowMalformed)
	}
	if !isPositiveInt(d, "chainId") {
		return nil, refuse(CodeChainIDRequired)
	}
	if !isAddressAt(r, "currency") || !isAddressAt(r, "recipient") {
		return nil, refuse(CodeRequestMalformed)
	}
	if d.Has("permit2Contract") && !isAddressAt(d, "permit2Contract") {
		return nil, refuse(CodeRequestMalformed)
	}
	if types, has := d.Get("credentialTypes"); has {
		list, ok := jsonv.AsArray(types)
		if !ok || len(list) == 0 {
			return nil, refuse(CodeCredentialTypes)
		}
		for _, t := range list {
			if t != "permit2" && t != "authorization" && t != "hash" {
				return nil, refuse(CodeCredentialTypes)
			}
		}
	}
	return []string{PairingSessionEVM}, nil
}

// tempoSession (docs/protocol.md, "Tempo"): an opening only (a named channel is a resume).
func tempoSession(r, d *jsonv.Object) ([]string, error) {
	if d.Has("channelId") || d.Has("sessionSnapshot") {
		return nil, refuse(CodeChannelNamed)
	}
	v, hasVersion := d.Get("sessionProtocol")
	if hasVersion && v != "v1" && v != "v2" {
		return nil, refuse(CodeSessionProtocol)
	}
	if v == "v2" && (!d.Has("chainId") || !d.Has("escrowContract")) {
		return nil, refuse(CodeChainIDRequired)
	}
	if d.Has("chainId") && !isPositiveInt(d, "chainId") {
		return nil, refuse(CodeChainIDRequired)
	}
	if !isAddressAt(d, "escrowContract") {
		return nil, refuse(CodeEscrowMalformed)
	}
	if d.Has("operator") && !isAddressAt(d, "operator") {
		return nil, refuse(CodeRequestMalformed)
	}
	if !isAddressAt(r, "currency") || !isAddressAt(r, "recipient") {
		return nil, refuse(CodeRequestMalformed)
	}
	return []string{PairingSessionTempo}, nil
}

var periodCount = regexp.MustCompile(`^[1-9][0-9]{0,15}$`)

// tempoSubscription (docs/protocol.md, "Tempo"), in the reference's check order.
func tempoSubscription(r, d *jsonv.Object) ([]string, error) {
	key, ok := d.GetObject("accessKey")
	if !ok || !isAddressAt(key, "accessKeyAddress") {
		return nil, refuse(CodeAccessKeyMalformed)
	}
	if kt, _ := key.GetString("keyType"); kt != "p256" && kt != "secp256k1" && kt != "webAuthn" {
		return nil, refuse(CodeAccessKeyMalformed)
	}
	if e, ok := r.GetString("subscriptionExpires"); !ok {
		return nil, refuse(CodeRequestMalformed)
	} else if _, ok := UnixOf(e); !ok {
		return nil, refuse(CodeRequestMalformed)
	}
	if !isPositiveInt(d, "chainId") {
		return nil, refuse(CodeChainIDRequired)
	}
	if !isAddressAt(r, "currency") || !isAddressAt(r, "recipient") || !isDecimalAt(r, "amount") {
		return nil, refuse(CodeRequestMalformed)
	}
	if u, _ := r.GetString("periodUnit"); u != "day" && u != "week" {
		return nil, refuse(CodeRequestMalformed)
	}
	if c, _ := r.GetString("periodCount"); !periodCount.MatchString(c) {
		return nil, refuse(CodeRequestMalformed)
	}
	return []string{PairingSubscription}, nil
}

var paymentHash = regexp.MustCompile(`^[0-9a-f]{64}$`)

// lightningCharge and lightningSession only name their pairings (termsgate
// builds neither here); they exist so that a Lightning challenge reads as
// one, and its network is mpp/network-unnamed, as the reference says.
func lightningCharge(r, d *jsonv.Object) ([]string, error) {
	return lightning(r, d, true)
}

func lightningSession(r, d *jsonv.Object) ([]string, error) {
	return lightning(r, d, false)
}

func lightning(r, d *jsonv.Object, charge bool) ([]string, error) {
	if currency, _ := r.GetString("currency"); !isDecimalAt(r, "amount") || currency != "sat" {
		return nil, refuse(CodeRequestMalformed)
	}
	hashAt, invoiceAt, invoiceKey, pairing := r, r, "depositInvoice", "mpp/session/lightning"
	if charge {
		hashAt, invoiceAt, invoiceKey, pairing = d, d, "invoice", PairingLightning
	}
	if h, ok := hashAt.GetString("paymentHash"); !ok || !paymentHash.MatchString(h) {
		return nil, refuse("ln/payment-hash-required")
	}
	if inv, has := invoiceAt.Get(invoiceKey); has {
		if _, ok := inv.(string); !ok {
			return nil, refuse(CodeRequestMalformed)
		}
	}
	return []string{pairing}, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func isPositiveInt(o *jsonv.Object, k string) bool {
	v, _ := o.Get(k)
	n, ok := jsonv.AsSafeInt(v)
	return ok && n > 0
}

// ChainIDOf returns o[k] when it is a positive safe integer.
func ChainIDOf(o *jsonv.Object, k string) (int64, bool) {
	v, _ := o.Get(k)
	n, ok := jsonv.AsSafeInt(v)
	return n, ok && n > 0
}

func isAddressAt(o *jsonv.Object, k string) bool {
	s, ok := o.GetString(k)
	return ok && IsAddress(s)
}

var twoTo256 = new(big.Int).Lsh(big.NewInt(1), 256)

// Uint256 reads a decimal string of at most 78 digits whose value is below
// 2^256.
func Uint256(s string) (*big.Int, bool) {
	if !rails.IsDecimal(s) {
		return nil, false
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok || n.Cmp(twoTo256) >= 0 {
		return nil, false
	}
	return n, true
}

func isDecimalAt(o *jsonv.Object, k string) bool {
	s, ok := o.GetString(k)
	if !ok {
		return false
	}
	_, ok = Uint256(s)
	return ok
}

func isNonZeroDecimalAt(o *jsonv.Object, k string) bool {
	s, ok := o.GetString(k)
	if !ok {
		return false
	}
	n, ok := Uint256(s)
	return ok && n.Sign() > 0
}
