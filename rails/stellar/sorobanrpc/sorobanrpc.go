// Package sorobanrpc gives the Stellar pairings their buyer inputs from a
// Soroban RPC endpoint: the offer's transfer simulated (simulateTransaction),
// its authorization entries and resources assembled into the envelope the
// payer signs (simulatedXdr), and the ledger to count the expiration from
// (getLatestLedger: currentLedger). The methods and shapes are those of
// Soroban RPC's JSON-RPC 2.0 API (https://developers.stellar.org/docs/data/apis/rpc/api-reference/methods).
//
// The simulated transaction's source is the all-zero account: the payer is
// then not the source, so the simulation returns an address authorization
// for the payer, which is what these pairings sign; the sponsor (x402's
// facilitator, MPP's fee payer) replaces the source before submitting.
package sorobanrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strconv"

	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/stellar"
)

// MaxResponseBytes bounds an RPC answer: a simulation of one transfer is a
// few KiB.
const MaxResponseBytes = 1 << 20

// Client speaks to one Soroban RPC endpoint.
type Client struct {
	URL  string       // the endpoint, e.g. https://soroban-testnet.stellar.org
	HTTP *http.Client // nil: http.DefaultClient
}

// Error is an RPC failure: the transport, the HTTP status, a JSON-RPC
// error, or an answer that is not the documented shape.
type Error struct {
	Method string
	Msg    string
}

func (e *Error) Error() string { return "soroban rpc " + e.Method + ": " + e.Msg }

func (c *Client) call(ctx context.Context, method string, params any, result any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return &Error{method, err.Error()}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return &Error{method, err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return &Error{method, err.Error()}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		return &Error{method, err.Error()}
	}
	if len(raw) > MaxResponseBytes {
		return &Error{method, fmt.Sprintf("answer over %d bytes", MaxResponseBytes)}
	}
	if resp.StatusCode != http.StatusOK {
		return &Error{method, "HTTP " + resp.Status}
	}
	var envelope struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &envelope); err != nil {
		return &Error{method, "answer is not JSON-RPC: " + err.Error()}
	}
	if envelope.Error != nil {
		return &Error{method, fmt.Sprintf("error %d: %s", envelope.Error.Code, envelope.Error.Message)}
	}
	if len(envelope.Result) == 0 || string(envelope.Result) == "null" {
		return &Error{method, "answer has no result"}
	}
	if err := json.Unmarshal(envelope.Result, result); err != nil {
		return &Error{method, "result is not the documented shape: " + err.Error()}
	}
	return nil
}

// LatestLedger is getLatestLedger's sequence.
func (c *Client) LatestLedger(ctx context.Context) (uint32, error) {
	var r struct {
		Sequence *uint32 `json:"sequence"`
	}
	if err := c.call(ctx, "getLatestLedger", map[string]any{}, &r); err != nil {
		return 0, err
	}
	if r.Sequence == nil {
		return 0, &Error{"getLatestLedger", "no sequence"}
	}
	return *r.Sequence, nil
}

// Simulation is what simulateTransaction answers for one host function.
type Simulation struct {
	TransactionData string   // base64 SorobanTransactionData
	MinResourceFee  int64    // stroops
	Auth            []string // base64 SorobanAuthorizationEntry, the first result's
	LatestLedger    uint32
}

// Simulate runs simulateTransaction on a base64 envelope.
func (c *Client) Simulate(ctx context.Context, envelope string) (*Simulation, error) {
	var r struct {
		Error           string `json:"error"`
		TransactionData string `json:"transactionData"`
		MinResourceFee  string `json:"minResourceFee"`
		Results         []struct {
			Auth []string `json:"auth"`
		} `json:"results"`
		LatestLedger uint32 `json:"latestLedger"`
	}
	if err := c.call(ctx, "simulateTransaction", map[string]any{"transaction": envelope}, &r); err != nil {
		return nil, err
	}
	if r.Error != "" {
		return nil, &Error{"simulateTransaction", "the simulation failed: " + r.Error}
	}
	fee, err := strconv.ParseInt(r.MinResourceFee, 10, 64)
	if err != nil || fee < 0 || r.TransactionData == "" || len(r.Results) != 1 {
		return nil, &Error{"simulateTransaction", "no transactionData, minResourceFee or single result"}
	}
	return &Simulation{TransactionData: r.TransactionData, MinResourceFee: fee, Auth: r.Results[0].Auth, LatestLedger: r.LatestLedger}, nil
}

// Offer is the transfer a Stellar offer asks for.
type Offer struct {
	Network, Asset, To string
	Amount             *big.Int
}

