package evm

import (
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// MPPGateway is mpp/charge/usdc/gateway (docs/mpp-evm.md, "gateway"): MPP's
// usdc method, Gateway profile, answered with a Circle Gateway burn intent
// the payer signs on a source chain, to be minted to the recipient on the
// destination chain.
//
// Where H goes: the challenge id is base64url(H) and its position, and the
// burn intent's TransferSpec salt is keccak256 of the RFC 8785 JSON over the
// id, realm, request hash and the transfer's own values (usdc's Gateway
// salt), so the signed salt commits to H. No chain is read: settlement is
// the seller's report of Gateway's mint.
type MPPGateway struct{}

// MPPGatewayID is the pairing id.
const MPPGatewayID = mpp.PairingUSDCGateway

// CodeGatewayUnknown refuses a network with no Gateway deployment termsgate
// knows (GatewayDeployments).
const CodeGatewayUnknown = "mpp/gateway-network-unknown"

// GatewayFormat is the credential's authorization format.
const GatewayFormat = "circle-gateway-v1"

// GatewayDeployment is Circle Gateway on one chain: its domain, its wallet
// (where deposits sit and burn intents are spent) and minter contracts, and
// USDC there.
type GatewayDeployment struct {
	Domain         uint32
	Wallet, Minter string
	USDC           string
}

// GatewayDeployments are the Gateway testnet deployments the shared vectors
// use, as Circle's testnet API lists them (gateway-api-testnet.circle.com
// /v1/info): Arc Testnet and Base Sepolia.
var GatewayDeployments = map[string]GatewayDeployment{
	"eip155:5042002": {Domain: 26, Wallet: "0x0077777d7EBA4688BDeF3E311b846F25870A19B9", Minter: "0x0022222ABE238Cc2C7Bb1f21003F0a260052475B",
		USDC: "0x3600000000000000000000000000000000000000"},
	"eip155:84532": {Domain: 6, Wallet: "0x0077777d7EBA4688BDeF3E311b846F25870A19B9", Minter: "0x0022222ABE238Cc2C7Bb1f21003F0a260052475B",
		USDC: "0x036CbD53842c5426634e7929541eC2318f3dCF7e"},
}

func gatewayByDomain(domain uint32) (string, GatewayDeployment, bool) {
	for n, d := range GatewayDeployments {
		if d.Domain == domain {
			return n, d, true
		}
	}
	return "", GatewayDeployment{}, false
}

func (MPPGateway) ID() string { return MPPGatewayID }

func (MPPGateway) Pattern() rails.Pattern { return rails.Pattern{Name: "id-reuse", PublicProof: true} }

func (MPPGateway) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

// Choose picks the first challenge offering the pairing whose accepted
// sources hold the account's network, on Gateway deployments termsgate
// knows at both ends. It takes the optional maxBlockHeight (the source
// chain's block after which the intent is void), which the build needs.
func (MPPGateway) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	acct, ok := rails.ParseAccount(account)
	if !ok || acct.Namespace != "eip155" || !mpp.IsAddress(acct.Address) {
		return nil, rails.Refuse(mpp.CodeNoPayableOption)
	}
	given, err := mpp.Inputs(inputs, mpp.Input{Name: "maxBlockHeight", Kind: "decimal", Optional: true})
	if err != nil {
		return nil, err
	}
	for _, v := range read.Options {
		if !mpp.OffersPlaced(v, MPPGatewayID) {
			continue
		}
		c, _ := jsonv.AsObject(v)
		checked, err := mpp.CheckChallenge(c, true)
		if err != nil {
			continue
		}
		_, p, _ := mpp.USDCProfile(checked.Details)
		dst, _ := p.GetString("destinationNetwork")
		if _, known := GatewayDeployments[dst]; !known || !acceptsSource(p, acct.Network()) {
			continue
		}
		if _, known := GatewayDeployments[acct.Network()]; !known {
			continue
		}
		choice := mpp.Choice(c.Clone(), acct.Address, now, given)
		choice.Set("sourceNetwork", acct.Network())
		return choice, nil
	}
	return nil, rails.Refuse(mpp.CodeNoPayableOption)
}

func acceptsSource(p *jsonv.Object, network string) bool {
	v, _ := p.Get("acceptedSources")
	list, _ := jsonv.AsArray(v)
	for _, s := range list {
		if s == network {
			return true
		}
	}
	return false
}

type mppGatewayUnsigned struct {
	challenge *jsonv.Object
	source    string
	payload   *jsonv.Object // without the authorization's signature
	intent    *jsonv.Object
	typedData *jsonv.Object
}

// bytes32 is an address as a TransferSpec account: 12 zero bytes, then the
// address, lowercase.
func bytes32(address string) string {
	return "0x" + strings.Repeat("0", 24) + strings.ToLower(strings.TrimPrefix(address, "0x"))
}

