package tempo

import (
	"math/big"
	"strconv"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// A Tempo key authorization (docs/protocol.md, "Tempo") lets an access key spend for the account
// within limits; the account's root key signs keccak256 of its RLP. Its
// witness is a free 32-byte field the chain emits in KeyAuthorizationWitness:
// mpp/subscription/tempo puts H there.

// Bounds of a key authorization.
const (
	MaxKeyAuthorizationBytes = 8192
	MaxKeyAuthorizationDepth = 6
	MaxScopes                = 16 // limits, scopes, rules per scope, recipients per rule
	maxKeyAuthorizationItems = 2048
)

// Key types.
const (
	KeyTypeSecp256k1 = 0
	KeyTypeP256      = 1
	KeyTypeWebAuthn  = 2
)

// Addresses are kept as the seller wrote them, so that the JSON form echoes
// them; Encode parses them.

// Limit is a per-period spending limit on one token.
type Limit struct {
	Token  string
	Limit  *big.Int // < 2^256
	Period uint64   // seconds
}

// SelectorRule allows calls of one selector to the listed recipients.
type SelectorRule struct {
	Selector   [4]byte
	Recipients []string
}

// Scope allows calls to one target.
type Scope struct {
	Target string
	Rules  []SelectorRule
}

// KeyAuthorization is the unsigned authorization.
type KeyAuthorization struct {
	ChainID      uint64
	KeyType      int
	KeyID        string
	Expiry       uint64
	Limits       []Limit
	AllowedCalls []Scope
	Witness      [32]byte
}

// Encode writes rlp([chain_id, key_type, key_id, expiry, limits,
// allowed_calls, witness]); over the bounds it is
// tempo/key-authorization-malformed.
func (a *KeyAuthorization) Encode() ([]byte, error) {
	bad := rails.Refuse(CodeKeyAuthorizationMalformed)
	keyID, ok := parseAddress(a.KeyID)
	if !ok || a.KeyType < 0 || a.KeyType > 2 || len(a.Limits) > MaxScopes || len(a.AllowedCalls) > MaxScopes {
		return nil, bad
	}
	limits := make([]any, 0, len(a.Limits))
	for _, l := range a.Limits {
		token, ok := parseAddress(l.Token)
		if !ok || l.Limit == nil || l.Limit.Sign() < 0 || l.Limit.Cmp(maxUint256) > 0 {
			return nil, bad
		}
		limits = append(limits, []any{token.Bytes(), l.Limit, l.Period})
	}
	scopes := make([]any, 0, len(a.AllowedCalls))
	for _, s := range a.AllowedCalls {
		target, ok := parseAddress(s.Target)
		if !ok || len(s.Rules) > MaxScopes {
			return nil, bad
		}
		rules := make([]any, 0, len(s.Rules))
		for _, r := range s.Rules {
			if len(r.Recipients) > MaxScopes {
				return nil, bad
			}
			recipients := make([]any, 0, len(r.Recipients))
			for _, x := range r.Recipients {
				addr, ok := parseAddress(x)
				if !ok {
					return nil, bad
				}
				recipients = append(recipients, addr.Bytes())
			}
			rules = append(rules, []any{r.Selector[:], recipients})
		}
		scopes = append(scopes, []any{target.Bytes(), rules})
	}
	out, err := rlp.EncodeToBytes([]any{a.ChainID, uint64(a.KeyType), keyID.Bytes(), a.Expiry, limits, scopes, a.Witness[:]})
	if err != nil || len(out) > MaxKeyAuthorizationBytes {
		return nil, bad
	}
	return out, nil
}

// Digest is keccak256 of the unsigned RLP, what the root key signs as is.
func (a *KeyAuthorization) Digest() ([32]byte, error) {
	u, err := a.Encode()
	if err != nil {
		return [32]byte{}, err
	}
	return [32]byte(crypto.Keccak256(u)), nil
}

// EncodeSigned writes rlp([the unsigned list, signature]).
func (a *KeyAuthorization) EncodeSigned(sig []byte) ([]byte, error) {
	bad := rails.Refuse(CodeKeyAuthorizationMalformed)
	u, err := a.Encode()
	if err != nil {
		return nil, err
	}
	if len(sig) == 0 {
		return nil, bad
	}
	out, err := rlp.EncodeToBytes([]any{rlp.RawValue(u), sig})
	if err != nil || len(out) > MaxKeyAuthorizationBytes {
		return nil, bad
	}
	return out, nil
}

// JSON is the authorization as a tempo-key-authorization request carries it
// (integers that may exceed 2^53 as decimal strings, the key type a number,
// addresses and the selector as hex).
func (a *KeyAuthorization) JSON() *jsonv.Object {
	limits := make([]jsonv.Value, len(a.Limits))
	for i, l := range a.Limits {
		limits[i] = jsonv.Obj("token", l.Token, "limit", l.Limit.String(), "period", strconv.FormatUint(l.Period, 10))
	}
	scopes := make([]jsonv.Value, len(a.AllowedCalls))
	for i, s := range a.AllowedCalls {
		rules := make([]jsonv.Value, len(s.Rules))
		for j, r := range s.Rules {
			recipients := make([]jsonv.Value, len(r.Recipients))
			for k, x := range r.Recipients {
				recipients[k] = x
			}
			rules[j] = jsonv.Obj("selector", hex0x(r.Selector[:]), "recipients", recipients)
		}
		scopes[i] = jsonv.Obj("target", s.Target, "selectorRules", rules)
	}
	return jsonv.Obj(
		"chainId", strconv.FormatUint(a.ChainID, 10), "keyType", a.KeyType, "keyId", a.KeyID,
		"expiry", strconv.FormatUint(a.Expiry, 10), "limits", limits, "allowedCalls", scopes,
		"witness", hex0x(a.Witness[:]))
}

// KeyAuthorizationFromJSON reads the JSON form back (what a signer is
// handed), with the bounds Encode applies.
func KeyAuthorizationFromJSON(o *jsonv.Object) (*KeyAuthorization, error) {
	bad := rails.Refuse(CodeKeyAuthorizationMalformed)
	u64 := func(v jsonv.Value) (uint64, bool) {
		s, ok := v.(string)
		if !ok {
			return 0, false
		}
		n, ok := mpp.Uint256(s)
		if !ok || !n.IsUint64() {
			return 0, false
		}
		return n.Uint64(), true
	}
	a := &KeyAuthorization{}
	var ok bool
	cv, _ := o.Get("chainId")
	if a.ChainID, ok = u64(cv); !ok {
		return nil, bad
	}
	kt, _ := o.Get("keyType")
	n, ok := jsonv.AsSafeInt(kt)
	if !ok || n > 2 {
		return nil, bad
	}
	a.KeyType = int(n)
	if a.KeyID, ok = o.GetString("keyId"); !ok || !mpp.IsAddress(a.KeyID) {
		return nil, bad
	}
	ev, _ := o.Get("expiry")
	if a.Expiry, ok = u64(ev); !ok {
		return nil, bad
	}
	w, _ := o.GetString("witness")
	if a.Witness, ok = parseWord(w); !ok {
		return nil, bad
	}
	lv, _ := o.Get("limits")
	limits, ok := jsonv.AsArray(lv)
	if !ok || len(limits) > MaxScopes {
		return nil, bad
	}
	for _, x := range limits {
		l, _ := jsonv.AsObject(x)
		token := mpp.String(l, "token")
		limit, okL := mpp.Uint256(mpp.String(l, "limit"))
		pv, _ := l.Get("period")
		period, okP := u64(pv)
		if !mpp.IsAddress(token) || !okL || !okP {
			return nil, bad
		}
		a.Limits = append(a.Limits, Limit{Token: token, Limit: limit, Period: period})
	}
	sv, _ := o.Get("allowedCalls")
	scopes, ok := jsonv.AsArray(sv)
	if !ok || len(scopes) > MaxScopes {
		return nil, bad
	}
	for _, x := range scopes {
		s, _ := jsonv.AsObject(x)
		target := mpp.String(s, "target")
		rv, _ := s.Get("selectorRules")
		rules, okR := jsonv.AsArray(rv)
		if !mpp.IsAddress(target) || !okR || len(rules) > MaxScopes {
			return nil, bad
		}
		scope := Scope{Target: target}
		for _, y := range rules {
			r, _ := jsonv.AsObject(y)
			sel, okS := mpp.HexBytes(mpp.String(r, "selector"), 4, 4)
			recv, _ := r.Get("recipients")
			recipients, okR := jsonv.AsArray(recv)
			if !okS || !okR || len(recipients) > MaxScopes {
				return nil, bad
			}
			rule := SelectorRule{Selector: [4]byte(sel)}
			for _, z := range recipients {
				addr, _ := z.(string)
				if !mpp.IsAddress(addr) {
					return nil, bad
				}
				rule.Recipients = append(rule.Recipients, addr)
			}
			scope.Rules = append(scope.Rules, rule)
		}
		a.AllowedCalls = append(a.AllowedCalls, scope)
	}
	return a, nil
}

// SignedKeyAuthorization is what the read-back finds in a signed key
// authorization.
type SignedKeyAuthorization struct {
	Witness    []byte // 32 bytes, or nil when absent or empty
	Digest     [32]byte
	KeyID      []byte
	Authorized []byte // the authorization's RLP as received
	Signature  []byte
}

// DecodeKeyAuthorization reads a signed key authorization strictly (docs/protocol.md, "Tempo"):
// "0x" hex of at most MaxKeyAuthorizationBytes, canonical RLP of depth at most
// 6 holding exactly [authorization (a list of 3–9 items), signature (a
// string)], key_id 20 bytes, chain_id and key_type integers, limits and
// allowed_calls (where present) empty or lists within the bounds, the witness
// (where present) 0 or 32 bytes. The digest is keccak256 over the
// authorization's bytes as received. Failures are
// tempo/key-authorization-malformed.
func DecodeKeyAuthorization(signed string) (*SignedKeyAuthorization, error) {
	bad := rails.Refuse(CodeKeyAuthorizationMalformed)
	b, ok := mpp.HexBytes(signed, 0, MaxKeyAuthorizationBytes)
	if !ok {
		return nil, bad
	}
	top, err := Decode(b, Limits{MaxDepth: MaxKeyAuthorizationDepth, MaxItems: maxKeyAuthorizationItems})
	if err != nil || !top.List || len(top.Items) != 2 {
		return nil, bad
	}
	auth, sig := top.Items[0], top.Items[1]
	if !auth.List || sig.List || len(auth.Items) < 3 || len(auth.Items) > 9 {
		return nil, bad
	}
	keyID := auth.Items[2]
	if keyID.List || len(keyID.Bytes) != 20 || !auth.Items[0].IsUint() || !auth.Items[1].IsUint() {
		return nil, bad
	}
	for _, i := range []int{4, 5} {
		if i < len(auth.Items) && !withinScopes(auth.Items[i], i == 5) {
			return nil, bad
		}
	}
	out := &SignedKeyAuthorization{
		Digest: [32]byte(crypto.Keccak256(auth.Raw)), KeyID: keyID.Bytes,
		Authorized: auth.Raw, Signature: sig.Bytes,
	}
	if len(auth.Items) > 6 {
		w := auth.Items[6]
		if w.List || (len(w.Bytes) != 0 && len(w.Bytes) != 32) {
			return nil, bad
		}
		if len(w.Bytes) == 32 {
			out.Witness = w.Bytes
		}
	}
	return out, nil
}

// withinScopes: the empty string, or a list of at most MaxScopes entries;
// for allowed_calls also each scope a 2-item list whose rules are a list of
// at most MaxScopes 2-item rules, each with at most MaxScopes recipients.
func withinScopes(l Item, calls bool) bool {
	if !l.List {
		return len(l.Bytes) == 0
	}
	if len(l.Items) > MaxScopes {
		return false
	}
	if !calls {
		return true
	}
	for _, scope := range l.Items {
		if !scope.List || len(scope.Items) != 2 {
			return false
		}
		rules := scope.Items[1]
		if !rules.List || len(rules.Items) > MaxScopes {
			return false
		}
		for _, rule := range rules.Items {
			if !rule.List || len(rule.Items) != 2 {
				return false
			}
			recipients := rule.Items[1]
			if !recipients.List || len(recipients.Items) > MaxScopes {
				return false
			}
		}
	}
	return true
}
