// Package mppevmseller is a small MPP seller on an EVM chain (Base Sepolia)
// for the pairings of docs/mpp-evm.md: it publishes its terms, answers 402
// with one WWW-Authenticate: Payment challenge for the pairing it sells
// under, and accepts a credential only after checking it as the chain would:
// the challenge is one it issued for the terms it serves, the signature
// recovers to the payer over exactly what the token, Permit2 or the escrow
// would verify, and it pays the amount to the recipient asked for. For the
// pairings whose payment is no public proof it also names an agreement URL
// (an x402 seller of a receipt) and serves the resource only once an
// agreement was paid there. It broadcasts and settles nothing; a hash
// payment is looked up in the transactions its Node was handed.
package mppevmseller

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
)

// The values every challenge names: 0.01 USDC on Base Sepolia to the
// vectors' recipient; a session's escrow; the Permit2 spender (Anvil
// account 1, the seller's submitting address).
const (
	Chain     = 84532
	Network   = "eip155:84532"
	USDC      = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
	Recipient = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
	Escrow    = "0x1234567890AbcdEF1234567890aBcdef12345678"
	Spender   = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
	Amount    = "10000"
	// The Gateway charge: 25 USDC from Arc Testnet, a fee of at most 0.5.
	GatewaySource = "eip155:5042002"
	GatewayAmount = "25000000"
	GatewayMaxFee = "500000"
)

// Seller sells one resource under one pairing.
type Seller struct {
	Pairing      string
	ResourcePath string
	Realm        string
	Body         []byte
	Now          func() time.Time
	// Agreements publishes the terms (its Record) and serves the agreement
	// URL; its APIHost is the resource's host too.
	Agreements *x402seller.Seller
	// Node is the chain the hash pairing's payer sends to.
	Node *Node

	Unpaid, Paid, Rejected atomic.Int64

	secret  [32]byte
	mu      sync.Mutex
	lastErr error
	payer   string
}

// New returns a seller of body under terms atrBytes, paid by pairing.
func New(pairing string, atrBytes, body []byte) *Seller {
	a := x402seller.New(atrBytes, nil)
	a.ResourcePath = "/agree"
	a.Option.Set("amount", "1")
	s := &Seller{Pairing: pairing, ResourcePath: "/v1/report", Realm: "api.seller.example", Body: body, Now: time.Now,
		Agreements: a, Node: NewNode()}
	s.SetATR(atrBytes)
	if _, err := rand.Read(s.secret[:]); err != nil {
		panic(fmt.Sprintf("mppevmseller: no randomness: %v", err)) // crypto/rand does not fail on supported platforms
	}
	return s
}

// SetATR changes the terms, and the receipt the agreement URL sells.
func (s *Seller) SetATR(b []byte) {
	s.Agreements.SetATR(b)
	h := s.Agreements.Hash()
	s.Agreements.Body = jsonv.Marshal(jsonv.Obj("atrHash", h.String(), "agreed", true, "network", Network,
		"transaction", "0x"+strings.Repeat("ab", 32)))
}

// Hash is the hash of the terms served.
func (s *Seller) Hash() atr.Hash { return s.Agreements.Hash() }

// ResourceURL is the paid resource's URL.
func (s *Seller) ResourceURL() string { return "https://" + s.Agreements.APIHost + s.ResourcePath }

// LastRejection is why the last credential was refused, if one was.
func (s *Seller) LastRejection() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastErr
}

// Payer is the address the last accepted credential's signature recovered to.
func (s *Seller) Payer() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.payer
}

func (s *Seller) pairing() rails.Pairing {
	switch s.Pairing {
	case evm.MPPUSDCID:
		return evm.MPPUSDC{}
	case evm.MPPPermit2ID:
		return evm.MPPPermit2{}
	case evm.MPPTransactionID:
		return evm.MPPTransaction{}
	case evm.MPPHashID:
		return evm.MPPHash{}
	case evm.MPPSessionID:
		return evm.MPPSession{}
	case evm.MPPGatewayID:
		return evm.MPPGateway{}
	}
	return nil
}