// OfferOf reads the offer a Stellar pairing would pay for account in a
// seller's document: the pairing's read, then its choice (the first option
// or challenge on the account's network).
func OfferOf(pairing string, doc jsonv.Value, account string) (*Offer, error) {
	switch pairing {
	case stellar.ExactID:
		p := stellar.Exact{}
		read, err := p.Read(doc)
		if err != nil {
			return nil, err
		}
		choice, err := p.Choose(read, account, placeholder(), 0, "")
		if err != nil {
			return nil, err
		}
		acc, _ := choice.(*jsonv.Object).GetObject("accepted")
		amount, ok := new(big.Int).SetString(mpp.String(acc, "amount"), 10)
		if !ok {
			return nil, rails.Refuse("x402/option-malformed")
		}
		return &Offer{Network: mpp.String(acc, "network"), Asset: mpp.String(acc, "asset"), To: mpp.String(acc, "payTo"), Amount: amount}, nil
	case stellar.ChargeID:
		p := stellar.Charge{}
		read, err := p.Read(doc)
		if err != nil {
			return nil, err
		}
		choice, err := p.Choose(read, account, placeholder(), 0, "")
		if err != nil {
			return nil, err
		}
		ch, _ := choice.(*jsonv.Object).GetObject("challenge")
		checked, err := mpp.CheckChallenge(ch, true)
		if err != nil {
			return nil, err
		}
		amount, _ := mpp.Uint256(mpp.String(checked.Request, "amount"))
		return &Offer{Network: mpp.String(checked.Details, "network"), Asset: mpp.String(checked.Request, "currency"),
			To: mpp.String(checked.Request, "recipient"), Amount: amount}, nil
	}
	return nil, fmt.Errorf("sorobanrpc: %s is not a Stellar pairing", pairing)
}

// placeholder inputs let the pairing's own choice run before the inputs
// exist; only the option it picks is used.
func placeholder() *jsonv.Object {
	return jsonv.Obj(stellar.InputSimulatedXdr, "-", stellar.InputCurrentLedger, 0)
}

// Inputs are the buyer inputs of a Stellar pairing for account's payment of
// doc: {simulatedXdr, currentLedger}. It simulates the transfer the offer
// asks for, assembles the envelope, and takes the ledger from
// getLatestLedger. The pairing's build checks the result like any other
// input, so an RPC that lies gets nothing signed.
func (c *Client) Inputs(ctx context.Context, pairing string, doc jsonv.Value, account string) (*jsonv.Object, error) {
	o, err := OfferOf(pairing, doc, account)
	if err != nil {
		return nil, err
	}
	a, _ := rails.ParseAccount(account)
	unsigned, err := TransferEnvelope(a.Address, o)
	if err != nil {
		return nil, err
	}
	text, err := xdr.MarshalBase64(unsigned)
	if err != nil {
		return nil, err
	}
	sim, err := c.Simulate(ctx, text)
	if err != nil {
		return nil, err
	}
	assembled, err := Assemble(unsigned, sim)
	if err != nil {
		return nil, err
	}
	ledger, err := c.LatestLedger(ctx)
	if err != nil {
		return nil, err
	}
	return jsonv.Obj(stellar.InputSimulatedXdr, assembled, stellar.InputCurrentLedger, int64(ledger)), nil
}

// BaseFee is the inclusion fee of the simulated transaction, in stroops.
const BaseFee = 100

