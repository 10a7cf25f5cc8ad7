package lightningseller

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/lightning"
)

// Receiver is the seller's Lightning node: it writes and signs invoices
// with its key and releases an invoice's preimage once, to a payment of
// at least its amount before it expires, as a node settling an HTLC does.
type Receiver struct {
	Key      *secp256k1.PrivateKey
	Currency string // bc for mainnet
	Now      func() time.Time

	mu       sync.Mutex
	invoices map[[32]byte]*issued
}

type issued struct {
	preimage [32]byte
	amount   *big.Int
	expires  int64
	settled  bool
}

// TestKey is x402's test-only node key, 1 (the vectors' payee): public, so
// never hold value with it.
func TestKey() *secp256k1.PrivateKey {
	var b [32]byte
	b[31] = 1
	return secp256k1.PrivKeyFromBytes(b[:])
}

// NewReceiver returns a mainnet node signing with key.
func NewReceiver(key *secp256k1.PrivateKey) *Receiver {
	return &Receiver{Key: key, Currency: "bc", Now: time.Now, invoices: map[[32]byte]*issued{}}
}

// Pubkey is the node's identity key in hex: x402's payTo.
func (r *Receiver) Pubkey() string { return hex.EncodeToString(r.Key.PubKey().SerializeCompressed()) }

// Issue writes a fresh invoice: a new random preimage, amountMsat (0 for
// an invoice without an amount), expiry seconds, the description hash dh
// and the metadata m (nil for none).
func (r *Receiver) Issue(amountMsat int64, expiry int64, dh, m []byte) (string, [32]byte, error) {
	var pre, secret [32]byte
	if _, err := rand.Read(pre[:]); err != nil {
		return "", [32]byte{}, err
	}
	if _, err := rand.Read(secret[:]); err != nil {
		return "", [32]byte{}, err
	}
	hash := sha256.Sum256(pre[:])
	now := r.Now().Unix()
	var amount *big.Int
	if amountMsat > 0 {
		amount = big.NewInt(amountMsat)
	}
	inv, err := lightning.Encode(lightning.Issue{Currency: r.Currency, AmountMsat: amount, Timestamp: now,
		Expiry: expiry, PaymentHash: hash, PaymentSecret: secret[:], DescriptionHash: dh, Metadata: m,
		Features: []int{8, 14}}, r.Key)
	if err != nil {
		return "", [32]byte{}, err
	}
	r.mu.Lock()
	r.invoices[hash] = &issued{preimage: pre, amount: big.NewInt(amountMsat), expires: now + expiry}
	r.mu.Unlock()
	return inv, hash, nil
}

// Settle is the node receiving a payment of amountMsat for the invoice
// with payment hash hash: it answers the preimage, once.
func (r *Receiver) Settle(hash [32]byte, amountMsat *big.Int) ([32]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	in, ok := r.invoices[hash]
	switch {
	case !ok:
		return [32]byte{}, errors.New("no such invoice")
	case in.settled:
		return [32]byte{}, errors.New("invoice is already paid")
	case r.Now().Unix() >= in.expires:
		return [32]byte{}, errors.New("invoice expired")
	case in.amount.Sign() > 0 && amountMsat.Cmp(in.amount) < 0:
		return [32]byte{}, errors.New("incorrect payment amount")
	}
	in.settled = true
	return in.preimage, nil
}

// Settled reports whether the invoice with payment hash hash was paid.
func (r *Receiver) Settled(hash [32]byte) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	in, ok := r.invoices[hash]
	return ok && in.settled
}

// Payer is the buyer's LND node as its REST API answers
// (GET /v1/getinfo, POST /v1/channels/transactions): it pays an invoice by
// routing it to the Receiver whose key signed it, one hop, and answers the
// preimage that node released. It checks the macaroon when one is set.
type Payer struct {
	Key       *secp256k1.PrivateKey
	Macaroon  []byte
	Receivers []*Receiver

	Payments atomic.Int64 // payments that settled
}

// PayerKey is the demo payer node's key, 2: public, never hold value with it.
func PayerKey() *secp256k1.PrivateKey {
	var b [32]byte
	b[31] = 2
	return secp256k1.PrivKeyFromBytes(b[:])
}

func (p *Payer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p.Macaroon != nil && r.Header.Get("Grpc-Metadata-macaroon") != hex.EncodeToString(p.Macaroon) {
		answer(w, http.StatusUnauthorized, jsonv.Obj("code", 2, "message", "verification failed: signature mismatch after caveat verification"))
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/getinfo":
		answer(w, http.StatusOK, jsonv.Obj("identity_pubkey", hex.EncodeToString(p.Key.PubKey().SerializeCompressed()),
			"chains", []jsonv.Value{jsonv.Obj("chain", "bitcoin", "network", "mainnet")}, "synced_to_chain", true))
	case r.Method == http.MethodPost && r.URL.Path == "/v1/channels/transactions":
		b, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		v, perr := jsonv.Parse(b)
		o, _ := jsonv.AsObject(v)
		inv, _ := o.GetString("payment_request")
		if err != nil || perr != nil || inv == "" {
			answer(w, http.StatusBadRequest, jsonv.Obj("code", 3, "message", "invalid payment request"))
			return
		}
		pre, hash, err := p.pay(inv)
		if err != nil { // LND answers 200 with payment_error for a payment that failed
			answer(w, http.StatusOK, jsonv.Obj("payment_error", err.Error(), "payment_preimage", "", "payment_hash", ""))
			return
		}
		p.Payments.Add(1)
		answer(w, http.StatusOK, jsonv.Obj("payment_error", "", "payment_preimage", base64.StdEncoding.EncodeToString(pre[:]),
			"payment_hash", base64.StdEncoding.EncodeToString(hash[:]), "payment_route", jsonv.Obj("total_amt_msat", "0")))
	default:
		answer(w, http.StatusNotFound, jsonv.Obj("code", 5, "message", "Not Found"))
	}
}

func (p *Payer) pay(inv string) ([32]byte, [32]byte, error) {
	in, err := lightning.Decode(inv)
	if err != nil {
		return [32]byte{}, [32]byte{}, fmt.Errorf("invalid payment request: %v", err)
	}
	if in.AmountMsat == nil {
		return [32]byte{}, [32]byte{}, errors.New("amount must be specified when paying a zero amount invoice")
	}
	for _, rc := range p.Receivers {
		if rc.Pubkey() == in.PayeeHex() {
			pre, err := rc.Settle(in.PaymentHash, in.AmountMsat)
			return pre, in.PaymentHash, err
		}
	}
	return [32]byte{}, [32]byte{}, errors.New("unable to find a path to destination")
}

func answer(w http.ResponseWriter, status int, v jsonv.Value) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(jsonv.Marshal(v))
}