// challengeOf is the method, intent and request of the pairing's challenge.
func (s *Seller) challengeOf() (method, intent string, request *jsonv.Object) {
	base := func(details *jsonv.Object) *jsonv.Object {
		return jsonv.Obj("amount", Amount, "currency", USDC, "methodDetails", details, "recipient", Recipient)
	}
	switch s.Pairing {
	case evm.MPPUSDCID:
		return "usdc", "charge", base(jsonv.Obj("type", "evm", "evm",
			jsonv.Obj("chainId", Chain, "credentialTypes", []jsonv.Value{"authorization"}, "decimals", 6)))
	case evm.MPPGatewayID:
		return "usdc", "charge", jsonv.Obj("amount", GatewayAmount, "currency", "usdc", "methodDetails", jsonv.Obj(
			"gateway", jsonv.Obj("acceptedSources", []jsonv.Value{GatewaySource}, "destinationNetwork", Network, "maxFee", GatewayMaxFee),
			"type", "gateway"), "recipient", Recipient)
	case evm.MPPSessionID:
		r := base(jsonv.Obj("chainId", Chain, "credentialTypes", []jsonv.Value{"authorization"}, "escrowContract", Escrow))
		r.Set("amount", "100") // a price per unit
		return "evm", "session", r
	}
	types := map[string]string{evm.MPPPermit2ID: "permit2", evm.MPPTransactionID: "transaction", evm.MPPHashID: "hash"}
	return "evm", "charge", base(jsonv.Obj("chainId", Chain, "credentialTypes", []jsonv.Value{types[s.Pairing]}))
}

// binding is the seller's opaque key: an HMAC over what it issued, so that
// it recognises an echoed challenge without keeping state.
func (s *Seller) binding(c *jsonv.Object) string {
	mac := hmac.New(sha256.New, s.secret[:])
	for _, k := range []string{"realm", "method", "intent", "request", "expires"} {
		mac.Write([]byte(mpp.String(c, k)))
		mac.Write([]byte{'|'})
	}
	return mpp.EncodeB64URL(mac.Sum(nil))
}

// Challenges is the 402's challenge list, placed with H, the link and, for
// a pairing with no public proof, the agreement URL.
func (s *Seller) Challenges() ([]jsonv.Value, error) {
	method, intent, request := s.challengeOf()
	expires := s.Now().Add(5 * time.Minute).UTC().Format("2006-01-02T15:04:05Z")
	c := jsonv.Obj("realm", s.Realm, "method", method, "intent", intent, "request", mpp.EncodeObject(request), "expires", expires)
	c.Set("opaque", mpp.EncodeObject(jsonv.Obj("binding", s.binding(c))))
	agreement := ""
	if p := s.pairing(); p != nil && !p.Pattern().PublicProof {
		agreement = s.Agreements.ResourceURL()
	}
	h := s.Hash()
	return mpp.Place([]jsonv.Value{c}, h, s.Agreements.Link(h), c, agreement)
}

// ServeHTTP serves the resource on the API host; the terms' link and the
// agreement URL go to Agreements.
func (s *Seller) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != s.ResourcePath {
		s.Agreements.ServeHTTP(w, r)
		return
	}
	header := r.Header.Get(mpp.PaymentAuthorization)
	if a := r.Header.Get("Authorization"); header == "" && len(a) >= 8 && strings.EqualFold(a[:8], "payment ") {
		header = a
	}
	if header == "" {
		s.Unpaid.Add(1)
		s.paymentRequired(w, nil)
		return
	}
	if err := s.verify(header); err != nil {
		s.Rejected.Add(1)
		s.mu.Lock()
		s.lastErr = err
		s.mu.Unlock()
		s.paymentRequired(w, err)
		return
	}
	s.Paid.Add(1)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(s.Body)
}

