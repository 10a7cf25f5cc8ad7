package pay

import (
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/tempo"
)

// Summary is what a signature grants, read from the signing request itself
// (never from the seller's description of it): who may move how much of
// which asset, to whom, on which network, until when, under which terms.
// It is what an approver is shown and what Policy judges.
type Summary struct {
	Pairing string
	H       atr.Hash // the terms the payment binds (SHA-256 of the ATR bytes)

	Network   string   // CAIP-2, e.g. "eip155:84532"
	Asset     string   // the token contract, as the request writes it
	AssetName string   // the token's EIP-712 domain name, e.g. "USDC" (the token's own claim)
	Amount    *big.Int // atomic units of Asset
	Payer     string
	Payee     string

	PayableFrom  time.Time // validAfter
	PayableUntil time.Time // validBefore: after it the signature is worthless
}

// String is one line for a person: amount, asset, payee, network, deadline,
// terms.
func (s Summary) String() string {
	amount := "?"
	if s.Amount != nil {
		amount = s.Amount.String()
	}
	name := s.AssetName
	if name == "" {
		name = "token"
	}
	return fmt.Sprintf("%s atomic units of %s %s on %s from %s to %s, payable until %s, terms %s (%s)",
		amount, name, s.Asset, s.Network, s.Payer, s.Payee,
		s.PayableUntil.UTC().Format(time.RFC3339), s.H, s.Pairing)
}

// Detail codes of a refusal by Policy or by the transport's own summary
// check. Each is the Detail of a *gate.Decline whose Code is
// gate.NoPayableOption.
const (
	DetailAmountAboveMaximum = "policy/amount-above-maximum" // amount > the asset's MaxAmount
	DetailNetworkNotAllowed  = "policy/network-not-allowed"  // no limit names the network, or it is not in Networks
	DetailAssetNotAllowed    = "policy/asset-not-allowed"    // the network is allowed, this asset on it is not
	DetailPayeeNotAllowed    = "policy/payee-not-allowed"    // Payees is set and does not hold the payee
	DetailPayableTooLong     = "policy/payable-too-long"     // validBefore − now > MaxPayable
	DetailBudgetExhausted    = "policy/budget-exhausted"     // the asset's cumulative Budget would be exceeded
	DetailRequestUnreadable  = "policy/request-unreadable"   // the signing request is not one Summarize reads
	DetailBudgetUnavailable  = "policy/budget-unavailable"   // the Budget failed to reserve: nothing is signed on doubt
)

// DetailCode is a refusal detail's code: a Policy refusal's detail is the
// code, ": ", then what was asked ("policy/amount-above-maximum: 2000000
// of eip155:84532 0x036c… (at most 10000)"); other details are returned as
// they are.
func DetailCode(detail string) string {
	if strings.HasPrefix(detail, "policy/") {
		code, _, _ := strings.Cut(detail, ": ")
		return code
	}
	return detail
}

func refuse(detail string) *gate.Decline {
	return &gate.Decline{Code: gate.NoPayableOption, Detail: detail}
}

// maxUnix is the largest validBefore turned into a time.Time; later is "never
// expires" for every purpose here, and time.Unix would overflow.
const maxUnix = 1 << 40

// Summarize reads what the signature would grant from the signing request.
// It reads two request shapes:
//
//   - kind eip712 whose typed data is an EIP-3009 TransferWithAuthorization
//     under the four-field domain {name, version, chainId,
//     verifyingContract}, types exactly as EIP-3009 writes them: what
//     x402/exact/eip155/eip3009 and mpp/charge/evm/authorization ask for;
//   - kind tempo-call whose one call is a TIP-20 transferWithMemo (the call's
//     to is the token; the recipient and amount are read from its
//     calldata): what mpp/charge/tempo/memo and mpp/charge/tempo/push ask
//     for (summary_tempo.go).
//
// Any other request is a *gate.Decline (no-payable-option,
// policy/request-unreadable): a signature whose effect cannot be stated is
// not signed.
func Summarize(p gate.PaymentSummary) (Summary, error) {
	if p.Request == nil {
		return Summary{}, refuse(DetailRequestUnreadable)
	}
	switch kind, _ := p.Request.GetString("kind"); kind {
	case "eip712":
		return summarizeEIP3009(p)
	case tempo.KindTempoCall:
		return summarizeTempoMemo(p)
	}
	return Summary{}, refuse(DetailRequestUnreadable)
}