// TransferEnvelope is the unsigned transaction of one transfer(from, to,
// amount) on the asset contract, from the all-zero source.
func TransferEnvelope(from string, o *Offer) (*xdr.TransactionEnvelope, error) {
	fromKey, ok := stellar.DecodeAccount(from)
	if !ok {
		return nil, errors.New("sorobanrpc: the payer is not a G… account")
	}
	asset, ok := stellar.DecodeContract(o.Asset)
	if !ok {
		return nil, errors.New("sorobanrpc: the asset is not a C… contract")
	}
	to, err := scAddress(o.To)
	if err != nil {
		return nil, err
	}
	if o.Amount == nil || o.Amount.Sign() < 0 || o.Amount.BitLen() > 127 {
		return nil, errors.New("sorobanrpc: the amount is not an i128")
	}
	lo := new(big.Int).And(o.Amount, new(big.Int).SetUint64(^uint64(0))).Uint64()
	hi := new(big.Int).Rsh(o.Amount, 64).Int64()
	cid := xdr.ContractId(asset)
	fk := xdr.Uint256(fromKey)
	fromAddr := xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeAccount, AccountId: &xdr.AccountId{Type: xdr.PublicKeyTypePublicKeyTypeEd25519, Ed25519: &fk}}
	amount := xdr.Int128Parts{Hi: xdr.Int64(hi), Lo: xdr.Uint64(lo)}
	call := &xdr.InvokeContractArgs{
		ContractAddress: xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeContract, ContractId: &cid},
		FunctionName:    "transfer",
		Args: []xdr.ScVal{
			{Type: xdr.ScValTypeScvAddress, Address: &fromAddr},
			{Type: xdr.ScValTypeScvAddress, Address: to},
			{Type: xdr.ScValTypeScvI128, I128: &amount},
		},
	}
	var zero xdr.Uint256
	return &xdr.TransactionEnvelope{Type: xdr.EnvelopeTypeEnvelopeTypeTx, V1: &xdr.TransactionV1Envelope{Tx: xdr.Transaction{
		SourceAccount: xdr.MuxedAccount{Type: xdr.CryptoKeyTypeKeyTypeEd25519, Ed25519: &zero},
		Fee:           BaseFee,
		Cond:          xdr.Preconditions{Type: xdr.PreconditionTypePrecondNone},
		Memo:          xdr.Memo{Type: xdr.MemoTypeMemoNone},
		Operations: []xdr.Operation{{Body: xdr.OperationBody{Type: xdr.OperationTypeInvokeHostFunction,
			InvokeHostFunctionOp: &xdr.InvokeHostFunctionOp{HostFunction: xdr.HostFunction{
				Type: xdr.HostFunctionTypeHostFunctionTypeInvokeContract, InvokeContract: call}}}}},
	}}}, nil
}

func scAddress(s string) (*xdr.ScAddress, error) {
	if m, ok := stellar.DecodeMuxed(s); ok {
		return &xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeMuxedAccount,
			MuxedAccount: &xdr.MuxedEd25519Account{Id: xdr.Uint64(m.ID), Ed25519: xdr.Uint256(m.Key)}}, nil
	}
	if k, ok := stellar.DecodeAccount(s); ok {
		key := xdr.Uint256(k)
		return &xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeAccount, AccountId: &xdr.AccountId{Type: xdr.PublicKeyTypePublicKeyTypeEd25519, Ed25519: &key}}, nil
	}
	return nil, fmt.Errorf("sorobanrpc: the payee %q is no account", s)
}

// Assemble puts a simulation into the transaction: the authorization
// entries on its operation, the resources as its Soroban data, the resource
// fee added to the inclusion fee. Each piece is decoded strictly; the result
// is read again by the pairing's build.
func Assemble(env *xdr.TransactionEnvelope, sim *Simulation) (string, error) {
	out := *env
	v1 := *env.V1
	out.V1 = &v1
	tx := &v1.Tx
	var data xdr.SorobanTransactionData
	raw, ok := stellar.DecodeBase64(sim.TransactionData)
	if !ok || xdr.SafeUnmarshal(raw, &data) != nil {
		return "", &Error{"simulateTransaction", "transactionData is not strict base64 of SorobanTransactionData"}
	}
	auth := make([]xdr.SorobanAuthorizationEntry, len(sim.Auth))
	for i, a := range sim.Auth {
		raw, ok := stellar.DecodeBase64(a)
		if !ok || xdr.SafeUnmarshal(raw, &auth[i]) != nil {
			return "", &Error{"simulateTransaction", fmt.Sprintf("auth[%d] is not strict base64 of SorobanAuthorizationEntry", i)}
		}
	}
	op := *tx.Operations[0].Body.InvokeHostFunctionOp
	op.Auth = auth
	tx.Operations = []xdr.Operation{{Body: xdr.OperationBody{Type: xdr.OperationTypeInvokeHostFunction, InvokeHostFunctionOp: &op}}}
	fee := int64(tx.Fee) + sim.MinResourceFee
	if fee > int64(^uint32(0)) {
		return "", &Error{"simulateTransaction", "minResourceFee overflows the fee"}
	}
	tx.Fee = xdr.Uint32(fee)
	tx.Ext = xdr.TransactionExt{V: 1, SorobanData: &data}
	return xdr.MarshalBase64(&out)
}

// InputsFor is Inputs for the Stellar pairings and nothing (nil, nil) for
// the others: the shape of pay.Transport.InputsFor.
func (c *Client) InputsFor(ctx context.Context, pairing string, doc jsonv.Value, account string) (*jsonv.Object, error) {
	if pairing != stellar.ExactID && pairing != stellar.ChargeID {
		return nil, nil
	}
	return c.Inputs(ctx, pairing, doc, account)
}
