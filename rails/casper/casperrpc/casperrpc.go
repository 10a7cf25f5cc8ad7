// Package casperrpc reads a Casper node over its JSON-RPC API
// (https://docs.casper.network/developers/json-rpc/): the chainspec name it
// runs (info_get_status), which the payer's signer checks before it signs,
// and a transaction with its execution (info_get_transaction, as a
// Version1 transaction and then as a Deploy), which the seller's status
// and recovery read. Node is a stand-in that answers as a node does, for
// the demo and the tests, which run offline.
package casperrpc

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/big"
	"net/http"
	"strconv"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/casper"
	"github.com/termsgate/termsgate/rails/restjson"
)

// maxAnswer bounds one answer: a transaction with its approvals and
// execution result, whose effects a node lists in full.
const maxAnswer = 1 << 20

// The node's JSON-RPC error codes for an unknown transaction
// (casper-sidecar's ErrorCode: NoSuchDeploy, NoSuchTransaction).
const (
	CodeNoSuchDeploy      = -32000
	CodeNoSuchTransaction = -32014
)

// Client asks one node.
type Client struct {
	URL  string       // the node's JSON-RPC URL, e.g. http://node:7777/rpc
	Net  string       // the network it serves: casper:<chainspec name>
	HTTP *http.Client // nil: http.DefaultClient
}

var _ casper.Reader = (*Client)(nil)

// Network is the network the node serves.
func (c *Client) Network() string { return c.Net }

// Error is a failed call: the method and what went wrong. Code is the
// JSON-RPC error's code when the node answered one.
type Error struct {
	Method, Detail string
	Code           int64
}

func (e *Error) Error() string { return "casperrpc: " + e.Method + ": " + e.Detail }

func (c *Client) call(ctx context.Context, method string, params jsonv.Value) (jsonv.Value, error) {
	fail := func(format string, a ...any) error { return &Error{Method: method, Detail: fmt.Sprintf(format, a...)} }
	body := jsonv.Marshal(jsonv.Obj("jsonrpc", "2.0", "id", 1, "method", method, "params", params))
	rc := restjson.Client{Base: c.URL, HTTP: c.HTTP, Max: maxAnswer}
	v, err := rc.Do(ctx, http.MethodPost, "", "application/json", body)
	if err != nil {
		return nil, fail("%v", err)
	}
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, fail("answer is not a JSON-RPC response")
	}
	if e, ok := o.GetObject("error"); ok {
		code, _ := e.Get("code")
		n, _ := jsonv.AsInteger(code)
		msg, _ := e.GetString("message")
		if len(msg) > 200 {
			msg = msg[:200]
		}
		return nil, &Error{Method: method, Detail: "error " + strconv.FormatInt(n, 10) + ": " + msg, Code: n}
	}
	res, ok := o.GetObject("result")
	if !ok {
		return nil, fail("answer has no result object")
	}
	return res, nil
}

// ChainspecName is the chainspec name the node runs (casper-test for
// Casper's testnet).
func (c *Client) ChainspecName(ctx context.Context) (string, error) {
	v, err := c.call(ctx, "info_get_status", []jsonv.Value{})
	if err != nil {
		return "", err
	}
	o, _ := jsonv.AsObject(v)
	name, _ := o.GetString("chainspec_name")
	if !casper.IsNetwork("casper:" + name) {
		return "", &Error{Method: "info_get_status", Detail: "no chainspec_name the network's form allows"}
	}
	return name, nil
}

// Transaction reads the named transaction: asked as a Version1
// transaction and, when the node knows none, as a Deploy; nil when it
// knows neither. Its call is read from the transaction's stored target
// and named arguments, its execution from execution_info.
func (c *Client) Transaction(ctx context.Context, hash string) (*casper.Call, error) {
	if raw, err := hex.DecodeString(hash); err != nil || len(raw) != 32 {
		return nil, &Error{Method: "info_get_transaction", Detail: "a transaction hash is 64 hex digits"}
	}
	for _, kind := range []string{"Version1", "Deploy"} {
		v, err := c.call(ctx, "info_get_transaction", jsonv.Obj("transaction_hash", jsonv.Obj(kind, hash), "finalized_approvals", false))
		if e, ok := err.(*Error); ok && (e.Code == CodeNoSuchTransaction || e.Code == CodeNoSuchDeploy) {
			continue
		}
		if err != nil {
			return nil, err
		}
		call, err := ReadTransaction(v)
		if err != nil {
			return nil, &Error{Method: "info_get_transaction", Detail: err.Error()}
		}
		return call, nil
	}
	return nil, nil
}

type shapeError string

func (e shapeError) Error() string { return string(e) }

