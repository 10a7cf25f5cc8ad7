// Package nearintentsseller is a small seller paid by MPP's NEAR Intents
// charge (docs/nearintents.md): its 402 carries one mpp/charge/nearintents
// challenge whose request's externalId (and id and opaque) names H, with a
// deposit address issued for that challenge only, on Arbitrum One, and an
// agreement URL, since the deposit is no public proof. Node is the origin
// chain as the buyer's signer and the NEAR Intents backend see it, in
// process: it takes the signed deposit and keeps it. The seller serves the
// resource to a credential echoing a challenge it issued, unexpired, for
// the terms it serves, after an agreement was paid, whose named
// transaction is on the node and is the deposit asked: the token's
// transfer of the amount to that challenge's deposit address. Nothing
// leaves the machine.
package nearintentsseller

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/near"
	"github.com/termsgate/termsgate/signer"
)

// What the resource costs: 1.005 USDC on Arbitrum One, delivered as 1 USDC
// to merchant.near; a challenge lives 300 s.
const (
	Chain   = 42161
	Network = "eip155:42161"
	USDC    = "0xaf88d065e77c8cC2239327C5EDb3A432268e5831"
	Amount  = "1005000"
	Realm   = "api.seller.example"
	Expiry  = 300
)

// Node is the origin chain in process: fee quotes and broadcasts.
type Node struct {
	mu   sync.Mutex
	sent map[string][]byte
}

// EVMFees is a fixed fee quote (it mines nothing), the nonce the count of
// transactions sent.
func (n *Node) EVMFees(_ context.Context, _ common.Address, chainID int64, _ common.Address, _ []byte) (signer.EVMFees, error) {
	if chainID != Chain {
		return signer.EVMFees{}, fmt.Errorf("this node serves chain %d, not %d", Chain, chainID)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return signer.EVMFees{MaxPriorityFeePerGas: big.NewInt(10_000_000), MaxFeePerGas: big.NewInt(100_000_000), Gas: 80_000, Nonce: uint64(len(n.sent))}, nil
}

// Broadcast takes a signed transaction and answers its hash.
func (n *Node) Broadcast(_ context.Context, raw []byte) (string, jsonv.Value, error) {
	hash := "0x" + hex.EncodeToString(crypto.Keccak256(raw))
	n.mu.Lock()
	n.sent[hash] = append([]byte(nil), raw...)
	n.mu.Unlock()
	return hash, nil, nil
}

// Deposits is how many transactions the node took.
func (n *Node) Deposits() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.sent)
}

// Seller sells one resource for a NEAR Intents deposit.
type Seller struct {
	ResourcePath string
	Body         []byte
	Node         *Node
	Agreements   *x402seller.Seller
	Now          func() time.Time

	Unpaid, Paid, Rejected atomic.Int64

	mu      sync.Mutex
	deposit map[string]string // the request of each challenge issued → its deposit address
	used    map[string]bool
	lastErr error
}

// New returns a seller of body under terms atrBytes.
func New(atrBytes, body []byte) *Seller {
	a := x402seller.New(atrBytes, nil)
	a.ResourcePath = "/agree"
	a.Option.Set("amount", "1")
	s := &Seller{ResourcePath: "/v1/report", Body: body, Node: &Node{sent: map[string][]byte{}}, Agreements: a,
		Now: time.Now, deposit: map[string]string{}, used: map[string]bool{}}
	a.SetATR(atrBytes)
	h := a.Hash()
	a.Body = jsonv.Marshal(jsonv.Obj("atrHash", h.String(), "agreed", true, "network", "eip155:84532",
		"transaction", "0x"+strings.Repeat("ab", 32)))
	return s
}

// Hash is the hash of the terms served.
func (s *Seller) Hash() atr.Hash { return s.Agreements.Hash() }

// ResourceURL is the paid resource's URL.
func (s *Seller) ResourceURL() string { return "https://" + s.Agreements.APIHost + s.ResourcePath }

// LastRejection is why the last payment was refused, if one was.
func (s *Seller) LastRejection() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastErr
}

