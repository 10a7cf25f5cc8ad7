package starknetrpc

import (
	"errors"
	"io"
	"math/big"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/starknet"
)

// Node is a small stand-in for a Starknet node: accounts holding a Stark
// public key (as OpenZeppelin's account does), token balances, and the
// transactions ExecuteFromOutside ran. It answers starknet_call of
// get_public_key, is_valid_outside_execution_nonce and balance_of,
// starknet_getTransactionReceipt and starknet_traceTransaction in the
// node's shapes; anything else is a JSON-RPC error.
type Node struct {
	Net   string
	Block uint64 // the block number the next transaction lands in
	Calls atomic.Int64

	mu       sync.Mutex
	keys     map[starknet.Felt]starknet.Felt
	used     map[[2]starknet.Felt]bool
	balances map[[2]starknet.Felt]*big.Int // token, owner
	txs      map[starknet.Felt]landed
}

type landed struct {
	receipt *jsonv.Object
	trace   *jsonv.Object
}

// Deploy makes account an account contract checking pub.
func (n *Node) Deploy(account, pub starknet.Felt) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.keys == nil {
		n.keys = map[starknet.Felt]starknet.Felt{}
	}
	n.keys[account] = pub
}

// Mint gives owner amount of token.
func (n *Node) Mint(token, owner starknet.Felt, amount *big.Int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.balances == nil {
		n.balances = map[[2]starknet.Felt]*big.Int{}
	}
	k := [2]starknet.Felt{token, owner}
	if n.balances[k] == nil {
		n.balances[k] = new(big.Int)
	}
	n.balances[k].Add(n.balances[k], amount)
}

// Balance is owner's balance of token.
func (n *Node) Balance(token, owner starknet.Felt) *big.Int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if b := n.balances[[2]starknet.Felt{token, owner}]; b != nil {
		return new(big.Int).Set(b)
	}
	return new(big.Int)
}

var selectorExecute = starknet.Selector("__execute__")

// ExecuteFromOutside runs feePayer's invoke of account's
// execute_from_outside_v2 at time now, checking what SNIP-9 v2's account
// checks: the caller is feePayer (or ANY_CALLER), now is strictly between
// Execute After and Execute Before, the nonce is unused, and the signature
// (r, s) verifies under the account's key over the SNIP-12 message hash.
// The calls must be transfers of a held token. It returns the transaction
// hash; a failed check lands nothing.
func (n *Node) ExecuteFromOutside(feePayer, account starknet.Felt, oe *starknet.OutsideExecution, signature []starknet.Felt, now int64) (starknet.Felt, error) {
	chain, ok := starknet.ChainID(n.Net)
	if !ok {
		return starknet.Felt{}, errors.New("the node serves no Starknet network")
	}
	anyCaller, _ := starknet.ShortString("ANY_CALLER")
	n.mu.Lock()
	defer n.mu.Unlock()
	pub, ok := n.keys[account]
	switch {
	case !ok:
		return starknet.Felt{}, errors.New("no account contract at " + account.String())
	case oe.Caller != feePayer && oe.Caller != anyCaller:
		return starknet.Felt{}, errors.New("execute_from_outside_v2: invalid caller")
	case uint64(now) <= oe.ExecuteAfter[0] || uint64(now) >= oe.ExecuteBefore[0] || oe.ExecuteAfter[1]|oe.ExecuteAfter[2]|oe.ExecuteAfter[3]|oe.ExecuteBefore[1]|oe.ExecuteBefore[2]|oe.ExecuteBefore[3] != 0:
		return starknet.Felt{}, errors.New("execute_from_outside_v2: invalid timestamp")
	case n.used[[2]starknet.Felt{account, oe.Nonce}]:
		return starknet.Felt{}, errors.New("execute_from_outside_v2: duplicated nonce")
	case len(signature) != 2 || !starknet.Verify(pub, oe.MessageHash(chain, account), signature[0], signature[1]):
		return starknet.Felt{}, errors.New("execute_from_outside_v2: invalid signature")
	}
	// The calls, all or nothing.
	type move struct {
		token, to starknet.Felt
		amount    *big.Int
	}
	var moves []move
	spent := map[starknet.Felt]*big.Int{}
	for _, c := range oe.Calls {
		if c.Selector != starknet.SelectorTransfer || len(c.Calldata) != 3 {
			return starknet.Felt{}, errors.New("the node runs transfer calls only")
		}
		low, high := c.Calldata[1].Big(), c.Calldata[2].Big()
		amount := high.Lsh(high, 128).Add(high, low)
		if spent[c.To] == nil {
			spent[c.To] = new(big.Int)
		}
		spent[c.To].Add(spent[c.To], amount)
		bal := n.balances[[2]starknet.Felt{c.To, account}]
		if bal == nil || bal.Cmp(spent[c.To]) < 0 {
			return starknet.Felt{}, errors.New("transfer: insufficient balance")
		}
		moves = append(moves, move{c.To, c.Calldata[0], amount})
	}
	if n.used == nil {
		n.used = map[[2]starknet.Felt]bool{}
	}
	n.used[[2]starknet.Felt{account, oe.Nonce}] = true
	if n.balances == nil {
		n.balances = map[[2]starknet.Felt]*big.Int{}
	}
	var events, inner []jsonv.Value
	for i, m := range moves {
		n.balances[[2]starknet.Felt{m.token, account}].Sub(n.balances[[2]starknet.Felt{m.token, account}], m.amount)
		k := [2]starknet.Felt{m.token, m.to}
		if n.balances[k] == nil {
			n.balances[k] = new(big.Int)
		}
		n.balances[k].Add(n.balances[k], m.amount)
		events = append(events, jsonv.Obj("from_address", m.token.String(),
			"keys", []jsonv.Value{starknet.SelectorTransferEvent.String(), account.String(), m.to.String()},
			"data", strs(oe.Calls[i].Calldata[1:])))
		inner = append(inner, invocation(m.token, starknet.SelectorTransfer, oe.Calls[i].Calldata, nil))
	}
	// execute_from_outside_v2's calldata: the OutsideExecution serialized
	// (caller, nonce, after, before, the calls as to, selector, calldata
	// length and calldata) and the signature with its length.
	cd := []starknet.Felt{oe.Caller, oe.Nonce, oe.ExecuteAfter, oe.ExecuteBefore, starknet.FeltOfUint64(uint64(len(oe.Calls)))}
	for _, c := range oe.Calls {
		cd = append(cd, c.To, c.Selector, starknet.FeltOfUint64(uint64(len(c.Calldata))))
		cd = append(cd, c.Calldata...)
	}
	cd = append(cd, starknet.FeltOfUint64(uint64(len(signature))))
	cd = append(cd, signature...)
	eo := invocation(account, starknet.SelectorExecuteFromOutsideV2, cd, inner)
	root := invocation(feePayer, selectorExecute, []starknet.Felt{{1}}, []jsonv.Value{eo})
	tx := starknet.PoseidonHashMany(feePayer, account, oe.Nonce, starknet.FeltOfUint64(n.Block))
	if n.txs == nil {
		n.txs = map[starknet.Felt]landed{}
	}
	n.txs[tx] = landed{
		receipt: jsonv.Obj("type", "INVOKE", "transaction_hash", tx.String(),
			"actual_fee", jsonv.Obj("amount", "0x1", "unit", "FRI"), "execution_status", "SUCCEEDED",
			"finality_status", "ACCEPTED_ON_L2", "block_hash", starknet.PoseidonHash(tx, starknet.FeltOfUint64(n.Block)).String(),
			"block_number", jsonv.Number(n.Block), "messages_sent", []jsonv.Value{}, "events", events),
		trace: jsonv.Obj("type", "INVOKE", "execute_invocation", root),
	}
	n.Block++
	return tx, nil
}

