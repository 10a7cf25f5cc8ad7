package mpp

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
)

// MPP's usdc method (docs/mpp-evm.md, "usdc"): one request whose
// methodDetails.type names the profile (evm, solana, stacks, gateway) and
// holds exactly that profile's details under its own name. The EVM profile's
// EIP-3009 nonce and the Gateway profile's TransferSpec salt are keccak256 of
// RFC 8785 JSON over the challenge id (which names H), so both commit to H.

// The usdc pairings.
const (
	PairingUSDCEVM     = "mpp/charge/usdc/evm"
	PairingUSDCSolana  = "mpp/charge/usdc/solana"
	PairingUSDCStacks  = "mpp/charge/usdc/stacks"
	PairingUSDCGateway = "mpp/charge/usdc/gateway"
)

// The usdc refusal codes, as the reference names them.
const (
	CodeUSDCProfile    = "mpp/usdc-profile"
	CodeRequestNotJCS  = "mpp/request-not-jcs"
	CodeNotUSDCNonce   = "mpp/nonce-not-usdc-derivation"
	CodeNotUSDCSalt    = "mpp/salt-not-usdc-derivation"
	CodeGatewayUnread  = "mpp/gateway-unread"
	CodeSourceRequired = "mpp/source-required"
)

var usdcProfiles = map[string]string{
	"evm": PairingUSDCEVM, "solana": PairingUSDCSolana, "stacks": PairingUSDCStacks, "gateway": PairingUSDCGateway,
}

func init() { methodChecks["charge/usdc"] = usdcCharge }

// USDCProfile is the active profile: methodDetails.type one of the four
// names, methodDetails[type] an object, and no other profile's member
// present (mpp/usdc-profile).
func USDCProfile(d *jsonv.Object) (kind string, details *jsonv.Object, err error) {
	kind, _ = d.GetString("type")
	if _, ok := usdcProfiles[kind]; !ok {
		return "", nil, refuse(CodeUSDCProfile)
	}
	details, ok := d.GetObject(kind)
	if !ok {
		return "", nil, refuse(CodeUSDCProfile)
	}
	for other := range usdcProfiles {
		if other != kind && d.Has(other) {
			return "", nil, refuse(CodeUSDCProfile)
		}
	}
	return kind, details, nil
}

var positiveDecimal = regexp.MustCompile(`^[1-9][0-9]{0,77}$`)

// IsCAIP2 reports a CAIP-2 chain id's shape.
func IsCAIP2(s string) bool { return caip2.MatchString(s) }

// usdcCharge is the usdc charge check: the active profile; amount a positive
// integer string, recipient a string, externalId a string where present;
// then the profile's own members. EVM: a positive chainId, currency and
// recipient addresses, credentialTypes (where present) only
// "authorization". Gateway: 1–32 CAIP-2 acceptedSources, a CAIP-2
// destinationNetwork, a decimal maxFee, credentialTypes only "transfer".
// Solana: the Solana charge's request check over the profile's details,
// network required (methods_solana_charge.go). Stacks: StacksUSDCDetails.
func usdcCharge(r, d *jsonv.Object) ([]string, error) {
	kind, p, err := USDCProfile(d)
	if err != nil {
		return nil, err
	}
	if a, _ := r.GetString("amount"); !positiveDecimal.MatchString(a) {
		return nil, refuse(CodeRequestMalformed)
	}
	if _, ok := r.GetString("recipient"); !ok {
		return nil, refuse(CodeRequestMalformed)
	}
	if x, has := r.Get("externalId"); has {
		if _, ok := x.(string); !ok {
			return nil, refuse(CodeRequestMalformed)
		}
	}
	switch kind {
	case "solana":
		if err := SolanaChargeRequest(r, p, true); err != nil {
			return nil, err
		}
	case "stacks":
		if _, err := StacksUSDCNetwork(r, p); err != nil {
			return nil, err
		}
	case "evm":
		if !isPositiveInt(p, "chainId") || !isAddressAt(r, "currency") || !isAddressAt(r, "recipient") {
			return nil, refuse(CodeRequestMalformed)
		}
		if !onlyType(p, "authorization") {
			return nil, refuse(CodeCredentialTypes)
		}
	case "gateway":
		v, _ := p.Get("acceptedSources")
		sources, ok := jsonv.AsArray(v)
		if !ok || len(sources) == 0 || len(sources) > 32 {
			return nil, refuse(CodeRequestMalformed)
		}
		for _, s := range sources {
			if str, ok := s.(string); !ok || !IsCAIP2(str) {
				return nil, refuse(CodeRequestMalformed)
			}
		}
		if n, _ := p.GetString("destinationNetwork"); !IsCAIP2(n) {
			return nil, refuse(CodeRequestMalformed)
		}
		if !isDecimalAt(p, "maxFee") {
			return nil, refuse(CodeRequestMalformed)
		}
		if !onlyType(p, "transfer") {
			return nil, refuse(CodeCredentialTypes)
		}
	}
	return []string{usdcProfiles[kind]}, nil
}

// onlyType: credentialTypes absent, or a non-empty list of only want.
func onlyType(p *jsonv.Object, want string) bool {
	v, has := p.Get("credentialTypes")
	if !has {
		return true
	}
	list, ok := jsonv.AsArray(v)
	if !ok || len(list) == 0 {
		return false
	}
	for _, t := range list {
		if t != want {
			return false
		}
	}
	return true
}

