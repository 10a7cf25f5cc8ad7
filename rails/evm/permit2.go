package evm

// Permit2 pieces every Permit2 pairing shares (x402 exact and upto,
// auth-capture through Permit2, MPP's Permit2 charge): the canonical
// addresses, the typed data of a signature transfer under Permit2's own
// domain, the nonce in both of its written forms, the strict reading of a
// Permit2 signing request for a summary, and the nonceBitmap read that
// tells whether a nonce was used (docs/permit2.md).

import (
	"errors"
	"math/big"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// The canonical deployments: Permit2 itself (the same address on every
// chain, https://github.com/Uniswap/permit2) and the x402 proxies that a
// Permit2 payment names as spender, which only move the tokens to the
// witness's payee (https://github.com/x402-foundation/x402, the exact and
// upto EVM schemes).
const (
	Permit2Address    = "0x000000000022D473030F116dDEE9F6B43aC78BA3"
	ExactPermit2Proxy = "0x402085c248EeA27D92E8b30b2C58ed07f9E20001"
	UptoPermit2Proxy  = "0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002"
)

// Permit2Token is one entry of a permit's permitted list: a token and the
// most the spender may move of it (a decimal string).
type Permit2Token struct {
	Token, Amount string
}

// Permit2Witness is the extra struct a witness transfer signs: its type
// name, its fields as name/type pairs in order, and its value.
type Permit2Witness struct {
	Type   string
	Fields []string // name, type, name, type, …
	Value  *jsonv.Object
}

// Permit2Permit is a Permit2 signature transfer as its typed data names it.
// One Permitted entry and Batch false is the single form; Batch is the
// batch form (a list of TokenPermissions). No Witness is PermitTransferFrom,
// a witness PermitWitnessTransferFrom or PermitBatchWitnessTransferFrom.
type Permit2Permit struct {
	ChainID   int64
	Permitted []Permit2Token
	Batch     bool
	Spender   string
	Nonce     string // decimal
	Deadline  string // decimal Unix seconds; Permit2 accepts the permit up to and at it
	Witness   *Permit2Witness
	// VerifyingContract is Permit2's address on the chain; "" is the
	// canonical Permit2Address.
	VerifyingContract string
}

// Permit2 typed-data pieces that never change.
var (
	permit2DomainType = []string{"name", "string", "chainId", "uint256", "verifyingContract", "address"}
	tokenPermissions  = []string{"token", "address", "amount", "uint256"}
)

func fieldList(pairs []string) []jsonv.Value {
	out := make([]jsonv.Value, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, field(pairs[i], pairs[i+1]))
	}
	return out
}

// errPermit2: a permit whose parts are not what Permit2 can verify.
var errPermit2 = errors.New("evm: malformed Permit2 permit")

// Permit2PrimaryType is the primary type of p's typed data.
func (p Permit2Permit) PrimaryType() string {
	switch {
	case p.Witness == nil:
		return "PermitTransferFrom"
	case p.Batch:
		return "PermitBatchWitnessTransferFrom"
	}
	return "PermitWitnessTransferFrom"
}

// Types is p's EIP-712 type list, in the order the typed data writes it:
// a copy of the one built the first time this shape was asked for.
func (p Permit2Permit) Types() *jsonv.Object { return p.types(false) }

// types is Types; with shared, the kept list itself, which its caller
// must never hand out or change.
func (p Permit2Permit) types(shared bool) *jsonv.Object {
	key := p.PrimaryType()
	if p.Batch {
		key += "[]"
	}
	if p.Witness != nil {
		key += "|" + p.Witness.Type + "|" + strings.Join(p.Witness.Fields, ",")
	}
	permit2Types.RLock()
	t, ok := permit2Types.m[key]
	permit2Types.RUnlock()
	if ok {
		if shared {
			return t
		}
		return t.Clone()
	}
	t = p.buildTypes()
	permit2Types.Lock()
	if permit2Types.m == nil {
		permit2Types.m = map[string]*jsonv.Object{}
	}
	if len(permit2Types.m) < 64 {
		permit2Types.m[key] = t
	}
	permit2Types.Unlock()
	if shared {
		return t
	}
	return t.Clone()
}