// Build makes the burn intent: value the request's amount from the payer
// (depositor and signer) on the source chain to the recipient on the
// destination chain, maxFee the request's cap, and the salt usdc's Gateway
// salt over the challenge and these values.
func (MPPGateway) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	o, err := mpp.OfferFor(choice, h, MPPGatewayID)
	if err != nil {
		return nil, err
	}
	_, p, _ := mpp.USDCProfile(o.Details)
	srcNet, dstNet := mpp.String(o.Choice, "sourceNetwork"), mpp.String(p, "destinationNetwork")
	src, okSrc := GatewayDeployments[srcNet]
	dst, okDst := GatewayDeployments[dstNet]
	if !okSrc || !okDst || !acceptsSource(p, srcNet) {
		return nil, rails.Refuse(CodeGatewayUnknown)
	}
	maxBlock := mpp.String(o.Choice, "maxBlockHeight")
	if !IsUint256Decimal(maxBlock) {
		return nil, rails.Refuse(mpp.CodeInputMissing) // the source chain's height bounds the intent; the buyer gives it
	}
	recipient := mpp.String(o.Request, "recipient")
	if !CheckedAddress(recipient) {
		return nil, rails.Refuse(mpp.CodeRequestMalformed)
	}
	rh, err := mpp.USDCRequestHash(mpp.String(o.Challenge, "request"))
	if err != nil {
		return nil, err
	}
	from := strings.ToLower(o.From)
	source := srcNet + ":" + from
	amount, maxFee := mpp.String(o.Request, "amount"), mpp.String(p, "maxFee")
	salt := mpp.USDCGatewaySalt(mpp.GatewaySaltInput{
		ID: mpp.String(o.Challenge, "id"), Realm: mpp.String(o.Challenge, "realm"), RequestHash: rh,
		SourceNetwork: srcNet, DestinationNetwork: dstNet, SourceDepositor: source, SourceSigner: source,
		Recipient: recipient, DestinationRecipient: dstNet + ":" + strings.ToLower(recipient), Amount: amount, MaxFee: maxFee,
	})
	spec := jsonv.Obj("version", 1, "sourceDomain", int64(src.Domain), "destinationDomain", int64(dst.Domain),
		"sourceContract", bytes32(src.Wallet), "destinationContract", bytes32(dst.Minter),
		"sourceToken", bytes32(src.USDC), "destinationToken", bytes32(dst.USDC),
		"sourceDepositor", bytes32(from), "destinationRecipient", bytes32(recipient), "sourceSigner", bytes32(from),
		"destinationCaller", "0x"+strings.Repeat("0", 64), "value", amount, "salt", atr.Hash(salt).String(), "hookData", "0x")
	intent := jsonv.Obj("maxBlockHeight", maxBlock, "maxFee", maxFee, "spec", spec)
	return &mppGatewayUnsigned{
		challenge: o.Challenge, source: source, intent: intent,
		payload:   jsonv.Obj("type", "transfer", "sourceNetwork", srcNet, "destinationNetwork", dstNet, "maxFee", maxFee),
		typedData: BurnIntentTypedData(intent.Clone()),
	}, nil
}

// The EIP-712 types of a Gateway burn intent, under the domain
// {name "GatewayWallet", version "1"} (no chain: Gateway spends the intent
// on the chain its sourceDomain names).
var burnIntentTypes = jsonv.Obj(
	"EIP712Domain", []jsonv.Value{field("name", "string"), field("version", "string")},
	"TransferSpec", fieldList([]string{"version", "uint32", "sourceDomain", "uint32", "destinationDomain", "uint32",
		"sourceContract", "bytes32", "destinationContract", "bytes32", "sourceToken", "bytes32", "destinationToken", "bytes32",
		"sourceDepositor", "bytes32", "destinationRecipient", "bytes32", "sourceSigner", "bytes32", "destinationCaller", "bytes32",
		"value", "uint256", "salt", "bytes32", "hookData", "bytes"}),
	"BurnIntent", fieldList([]string{"maxBlockHeight", "uint256", "maxFee", "uint256", "spec", "TransferSpec"}),
)

// BurnIntentTypedData is a burn intent as the EIP-712 typed data Gateway
// verifies (sellers rebuild it to check a credential).
func BurnIntentTypedData(intent *jsonv.Object) *jsonv.Object {
	return jsonv.Obj("domain", jsonv.Obj("name", "GatewayWallet", "version", "1"), "types", burnIntentTypes.Clone(),
		"primaryType", "BurnIntent", "message", intent)
}

func (MPPGateway) Request(u rails.Unsigned) (rails.Request, error) {
	return jsonv.Obj("kind", "eip712", "typedData", u.(*mppGatewayUnsigned).typedData.Clone()), nil
}

