package polkadotrpc

import (
	"crypto/ed25519"
	"encoding/binary"
	"encoding/hex"
	"io"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/polkadot"
)

// Node is a stand-in Sidecar over an Asset Hub chain of its own: blocks of
// raw extrinsics with their events, account nonces and asset balances. A
// submitted extrinsic is checked as the runtime's transaction validity
// checks do (a signed v4 extrinsic, an Ed25519 signature over the signing
// payload with this chain's genesis hash, versions and era block, a
// mortal era that is live, the account's nonce, no tip) and, for the
// profile's call, executed: the transfer and the remark land together in a
// new block with the events Sidecar shows, or nothing lands. Calls counts
// the requests it answered. It also answers the node's JSON-RPC at its root
// (POST /), system_accountNextIndex: the account's nonce counting its
// extrinsics in the pool. With Hold set, a submitted extrinsic waits in the
// pool until Seal lands it, as on a chain whose next block is seconds away.
type Node struct {
	Net                    string
	Genesis                [32]byte
	SpecVersion, TxVersion uint32
	Hold                   bool

	Calls atomic.Int64

	mu       sync.Mutex
	blocks   []*nodeBlock // blocks[i] has height base+i
	base     uint64
	nonces   map[[32]byte]uint32
	balances map[string]*big.Int // "<asset>/<account hex>"
	pool     [][]byte            // valid extrinsics waiting for a block, in order
}

type nodeBlock struct {
	height uint64
	hash   [32]byte
	raws   [][]byte
	landed []*polkadot.Landed
}

// NewNode returns a chain for network whose genesis hash begins with the
// network's reference, its finalized head at height.
func NewNode(network string, height uint64) *Node {
	n := &Node{Net: network, SpecVersion: 1_006_000, TxVersion: 15, base: height,
		nonces: map[[32]byte]uint32{}, balances: map[string]*big.Int{}}
	ref, _ := hex.DecodeString(strings.TrimPrefix(network, "polkadot:"))
	copy(n.Genesis[:], ref)
	copy(n.Genesis[16:], "termsgate-loopbk")
	n.blocks = []*nodeBlock{{height: height, hash: blockHash(network, height)}}
	return n
}

func blockHash(network string, height uint64) [32]byte {
	return polkadot.Blake2b256(binary.LittleEndian.AppendUint64([]byte(network), height))
}

// Fund sets an account's balance of an asset.
func (n *Node) Fund(asset uint32, account [32]byte, amount *big.Int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.balances[balanceKey(asset, account)] = new(big.Int).Set(amount)
}

// Balance is an account's balance of an asset.
func (n *Node) Balance(asset uint32, account [32]byte) *big.Int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if b := n.balances[balanceKey(asset, account)]; b != nil {
		return new(big.Int).Set(b)
	}
	return new(big.Int)
}

func balanceKey(asset uint32, account [32]byte) string {
	return strconv.FormatUint(uint64(asset), 10) + "/" + hex.EncodeToString(account[:])
}

// SetNonce sets an account's nonce.
func (n *Node) SetNonce(account [32]byte, nonce uint32) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.nonces[account] = nonce
}

// Head is the chain's head height (every block here is finalized).
func (n *Node) Head() uint64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.head().height
}

func (n *Node) head() *nodeBlock { return n.blocks[len(n.blocks)-1] }

func (n *Node) blockOf(id string) *nodeBlock {
	if len(id) == 66 {
		h, ok := hash32(id)
		for _, b := range n.blocks {
			if ok && b.hash == h {
				return b
			}
		}
		return nil
	}
	height, err := strconv.ParseUint(id, 10, 64)
	if err != nil || height < n.base || height-n.base >= uint64(len(n.blocks)) {
		return nil
	}
	return n.blocks[height-n.base]
}

func writeJSON(w http.ResponseWriter, status int, v jsonv.Value) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(jsonv.Marshal(v))
}

// sidecarError answers as Sidecar's error handler does.
func sidecarError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, jsonv.Obj("code", status, "message", msg))
}

func hexOf(b []byte) string { return "0x" + hex.EncodeToString(b) }