// permit2Types keeps the type lists built, by shape; a handful exist.
var permit2Types struct {
	sync.RWMutex
	m map[string]*jsonv.Object
}

func (p Permit2Permit) buildTypes() *jsonv.Object {
	permitted := "TokenPermissions"
	if p.Batch {
		permitted = "TokenPermissions[]"
	}
	primary := []string{"permitted", permitted, "spender", "address", "nonce", "uint256", "deadline", "uint256"}
	if p.Witness != nil {
		primary = append(primary, "witness", p.Witness.Type)
	}
	types := jsonv.Obj(
		"EIP712Domain", fieldList(permit2DomainType),
		"TokenPermissions", fieldList(tokenPermissions),
		p.PrimaryType(), fieldList(primary),
	)
	if p.Witness != nil {
		types.Set(p.Witness.Type, fieldList(p.Witness.Fields))
	}
	return types
}

// TypedData is p as the EIP-712 typed data a kind eip712 request carries:
// Permit2's domain (name "Permit2", no version), integers as decimal
// strings. It refuses a permit Permit2 could not verify: no entry or more
// than 32, a single form with several, a batch without a witness, an
// address or amount that is not one, a witness type name that would clash
// with Permit2's own.
func (p Permit2Permit) TypedData() (*jsonv.Object, error) { return p.typedData(false) }

// typedData is TypedData; with shared, its types member is the type list
// kept for p's shape itself, not a copy: for a build that keeps the typed
// data to itself and hands out only copies of it (its Request clones), so
// the list is not copied twice.
func (p Permit2Permit) typedData(shared bool) (*jsonv.Object, error) {
	contract := p.VerifyingContract
	if contract == "" {
		contract = Permit2Address
	}
	n := len(p.Permitted)
	if p.ChainID <= 0 || n == 0 || n > 32 || (!p.Batch && n != 1) || (p.Batch && p.Witness == nil) ||
		!IsAddress(contract) || !IsAddress(p.Spender) || !IsUint256Decimal(p.Nonce) || !IsUint256Decimal(p.Deadline) {
		return nil, errPermit2
	}
	entries := make([]jsonv.Value, n)
	for i, t := range p.Permitted {
		if !IsAddress(t.Token) || !IsUint256Decimal(t.Amount) {
			return nil, errPermit2
		}
		entries[i] = jsonv.Obj("token", t.Token, "amount", t.Amount)
	}
	var permitted jsonv.Value = entries[0]
	if p.Batch {
		permitted = entries
	}
	message := jsonv.Obj("permitted", permitted, "spender", p.Spender, "nonce", p.Nonce, "deadline", p.Deadline)
	if w := p.Witness; w != nil {
		if !witnessTypeName(w.Type) || len(w.Fields) == 0 || len(w.Fields)%2 != 0 || w.Value == nil {
			return nil, errPermit2
		}
		message.Set("witness", w.Value.Clone())
	}
	return jsonv.Obj(
		"domain", jsonv.Obj("name", "Permit2", "chainId", p.ChainID, "verifyingContract", contract),
		"types", p.types(shared),
		"primaryType", p.PrimaryType(),
		"message", message,
	), nil
}

