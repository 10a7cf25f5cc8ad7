package ccdrpc

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/termsgate/termsgate/rails/ccd"
	"google.golang.org/protobuf/encoding/protowire"
)

// Node answers gRPC-web calls as a Concordium node does, for tests and the
// demo: GetNextAccountSequenceNumber of the accounts it holds,
// GetTokenInfo of its tokens and GetBlockItemStatus of its items; anything
// else is UNIMPLEMENTED, an unknown account, token or item NOT_FOUND, as
// the node's status codes go.
type Node struct {
	Net      string // the network its chain side reads as
	mu       sync.Mutex
	nonces   map[[32]byte]uint64
	decimals map[string]uint8
	keys     map[[32]byte]ed25519.PublicKey
	items    map[string]*ccd.Item
	Calls    atomic.Int64 // gRPC-web calls answered
}

// SetNonce holds an account's next sequence number.
func (n *Node) SetNonce(account []byte, next uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.nonces == nil {
		n.nonces = map[[32]byte]uint64{}
	}
	n.nonces[[32]byte(account)] = next
}

// AddToken holds a PLT with its decimals.
func (n *Node) AddToken(id string, decimals uint8) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.decimals == nil {
		n.decimals = map[string]uint8{}
	}
	n.decimals[id] = decimals
}

// gRPC status codes the node answers with.
const (
	statusInvalidArgument = "3"
	statusNotFound        = "5"
	statusUnimplemented   = "12"
	statusInternal        = "13"
)

func (n *Node) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n.Calls.Add(1)
	if r.Method != http.MethodPost || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc-web") {
		http.Error(w, "gRPC-web only", http.StatusUnsupportedMediaType)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxAnswer))
	if err != nil || len(body) < 5 || body[0] != 0 || int(binary.BigEndian.Uint32(body[1:5])) != len(body)-5 {
		answer(w, nil, statusInvalidArgument, "one uncompressed message")
		return
	}
	msg, err := parse(body[5:])
	if err != nil {
		answer(w, nil, statusInvalidArgument, "not protobuf")
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	switch strings.TrimPrefix(r.URL.Path, "/concordium.v2.Queries/") {
	case "GetNextAccountSequenceNumber":
		acct := msg.bytes[1]
		if len(acct) != 32 {
			answer(w, nil, statusInvalidArgument, "account address must be 32 bytes")
			return
		}
		next, ok := n.nonces[[32]byte(acct)]
		if !ok {
			answer(w, nil, statusNotFound, "account or block not found.")
			return
		}
		seq := protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), next)
		out := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), seq)
		out = protowire.AppendVarint(protowire.AppendTag(out, 2, protowire.VarintType), 1)
		answer(w, out, "0", "")
	case "GetTokenInfo":
		id, err := parse(msg.bytes[2])
		d, ok := n.decimals[string(id.bytes[1])]
		if err != nil || !ok {
			answer(w, nil, statusNotFound, "token or block not found.")
			return
		}
		tid := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), id.bytes[1])
		state := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType),
			protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), make([]byte, 32)))
		state = protowire.AppendVarint(protowire.AppendTag(state, 3, protowire.VarintType), uint64(d))
		out := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), tid)
		out = protowire.AppendBytes(protowire.AppendTag(out, 2, protowire.BytesType), state)
		answer(w, out, "0", "")
	case "GetBlockItemStatus":
		hash := msg.bytes[1]
		if len(hash) != 32 {
			answer(w, nil, statusInvalidArgument, "transaction hash must be 32 bytes")
			return
		}
		it := n.items[hex.EncodeToString(hash)]
		if it == nil {
			answer(w, nil, statusNotFound, "transaction or block not found.")
			return
		}
		out, ok := n.itemStatus(hash, it)
		if !ok {
			answer(w, nil, statusInternal, "the node cannot write this item's outcome")
			return
		}
		answer(w, out, "0", "")
	default:
		answer(w, nil, statusUnimplemented, "")
	}
}

// msgOf is a message holding one length-delimited field.
func msgOf(num protowire.Number, b []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), b)
}

// value1 is a {bytes value = 1} message (AccountAddress, Memo,
// TransactionHash, BlockHash, TokenId).
func value1(b []byte) []byte { return msgOf(1, b) }

func varint1(v uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), v)
}