func (n *Node) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n.Calls.Add(1)
	n.mu.Lock()
	defer n.mu.Unlock()
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/transaction/material":
		h := n.head()
		writeJSON(w, http.StatusOK, jsonv.Obj("at", jsonv.Obj("hash", hexOf(h.hash[:]), "height", strconv.FormatUint(h.height, 10)),
			"genesisHash", hexOf(n.Genesis[:]), "chainName", "Polkadot Asset Hub (loopback)", "specName", "statemint",
			"specVersion", strconv.FormatUint(uint64(n.SpecVersion), 10), "txVersion", strconv.FormatUint(uint64(n.TxVersion), 10)))
	case r.Method == http.MethodGet && len(parts) == 3 && parts[0] == "accounts" && parts[2] == "balance-info":
		acct, ok := hash32(parts[1])
		if !ok {
			sidecarError(w, http.StatusBadRequest, "Invalid accountId")
			return
		}
		h := n.head()
		writeJSON(w, http.StatusOK, jsonv.Obj("at", jsonv.Obj("hash", hexOf(h.hash[:]), "height", strconv.FormatUint(h.height, 10)),
			"nonce", strconv.FormatUint(uint64(n.nonces[acct]), 10), "tokenSymbol", "DOT", "free", "1000000000000"))
	case r.Method == http.MethodGet && r.URL.Path == "/blocks/head/header":
		h := n.head()
		writeJSON(w, http.StatusOK, jsonv.Obj("number", strconv.FormatUint(h.height, 10), "hash", hexOf(h.hash[:])))
	case r.Method == http.MethodGet && len(parts) == 4 && parts[0] == "blocks" && parts[2] == "extrinsics":
		b := n.blockOf(parts[1])
		i, err := strconv.Atoi(parts[3])
		if b == nil {
			sidecarError(w, http.StatusNotFound, "Block not found")
			return
		}
		if err != nil || i < 0 || i >= len(b.raws) {
			sidecarError(w, http.StatusBadRequest, "Requested `extrinsicIndex` does not exist")
			return
		}
		l := b.landed[i]
		events := make([]jsonv.Value, 0, len(l.Events))
		for _, e := range l.Events {
			events = append(events, jsonv.Obj("method", jsonv.Obj("pallet", e.Pallet, "method", e.Method), "data", e.Data))
		}
		writeJSON(w, http.StatusOK, jsonv.Obj("at", jsonv.Obj("height", strconv.FormatUint(b.height, 10), "hash", hexOf(b.hash[:])),
			"extrinsics", jsonv.Obj("hash", l.Hash, "success", l.Success, "events", events)))
	case r.Method == http.MethodGet && len(parts) == 3 && parts[0] == "blocks" && parts[2] == "extrinsics-raw":
		b := n.blockOf(parts[1])
		if b == nil {
			sidecarError(w, http.StatusNotFound, "Block not found")
			return
		}
		raws := make([]jsonv.Value, 0, len(b.raws))
		for _, x := range b.raws {
			raws = append(raws, hexOf(x))
		}
		writeJSON(w, http.StatusOK, jsonv.Obj("number", strconv.FormatUint(b.height, 10), "hash", hexOf(b.hash[:]), "extrinsics", raws))
	case r.Method == http.MethodPost && r.URL.Path == "/":
		n.serveRPC(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/transaction":
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		v, _ := jsonv.Parse(body)
		o, _ := jsonv.AsObject(v)
		xt, ok := mpp.HexBytes(str(o, "tx"), 1, polkadot.MaxExtrinsic)
		if !ok {
			sidecarError(w, http.StatusBadRequest, "Failed to parse transaction.")
			return
		}
		h, cause := n.submit(xt)
		if cause != "" {
			writeJSON(w, http.StatusBadRequest, jsonv.Obj("code", 400, "error", "Failed to submit transaction.", "cause", cause))
			return
		}
		writeJSON(w, http.StatusOK, jsonv.Obj("hash", h))
	default:
		sidecarError(w, http.StatusNotFound, "no such route")
	}
}