// Challenges is the placed challenge list a 402 carries, with a fresh
// deposit address.
func (s *Seller) Challenges(refundTo string) ([]jsonv.Value, error) {
	var b [20]byte
	_, _ = rand.Read(b[:])
	depositAddr := common.BytesToAddress(b[:]).Hex()
	details := jsonv.Obj("originNetwork", Network, "destinationNetwork", "near:mainnet",
		"destinationAsset", "near:mainnet/nep141:17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1",
		"destinationRecipient", "merchant.near", "amountOut", "1000000", "minAmountIn", "1000000", "depositMemo", nil,
		"slippageTolerance", 100, "timeEstimate", 120, "refundTo", refundTo, "settlementBackend", "near-intents",
		"credentialTypes", []jsonv.Value{"hash"})
	request := jsonv.Obj("amount", Amount, "currency", Network+"/erc20:"+USDC, "recipient", depositAddr,
		"description", "Cross-chain premium data access", "methodDetails", details)
	expires := s.Now().Add(Expiry * time.Second).UTC().Format("2006-01-02T15:04:05Z")
	c := jsonv.Obj("realm", Realm, "method", "nearintents", "intent", "charge", "request", mpp.EncodeObject(request), "expires", expires)
	h := s.Hash()
	doc, err := near.NearIntents{}.Advertise([]jsonv.Value{c}, h, s.Agreements.Link(h), c, s.Agreements.ResourceURL())
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	for _, v := range doc {
		o, _ := jsonv.AsObject(v)
		s.deposit[mpp.String(o, "request")] = depositAddr
	}
	s.mu.Unlock()
	return doc, nil
}

// RefundTo is the address the 402's challenges name for refunds: the
// buyer's, which a real seller learns from the buyer's quote request.
var RefundTo = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"

// ServeHTTP serves the resource on the API host; the terms' link and the
// agreement URL go to Agreements.
func (s *Seller) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != s.ResourcePath || hostOnly(r.Host) != s.Agreements.APIHost {
		s.Agreements.ServeHTTP(w, r)
		return
	}
	header := r.Header.Get("Authorization")
	if header == "" {
		s.Unpaid.Add(1)
	} else if err := s.verify(header); err != nil {
		s.Rejected.Add(1)
		s.mu.Lock()
		s.lastErr = err
		s.mu.Unlock()
	} else {
		s.Paid.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(s.Body)
		return
	}
	doc, err := s.Challenges(RefundTo)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	for _, c := range doc {
		o, _ := jsonv.AsObject(c)
		w.Header().Add("WWW-Authenticate", mpp.ChallengeHeader(o))
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(http.StatusPaymentRequired)
	_, _ = w.Write(jsonv.Marshal(jsonv.Obj("status", http.StatusPaymentRequired, "detail", "payment required")))
}

// verify: H read back from the echoed challenge's externalId is the terms
// served; the challenge is one this seller issued, unexpired; an agreement
// was paid; the named transaction is on the node, on the chain, the
// token's transfer of the amount to this challenge's deposit address, from
// the credential's source, and used once.
func (s *Seller) verify(header string) error {
	cred, err := mpp.ParseHeader(header)
	if err != nil {
		return err
	}
	h, err := near.NearIntents{}.Bound(cred)
	if err != nil {
		return err
	}
	if !atr.EqualText(h, s.Hash()) {
		return errors.New("the challenge names other terms than those served")
	}
	challenge, _ := cred.GetObject("challenge")
	s.mu.Lock()
	depositAddr, issued := s.deposit[mpp.String(challenge, "request")]
	s.mu.Unlock()
	if !issued || mpp.String(challenge, "realm") != Realm {
		return errors.New("the challenge is not one this seller issued")
	}
	if exp, _ := mpp.UnixOf(mpp.String(challenge, "expires")); exp <= s.Now().Unix() {
		return errors.New("the challenge has expired")
	}
	if s.Agreements.Paid.Load() == 0 {
		return errors.New("no agreement to these terms was paid")
	}
	payload, _ := cred.GetObject("payload")
	hash := strings.ToLower(mpp.String(payload, "hash"))
	s.Node.mu.Lock()
	raw, onChain := s.Node.sent[hash]
	s.Node.mu.Unlock()
	if !onChain {
		return errors.New("the named deposit is not on the chain")
	}
	// rails/evm's strict reader, not go-ethereum's core/types: this seller
	// is linked into the CLI, whose payment path stays light
	// (internal/depcheck).
	tx, err := evm.DecodeEIP1559(raw)
	if err != nil {
		return err
	}
	from, err := tx.Sender()
	if err != nil {
		return err
	}
	amount, _ := new(big.Int).SetString(Amount, 10)
	want := evm.TransferCalldata(depositAddr, amount)
	payer, _ := mpp.SourceAddress(mpp.String(cred, "source"))
	if tx.ChainID.Cmp(big.NewInt(Chain)) != 0 || tx.To == nil || *tx.To != common.HexToAddress(USDC) || !bytes.Equal(tx.Data, want) ||
		tx.Value.Sign() != 0 || !strings.EqualFold(from.Hex(), payer) {
		return errors.New("the named transaction is not the deposit this challenge asked for")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used[hash] {
		return errors.New("this deposit was already used")
	}
	s.used[hash] = true
	return nil
}

func hostOnly(host string) string {
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		return host[:i]
	}
	return host
}
