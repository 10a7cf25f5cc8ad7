package signer

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/xrpl"
)

// XRPLDevEntropy is the seed entropy of the vectors' XRPL payer (Ed25519,
// r3sNTMefq5gsRumMYsNznnX6yzzxVH6dTC). It is public: never hold value with
// it.
var XRPLDevEntropy = bytes.Repeat([]byte{1}, 16)

// XRPL signs the XRPL request kinds with one key held in memory: xrpl-tx (a
// transaction, answered with 0x + the signed blob), xrpl-session-open (the
// channel's opening and its first claim, answered with {signedBlob,
// claimSignature}), xrpl-claim (a channel claim, answered with 0x + the
// signature) and batches of them.
type XRPL struct {
	key     *xrpl.Key
	address string
	account string
}

// NewXRPL returns a signer for key on network ("xrpl:1").
func NewXRPL(key *xrpl.Key, network string) *XRPL {
	addr := key.AccountID().Address()
	return &XRPL{key: key, address: addr, account: network + ":" + addr}
}

// XRPLFromSeed reads an XRPL seed: sEd… (Ed25519) or a family seed s…
// (secp256k1).
func XRPLFromSeed(seed, network string) (*XRPL, error) {
	entropy, alg, err := xrpl.ParseSeed(strings.TrimSpace(seed))
	if err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	key, err := xrpl.KeyFromEntropy(entropy, alg)
	if err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	return NewXRPL(key, network), nil
}

// XRPLDev is the vectors' published XRPL payer on network.
func XRPLDev(network string) (*XRPL, error) {
	key, err := xrpl.KeyFromEntropy(XRPLDevEntropy, xrpl.Ed25519)
	if err != nil {
		return nil, err
	}
	return NewXRPL(key, network), nil
}

// XRPLFromSeedFile reads a file holding one XRPL seed. The file must not be
// readable by group or others: the seed is the key.
func XRPLFromSeedFile(path, network string) (*XRPL, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("signer: %s holds a seed and is readable by others (mode %v); chmod 600 it", path, st.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	return XRPLFromSeed(string(b), network)
}

func (x *XRPL) Account() string { return x.account }

// Address is the key's classic address.
func (x *XRPL) Address() string { return x.address }

// Sign signs req. A transaction must be for this key's account, and a claim
// or a channel opening must be for the channel its bytes name: nothing else
// is signed.
func (x *XRPL) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	switch kind, _ := req.GetString("kind"); kind {
	case xrpl.KindTx:
		blob, _, err := x.signTx(req)
		if err != nil {
			return nil, err
		}
		return "0x" + upperHex(blob), nil
	case xrpl.KindSessionOpen:
		return x.signOpen(req)
	case xrpl.KindClaim:
		return x.signClaim(req)
	case rails.KindBatch:
		return x.signBatch(ctx, req)
	default:
		return nil, fmt.Errorf("signer: the XRPL key does not sign %q requests", kind)
	}
}

func (x *XRPL) signTx(req rails.Request) ([]byte, xrpl.Fields, error) {
	txJSON, ok := req.GetObject("txJson")
	if !ok {
		return nil, nil, fmt.Errorf("signer: an XRPL request without txJson")
	}
	if a, _ := txJSON.GetString("Account"); a != x.address {
		return nil, nil, fmt.Errorf("signer: the transaction's Account %q is not this key's %s", a, x.address)
	}
	for _, k := range []string{"SigningPubKey", "TxnSignature", "Signers"} {
		if txJSON.Has(k) {
			return nil, nil, fmt.Errorf("signer: the transaction already carries %s", k)
		}
	}
	fs, err := xrpl.FromJSON(txJSON)
	if err != nil {
		return nil, nil, fmt.Errorf("signer: %w", err)
	}
	return xrpl.SignFields(fs, x.key), fs, nil
}

// claimOf reads a claim {channelId, drops, bytes} and requires its bytes to
// be the claim of that channel and those drops.
func claimOf(o *jsonv.Object) ([]byte, [32]byte, error) {
	bytesHex, _ := o.GetString("bytes")
	raw, err := hex.DecodeString(strings.TrimPrefix(bytesHex, "0x"))
	channel, drops, ok := xrpl.ReadClaim(raw)
	if err != nil || !ok || !strings.HasPrefix(bytesHex, "0x") {
		return nil, channel, fmt.Errorf("signer: the claim's bytes are not CLM\\0 ‖ channel ‖ drops")
	}
	id, _ := o.GetString("channelId")
	if !strings.EqualFold(id, hex.EncodeToString(channel[:])) {
		return nil, channel, fmt.Errorf("signer: the claim's bytes name another channel than %q", id)
	}
	if d, _ := o.GetString("drops"); d != strconv.FormatUint(drops, 10) {
		return nil, channel, fmt.Errorf("signer: the claim's bytes hold %d drops, not %q", drops, d)
	}
	return raw, channel, nil
}

func (x *XRPL) signOpen(req rails.Request) (jsonv.Value, error) {
	claim, ok := req.GetObject("claim")
	if !ok {
		return nil, fmt.Errorf("signer: a session opening without its claim")
	}
	raw, channel, err := claimOf(claim)
	if err != nil {
		return nil, err
	}
	blob, fs, err := x.signTx(req)
	if err != nil {
		return nil, err
	}
	pub, _ := fs.Get(xrpl.FieldPublicKey)
	if !bytes.Equal(pub.Value, x.key.PublicKey()) {
		return nil, fmt.Errorf("signer: the channel's PublicKey is not this key's")
	}
	if want, ok := xrpl.ChannelOf(fs); !ok || want != channel {
		return nil, fmt.Errorf("signer: the claim is not for the channel this opening creates")
	}
	return jsonv.Obj("signedBlob", "0x"+upperHex(blob),
		"claimSignature", "0x"+hex.EncodeToString(xrpl.SignClaim(raw, x.key))), nil
}

func (x *XRPL) signClaim(req rails.Request) (jsonv.Value, error) {
	raw, _, err := claimOf(req)
	if err != nil {
		return nil, err
	}
	return "0x" + hex.EncodeToString(xrpl.SignClaim(raw, x.key)), nil
}

func (x *XRPL) signBatch(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	v, _ := req.Get("requests")
	list, ok := jsonv.AsArray(v)
	if !ok || len(list) == 0 || len(list) > maxBatch {
		return nil, fmt.Errorf("signer: a batch request needs 1 to %d requests", maxBatch)
	}
	out := make([]jsonv.Value, len(list))
	for i, r := range list {
		o, ok := jsonv.AsObject(r)
		if !ok {
			return nil, fmt.Errorf("signer: batch entry %d is not a request", i)
		}
		if k, _ := o.GetString("kind"); k == rails.KindBatch {
			return nil, fmt.Errorf("signer: batch entry %d is itself a batch", i)
		}
		a, err := x.Sign(ctx, o)
		if err != nil {
			return nil, fmt.Errorf("signer: batch entry %d: %w", i, err)
		}
		out[i] = a
	}
	return out, nil
}

// upperHex writes a signed blob as XRPL tools do: uppercase hex.
func upperHex(b []byte) string { return strings.ToUpper(hex.EncodeToString(b)) }