// ReadTransaction reads info_get_transaction's result: the call a Version1
// transaction's stored target (by package hash) and entry point make, or a
// Deploy's StoredVersionedContractByHash session, with its named arguments
// from, to (Key), value (U256) and nonce (32 bytes); and execution_info's
// block height and error message. A call by any other target has no
// package hash, so no status reads it as the payment's.
func ReadTransaction(v jsonv.Value) (*casper.Call, error) {
	res, _ := jsonv.AsObject(v)
	tx, ok := res.GetObject("transaction")
	if !ok {
		return nil, shapeError("no transaction")
	}
	c := &casper.Call{}
	var args []jsonv.Value
	switch {
	case tx.Has("Version1"):
		v1, _ := tx.GetObject("Version1")
		fields, _ := getObject(v1, "payload", "fields")
		target, _ := getObject(fields, "target", "Stored", "id", "ByPackageHash")
		c.PackageHash, _ = target.GetString("addr")
		ep, _ := fields.GetObject("entry_point")
		c.EntryPoint, _ = ep.GetString("Custom")
		named, _ := getObject(fields, "args")
		args, _ = jsonv.AsArray(mget(named, "Named"))
	case tx.Has("Deploy"):
		d, _ := tx.GetObject("Deploy")
		s, _ := getObject(d, "session", "StoredVersionedContractByHash")
		c.PackageHash, _ = s.GetString("hash")
		c.EntryPoint, _ = s.GetString("entry_point")
		args, _ = jsonv.AsArray(mget(s, "args"))
	default:
		return nil, shapeError("a transaction neither Version1 nor Deploy")
	}
	if !casper.IsPackageHash(c.PackageHash) {
		c.PackageHash = ""
	}
	if len(args) > 64 {
		return nil, shapeError("more than 64 arguments")
	}
	for _, a := range args {
		pair, _ := jsonv.AsArray(a)
		if len(pair) != 2 {
			return nil, shapeError("an argument that is not [name, value]")
		}
		name, _ := jsonv.AsString(pair[0])
		cl, _ := jsonv.AsObject(pair[1])
		bytesHex, _ := cl.GetString("bytes")
		b, err := hex.DecodeString(bytesHex)
		if err != nil {
			return nil, shapeError("an argument's bytes are not hex")
		}
		clType, _ := cl.Get("cl_type")
		switch name {
		case "from", "to":
			if clType == "Key" && len(b) == 33 && b[0] <= 1 {
				if name == "from" {
					c.From = hex.EncodeToString(b)
				} else {
					c.To = hex.EncodeToString(b)
				}
			}
		case "value":
			if clType == "U256" && len(b) >= 1 && int(b[0]) == len(b)-1 && len(b) <= 33 {
				le := b[1:]
				be := make([]byte, len(le))
				for i := range le {
					be[len(le)-1-i] = le[i]
				}
				c.Value = new(big.Int).SetBytes(be)
			}
		case "nonce":
			c.Nonce = nonceBytes(clType, b)
		}
	}
	info, ok := res.GetObject("execution_info")
	if !ok {
		return c, nil // not executed yet: null or absent
	}
	er, ok := info.GetObject("execution_result")
	if !ok {
		return c, nil
	}
	hv, _ := info.Get("block_height")
	h, okH := jsonv.AsSafeInt(hv)
	if !okH || h < 0 {
		return nil, shapeError("an execution without a block height")
	}
	c.Executed, c.BlockHeight, c.HasHeight = true, uint64(h), true
	switch {
	case er.Has("Version2"):
		v2, _ := er.GetObject("Version2")
		msg, has := v2.Get("error_message")
		if s, ok := msg.(string); has && ok {
			c.Error, c.HasError = s, true
		} else if has && msg != nil {
			return nil, shapeError("an error_message that is neither null nor a string")
		}
	case er.Has("Version1"):
		v1, _ := er.GetObject("Version1")
		if f, ok := v1.GetObject("Failure"); ok {
			c.Error, _ = f.GetString("error_message")
			c.HasError = true
		} else if !v1.Has("Success") {
			return nil, shapeError("a Version1 result neither Success nor Failure")
		}
	default:
		return nil, shapeError("an execution result neither Version1 nor Version2")
	}
	return c, nil
}

// nonceBytes is a nonce argument's 32 bytes: a ByteArray(32), or a
// List<U8> (a u32 length, then the bytes) of 32.
func nonceBytes(clType jsonv.Value, b []byte) []byte {
	if o, ok := jsonv.AsObject(clType); ok {
		if n, _ := o.Get("ByteArray"); n == jsonv.Number(32) && len(b) == 32 {
			return b
		}
		if l, _ := o.Get("List"); l == "U8" && len(b) == 36 && binary.LittleEndian.Uint32(b) == 32 {
			return b[4:]
		}
	}
	return nil
}

func mget(o *jsonv.Object, k string) jsonv.Value { v, _ := o.Get(k); return v }

func getObject(o *jsonv.Object, path ...string) (*jsonv.Object, bool) {
	for _, k := range path {
		var ok bool
		if o, ok = o.GetObject(k); !ok {
			return nil, false
		}
	}
	return o, true
}
