// Package permit2seller holds the test sellers of the x402 EVM pairings
// beyond EIP-3009 (Permit2 exact and upto, auth-capture through EIP-3009 and
// Permit2, ERC-7710 at the salt level): an x402seller.Seller whose Verify
// checks each payment as the contract that would execute it does (Permit2's
// signature transfer with its witness, the escrow's payment hash, the
// DelegationManager's leaf signature), the nonce or salt being the hash of
// the terms served, and refuses a nonce used before. The demo rows pay them.
package permit2seller

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
)

// used is the one-use record of (owner, nonce), as Permit2's nonceBitmap
// and EIP-3009's authorizationState keep it.
type used struct {
	mu sync.Mutex
	m  map[string]bool
}

func (u *used) take(owner string, nonce atr.Hash) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	k := strings.ToLower(owner) + nonce.String()
	if u.m[k] {
		return errors.New("the nonce was used before: Permit2 lets each be used once")
	}
	if u.m == nil {
		u.m = map[string]bool{}
	}
	u.m[k] = true
	return nil
}

func str(o *jsonv.Object, path ...string) string {
	var v jsonv.Value = o
	for _, k := range path {
		obj, ok := jsonv.AsObject(v)
		if !ok {
			return ""
		}
		v, _ = obj.Get(k)
	}
	s, _ := jsonv.AsString(v)
	return s
}

// recovered is the address whose key signed typedData with the payload's
// 65-byte signature.
func recovered(typedData *jsonv.Object, payload *jsonv.Object) (string, error) {
	digest, err := evm.TypedDataDigest(typedData)
	if err != nil {
		return "", err
	}
	sig, ok := evm.HexBytes(str(payload, "signature"))
	if !ok {
		return "", errors.New("the signature is not hex")
	}
	who, err := evm.Recover(digest, sig)
	if err != nil {
		return "", fmt.Errorf("the signature does not recover: %w", err)
	}
	return who.Hex(), nil
}

// permit2Verifier checks an x402 Permit2 payment as x402's proxy and Permit2
// execute it: the spender is the scheme's proxy, the permitted token and
// amount are the option's (upto: at most its maximum), the witness pays
// payTo (and names the option's facilitator), the window is open, the
// signature over the rebuilt witness transfer recovers to from, and the
// nonce is H, used once.
func permit2Verifier(option *jsonv.Object, upto bool) func(*jsonv.Object, atr.Hash, time.Time) (string, error) {
	var once used
	return func(p *jsonv.Object, h atr.Hash, now time.Time) (string, error) {
		payload, _ := p.GetObject("payload")
		auth, ok := payload.GetObject("permit2Authorization")
		if !ok {
			return "", errors.New("the payment has no permit2Authorization")
		}
		proxy, fields := evm.ExactPermit2Proxy, []string{"to", "address", "validAfter", "uint256"}
		witness := jsonv.Obj("to", str(auth, "witness", "to"), "validAfter", str(auth, "witness", "validAfter"))
		if upto {
			proxy, fields = evm.UptoPermit2Proxy, []string{"to", "address", "facilitator", "address", "validAfter", "uint256"}
			witness = jsonv.Obj("to", str(auth, "witness", "to"), "facilitator", str(auth, "witness", "facilitator"),
				"validAfter", str(auth, "witness", "validAfter"))
			if !strings.EqualFold(str(auth, "witness", "facilitator"), str(option, "extra", "facilitatorAddress")) {
				return "", errors.New("the witness names another facilitator")
			}
		}
		if !strings.EqualFold(str(auth, "spender"), proxy) {
			return "", errors.New("the spender is not the x402 proxy")
		}
		if !strings.EqualFold(str(auth, "permitted", "token"), str(option, "asset")) || !strings.EqualFold(str(auth, "witness", "to"), str(option, "payTo")) {
			return "", errors.New("the permit moves another token or pays another payee")
		}
		amount, ok1 := new(big.Int).SetString(str(auth, "permitted", "amount"), 10)
		offered, _ := new(big.Int).SetString(str(option, "amount"), 10)
		if !ok1 || (!upto && amount.Cmp(offered) != 0) || (upto && amount.Cmp(offered) > 0) {
			return "", errors.New("the permit's amount is not the one offered")
		}
		nonce, ok := evm.Permit2NonceHash(str(auth, "nonce"))
		if !ok || nonce != h {
			return "", fmt.Errorf("the nonce is not the hash of the terms served, %s", h)
		}
		deadline, err1 := strconv.ParseInt(str(auth, "deadline"), 10, 64)
		after, err2 := strconv.ParseInt(str(auth, "witness", "validAfter"), 10, 64)
		if err1 != nil || err2 != nil || deadline < now.Unix() || after > now.Unix() {
			return "", errors.New("the permit is outside its window")
		}
		chain, _ := evm.ChainID(str(option, "network"))
		td, err := evm.Permit2Permit{ChainID: chain, Permitted: []evm.Permit2Token{{Token: str(auth, "permitted", "token"), Amount: amount.String()}},
			Spender: str(auth, "spender"), Nonce: new(big.Int).SetBytes(nonce[:]).String(), Deadline: str(auth, "deadline"),
			Witness: &evm.Permit2Witness{Type: "Witness", Fields: fields, Value: witness}}.TypedData()
		if err != nil {
			return "", err
		}
		who, err := recovered(td, payload)
		if err != nil {
			return "", err
		}
		if !strings.EqualFold(who, str(auth, "from")) {
			return "", fmt.Errorf("the signature recovers to %s, not the owner %s", who, str(auth, "from"))
		}
		return who, once.take(who, nonce)
	}
}