// itemStatus writes BlockItemStatus as the node does: received as Empty,
// committed with its outcome in one block, finalized with it; the outcome
// an AccountTransactionDetails (sender, effects none when it failed, else
// the one CCD transfer or the token transfer events). Not ok for an item no
// outcome has (more than one CCD transfer, CCD and token transfers mixed).
func (n *Node) itemStatus(hash []byte, it *ccd.Item) ([]byte, bool) {
	switch it.State {
	case "received":
		return msgOf(statusReceived, nil), true
	case "committed", "finalized":
	default:
		return nil, false
	}
	var effects []byte
	switch {
	case !it.Success:
		effects = msgOf(effectNone, msgOf(2, nil)) // None{reject_reason: RejectReason{}}
	case len(it.Transfers) == 1 && it.Transfers[0].Kind == "ccd":
		t := it.Transfers[0]
		tr := append(msgOf(transferAmount, varint1(t.Amount)), msgOf(transferReceiver, value1(t.Receiver))...)
		if t.Memo != nil {
			tr = append(tr, msgOf(3, value1(t.Memo))...)
		}
		effects = msgOf(effectTransfer, tr)
	default:
		var events []byte
		for _, t := range it.Transfers {
			if t.Kind != "plt" {
				return nil, false
			}
			amount := protowire.AppendVarint(protowire.AppendTag(varint1(t.Amount), 2, protowire.VarintType), uint64(n.decimals[t.TokenID]))
			te := append(msgOf(1, msgOf(1, value1(it.Sender))), msgOf(tokenTo, msgOf(1, value1(t.Receiver)))...)
			te = append(te, msgOf(tokenAmount, amount)...)
			if t.Memo != nil {
				te = append(te, msgOf(tokenMemo, value1(t.Memo))...)
			}
			ev := append(msgOf(eventTokenID, value1([]byte(t.TokenID))), msgOf(eventTransfer, te)...)
			events = append(events, msgOf(1, ev)...)
		}
		effects = msgOf(effectPLT, events)
	}
	// BlockItemSummary{index, energy_cost, hash, account_transaction}.
	sum := append(msgOf(1, varint1(0)), msgOf(2, varint1(501))...)
	sum = append(sum, msgOf(summaryHash, value1(hash))...)
	if it.Sender != nil {
		det := append(msgOf(1, varint1(0)), msgOf(detailsSender, value1(it.Sender))...)
		sum = append(sum, msgOf(summaryAccountTransaction, append(det, msgOf(detailsEffects, effects)...))...)
	}
	block := sha256.Sum256(hash) // a block hash of the loopback chain
	inBlock := append(msgOf(1, value1(block[:])), msgOf(2, sum)...)
	if it.State == "committed" {
		return msgOf(statusCommitted, msgOf(1, inBlock)), true
	}
	return msgOf(statusFinalized, msgOf(1, inBlock)), true
}

// SetItem holds a block item in any state under its hash, as a test plants
// what the chain would answer.
func (n *Node) SetItem(hash [32]byte, item ccd.Item) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.items == nil {
		n.items = map[string]*ccd.Item{}
	}
	n.items[hex.EncodeToString(hash[:])] = &item
}

// answer writes a gRPC-web answer: the message's data frame when there is
// one and the trailer frame; a failure goes in the headers alone, as
// gRPC-web servers send a trailers-only answer.
func answer(w http.ResponseWriter, msg []byte, status, message string) {
	w.Header().Set("Content-Type", "application/grpc-web+proto")
	if status != "0" {
		w.Header().Set("Grpc-Status", status)
		w.Header().Set("Grpc-Message", message)
		w.WriteHeader(http.StatusOK)
		return
	}
	out := frame(msg)
	t := []byte("grpc-status:0\r\ngrpc-message:\r\n")
	tf := make([]byte, 5, 5+len(t))
	tf[0] = 0x80
	binary.BigEndian.PutUint32(tf[1:], uint32(len(t)))
	out = append(out, append(tf, t...)...)
	w.Write(out)
}

// The chain side of the loopback node, for the demo seller: the keys it
// holds for accounts (credential 0, key 0, as GetAccountInfo would give
// them), the block items it has taken, and their status read in process.

// SetKey holds an account's credential 0 key 0.
func (n *Node) SetKey(account []byte, key ed25519.PublicKey) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.keys == nil {
		n.keys = map[[32]byte]ed25519.PublicKey{}
	}
	n.keys[[32]byte(account)] = key
}

// Key is an account's credential 0 key 0, nil when the node has none.
func (n *Node) Key(account []byte) ed25519.PublicKey {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(account) != 32 {
		return nil
	}
	return n.keys[[32]byte(account)]
}

// Submit takes a checked, sponsored transaction as the chain would: its
// nonce must be the sender's next one, which it then advances, and the item
// is finalized at once with its one transfer.
func (n *Node) Submit(hash [32]byte, nonce uint64, item ccd.Item) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(item.Sender) != 32 || n.nonces[[32]byte(item.Sender)] != nonce {
		return errors.New("ccdrpc: the nonce is not the sender's next")
	}
	n.nonces[[32]byte(item.Sender)] = nonce + 1
	if n.items == nil {
		n.items = map[string]*ccd.Item{}
	}
	n.items[hex.EncodeToString(hash[:])] = &item
	return nil
}

// Network is the node's network, for ccd.PaymentStatus.
func (n *Node) Network() string { return n.Net }

// Item is a block item's state; nil when the node has not taken it.
func (n *Node) Item(_ context.Context, hash string) (*ccd.Item, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	it := n.items[hash]
	if it == nil {
		return nil, nil
	}
	c := *it
	return &c, nil
}
