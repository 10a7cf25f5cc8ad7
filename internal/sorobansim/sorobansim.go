// Package sorobansim is a loopback Soroban RPC for tests and the offline
// demo: getLatestLedger answers a fixed ledger, and simulateTransaction
// answers, in Soroban RPC's documented shapes, what a real node answers for
// one token transfer from an account that is not the source: one address
// authorization entry of the payer (recording mode: the given nonce,
// expiration 0, no signature) over exactly the invoked transfer, and its
// resources. It does not execute contracts: it is the shape of the answer,
// with the values the tests choose.
package sorobansim

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/stellar/go-stellar-sdk/xdr"
)

// Server is the simulator's handler.
type Server struct {
	Ledger      uint32 // what getLatestLedger and simulateTransaction report
	Nonce       int64  // the nonce of the recorded authorization
	ResourceFee int64
	// Lie, when set, changes the recorded entry before it is answered: a
	// node that lies about what the payer would sign.
	Lie func(e *xdr.SorobanAuthorizationEntry)

	Calls atomic.Int64
}

type rpcRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Transaction string `json:"transaction"`
	} `json:"params"`
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.Calls.Add(1)
	var req rpcRequest
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if r.Method != http.MethodPost || json.Unmarshal(body, &req) != nil {
		http.Error(w, "POST a JSON-RPC request", http.StatusBadRequest)
		return
	}
	var result any
	switch req.Method {
	case "getLatestLedger":
		result = map[string]any{"id": "e7d0b7ae4d1a0ad7c3a65f93e2f1e3ffc85a4d7a3aaf13d1bbae5b26f2b6d8a0", "protocolVersion": 23, "sequence": s.Ledger}
	case "simulateTransaction":
		result = s.simulate(req.Params.Transaction)
	default:
		answer(w, req.ID, nil, map[string]any{"code": -32601, "message": "method not found"})
		return
	}
	answer(w, req.ID, result, nil)
}

func answer(w http.ResponseWriter, id json.RawMessage, result, rpcErr any) {
	m := map[string]any{"jsonrpc": "2.0", "id": id}
	if rpcErr != nil {
		m["error"] = rpcErr
	} else {
		m["result"] = result
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(m)
}

func (s *Server) simulate(tx string) map[string]any {
	fail := func(msg string) map[string]any {
		return map[string]any{"error": msg, "latestLedger": s.Ledger}
	}
	var env xdr.TransactionEnvelope
	if err := xdr.SafeUnmarshalBase64(tx, &env); err != nil || env.Type != xdr.EnvelopeTypeEnvelopeTypeTx {
		return fail("transaction is not a v1 envelope")
	}
	ops := env.V1.Tx.Operations
	if len(ops) != 1 || ops[0].Body.InvokeHostFunctionOp == nil || ops[0].Body.InvokeHostFunctionOp.HostFunction.InvokeContract == nil {
		return fail("not one contract invocation")
	}
	call := *ops[0].Body.InvokeHostFunctionOp.HostFunction.InvokeContract
	if call.FunctionName != "transfer" || len(call.Args) != 3 || call.Args[0].Address == nil {
		return fail("not a transfer")
	}
	entry := xdr.SorobanAuthorizationEntry{
		Credentials: xdr.SorobanCredentials{Type: xdr.SorobanCredentialsTypeSorobanCredentialsAddress, Address: &xdr.SorobanAddressCredentials{
			Address: *call.Args[0].Address, Nonce: xdr.Int64(s.Nonce), Signature: xdr.ScVal{Type: xdr.ScValTypeScvVoid},
		}},
		RootInvocation: xdr.SorobanAuthorizedInvocation{Function: xdr.SorobanAuthorizedFunction{
			Type: xdr.SorobanAuthorizedFunctionTypeSorobanAuthorizedFunctionTypeContractFn, ContractFn: &call}},
	}
	if s.Lie != nil {
		s.Lie(&entry)
	}
	auth, err := xdr.MarshalBase64(&entry)
	if err != nil {
		return fail(err.Error())
	}
	data, err := xdr.MarshalBase64(&xdr.SorobanTransactionData{
		Resources:   xdr.SorobanResources{Instructions: 1_000_000, DiskReadBytes: 1024, WriteBytes: 256},
		ResourceFee: xdr.Int64(s.ResourceFee),
	})
	if err != nil {
		return fail(err.Error())
	}
	return map[string]any{
		"transactionData": data,
		"minResourceFee":  strconv.FormatInt(s.ResourceFee, 10),
		"results":         []any{map[string]any{"auth": []string{auth}, "xdr": "AAAAAQ=="}},
		"latestLedger":    s.Ledger,
	}
}