// Complete takes the signature (65–8192 bytes of hex) and wraps the signed
// burn intent in the credential.
func (MPPGateway) Complete(un rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	u := un.(*mppGatewayUnsigned)
	sig, _ := answer.(string)
	if _, ok := mpp.HexBytes(sig, MinSignatureBytes, MaxSignatureBytes); !ok {
		return rails.Completion{}, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	payload := u.payload.Clone()
	payload.Set("authorization", jsonv.Obj("format", GatewayFormat,
		"transfer", jsonv.Obj("burnIntent", u.intent.Clone(), "signature", sig)))
	return rails.Completion{Signed: jsonv.Obj("challenge", u.challenge.Clone(), "source", u.source, "payload", payload)}, nil
}

// gatewayAccount is the CAIP-10 account of a TransferSpec word on an
// eip155 network: its last 20 bytes, lowercase, the first 12 zero.
func gatewayAccount(network, word string) (string, bool) {
	if !strings.HasPrefix(network, "eip155:") || !rails.IsHex(word, 64) || strings.Trim(word[2:26], "0") != "" {
		return "", false
	}
	return network + ":0x" + strings.ToLower(word[26:]), true
}

// gatewayDecimal is a Gateway uint256 written as a decimal string or a safe
// integer, as a decimal string without leading zeros.
func gatewayDecimal(v jsonv.Value) (string, bool) {
	if s, ok := v.(string); ok {
		n, ok := mpp.Uint256(s)
		if !ok {
			return "", false
		}
		return n.String(), true
	}
	n, ok := jsonv.AsSafeInt(v)
	if !ok || n < 0 {
		return "", false
	}
	return big.NewInt(n).String(), true
}

// gatewayRead is a credential's signed burn intent, read back.
type gatewayRead struct {
	e                                *mpp.Bound
	intent, spec                     *jsonv.Object
	srcNet, dstNet, source           string
	amount, maxFee, signer, receiver string
}

// read is Bound's reading, in the reference's order: the shared steps; type
// transfer (mpp/credential-type); source, sourceNetwork and
// destinationNetwork strings (mpp/credential-malformed); the layout
// circle-gateway-v1 with one SignedBurnIntent (mpp/gateway-unread); the
// salt recomputed over the echoed challenge and the intent's own values
// (mpp/salt-not-usdc-derivation). No signature is verified here: Gateway
// does that.
func (MPPGateway) read(presented jsonv.Value) (*gatewayRead, error) {
	e, err := mpp.Echoed(presented, MPPGatewayID)
	if err != nil {
		return nil, err
	}
	if mpp.String(e.Payload, "type") != "transfer" {
		return nil, rails.Refuse(mpp.CodeCredentialType)
	}
	r := &gatewayRead{e: e}
	var ok1, ok2, ok3 bool
	r.source, ok1 = e.Credential.GetString("source")
	r.srcNet, ok2 = e.Payload.GetString("sourceNetwork")
	r.dstNet, ok3 = e.Payload.GetString("destinationNetwork")
	if !ok1 || !ok2 || !ok3 {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	unread := rails.Refuse(mpp.CodeGatewayUnread)
	a, ok := e.Payload.GetObject("authorization")
	if f, has := a.Get("format"); !ok || has && f != GatewayFormat {
		return nil, unread
	}
	t, ok := a.GetObject("transfer")
	if _, isString := t.GetString("signature"); !ok || t.Has("burnIntentSet") || !isString {
		return nil, unread
	}
	if r.intent, ok = t.GetObject("burnIntent"); !ok {
		return nil, unread
	}
	if r.spec, ok = r.intent.GetObject("spec"); !ok {
		return nil, unread
	}
	salt := mpp.String(r.spec, "salt")
	var okA, okF, okS, okR bool
	sv, _ := r.spec.Get("value")
	r.amount, okA = gatewayDecimal(sv)
	fv, _ := r.intent.Get("maxFee")
	r.maxFee, okF = gatewayDecimal(fv)
	r.signer, okS = gatewayAccount(r.srcNet, mpp.String(r.spec, "sourceSigner"))
	r.receiver, okR = gatewayAccount(r.dstNet, mpp.String(r.spec, "destinationRecipient"))
	if !rails.IsHex(salt, 64) || !okA || !okF || !okS || !okR {
		return nil, unread
	}
	rh, err := mpp.USDCRequestHash(mpp.String(e.Challenge, "request"))
	if err != nil {
		return nil, err
	}
	want := mpp.USDCGatewaySalt(mpp.GatewaySaltInput{
		ID: mpp.String(e.Challenge, "id"), Realm: mpp.String(e.Challenge, "realm"), RequestHash: rh,
		SourceNetwork: r.srcNet, DestinationNetwork: r.dstNet, SourceDepositor: r.source, SourceSigner: r.signer,
		Recipient: mpp.String(e.Checked.Request, "recipient"), DestinationRecipient: r.receiver, Amount: r.amount, MaxFee: r.maxFee,
	})
	if !strings.EqualFold(salt, atr.Hash(want).String()) {
		return nil, rails.Refuse(mpp.CodeNotUSDCSalt)
	}
	return r, nil
}

// Bound reads H back: the echoed id, once the burn intent's salt is usdc's
// Gateway salt over the echoed challenge.
func (p MPPGateway) Bound(presented jsonv.Value) (string, error) {
	r, err := p.read(presented)
	if err != nil {
		return "", err
	}
	return r.e.H.String(), nil
}

// Summarize states what signing a burn intent Build made grants: Gateway
// may burn, from the depositor's balance on the source domain's chain, the
// value plus at most maxFee of that chain's USDC, minted to the destination
// recipient. A domain termsgate knows no deployment of, or any other shape,
// is CodeRequestUnreadable.
func (MPPGateway) Summarize(req rails.Request) (rails.Grant, error) {
	bad := rails.Refuse(CodeRequestUnreadable)
	td, _ := req.GetObject("typedData")
	types, _ := td.GetObject("types")
	domain, _ := td.GetObject("domain")
	if kind, _ := req.GetString("kind"); kind != "eip712" || req.Len() != 2 || td.Len() != 4 || types == nil ||
		string(jsonv.Canonical(types)) != string(jsonv.Canonical(burnIntentTypes)) || domain == nil || domain.Len() != 2 ||
		mpp.String(domain, "name") != "GatewayWallet" || mpp.String(domain, "version") != "1" || mpp.String(td, "primaryType") != "BurnIntent" {
		return rails.Grant{}, bad
	}
	intent, _ := td.GetObject("message")
	spec, _ := intent.GetObject("spec")
	dv, _ := spec.Get("sourceDomain")
	d, okD := jsonv.AsSafeInt(dv)
	value, okV := mpp.Uint256(mpp.String(spec, "value"))
	fee, okF := mpp.Uint256(mpp.String(intent, "maxFee"))
	if !okD || d < 0 || d > 1<<32-1 || !okV || !okF {
		return rails.Grant{}, bad
	}
	network, dep, known := gatewayByDomain(uint32(d))
	payer, okP := gatewayAccount(network, mpp.String(spec, "sourceDepositor"))
	payee, okR := gatewayAccount(network, mpp.String(spec, "destinationRecipient")) // the network only spells the account
	if !known || !okP || !okR || !strings.EqualFold(mpp.String(spec, "sourceToken"), bytes32(dep.USDC)) {
		return rails.Grant{}, bad
	}
	return rails.Grant{
		Network: network, Asset: dep.USDC, Decimals: rails.KnownDecimals(network, dep.USDC),
		Amount: new(big.Int).Add(value, fee), Payer: common.HexToAddress(payer[len(network)+1:]).Hex(),
		Payee: common.HexToAddress(payee[len(network)+1:]).Hex(),
	}, nil
}

// Inspect states what a signed Gateway credential grants: the burn
// intent's value (and at most its maxFee) from the depositor on the source
// network to the destination recipient.
func (p MPPGateway) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	r, err := p.read(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	amount, _ := new(big.Int).SetString(r.amount, 10)
	payer, _ := gatewayAccount(r.srcNet, mpp.String(r.spec, "sourceDepositor"))
	asset := ""
	if dep, ok := GatewayDeployments[r.srcNet]; ok {
		asset = dep.USDC
	}
	return rails.Inspection{
		Pairing: MPPGatewayID, Kind: "credential", H: r.e.H.String(),
		Grant: rails.Grant{Network: r.srcNet, Asset: asset, Decimals: rails.KnownDecimals(r.srcNet, asset), Amount: amount,
			Payer: common.HexToAddress(strings.TrimPrefix(payer, r.srcNet+":")).Hex(), Payee: common.HexToAddress(strings.TrimPrefix(r.receiver, r.dstNet+":")).Hex()},
		WhereH: "challenge.id (base64url of H, a dot, the position) and challenge.opaque.legalContext; the burn intent's spec.salt is keccak256 of the JCS over the id, realm, request hash and the transfer's values",
		Details: jsonv.Obj("salt", mpp.String(r.spec, "salt"), "destinationNetwork", r.dstNet, "maxFee", r.maxFee,
			"maxBlockHeight", jsonv.Clone(member(r.intent, "maxBlockHeight"))),
	}, nil
}

func member(o *jsonv.Object, k string) jsonv.Value {
	v, _ := o.Get(k)
	return v
}