func strs(fs []starknet.Felt) []jsonv.Value {
	out := make([]jsonv.Value, len(fs))
	for i, f := range fs {
		out[i] = f.String()
	}
	return out
}

func invocation(contract, selector starknet.Felt, calldata []starknet.Felt, calls []jsonv.Value) *jsonv.Object {
	if calls == nil {
		calls = []jsonv.Value{}
	}
	return jsonv.Obj("contract_address", contract.String(), "entry_point_selector", selector.String(),
		"calldata", strs(calldata), "entry_point_type", "EXTERNAL", "call_type", "CALL", "result", []jsonv.Value{},
		"calls", calls, "events", []jsonv.Value{}, "messages", []jsonv.Value{}, "is_reverted", false)
}

var selectorBalanceOf = starknet.Selector("balance_of")

func (n *Node) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n.Calls.Add(1)
	answer := func(v jsonv.Value) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(jsonv.Marshal(jsonv.Obj("jsonrpc", "2.0", "id", 1, "result", v)))
	}
	fail := func(code int, msg string) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(jsonv.Marshal(jsonv.Obj("jsonrpc", "2.0", "id", 1, "error", jsonv.Obj("code", code, "message", msg))))
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	v, err := jsonv.Parse(body)
	req, _ := jsonv.AsObject(v)
	if err != nil || req == nil {
		fail(-32700, "Parse error")
		return
	}
	method, _ := req.GetString("method")
	params, _ := jsonv.AsArray(member(req, "params"))
	n.mu.Lock()
	defer n.mu.Unlock()
	switch method {
	case "starknet_getTransactionReceipt", "starknet_traceTransaction":
		if len(params) != 1 {
			fail(-32602, "Invalid params")
			return
		}
		tx, _ := felt(params[0])
		l, ok := n.txs[tx]
		if !ok {
			fail(codeTxUnknown, "Transaction hash not found")
			return
		}
		if method == "starknet_traceTransaction" {
			answer(l.trace)
		} else {
			answer(l.receipt)
		}
	case "starknet_call":
		if len(params) != 2 {
			fail(-32602, "Invalid params")
			return
		}
		c, _ := jsonv.AsObject(params[0])
		contract, _ := felt(member(c, "contract_address"))
		sel, _ := felt(member(c, "entry_point_selector"))
		data, _ := felts(member(c, "calldata"))
		pub, isAccount := n.keys[contract]
		switch {
		case isAccount && sel == SelectorGetPublicKey && len(data) == 0:
			answer([]jsonv.Value{pub.String()})
		case isAccount && sel == SelectorNonceAvailable && len(data) == 1:
			free := "0x1"
			if n.used[[2]starknet.Felt{contract, data[0]}] {
				free = "0x0"
			}
			answer([]jsonv.Value{free})
		case sel == selectorBalanceOf && len(data) == 1:
			b := n.balances[[2]starknet.Felt{contract, data[0]}]
			if b == nil {
				b = new(big.Int)
			}
			hi, lo := new(big.Int).QuoRem(b, new(big.Int).Lsh(big.NewInt(1), 128), new(big.Int))
			answer([]jsonv.Value{"0x" + lo.Text(16), "0x" + hi.Text(16)}) // a u256 is (low, high)
		case !isAccount && n.balances == nil:
			fail(20, "Contract not found")
		default:
			fail(40, "Contract error")
		}
	default:
		fail(-32601, "Method not found")
	}
}