// escrowVerifier checks an auth-capture payment as the escrow and its
// collector do: the salt is H's commitment with the option's receiver
// authorizer and policy (saltNonce H), the signed nonce is the payment hash
// of the option's payment info (payer zero) over that salt, the
// authorization pays the collector the option's amount within its window,
// its signature recovers to from, and the payment is collected once.
func escrowVerifier(option *jsonv.Object, permit2 bool) func(*jsonv.Object, atr.Hash, time.Time) (string, error) {
	var once used
	return func(p *jsonv.Object, h atr.Hash, now time.Time) (string, error) {
		payload, _ := p.GetObject("payload")
		extra, _ := option.GetObject("extra")
		r := str(extra, "receiverAuthorizer")
		salt := evm.BindSalt(r, "0x0000000000000000000000000000000000000000", h)
		if str(payload, "saltNonce") != h.String() || str(payload, "salt") != salt.String() {
			return "", errors.New("the salt is not the terms' hash bound to the receiver authorizer")
		}
		num := func(k string) uint64 { v, _ := extra.Get(k); n, _ := jsonv.AsSafeInt(v); return uint64(n) }
		authKey, from, expiryText, nonceText := "authorization", "", "", ""
		if permit2 {
			authKey = "permit2Authorization"
		}
		auth, ok := payload.GetObject(authKey)
		if !ok {
			return "", errors.New("the payment has no " + authKey)
		}
		from = str(auth, "from")
		if permit2 {
			expiryText, nonceText = str(auth, "deadline"), str(auth, "nonce")
		} else {
			expiryText, nonceText = str(auth, "validBefore"), str(auth, "nonce")
		}
		expiry, err := strconv.ParseUint(expiryText, 10, 48)
		if err != nil || int64(expiry) < now.Unix() {
			return "", errors.New("the authorization is outside its window")
		}
		amount, _ := new(big.Int).SetString(str(option, "amount"), 10)
		info := evm.PaymentInfo{Operator: str(extra, "captureAuthorizer"), Payer: "0x0000000000000000000000000000000000000000",
			Receiver: str(option, "payTo"), Token: str(option, "asset"), MaxAmount: amount, PreApprovalExpiry: expiry,
			AuthorizationExpiry: num("captureDeadline"), RefundExpiry: num("refundDeadline"),
			MinFeeBps: uint16(num("minFeeBps")), MaxFeeBps: uint16(num("maxFeeBps")), FeeReceiver: str(extra, "feeRecipient"), Salt: salt}
		want, ok := info.Hash(84532, evm.EscrowV11.Escrow)
		signed, okSigned := evm.Permit2NonceHash(nonceText)
		if !ok || !okSigned || signed != want {
			return "", errors.New("the signed nonce is not the payment hash of the offered terms")
		}
		chain, _ := evm.ChainID(str(option, "network"))
		var td *jsonv.Object
		if permit2 {
			if !strings.EqualFold(str(auth, "spender"), evm.EscrowV11.Permit2Collector) || str(auth, "permitted", "amount") != amount.String() {
				return "", errors.New("the permit is not for the escrow's collector and the offered amount")
			}
			td, err = evm.Permit2Permit{ChainID: chain, Permitted: []evm.Permit2Token{{Token: str(option, "asset"), Amount: amount.String()}},
				Spender: evm.EscrowV11.Permit2Collector, Nonce: new(big.Int).SetBytes(want[:]).String(), Deadline: expiryText}.TypedData()
			if err != nil {
				return "", err
			}
		} else {
			if !strings.EqualFold(str(auth, "to"), evm.EscrowV11.EIP3009Collector) || str(auth, "value") != amount.String() {
				return "", errors.New("the authorization is not for the escrow's collector and the offered amount")
			}
			rebuilt := jsonv.Obj("from", from, "to", str(auth, "to"), "value", str(auth, "value"),
				"validAfter", str(auth, "validAfter"), "validBefore", expiryText, "nonce", want.String())
			td = evm.ReceiveWithAuthorization(str(extra, "name"), str(extra, "version"), chain, str(option, "asset"), rebuilt)
		}
		who, err := recovered(td, payload)
		if err != nil {
			return "", err
		}
		if !strings.EqualFold(who, from) {
			return "", fmt.Errorf("the signature recovers to %s, not the payer %s", who, from)
		}
		return who, once.take(who, want)
	}
}

