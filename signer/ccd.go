package signer

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/ccd"
)

// CCDDevSeed is the Ed25519 seed (0x00…01) that signs x402-exact-ccd.json's
// payments as the vectors' payer, CCDDevAccount; termsgate's Concordium
// tests and demo pay with it. It is public: never hold value with it.
const CCDDevSeed = "0000000000000000000000000000000000000000000000000000000000000001"

// CCDDevAccount is the vectors' payer, whose credential 0 key 0 the demo
// node takes to be CCDDevSeed's key. A Concordium address is not derived
// from a key (the chain maps the account to its credentials' keys), so
// the wallet is told both.
const CCDDevAccount = "3ezotrLdEJLzM7cwvpkGtxGcmSFJ8MZMySUvQynXeV3P8s8wcg"

// CCD is a wallet for ccd-transaction requests: one account, its
// credential 0 key 0 in memory, and a node it reads the next nonce and
// tokens' decimals from. It builds the sponsored V1 transaction the
// request asks for, signs it as the sender and answers
// {signedTransaction, publicKey}.
type CCD struct {
	key     ed25519.PrivateKey
	account []byte
	address string
	network string
	node    ccd.Inputs
}

// NewCCD returns a wallet for account (base58check) signing with the
// Ed25519 seed on network (ccd:<genesis>) reading node.
func NewCCD(seed [32]byte, account, network string, node ccd.Inputs) (*CCD, error) {
	if !ccd.IsNetwork(network) {
		return nil, fmt.Errorf("signer: %q is not a Concordium network (ccd: and 32 lowercase hex digits)", network)
	}
	raw, err := ccd.AccountBytes(account)
	if err != nil {
		return nil, fmt.Errorf("signer: %q is not a Concordium account address", account)
	}
	if node == nil || node.Network() != network {
		return nil, fmt.Errorf("signer: the Concordium wallet needs a node on %s", network)
	}
	return &CCD{key: ed25519.NewKeyFromSeed(seed[:]), account: raw, address: account, network: network, node: node}, nil
}

// CCDFromSeed reads a seed as 64 hex digits, with or without 0x.
func CCDFromSeed(seed, account, network string, node ccd.Inputs) (*CCD, error) {
	raw, err := hex.DecodeString(strings.TrimPrefix(strings.TrimSpace(seed), "0x"))
	if err != nil || len(raw) != 32 {
		return nil, errors.New("signer: a Concordium key is a 32-byte Ed25519 seed in hex")
	}
	return NewCCD([32]byte(raw), account, network, node)
}

// Account is the CAIP-10 account, ccd:<genesis>:<address>.
func (c *CCD) Account() string { return c.network + ":" + c.address }

// PublicKey is the key's 32 bytes.
func (c *CCD) PublicKey() ed25519.PublicKey { return c.key.Public().(ed25519.PublicKey) }

// SignTransaction is the sender's signature of t.
func (c *CCD) SignTransaction(t *ccd.Tx) []byte {
	d := t.SignDigest()
	return ed25519.Sign(c.key, d[:])
}

// Sign builds and signs the transaction a ccd-transaction request asks
// for. It refuses a request of another network or sender, and one whose
// nonce or token decimals the node does not give, before signing.
func (c *CCD) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if kind, _ := req.GetString("kind"); kind != ccd.KindTransaction {
		return nil, fmt.Errorf("signer: the Concordium key does not sign %q requests", kind)
	}
	r, err := ccd.ReadRequest(req)
	if err != nil {
		return nil, fmt.Errorf("signer: ccd-transaction: %w", err)
	}
	if r.Network != c.network {
		return nil, fmt.Errorf("signer: the request is for %s, this key signs on %s", r.Network, c.network)
	}
	if r.Sender != c.address {
		return nil, fmt.Errorf("signer: the request is sent by %s, not by this account (%s)", r.Sender, c.address)
	}
	nonce, err := c.node.NextNonce(ctx, c.account)
	if err != nil {
		return nil, fmt.Errorf("signer: ccd: next nonce: %w", err)
	}
	payTo, _ := ccd.AccountBytes(r.PayTo)
	sponsor, _ := ccd.AccountBytes(r.Sponsor)
	t := &ccd.Tx{Nonce: nonce, Expiry: uint64(r.Expiry), SenderSignatures: 1, SponsorSignatures: 1}
	copy(t.Sender[:], c.account)
	copy(t.Sponsor[:], sponsor)
	if r.Asset == ccd.CCD {
		t.ExecEnergy, t.Payload = ccd.ExecTransfer, ccd.TransferWithMemoPayload(payTo, r.Memo, r.Amount)
	} else {
		d, err := c.node.TokenDecimals(ctx, r.Asset)
		if err != nil {
			return nil, fmt.Errorf("signer: ccd: decimals of %s: %w", r.Asset, err)
		}
		ops := ccd.TokenTransferOps(payTo, r.Amount, d, r.Memo)
		t.ExecEnergy, t.Payload = ccd.ExecTokenTransfer, ccd.TokenUpdatePayload(r.Asset, ops)
	}
	wire, err := ccd.WireForm(t, c.SignTransaction(t))
	if err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	return jsonv.Obj("signedTransaction", wire, "publicKey", hex.EncodeToString(c.PublicKey())), nil
}