// summarizeEIP3009 reads an eip712 request of an EIP-3009 authorization.
func summarizeEIP3009(p gate.PaymentSummary) (Summary, error) {
	bad := refuse(DetailRequestUnreadable)
	td, ok := p.Request.GetObject("typedData")
	if !ok {
		return Summary{}, bad
	}
	if pt, _ := td.GetString("primaryType"); pt != "TransferWithAuthorization" {
		return Summary{}, bad
	}
	types, ok := td.GetObject("types")
	if !ok || !sameFields(types, "EIP712Domain", domainFields) || !sameFields(types, "TransferWithAuthorization", transferFields) {
		return Summary{}, bad
	}
	domain, ok := td.GetObject("domain")
	if !ok || domain.Len() != len(domainFields)/2 {
		return Summary{}, bad
	}
	name, okName := domain.GetString("name")
	_, okVersion := domain.GetString("version")
	contract, okContract := domain.GetString("verifyingContract")
	chain, okChain := chainID(domain)
	if !okName || !okVersion || !okContract || !okChain || !evm.IsAddress(contract) {
		return Summary{}, bad
	}
	msg, ok := td.GetObject("message")
	if !ok || msg.Len() != len(transferFields)/2 {
		return Summary{}, bad
	}
	var f [6]string
	for i, k := range []string{"from", "to", "value", "validAfter", "validBefore", "nonce"} {
		if f[i], ok = msg.GetString(k); !ok {
			return Summary{}, bad
		}
	}
	from, to, value, after, before := f[0], f[1], f[2], f[3], f[4]
	if !evm.IsAddress(from) || !evm.IsAddress(to) || !evm.IsUint256Decimal(value) ||
		!evm.IsUint256Decimal(after) || !evm.IsUint256Decimal(before) {
		return Summary{}, bad
	}
	amount, _ := new(big.Int).SetString(value, 10)
	return Summary{
		Pairing: p.Pairing, H: p.H,
		Network: "eip155:" + chain.String(), Asset: contract, AssetName: name, Amount: amount,
		Payer: from, Payee: to,
		PayableFrom: unixTime(after), PayableUntil: unixTime(before),
	}, nil
}

// The EIP-712 types Summarize accepts, as name/type pairs in order. A
// different list would give the same member names another meaning (or leave
// the chain or the contract out of what is signed), so nothing else is read.
var (
	domainFields   = []string{"name", "string", "version", "string", "chainId", "uint256", "verifyingContract", "address"}
	transferFields = []string{"from", "address", "to", "address", "value", "uint256",
		"validAfter", "uint256", "validBefore", "uint256", "nonce", "bytes32"}
)

func sameFields(types *jsonv.Object, name string, want []string) bool {
	v, _ := types.Get(name)
	list, ok := jsonv.AsArray(v)
	if !ok || len(list) != len(want)/2 {
		return false
	}
	for i, e := range list {
		o, ok := jsonv.AsObject(e)
		if !ok || o.Len() != 2 {
			return false
		}
		n, _ := o.GetString("name")
		t, _ := o.GetString("type")
		if n != want[2*i] || t != want[2*i+1] {
			return false
		}
	}
	return true
}

// chainID reads domain.chainId as go-ethereum's apitypes (and so a signer)
// does: a JSON number or a decimal string; it must be a positive integer.
func chainID(domain *jsonv.Object) (*big.Int, bool) {
	v, _ := domain.Get("chainId")
	if n, ok := jsonv.AsSafeInt(v); ok && n > 0 {
		return big.NewInt(n), true
	}
	if s, ok := jsonv.AsString(v); ok && evm.IsUint256Decimal(s) && !strings.HasPrefix(s, "0") {
		n, _ := new(big.Int).SetString(s, 10)
		return n, true
	}
	return nil, false
}

func unixTime(decimal string) time.Time {
	n, _ := new(big.Int).SetString(decimal, 10)
	if !n.IsInt64() || n.Int64() > maxUnix {
		return time.Unix(maxUnix, 0)
	}
	return time.Unix(n.Int64(), 0)
}