// serveRPC answers a JSON-RPC 2.0 request as a Substrate node does:
// system_accountNextIndex with one SS58 address, the account's nonce after
// its extrinsics in the pool; any other method is -32601.
func (n *Node) serveRPC(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	v, err := jsonv.Parse(body)
	o, ok := jsonv.AsObject(v)
	if err != nil || !ok {
		writeJSON(w, http.StatusOK, jsonv.Obj("jsonrpc", "2.0", "error", jsonv.Obj("code", -32700, "message", "Parse error"), "id", nil))
		return
	}
	id, _ := o.Get("id")
	answer := func(k string, v jsonv.Value) {
		writeJSON(w, http.StatusOK, jsonv.Obj("jsonrpc", "2.0", k, v, "id", id))
	}
	if m, _ := o.GetString("method"); m != "system_accountNextIndex" {
		answer("error", jsonv.Obj("code", -32601, "message", "Method not found"))
		return
	}
	pv, _ := o.Get("params")
	params, _ := jsonv.AsArray(pv)
	var addr string
	if len(params) == 1 {
		addr, _ = params[0].(string)
	}
	acct, _, ok := polkadot.DecodeSS58(addr)
	if !ok {
		answer("error", jsonv.Obj("code", -32602, "message", "Invalid params"))
		return
	}
	answer("result", jsonv.Number(n.nextIndex(acct)))
}

// nextIndex is the account's state nonce and one more for each of its
// extrinsics in the pool.
func (n *Node) nextIndex(acct [32]byte) uint32 {
	next := n.nonces[acct]
	for _, xt := range n.pool {
		if s, err := polkadot.SplitSigned(xt); err == nil && s.Signer == acct {
			next++
		}
	}
	return next
}

// Pool is how many extrinsics wait in the pool.
func (n *Node) Pool() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.pool)
}

// Seal lands the pool's extrinsics, each in a new block, in the order they
// came; the causes of those the runtime refuses now.
func (n *Node) Seal() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	pool := n.pool
	n.pool = nil
	var causes []string
	for _, xt := range pool {
		if _, cause := n.land(xt); cause != "" {
			causes = append(causes, cause)
		}
	}
	return causes
}

// submit checks xt as the runtime and the pool would (its nonce the
// account's next index, counting the pool) and lands it in a new block, or
// with Hold puts it in the pool; the cause of a refusal as Sidecar's answer
// names it.
func (n *Node) submit(xt []byte) (string, string) {
	if !n.Hold {
		return n.land(xt)
	}
	s, err := polkadot.SplitSigned(xt)
	if err != nil {
		return "", "Invalid Transaction: " + err.Error()
	}
	x, _, ok := polkadot.DecodeExtra(xt, s.End)
	if !ok {
		return "", "Invalid Transaction: extensions this chain does not take"
	}
	switch next := n.nextIndex(s.Signer); {
	case x.Nonce < n.nonces[s.Signer]:
		return "", "Invalid Transaction: Transaction is outdated"
	case x.Nonce < next:
		return "", "Priority is too low: (0 vs 0)" // the pool holds one of this nonce already
	case x.Nonce > next:
		return "", "Invalid Transaction: Transaction will be valid in the future"
	}
	// Checked as it would land after the pool's: the nonce the state will
	// have then.
	saved := n.nonces[s.Signer]
	n.nonces[s.Signer] = x.Nonce
	_, cause := n.check(xt)
	n.nonces[s.Signer] = saved
	if cause != "" {
		return "", cause
	}
	n.pool = append(n.pool, append([]byte(nil), xt...))
	hash := polkadot.ExtrinsicHash(xt)
	return hexOf(hash[:]), ""
}

type checked struct {
	s    *polkadot.Signed
	call *polkadot.Call
}

