package signer

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
)

// ClefTimeout bounds one signing call when the caller's context has no
// deadline. Clef waits for a person to approve on its console unless a rules
// file answers, so the bound is generous; it exists so that a signer that
// never answers cannot hold a payment open forever.
const ClefTimeout = 5 * time.Minute

// maxClefAnswer caps what is read of Clef's answer: a signature is 132
// characters, an error a sentence.
const maxClefAnswer = 64 << 10

var _ rails.Signer = (*Clef)(nil)

// Clef signs through an external signer speaking go-ethereum Clef's JSON-RPC
// API (account_signTypedData). The key never enters this process: Clef shows
// the typed data to its operator (or its rules file) and answers with the
// signature.
//
// The answer is not trusted: its v is normalised to 27/28 and the signature
// must recover, over the EIP-712 digest of exactly the request asked, to the
// configured address, so a Clef that signed other data or with another key is
// a signer failure, never a payment.
type Clef struct {
	// HTTPClient sends requests to an http(s) endpoint; nil means a client
	// with no proxy. It is not used for an IPC endpoint.
	HTTPClient *http.Client

	endpoint string
	address  common.Address
	account  string
	ids      atomic.Uint64
}

// NewClef returns a signer for address on network ("eip155:84532") that asks
// the Clef at endpoint: an http:// or https:// URL (clef --http, default
// http://localhost:8550/) or the path of its IPC socket (clef's default,
// ~/.clef/clef.ipc).
func NewClef(endpoint, address, network string) (*Clef, error) {
	if endpoint == "" {
		return nil, errors.New("signer: clef: no endpoint")
	}
	if !evm.IsAddress(address) {
		return nil, fmt.Errorf("signer: clef: %q is not an address", address)
	}
	addr := common.HexToAddress(address)
	return &Clef{endpoint: endpoint, address: addr, account: network + ":" + addr.Hex()}, nil
}

// Account is the CAIP-10 account of the configured address.
func (c *Clef) Account() string { return c.account }

// Address is the configured address.
func (c *Clef) Address() common.Address { return c.address }

// Sign asks Clef to sign an eip712 request's typedData and returns the
// signature as 0x hex, r‖s‖v with v 27/28.
func (c *Clef) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if kind, _ := req.GetString("kind"); kind != "eip712" {
		return nil, fmt.Errorf("signer: clef: does not sign %q requests", kind)
	}
	td, ok := req.GetObject("typedData")
	if !ok {
		return nil, errors.New("signer: clef: eip712 request without typedData")
	}
	// The digest is computed before asking, so that data Clef could not
	// have hashed either is refused without a round trip.
	digest, err := evm.TypedDataDigest(td)
	if err != nil {
		return nil, fmt.Errorf("signer: clef: %w", err)
	}
	var result string
	if err := c.call(ctx, "account_signTypedData", []any{c.address.Hex(), json.RawMessage(jsonv.Marshal(td))}, &result); err != nil {
		return nil, err
	}
	sig, ok := evm.HexBytes(result)
	if !ok || len(sig) != 65 {
		return nil, fmt.Errorf("signer: clef: the answer is not a 65-byte signature")
	}
	// Clef writes v as 27/28; other implementations of the API write 0/1.
	switch sig[64] {
	case 0, 1:
		sig[64] += 27
	case 27, 28:
	default:
		return nil, fmt.Errorf("signer: clef: the signature's v is %d", sig[64])
	}
	who, err := evm.Recover(digest, sig)
	if err != nil || who != c.address {
		return nil, fmt.Errorf("signer: clef: the signature does not recover to %s over the request asked", c.address.Hex())
	}
	return "0x" + hex.EncodeToString(sig), nil
}

// ClefError is an error Clef answered with, such as a denied request.
type ClefError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *ClefError) Error() string {
	return fmt.Sprintf("signer: clef: %s (code %d)", e.Message, e.Code)
}

type rpcRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      uint64 `json:"id"`
	Method  string `json:"method"`
	Params  []any  `json:"params"`
}

type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *ClefError      `json:"error"`
}

// call makes one JSON-RPC 2.0 call and decodes its result into out.
func (c *Clef) call(ctx context.Context, method string, params []any, out any) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, ClefTimeout)
		defer cancel()
	}
	id := c.ids.Add(1)
	body, err := json.Marshal(rpcRequest{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	if err != nil {
		return fmt.Errorf("signer: clef: %w", err)
	}
	var answer []byte
	if strings.HasPrefix(c.endpoint, "http://") || strings.HasPrefix(c.endpoint, "https://") {
		answer, err = c.postHTTP(ctx, body)
	} else {
		answer, err = c.callIPC(ctx, body)
	}
	if err != nil {
		return err
	}
	var resp rpcResponse
	if err := json.Unmarshal(answer, &resp); err != nil {
		return fmt.Errorf("signer: clef: the answer is not JSON-RPC: %w", err)
	}
	if string(resp.ID) != fmt.Sprint(id) {
		return errors.New("signer: clef: the answer is for another request")
	}
	if resp.Error != nil {
		return resp.Error
	}
	if err := json.Unmarshal(resp.Result, out); err != nil {
		return fmt.Errorf("signer: clef: unexpected result: %w", err)
	}
	return nil
}

func (c *Clef) postHTTP(ctx context.Context, body []byte) ([]byte, error) {
	hc := c.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: &http.Transport{Proxy: nil}}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("signer: clef: %w", err)
	}
	req.Header.Set("Content-Type", "application/json") // Clef refuses any other
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("signer: clef: %w", err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxClefAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("signer: clef: %w", err)
	}
	if len(answer) > maxClefAnswer {
		return nil, errors.New("signer: clef: the answer is too long")
	}
	// A JSON-RPC error comes back with a 200; anything else is the HTTP layer
	// refusing (wrong host, content type) and says so in its body.
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("signer: clef: HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(answer)))
	}
	return answer, nil
}

// callIPC sends one request over Clef's Unix socket. The stream carries JSON
// values back to back, so one value is read and the connection closed.
func (c *Clef) callIPC(ctx context.Context, body []byte) ([]byte, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", c.endpoint)
	if err != nil {
		return nil, fmt.Errorf("signer: clef: %w", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if _, err := conn.Write(body); err != nil {
		return nil, fmt.Errorf("signer: clef: %w", err)
	}
	var answer json.RawMessage
	if err := json.NewDecoder(io.LimitReader(conn, maxClefAnswer)).Decode(&answer); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("signer: clef: %w", ctx.Err())
		}
		return nil, fmt.Errorf("signer: clef: %w", err)
	}
	return answer, nil
}

// ClefAccounts asks the Clef at endpoint which accounts it holds
// (account_list), so that a caller given only the endpoint can pick the
// one to sign with. Clef may ask its operator to approve the listing.
func ClefAccounts(ctx context.Context, endpoint string) ([]common.Address, error) {
	if endpoint == "" {
		return nil, errors.New("signer: clef: no endpoint")
	}
	c := &Clef{endpoint: endpoint}
	var out []common.Address
	if err := c.call(ctx, "account_list", []any{}, &out); err != nil {
		return nil, err
	}
	return out, nil
}