func (s *Seller) paymentRequired(w http.ResponseWriter, reason error) {
	doc, err := s.Challenges()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	for _, c := range doc {
		o, _ := jsonv.AsObject(c)
		w.Header().Add("WWW-Authenticate", mpp.ChallengeHeader(o))
	}
	status, detail := http.StatusPaymentRequired, "payment required"
	if reason != nil {
		detail = reason.Error()
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_, _ = w.Write(jsonv.Marshal(jsonv.Obj("status", status, "detail", detail)))
}

// verify checks a credential as the seller must before it submits it.
func (s *Seller) verify(header string) error {
	cred, err := mpp.ParseHeader(header)
	if err != nil {
		return err
	}
	p := s.pairing()
	if p == nil {
		return errors.New("no such pairing")
	}
	challenge, _ := cred.GetObject("challenge")
	payload, _ := cred.GetObject("payload")
	if m, _ := mpp.DecodeStringMap(mpp.String(challenge, "opaque")); !hmac.Equal([]byte(mpp.String(m, "binding")), []byte(s.binding(challenge))) {
		return errors.New("the challenge is not one this seller issued")
	}
	if expires, _ := mpp.UnixOf(mpp.String(challenge, "expires")); expires <= s.Now().Unix() {
		return errors.New("the challenge has expired")
	}
	if h, err := mpp.HOfChallenge(challenge); err != nil || h != s.Hash() {
		return errors.New("the challenge names other terms than those served")
	}
	if p.Pattern().PublicProof {
		h, err := p.Bound(cred)
		if err != nil {
			return err
		}
		if !atr.EqualText(h, s.Hash()) {
			return errors.New("the credential carries another hash than the terms served")
		}
	} else if s.Agreements.Paid.Load() == 0 {
		return errors.New("no agreement to these terms was paid")
	}
	from, _ := mpp.SourceAddress(mpp.String(cred, "source"))
	if s.Pairing == evm.MPPGatewayID { // a Gateway source is a CAIP-10 account
		from = strings.TrimPrefix(mpp.String(cred, "source"), GatewaySource+":")
	}
	var who common.Address
	switch s.Pairing {
	case evm.MPPUSDCID:
		who, err = s.transferSigner(payload, "TransferWithAuthorization", Recipient, Amount)
	case evm.MPPSessionID:
		who, err = s.sessionSigner(payload)
	case evm.MPPPermit2ID:
		who, err = s.permit2Signer(payload)
	case evm.MPPTransactionID:
		wire, _ := mpp.HexBytes(mpp.String(payload, "signature"), 1, 1<<16)
		who, err = paysTransfer(wire)
	case evm.MPPGatewayID:
		who, err = s.gatewaySigner(cred, payload)
	case evm.MPPHashID:
		wire, ok := s.Node.Sent(mpp.String(payload, "hash"))
		if !ok {
			return errors.New("no transaction with that hash reached the chain")
		}
		who, err = paysTransfer(wire)
	}
	if err != nil {
		return err
	}
	if from != "" && !strings.EqualFold(from, who.Hex()) {
		return fmt.Errorf("the signature recovers to %s, not the payer %s", who.Hex(), from)
	}
	s.mu.Lock()
	s.payer = who.Hex()
	s.mu.Unlock()
	return nil
}

// transferSigner recovers an EIP-3009 authorization's signer over the
// token's own typed data, once it pays to the amount asked for.
func (s *Seller) transferSigner(payload *jsonv.Object, primary, to, amount string) (common.Address, error) {
	auth := payload
	if a, ok := payload.GetObject("authorization"); ok {
		auth = a
	}
	fields := jsonv.Obj()
	for _, k := range []string{"from", "to", "value", "validAfter", "validBefore", "nonce"} {
		fields.Set(k, mpp.String(auth, k))
	}
	if !strings.EqualFold(mpp.String(fields, "to"), to) || mpp.String(fields, "value") != amount {
		return common.Address{}, errors.New("the authorization pays another amount or payee")
	}
	td := evm.TransferWithAuthorization("USDC", "2", Chain, USDC, fields)
	if primary == "ReceiveWithAuthorization" {
		td = evm.ReceiveWithAuthorization("USDC", "2", Chain, USDC, fields)
	}
	return recoverTyped(td, mpp.String(payload, "signature"))
}

// sessionSigner: the opening's ReceiveWithAuthorization of the deposit to
// the escrow, and the zero voucher on the channel, both by the payer.
func (s *Seller) sessionSigner(payload *jsonv.Object) (common.Address, error) {
	auth, _ := payload.GetObject("authorization")
	who, err := s.transferSigner(payload, "ReceiveWithAuthorization", Escrow, mpp.String(auth, "value"))
	if err != nil {
		return who, err
	}
	channel, err := atr.ParseHash(mpp.String(payload, "channelId"))
	if err != nil {
		return who, err
	}
	voucher, err := recoverTyped(evm.SessionVoucherTypedData(Chain, Escrow, channel, new(big.Int)), mpp.String(payload, "voucherSignature"))
	if err != nil || voucher != who {
		return who, errors.New("the voucher is not the payer's")
	}
	return who, nil
}

// permit2Signer rebuilds the Permit2 witness transfer Permit2 would verify
// (this seller's spender) and recovers its signer, once the transfer pays
// the amount asked for to the recipient.
func (s *Seller) permit2Signer(payload *jsonv.Object) (common.Address, error) {
	permit, _ := payload.GetObject("permit")
	witness, _ := payload.GetObject("witness")
	v, _ := permit.Get("permitted")
	list, _ := jsonv.AsArray(v)
	dv, _ := payload.Get("transferDetails")
	details, _ := jsonv.AsArray(dv)
	if len(list) != 1 || len(details) != 1 {
		return common.Address{}, errors.New("the permit is not one transfer")
	}
	first, _ := jsonv.AsObject(details[0])
	entry, _ := jsonv.AsObject(list[0])
	if !strings.EqualFold(mpp.String(first, "to"), Recipient) || mpp.String(first, "requestedAmount") != Amount ||
		!strings.EqualFold(mpp.String(entry, "token"), USDC) || mpp.String(entry, "amount") != Amount {
		return common.Address{}, errors.New("the permit pays another amount, token or payee")
	}
	td, err := evm.Permit2Permit{
		ChainID: Chain, Permitted: []evm.Permit2Token{{Token: USDC, Amount: Amount}}, Spender: Spender,
		Nonce: mpp.String(permit, "nonce"), Deadline: mpp.String(permit, "deadline"),
		Witness: &evm.Permit2Witness{Type: "PaymentWitness", Fields: []string{"challengeHash", "bytes32", "externalId", "string"},
			Value: jsonv.Obj("challengeHash", mpp.String(witness, "challengeHash"), "externalId", mpp.String(witness, "externalId"))},
	}.TypedData()
	if err != nil {
		return common.Address{}, err
	}
	return recoverTyped(td, mpp.String(payload, "signature"))
}

func recoverTyped(td *jsonv.Object, signature string) (common.Address, error) {
	digest, err := evm.TypedDataDigest(td)
	if err != nil {
		return common.Address{}, err
	}
	sig, ok := evm.HexBytes(signature)
	if !ok {
		return common.Address{}, errors.New("the signature is not hex")
	}
	return evm.Recover(digest, sig)
}

// paysTransfer reads a signed EIP-1559 transaction as the chain would: its
// sender, and that it calls the token's transfer of the amount to the
// recipient on this chain.
func paysTransfer(wire []byte) (common.Address, error) {
	tx, err := evm.DecodeEIP1559(wire)
	if err != nil {
		return common.Address{}, fmt.Errorf("the transaction does not decode: %w", err)
	}
	amount, _ := new(big.Int).SetString(Amount, 10)
	if !tx.ChainID.IsInt64() || tx.ChainID.Int64() != Chain || tx.To == nil || *tx.To != common.HexToAddress(USDC) ||
		tx.Value.Sign() != 0 || string(tx.Data) != string(evm.TransferCalldata(Recipient, amount)) {
		return common.Address{}, errors.New("the transaction is not the transfer asked for")
	}
	return tx.Sender()
}

// Node is the chain a hash payer sends to: it takes the transactions handed
// to it and answers their hashes, with fixed fees. It mines nothing.
type Node struct {
	mu   sync.Mutex
	sent map[string][]byte
}

// NewNode returns an empty node.
func NewNode() *Node { return &Node{sent: map[string][]byte{}} }

// Sent is the transaction handed over under hash.
func (n *Node) Sent(hash string) ([]byte, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	w, ok := n.sent[strings.ToLower(hash)]
	return w, ok
}

// gatewaySigner recovers the burn intent's signer as Gateway would over its
// EIP-712 form, once its TransferSpec moves the amount asked for, within the
// fee cap, from the signer's own deposit to the recipient on this seller's
// chain through the deployments' contracts.
func (s *Seller) gatewaySigner(cred, payload *jsonv.Object) (common.Address, error) {
	a, _ := payload.GetObject("authorization")
	t, _ := a.GetObject("transfer")
	intent, _ := t.GetObject("burnIntent")
	spec, _ := intent.GetObject("spec")
	src, dst := evm.GatewayDeployments[GatewaySource], evm.GatewayDeployments[Network]
	word := func(addr string) string { return "0x" + strings.Repeat("0", 24) + strings.ToLower(addr[2:]) }
	for k, want := range map[string]string{
		"sourceContract": word(src.Wallet), "destinationContract": word(dst.Minter), "sourceToken": word(src.USDC),
		"destinationToken": word(dst.USDC), "destinationRecipient": word(Recipient), "value": GatewayAmount,
	} {
		if !strings.EqualFold(mpp.String(spec, k), want) {
			return common.Address{}, fmt.Errorf("the burn intent's %s is not this seller's", k)
		}
	}
	if mpp.String(spec, "sourceSigner") != mpp.String(spec, "sourceDepositor") || mpp.String(intent, "maxFee") != GatewayMaxFee {
		return common.Address{}, errors.New("the burn intent spends another depositor's balance or a larger fee")
	}
	return recoverTyped(evm.BurnIntentTypedData(intent.Clone()), mpp.String(t, "signature"))
}
