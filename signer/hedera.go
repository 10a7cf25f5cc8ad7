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
	"github.com/termsgate/termsgate/rails/hedera"
)

// HederaDevSeed is a published Ed25519 seed (07×32) for the Hedera demos
// and tests. It is public: never hold value with it.
const HederaDevSeed = "0707070707070707070707070707070707070707070707070707070707070707"

// Hedera signs hedera-body requests with one Ed25519 key held in memory for
// one account. A Hedera account's key is set on the network, not derived
// from its id, so the account is given with the key.
type Hedera struct {
	key     ed25519.PrivateKey
	account string
	entity  hedera.Entity
}

// NewHedera returns a signer for account (hedera:<network>:<shard.realm.num>)
// with the Ed25519 seed given in hex.
func NewHedera(account, seedHex string) (*Hedera, error) {
	acct, ok := rails.ParseAccount(account)
	e, okE := hedera.ParseEntity(acct.Address)
	if !ok || acct.Namespace != "hedera" || !hedera.IsNetwork(acct.Network()) || !okE {
		return nil, fmt.Errorf("signer: %q is not a Hedera account (hedera:<network>:<shard.realm.num>)", account)
	}
	raw, err := hex.DecodeString(strings.TrimPrefix(strings.TrimSpace(seedHex), "0x"))
	if err != nil || len(raw) != 32 {
		return nil, errors.New("signer: a Hedera Ed25519 seed is 32 bytes in hex")
	}
	return &Hedera{key: ed25519.NewKeyFromSeed(raw), account: account, entity: e}, nil
}

// Account is hedera:<network>:<shard.realm.num>.
func (h *Hedera) Account() string { return h.account }

// PublicKey is the raw 32-byte Ed25519 public key.
func (h *Hedera) PublicKey() ed25519.PublicKey { return h.key.Public().(ed25519.PublicKey) }

// Sign signs a hedera-body request: the body bytes, which must read as a
// TransactionBody whose transfers debit this signer's account (a key signs
// only what moves its own account's value), on the signer's network. It
// answers {publicKey, signature, type: "ed25519"}.
func (h *Hedera) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	kind, _ := req.GetString("kind")
	if kind != hedera.KindBody && kind != hedera.KindExecutor {
		return nil, fmt.Errorf("signer: a Hedera key does not sign %q requests", kind)
	}
	if n, _ := req.GetString("network"); "hedera:"+strings.SplitN(h.account, ":", 3)[1] != n {
		return nil, fmt.Errorf("signer: the request is for network %q", n)
	}
	if kind == hedera.KindExecutor {
		return h.signExecutor(req)
	}
	if b, _ := req.Get("broadcast"); b != nil {
		// A push asks the wallet to submit the transaction; this key holds
		// no connection to a node, so it signs nothing it cannot submit.
		return nil, errors.New("signer: a local Hedera key does not broadcast (credentialType hash)")
	}
	text, _ := req.GetString("bodyBytes")
	// x402 writes the body as 0x hex, MPP's Hedera method as bare hex.
	raw, err := hex.DecodeString(strings.TrimPrefix(text, "0x"))
	if err != nil || len(raw) == 0 || len(text) > 2+2*hedera.MaxTx {
		return nil, errors.New("signer: bodyBytes is not hex of a body")
	}
	body, ok := hedera.ReadBody(raw)
	if !ok {
		return nil, errors.New("signer: bodyBytes is not a TransactionBody")
	}
	debits := false
	for _, rows := range [][]hedera.Transfer{body.HBAR, body.TokenRows} {
		for _, r := range rows {
			debits = debits || r.Account == h.entity && r.Amount < 0
		}
	}
	if !debits {
		return nil, errors.New("signer: the body moves nothing from this account")
	}
	return jsonv.Obj("publicKey", "0x"+hex.EncodeToString(h.PublicKey()),
		"signature", "0x"+hex.EncodeToString(ed25519.Sign(h.key, raw)), "type", "ed25519"), nil
}

// signExecutor signs a hedera-executor request: an authorization of the
// first executor the request names to move its amount of its asset from
// this account to its payTo until its validBefore, in the Ed25519 form
// (hedera.ExecutorAuthorization). The request must read as the pairing
// reads it (hedera.Executor.Summarize) and name at most MaxExecutors
// entity ids. It answers {payer, executor, authorization}.
func (h *Hedera) signExecutor(req rails.Request) (jsonv.Value, error) {
	g, err := hedera.Executor{}.Summarize(req)
	if err != nil {
		return nil, errors.New("signer: the hedera-executor request does not read")
	}
	v, _ := req.Get("executors")
	list, _ := jsonv.AsArray(v)
	if len(list) == 0 || len(list) > hedera.MaxExecutors {
		return nil, errors.New("signer: the request names no executor, or too many")
	}
	executor, _ := list[0].(string)
	if _, ok := hedera.ParseEntity(executor); !ok {
		return nil, errors.New("signer: the executor is not an entity id")
	}
	payer := h.entity.String()
	before := g.PayableUntil.Unix()
	msg := hedera.ExecutorMessage(g.Network, executor, payer, g.Asset, g.Payee, g.Amount.String(), before)
	return jsonv.Obj("payer", payer, "executor", executor,
		"authorization", hedera.ExecutorAuthorization(before, ed25519.Sign(h.key, msg))), nil
}
