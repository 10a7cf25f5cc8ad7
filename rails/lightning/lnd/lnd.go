// Package lnd pays the Lightning pairings' bolt11-pay requests through an
// LND node's REST API (https://lightning.engineering/api-docs/api/lnd/):
// the payer's wallet is its node, which pays the invoice and answers the
// preimage. It is the Lightning signer: no key of the payer's is held here,
// and the node's macaroon authorises each call.
package lnd

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/lightning"
)

// MaxAnswer bounds what the node may answer: a payment's route is the
// longest part, a few kilobytes.
const MaxAnswer = 1 << 20

// Node is an LND node reached over its REST API.
type Node struct {
	URL      string // e.g. https://127.0.0.1:8080
	Macaroon []byte // sent as Grpc-Metadata-macaroon (hex); nil sends none
	Client   *http.Client
	Network  string // lnbtc:…, the network the node pays on
	Pubkey   string // the node's identity key, 66 hex digits
}

// networks maps LND's chain network names to x402's lnbtc networks.
var networks = map[string]string{
	"mainnet": lightning.Mainnet, "testnet": lightning.Testnet, "signet": lightning.Signet, "regtest": lightning.Regtest,
}

var currency = map[string]string{
	lightning.Mainnet: "bc", lightning.Testnet: "tb", lightning.Signet: "tbs", lightning.Regtest: "bcrt",
}

// Dial asks the node who it is (GET /v1/getinfo): its identity key and the
// Bitcoin network it runs on, which give the CAIP-10 account the gate
// chooses options by.
func Dial(ctx context.Context, url string, macaroon []byte, client *http.Client) (*Node, error) {
	n := &Node{URL: strings.TrimRight(url, "/"), Macaroon: macaroon, Client: client}
	v, err := n.call(ctx, http.MethodGet, "/v1/getinfo", nil)
	if err != nil {
		return nil, err
	}
	info, _ := jsonv.AsObject(v)
	pub, _ := info.GetString("identity_pubkey")
	if !isLowerHex(pub, 66) {
		return nil, errors.New("lnd: getinfo names no identity_pubkey")
	}
	chains, _ := info.Get("chains")
	list, _ := jsonv.AsArray(chains)
	for _, c := range list {
		o, _ := jsonv.AsObject(c)
		if ch, _ := o.GetString("chain"); ch != "bitcoin" {
			continue
		}
		name, _ := o.GetString("network")
		if network, ok := networks[name]; ok {
			n.Network, n.Pubkey = network, pub
			return n, nil
		}
	}
	return nil, errors.New("lnd: getinfo names no Bitcoin network")
}

// Account is lnbtc:<reference>:<identity key>.
func (n *Node) Account() string { return n.Network + ":" + n.Pubkey }

// Sign pays a bolt11-pay request (POST /v1/channels/transactions, which
// returns once the payment settled or failed) and answers the preimage as
// 64 lowercase hex digits. The invoice must read and be on the node's
// network; a preimage that does not hash to the invoice's payment hash is
// an error, so a node that answers something else never yields a payment.
func (n *Node) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if k, _ := req.GetString("kind"); k != lightning.KindBolt11Pay {
		return nil, fmt.Errorf("lnd: a node pays bolt11-pay requests, not %q", k)
	}
	inv, _ := req.GetString("invoice")
	in, err := lightning.Decode(inv)
	if err != nil {
		return nil, fmt.Errorf("lnd: the invoice does not read: %w", err)
	}
	if currency[n.Network] != in.Currency {
		return nil, fmt.Errorf("lnd: a %s invoice, and the node pays on %s", in.Currency, n.Network)
	}
	v, err := n.call(ctx, http.MethodPost, "/v1/channels/transactions", jsonv.Obj("payment_request", inv))
	if err != nil {
		return nil, err
	}
	o, _ := jsonv.AsObject(v)
	if e, _ := o.GetString("payment_error"); e != "" {
		return nil, fmt.Errorf("lnd: the payment failed: %s", e)
	}
	s, _ := o.GetString("payment_preimage")
	pre, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil || len(pre) != 32 {
		return nil, errors.New("lnd: the node answered no 32-byte payment_preimage")
	}
	if sum := sha256.Sum256(pre); sum != in.PaymentHash {
		return nil, errors.New("lnd: the node's preimage does not pay the invoice")
	}
	return hex.EncodeToString(pre), nil
}

// call sends one REST request and reads a bounded JSON object answer.
func (n *Node) call(ctx context.Context, method, path string, body jsonv.Value) (jsonv.Value, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(jsonv.Marshal(body))
	}
	req, err := http.NewRequestWithContext(ctx, method, n.URL+path, rd)
	if err != nil {
		return nil, fmt.Errorf("lnd: %w", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if n.Macaroon != nil {
		req.Header.Set("Grpc-Metadata-macaroon", hex.EncodeToString(n.Macaroon))
	}
	c := n.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("lnd: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("lnd: %w", err)
	}
	if len(b) > MaxAnswer {
		return nil, fmt.Errorf("lnd: the node's answer is over %d bytes", MaxAnswer)
	}
	v, err := jsonv.Parse(b)
	if resp.StatusCode != http.StatusOK {
		o, _ := jsonv.AsObject(v)
		msg, _ := o.GetString("message")
		return nil, fmt.Errorf("lnd: %s answered %d %s", path, resp.StatusCode, msg)
	}
	if err != nil {
		return nil, fmt.Errorf("lnd: %s: %w", path, err)
	}
	if _, ok := jsonv.AsObject(v); !ok {
		return nil, fmt.Errorf("lnd: %s answered no JSON object", path)
	}
	return v, nil
}

func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