// check is the runtime's validity check of xt against the head.
func (n *Node) check(xt []byte) (checked, string) {
	s, err := polkadot.SplitSigned(xt)
	if err != nil {
		return checked{}, "Invalid Transaction: " + err.Error()
	}
	x, next, ok := polkadot.DecodeExtra(xt, s.End)
	if !ok || x.Era.Immortal || x.Tip != 0 || x.MetadataHash {
		return checked{}, "Invalid Transaction: extensions this chain does not take"
	}
	head := n.head()
	birth := x.Era.Birth(head.height)
	if birth < n.base || birth > head.height || head.height >= x.Era.Death(head.height) {
		return checked{}, "Invalid Transaction: Transaction is outdated"
	}
	if x.Nonce < n.nonces[s.Signer] {
		return checked{}, "Invalid Transaction: Transaction is outdated"
	}
	if x.Nonce > n.nonces[s.Signer] {
		return checked{}, "Invalid Transaction: Transaction will be valid in the future"
	}
	call := xt[next:]
	add := polkadot.Additional{SpecVersion: n.SpecVersion, TxVersion: n.TxVersion, Genesis: n.Genesis, EraBlock: n.blockOf(strconv.FormatUint(birth, 10)).hash}
	if s.SigType != polkadot.SigEd25519 || !ed25519.Verify(s.Signer[:], polkadot.SigningPayload(call, x, &add), s.Signature) {
		return checked{}, "Invalid Transaction: Transaction has a bad signature"
	}
	c, ok := polkadot.DecodeCall(call)
	if !ok {
		return checked{}, "Invalid Transaction: a call this chain stand-in does not execute"
	}
	return checked{s, c}, ""
}

// land checks xt and executes it in a new block.
func (n *Node) land(xt []byte) (string, string) {
	ck, cause := n.check(xt)
	if cause != "" {
		return "", cause
	}
	s, c, head := ck.s, ck.call, n.head()
	hash := polkadot.ExtrinsicHash(xt)
	l := &polkadot.Landed{Hash: hexOf(hash[:]), Success: true}
	from, to := balanceKey(c.AssetID, s.Signer), balanceKey(c.AssetID, c.Dest)
	bal := n.balances[from]
	if bal == nil || bal.Cmp(c.Amount) < 0 {
		l.Success = false // the batch fails whole: no transfer and no remark
		l.Events = []polkadot.Event{{Pallet: "system", Method: "ExtrinsicFailed", Data: []jsonv.Value{jsonv.Obj("module", jsonv.Obj("index", "50", "error", "0x00000000"))}}}
	} else {
		bal.Sub(bal, c.Amount)
		if n.balances[to] == nil {
			n.balances[to] = new(big.Int)
		}
		n.balances[to].Add(n.balances[to], c.Amount)
		rh := polkadot.Blake2b256(c.Remark)
		payer, payee := polkadot.Address(n.Net, s.Signer), polkadot.Address(n.Net, c.Dest)
		l.Events = []polkadot.Event{
			{Pallet: "assets", Method: "Transferred", Data: []jsonv.Value{strconv.FormatUint(uint64(c.AssetID), 10), payer, payee, c.Amount.String()}},
			{Pallet: "system", Method: "Remarked", Data: []jsonv.Value{payer, hexOf(rh[:])}},
			{Pallet: "utility", Method: "BatchCompleted", Data: []jsonv.Value{}},
			{Pallet: "system", Method: "ExtrinsicSuccess", Data: []jsonv.Value{jsonv.Obj("dispatchInfo", jsonv.Obj("class", "Normal", "paysFee", "Yes"))}},
		}
	}
	n.nonces[s.Signer]++
	height := head.height + 1
	// Index 0 holds an unsigned v4 extrinsic, as every block starts with
	// its inherents, so that the payment sits at index 1.
	inherent := []byte{0x0c, 0x04, 0x00, 0x00}
	ih := polkadot.ExtrinsicHash(inherent)
	b := &nodeBlock{height: height, hash: blockHash(n.Net, height), raws: [][]byte{inherent, append([]byte(nil), xt...)},
		landed: []*polkadot.Landed{{Hash: hexOf(ih[:]), Success: true}, l}}
	for _, lb := range b.landed {
		lb.Height, lb.BlockHash = height, hexOf(b.hash[:])
	}
	n.blocks = append(n.blocks, b)
	return l.Hash, ""
}

// Landed is where an extrinsic hash landed: its timepoint, or "".
func (n *Node) Landed(extrinsicHash string) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, b := range n.blocks {
		for i, l := range b.landed {
			if strings.EqualFold(l.Hash, extrinsicHash) {
				return polkadot.Timepoint(hexOf(b.hash[:]), i)
			}
		}
	}
	return ""
}