// witnessTypeName: a struct name of its own (an upper-case letter, then up
// to 63 letters and digits), none of Permit2's.
func witnessTypeName(s string) bool {
	if len(s) < 1 || len(s) > 64 || s[0] < 'A' || s[0] > 'Z' || s == "TokenPermissions" || strings.HasPrefix(s, "Permit") {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// NonceDecimal writes a 32-byte nonce (H) as the uint256 Permit2 reads it,
// in decimal: how the x402 clients write permit2Authorization.nonce.
func NonceDecimal(h atr.Hash) string { return new(big.Int).SetBytes(h[:]).String() }

// Permit2NonceHash reads a Permit2 nonce in either written form, 1 to 78
// decimal digits below 2^256 or 0x and 64 hex digits of either case, as
// the 32 big-endian bytes it stands for.
func Permit2NonceHash(s string) (atr.Hash, bool) {
	if rails.IsHex(s, 64) {
		h, err := atr.ParseHash(s)
		return h, err == nil
	}
	if !IsUint256Decimal(s) {
		return atr.Hash{}, false
	}
	n, _ := new(big.Int).SetString(s, 10)
	var h atr.Hash
	n.FillBytes(h[:])
	return h, true
}

// CheckedAddress reports whether s is an address written in one case or
// with a valid EIP-55 checksum. A mixed-case address whose checksum fails
// was mistyped or altered: it is refused rather than paid.
func CheckedAddress(s string) bool {
	if !IsAddress(s) {
		return false
	}
	if !mixedCase(s[2:]) {
		return true
	}
	checkedAddresses.RLock()
	ok, seen := checkedAddresses.m[s]
	checkedAddresses.RUnlock()
	if seen {
		return ok
	}
	ok = common.HexToAddress(s).Hex() == s
	checkedAddresses.Lock()
	if checkedAddresses.m == nil {
		checkedAddresses.m = map[string]bool{}
	}
	if len(checkedAddresses.m) < maxCheckedAddresses {
		checkedAddresses.m[s] = ok
	}
	checkedAddresses.Unlock()
	return ok
}

// mixedCase reports whether hex digits hold both a lower- and an
// upper-case letter: only then is there an EIP-55 checksum to check. A
// loop, where comparing with strings.ToLower and ToUpper allocated two
// copies of every checksummed address of every payment.
func mixedCase(digits string) bool {
	lower, upper := false, false
	for i := 0; i < len(digits); i++ {
		switch c := digits[i]; {
		case 'a' <= c && c <= 'f':
			lower = true
		case 'A' <= c && c <= 'F':
			upper = true
		}
	}
	return lower && upper
}

// checkedAddresses keeps the checksum verdicts of the mixed-case addresses
// met before: a payment checks the same few (payer, payee, asset) at build
// and again at Finish's rebuild, and each check is a keccak. It stops
// growing at maxCheckedAddresses, after which a new address is checked each
// time.
var checkedAddresses struct {
	sync.RWMutex
	m map[string]bool
}

const maxCheckedAddresses = 1024

// permit2Request is a kind eip712 Permit2 request read back for a summary.
type permit2Request struct {
	chainID            *big.Int
	contract           string
	permitted          []Permit2Token
	spender            string
	nonce, deadline    string
	witness            *jsonv.Object
	typedData, request *jsonv.Object
}

// readPermit2Request reads req as exactly the Permit2 request want's
// shape builds (its witness type and fields; its permitted list's length
// and form) and nothing else: a member a summary does not read could be one
// a signer does. The domain must be Permit2's own name on a positive chain.
// Extra request members besides kind and typedData are allowed only when
// named in extra.
func readPermit2Request(req rails.Request, want Permit2Permit, extra ...string) (permit2Request, error) {
	bad := func() error { return rails.Refuse(CodeRequestUnreadable) } // made only when refused
	if req == nil || req.Len() != 2+len(extra) {
		return permit2Request{}, bad()
	}
	for _, k := range extra {
		if !req.Has(k) {
			return permit2Request{}, bad()
		}
	}
	if kind, _ := req.GetString("kind"); kind != "eip712" {
		return permit2Request{}, bad()
	}
	td, ok := req.GetObject("typedData")
	if !ok || td.Len() != 4 {
		return permit2Request{}, bad()
	}
	if pt, _ := td.GetString("primaryType"); pt != want.PrimaryType() {
		return permit2Request{}, bad()
	}
	types, ok := td.GetObject("types")
	if !ok || jsonv.String(types) != jsonv.String(want.Types()) {
		return permit2Request{}, bad()
	}
	domain, ok := td.GetObject("domain")
	if !ok || domain.Len() != 3 {
		return permit2Request{}, bad()
	}
	name, _ := domain.GetString("name")
	contract, _ := domain.GetString("verifyingContract")
	chain, okChain := domainChainID(domain)
	if name != "Permit2" || !okChain || !IsAddress(contract) {
		return permit2Request{}, bad()
	}
	msg, ok := td.GetObject("message")
	wantLen := 4
	if want.Witness != nil {
		wantLen = 5
	}
	if !ok || msg.Len() != wantLen {
		return permit2Request{}, bad()
	}
	r := permit2Request{chainID: chain, contract: contract, typedData: td, request: req}
	var okS, okN, okD bool
	r.spender, okS = msg.GetString("spender")
	r.nonce, okN = msg.GetString("nonce")
	r.deadline, okD = msg.GetString("deadline")
	if !okS || !okN || !okD || !IsAddress(r.spender) || !IsUint256Decimal(r.nonce) || !IsUint256Decimal(r.deadline) {
		return permit2Request{}, bad()
	}
	pv, _ := msg.Get("permitted")
	var entries []jsonv.Value
	if want.Batch {
		list, ok := jsonv.AsArray(pv)
		if !ok || len(list) != len(want.Permitted) {
			return permit2Request{}, bad()
		}
		entries = list
	} else {
		entries = []jsonv.Value{pv}
	}
	for _, e := range entries {
		o, ok := jsonv.AsObject(e)
		if !ok || o.Len() != 2 {
			return permit2Request{}, bad()
		}
		token, ok1 := o.GetString("token")
		amount, ok2 := o.GetString("amount")
		if !ok1 || !ok2 || !IsAddress(token) || !IsUint256Decimal(amount) {
			return permit2Request{}, bad()
		}
		r.permitted = append(r.permitted, Permit2Token{Token: token, Amount: amount})
	}
	if want.Witness != nil {
		w, ok := msg.GetObject("witness")
		if !ok || w.Len() != len(want.Witness.Fields)/2 {
			return permit2Request{}, bad()
		}
		for i := 0; i < len(want.Witness.Fields); i += 2 {
			v, has := w.Get(want.Witness.Fields[i])
			if !has || !witnessValueReads(want.Witness.Fields[i+1], v) {
				return permit2Request{}, bad()
			}
		}
		r.witness = w
	}
	return r, nil
}

// witnessValueReads: a witness member of a summarized request is the
// string form of its type (the only types these witnesses use).
func witnessValueReads(typ string, v jsonv.Value) bool {
	s, ok := jsonv.AsString(v)
	if !ok {
		return false
	}
	switch typ {
	case "address":
		return IsAddress(s)
	case "uint256":
		return IsUint256Decimal(s)
	case "bytes32":
		return rails.IsHex(s, 64)
	case "string":
		return true
	}
	return false
}

// grant is the part of a Grant every Permit2 request states: the network,
// the token and amount of its one permitted entry, and until when it can be
// used (Permit2 takes it at its deadline too, so the last moment is the
// deadline itself).
func (r permit2Request) grant() rails.Grant {
	network := "eip155:" + r.chainID.String()
	t := r.permitted[0]
	amount, _ := new(big.Int).SetString(t.Amount, 10)
	return rails.Grant{
		Network: network, Asset: t.Token, Decimals: rails.KnownDecimals(network, t.Token),
		Amount: amount, PayableUntil: UnixTime(r.deadline),
	}
}

// The nonce record: Permit2's nonceBitmap(owner, wordPosition) answers a
// 256-bit word whose bit (nonce & 0xff) is set once nonce (nonce >> 8 being
// wordPosition) was used by owner.
const nonceBitmapSelector = "4fe02b44" // keccak256("nonceBitmap(address,uint256)")[:4]

// Caller is a Reader that also answers eth_call: the return data of data
// sent to contract to, in the state after block.
type Caller interface {
	Call(to, data string, block uint64) (string, error)
}

// NonceBitmapCall is the calldata of nonceBitmap(owner, nonce >> 8).
func NonceBitmapCall(owner string, nonce atr.Hash) string {
	var word [32]byte
	copy(word[1:], nonce[:31]) // nonce >> 8
	return "0x" + nonceBitmapSelector + strings.Repeat("0", 24) + strings.ToLower(owner[2:]) + hex0x(word[:])[2:]
}

// Permit2NonceUsed asks Permit2 (at contract) whether owner had used nonce
// in the state after block: one eth_call. An answer that is not one 32-byte
// word is an error, as is a reader that cannot call.
func Permit2NonceUsed(r Reader, contract, owner string, nonce atr.Hash, block uint64) (bool, error) {
	c, ok := r.(Caller)
	if !ok {
		return false, errors.New("evm: the reader cannot call contracts")
	}
	if !IsAddress(owner) || !IsAddress(contract) {
		return false, rails.Refuse(CodeFieldMalformed)
	}
	answer, err := c.Call(contract, NonceBitmapCall(owner, nonce), block)
	if err != nil {
		return false, err
	}
	word, ok := HexBytes(answer)
	if !ok || len(word) != 32 {
		return false, errors.New("evm: nonceBitmap answered no word")
	}
	bit := uint(nonce[31])
	return word[31-bit/8]>>(bit%8)&1 == 1, nil
}

// WhyNonceNotUsed: the transfer matched but Permit2 holds the payment's
// nonce unused at its block, so the transfer is not this payment's.
const WhyNonceNotUsed = "nonce-not-used"

// Permit2Status is RefStatus, then Permit2's record of the ref's
// authorization nonce at the receipt's block for the from of each matched
// transfer: a ref {network, transaction, transferLog (naming from),
// authorization: {scheme "permit2", at, nonce, deadline, asset}}. A transfer
// is this payment's only where Permit2 holds the nonce used: else failed
// nonce-not-used (a transfer of the same payer to the same payee, say one
// of another upto payment, does not count). With a TxReader, the settling
// call's input must carry the nonce too (else failed nonce-not-in-input).
// A failed or refused call is pending unreadable. One receipt read, one call per distinct owner, then
// the finality marks.
func Permit2Status(ref *jsonv.Object, r Reader) Status {
	auth, okAuth := ref.GetObject("authorization")
	scheme, _ := auth.GetString("scheme")
	at, _ := auth.GetString("at")
	nonceText, _ := auth.GetString("nonce")
	nonce, errNonce := atr.ParseHash(nonceText)
	transfer, okTransfer := transferLogOf(ref)
	if !okAuth || scheme != "permit2" || !IsAddress(at) || errNonce != nil || !okTransfer || transfer == nil ||
		!strings.Contains(transfer.identity, "from") {
		return pending(WhyUnreadable)
	}
	s, receipt := RefStatus(ref, noHeads{r}) // the finality marks are read last, once the nonce is known used
	if receipt == nil {
		return s
	}
	var owners []string
	for _, l := range receipt.Logs {
		if !transfer.matches(l) {
			continue
		}
		p, _ := TransferPartsOf(l, transfer.address, transfer.topic0)
		if !containsString(owners, p.From) {
			owners = append(owners, p.From)
		}
	}
	used := false
	for _, owner := range owners {
		u, err := Permit2NonceUsed(r, at, owner, nonce, receipt.BlockNumber)
		if err != nil {
			return pending(WhyUnreadable)
		}
		used = used || u
	}
	if !used {
		return failed(WhyNonceNotUsed)
	}
	// Used, but maybe by another transaction: the call must carry it.
	if s = permit2InputStatus(s, ref, r); s.State != StateSettled {
		return s
	}
	return SettledAt(receipt.BlockNumber, r)
}

// noHeads is a Reader whose heads cannot be read, so that RefStatus reads
// only the receipt.
type noHeads struct{ Reader }

func (noHeads) Head(string) (uint64, error) { return 0, errors.New("not asked") }

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