// USDCRequestHash is keccak256 of the request parameter's decoded bytes,
// which must be the RFC 8785 form of their own parse (mpp/request-not-jcs):
// the hash is over the bytes as received, so a seller that re-encodes the
// request would otherwise be hashing something else.
func USDCRequestHash(request string) ([32]byte, error) {
	raw, ok := DecodeB64URL(request, MaxDecoded)
	if !ok || !utf8.Valid(raw) {
		return [32]byte{}, refuse(CodeRequestMalformed)
	}
	o, ok := decodeObjectBytes(raw)
	if !ok {
		return [32]byte{}, refuse(CodeRequestMalformed)
	}
	if string(jsonv.Canonical(o)) != string(raw) {
		return [32]byte{}, refuse(CodeRequestNotJCS)
	}
	return [32]byte(crypto.Keccak256(raw)), nil
}

// USDCNonce is the EVM profile's EIP-3009 nonce: keccak256 of the RFC 8785
// JSON of {id, intent: "charge", method: "usdc", realm, requestHash}, the
// request hash as 0x and 64 lowercase hex digits.
func USDCNonce(id, realm string, requestHash [32]byte) [32]byte {
	return keccakJCS(jsonv.Obj("id", id, "method", "usdc", "realm", realm, "intent", "charge",
		"requestHash", atr.Hash(requestHash).String()))
}

// GatewaySaltInput is what the Gateway salt is computed over, every member
// a string: the challenge's id, realm and request hash; the source and
// destination networks (CAIP-2); the depositor (the credential's source),
// the signer and the destination recipient (CAIP-10); the challenge's
// recipient as written; the amount and maximum fee (decimal).
type GatewaySaltInput struct {
	ID, Realm                                string
	RequestHash                              [32]byte
	SourceNetwork, DestinationNetwork        string
	SourceDepositor, SourceSigner, Recipient string
	DestinationRecipient, Amount, MaxFee     string
}

// USDCGatewaySalt is keccak256 of the RFC 8785 JSON of the input's members
// with method "usdc", intent "charge" and type "gateway".
func USDCGatewaySalt(in GatewaySaltInput) [32]byte {
	return keccakJCS(jsonv.Obj(
		"method", "usdc", "intent", "charge", "type", "gateway",
		"id", in.ID, "realm", in.Realm, "requestHash", atr.Hash(in.RequestHash).String(),
		"sourceNetwork", in.SourceNetwork, "destinationNetwork", in.DestinationNetwork,
		"sourceDepositor", in.SourceDepositor, "sourceSigner", in.SourceSigner, "recipient", in.Recipient,
		"destinationRecipient", in.DestinationRecipient, "amount", in.Amount, "maxFee", in.MaxFee))
}

func keccakJCS(o *jsonv.Object) [32]byte { return [32]byte(crypto.Keccak256(jsonv.Canonical(o))) }

// The Stacks profile's chains: a network name and the chain id it must
// come with (a Stacks transaction carries the chain id).
var stacksChains = map[string]string{"mainnet": "1", "testnet": "2147483648"}

// isStacksAddress is a c32check standard address's shape (S, a version's
// character of P, M, T or N, then 28 to 41 c32 digits); rails/stacks checks
// its checksum.
func isStacksAddress(s string) bool {
	if len(s) < 30 || len(s) > 43 || s[0] != 'S' || !strings.ContainsRune("PMTN", rune(s[1])) {
		return false
	}
	for i := 2; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' && c != 'I' && c != 'L' && c != 'O' && c != 'U') {
			return false
		}
	}
	return true
}

// isStacksName is a Clarity contract or asset name as the profile uses it:
// a letter, then letters, digits, '-' or '_', at most 128 in all.
func isStacksName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '-' || c == '_')) {
			return false
		}
	}
	return true
}

// StacksUSDCNetwork checks the usdc Stacks profile (docs/stacks.md) and
// returns its CAIP-2 network, stacks:<chainId>: network mainnet or testnet
// with its chain id as a decimal string, contractAddress a standard
// address, contractName and assetName Clarity names of at most 128
// characters, functionName "transfer", decimals a small integer where
// present, the request's currency <contractAddress>.<contractName>::<assetName>
// and its recipient a standard address; anything else is
// mpp/request-malformed.
func StacksUSDCNetwork(r, p *jsonv.Object) (string, error) {
	bad := refuse(CodeRequestMalformed)
	network, _ := p.GetString("network")
	chain, ok := stacksChains[network]
	if !ok || String(p, "chainId") != chain {
		return "", bad
	}
	addr, contract, asset := String(p, "contractAddress"), String(p, "contractName"), String(p, "assetName")
	if !isStacksAddress(addr) || !isStacksAddress(String(r, "recipient")) || !isStacksName(contract) || !isStacksName(asset) ||
		String(p, "functionName") != "transfer" || String(r, "currency") != addr+"."+contract+"::"+asset {
		return "", bad
	}
	if v, has := p.Get("decimals"); has {
		if n, ok := jsonv.AsSafeInt(v); !ok || n < 0 || n > 18 {
			return "", bad
		}
	}
	return "stacks:" + chain, nil
}