// delegationVerifier checks an ERC-7710 payment as MetaMask's
// DelegationManager redeems it (RedeemedLeaf, under the manager of the
// reference deployment on the option's chain) and that the leaf's salt is
// H; redeemed once.
func delegationVerifier(option *jsonv.Object) func(*jsonv.Object, atr.Hash, time.Time) (string, error) {
	var once used
	return func(p *jsonv.Object, h atr.Hash, _ time.Time) (string, error) {
		payload, _ := p.GetObject("payload")
		manager := str(payload, "delegationManager")
		if !evm.IsReferenceManager(manager, str(option, "network")) {
			return "", errors.New("the manager is not MetaMask's DelegationManager")
		}
		leaf, err := RedeemedLeaf(option, payload, evm.DelegationManager)
		if err != nil {
			return "", err
		}
		if leaf.Salt != h {
			return "", fmt.Errorf("the leaf's salt is not the hash of the terms served, %s", h)
		}
		return leaf.Delegator, once.take(leaf.Delegator, h)
	}
}

// RedeemedLeaf checks what a delegation manager at manager checks when the
// facilitator redeems a payment's permission context for option, and
// returns the leaf: the payload names that manager; the context decodes
// and holds a delegation; its leaf is a root delegation from the payload's
// delegator to the facilitator (or to anyone), whose EIP-712 signature
// under the manager's domain (an EOA's) recovers to the delegator; and its
// one caveat's terms are the option's token and amount (what an
// ERC20TransferAmountEnforcer reads). Which salt the leaf carries is the
// caller's to judge.
func RedeemedLeaf(option, payload *jsonv.Object, manager string) (evm.Delegation, error) {
	if !strings.EqualFold(str(payload, "delegationManager"), manager) {
		return evm.Delegation{}, fmt.Errorf("the payment is redeemed through %s, not %s", str(payload, "delegationManager"), manager)
	}
	raw, ok := evm.HexBytes(str(payload, "permissionContext"))
	if !ok {
		return evm.Delegation{}, errors.New("the permission context is not hex")
	}
	ds, err := evm.DecodePermissionContext(raw)
	if err != nil || len(ds) == 0 {
		return evm.Delegation{}, errors.New("the permission context holds no delegation")
	}
	leaf := ds[0]
	root, _ := evm.HexBytes(evm.RootAuthority)
	if string(leaf.Authority[:]) != string(root) || !strings.EqualFold(leaf.Delegator, str(payload, "delegator")) {
		return evm.Delegation{}, errors.New("the leaf is not a root delegation from the delegator")
	}
	if !strings.EqualFold(leaf.Delegate, facilitator) && !strings.EqualFold(leaf.Delegate, evm.AnyDelegate) {
		return evm.Delegation{}, errors.New("the leaf delegates to someone other than the facilitator that redeems it")
	}
	if len(leaf.Caveats) != 1 || string(leaf.Caveats[0].Terms) != string(TransferTerms(str(option, "asset"), str(option, "amount"))) {
		return evm.Delegation{}, errors.New("the leaf's caveat does not hold it to the offered token and amount")
	}
	chain, _ := evm.ChainID(str(option, "network"))
	signed := leaf
	signed.Signature = nil
	digest, err := evm.TypedDataDigest(evm.DelegationTypedData(chain, manager, signed))
	if err != nil {
		return evm.Delegation{}, err
	}
	who, err := evm.Recover(digest, leaf.Signature)
	if err != nil || !strings.EqualFold(who.Hex(), leaf.Delegator) {
		return evm.Delegation{}, errors.New("the leaf's signature does not recover to its delegator")
	}
	leaf.Delegator = who.Hex()
	return leaf, nil
}

// DemoIssuer issues the demo's leaf delegations: to the facilitator, held
// by one caveat to the requested token and amount (signer.WithDelegations).
func DemoIssuer(req rails.Request) (string, []evm.Caveat, error) { return demoIssuer(req) }

// TransferTerms are an ERC20TransferAmountEnforcer's terms: the token's 20
// bytes and the amount as a 32-byte word.
func TransferTerms(token, amount string) []byte {
	t, _ := evm.HexBytes(token)
	n, _ := new(big.Int).SetString(amount, 10)
	word := make([]byte, 32)
	if n != nil {
		n.FillBytes(word)
	}
	return append(t, word...)
}
