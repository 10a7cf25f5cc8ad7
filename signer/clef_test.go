package signer

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
)

// A real clef cannot be built here: go-ethereum removed cmd/clef from its
// tree in v1.17.4 (it lives in a separate repository now), so
// `go install github.com/ethereum/go-ethereum/cmd/clef@v1.17.10` answers
// "does not contain package", and no older go-ethereum is in the module
// cache of these offline machines. fakeClef speaks the same API the way
// Clef's SignerAPI.SignTypedData does: it reads the address as a
// MixedcaseAddress and the typed data into apitypes.TypedData, hashes with
// apitypes.TypedDataAndHash, signs and writes v as 27/28, and answers JSON-RPC
// errors with a 200.
type fakeClef struct {
	key   *ecdsa.PrivateKey
	calls atomic.Int64

	mu     sync.Mutex
	asked  apitypes.TypedData // the last typed data it was asked to sign
	answer func(sig []byte) (any, *ClefError)
}

func newFakeClef(t *testing.T) *fakeClef {
	key, err := crypto.HexToECDSA(strings.TrimPrefix(AnvilKey, "0x"))
	if err != nil {
		t.Fatal(err)
	}
	return &fakeClef{key: key}
}

func (f *fakeClef) address() common.Address { return crypto.PubkeyToAddress(f.key.PublicKey) }

// handle answers one JSON-RPC request body.
func (f *fakeClef) handle(body []byte) []byte {
	f.calls.Add(1)
	var req struct {
		JSONRPC string            `json:"jsonrpc"`
		ID      json.RawMessage   `json:"id"`
		Method  string            `json:"method"`
		Params  []json.RawMessage `json:"params"`
	}
	reply := func(result any, e *ClefError) []byte {
		out := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		if e != nil {
			out["error"] = e
		} else {
			out["result"] = result
		}
		b, _ := json.Marshal(out)
		return b
	}
	if err := json.Unmarshal(body, &req); err != nil || req.JSONRPC != "2.0" {
		return reply(nil, &ClefError{Code: -32600, Message: "invalid request"})
	}
	if req.Method == "account_list" {
		return reply([]common.Address{f.address()}, nil)
	}
	if req.Method != "account_signTypedData" || len(req.Params) != 2 {
		return reply(nil, &ClefError{Code: -32601, Message: "the method " + req.Method + " does not exist/is not available"})
	}
	var addrText string
	if err := json.Unmarshal(req.Params[0], &addrText); err != nil {
		return reply(nil, &ClefError{Code: -32602, Message: "invalid address"})
	}
	addr, err := common.NewMixedcaseAddressFromString(addrText)
	if err != nil || addr.Address() != f.address() {
		return reply(nil, &ClefError{Code: -32000, Message: "unknown account"})
	}
	var td apitypes.TypedData
	if err := json.Unmarshal(req.Params[1], &td); err != nil {
		return reply(nil, &ClefError{Code: -32602, Message: "invalid typed data: " + err.Error()})
	}
	digest, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		return reply(nil, &ClefError{Code: -32000, Message: err.Error()})
	}
	sig, err := crypto.Sign(digest, f.key)
	if err != nil {
		return reply(nil, &ClefError{Code: -32000, Message: err.Error()})
	}
	sig[64] += 27 // as Clef writes it
	f.mu.Lock()
	f.asked = td
	answer := f.answer
	f.mu.Unlock()
	if answer != nil {
		return reply(answer(sig))
	}
	return reply(hexutil.Bytes(sig), nil)
}

func (f *fakeClef) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, "invalid content type, only application/json is supported", http.StatusUnsupportedMediaType)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(f.handle(body))
}

// serveIPC answers each connection's JSON values on a Unix socket, as Clef's
// IPC endpoint does.
func (f *fakeClef) serveIPC(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "clef.ipc")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Skipf("no unix sockets here: %v", err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				dec := json.NewDecoder(conn)
				for {
					var raw json.RawMessage
					if dec.Decode(&raw) != nil {
						return
					}
					if _, err := conn.Write(f.handle(raw)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return path
}

// transferRequest is the request the x402/exact/eip155/eip3009 pairing asks
// a signer to sign.
func transferRequest(from string) *jsonv.Object {
	auth := jsonv.Obj("from", from, "to", "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", "value", "10000",
		"validAfter", "0", "validBefore", "1790000060",
		"nonce", "0x8b1e122580ae3f6a8c3d36a24294e1260a87bde70f597279b973e39310072938")
	td := evm.TransferWithAuthorization("USDC", "2", 84532, "0x036CbD53842c5426634e7929541eC2318f3dCF7e", auth)
	return jsonv.Obj("kind", "eip712", "typedData", td)
}

func checkSignature(t *testing.T, req *jsonv.Object, got jsonv.Value, want common.Address) {
	t.Helper()
	s, ok := jsonv.AsString(got)
	if !ok {
		t.Fatalf("answer %v is not a string", got)
	}
	sig, ok := evm.HexBytes(s)
	if !ok || len(sig) != 65 || (sig[64] != 27 && sig[64] != 28) {
		t.Fatalf("signature %s", s)
	}
	td, _ := req.GetObject("typedData")
	digest, err := evm.TypedDataDigest(td)
	if err != nil {
		t.Fatal(err)
	}
	who, err := evm.Recover(digest, sig)
	if err != nil || who != want {
		t.Fatalf("recovers to %s (%v), want %s", who.Hex(), err, want.Hex())
	}
}

func TestClefSignsOverHTTPWhatItWasAsked(t *testing.T) {
	fc := newFakeClef(t)
	srv := httptest.NewServer(fc)
	defer srv.Close()
	c, err := NewClef(srv.URL, fc.address().Hex(), "eip155:84532")
	if err != nil {
		t.Fatal(err)
	}
	if c.Account() != "eip155:84532:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266" {
		t.Fatalf("account %s", c.Account())
	}
	req := transferRequest(fc.address().Hex())
	got, err := c.Sign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	checkSignature(t, req, got, fc.address())
	// The fake read the typed data the pairing built, member for member.
	fc.mu.Lock()
	asked := fc.asked
	fc.mu.Unlock()
	if asked.PrimaryType != "TransferWithAuthorization" || asked.Message["value"] != "10000" ||
		asked.Message["nonce"] != "0x8b1e122580ae3f6a8c3d36a24294e1260a87bde70f597279b973e39310072938" ||
		asked.Domain.VerifyingContract != "0x036CbD53842c5426634e7929541eC2318f3dCF7e" ||
		asked.Domain.ChainId == nil || (*big.Int)(asked.Domain.ChainId).String() != "84532" {
		t.Fatalf("clef was asked %+v", asked)
	}
	// The same signature as the local key: same digest, deterministic RFC 6979.
	l, _ := FromHex(AnvilKey, "eip155:84532")
	want, _ := l.Sign(context.Background(), req)
	if got != want {
		t.Fatalf("clef %v, local %v", got, want)
	}
}

func TestClefOverIPC(t *testing.T) {
	fc := newFakeClef(t)
	path := fc.serveIPC(t)
	c, err := NewClef(path, fc.address().Hex(), "eip155:84532")
	if err != nil {
		t.Fatal(err)
	}
	req := transferRequest(fc.address().Hex())
	for range 2 {
		got, err := c.Sign(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		checkSignature(t, req, got, fc.address())
	}
	if n := fc.calls.Load(); n != 2 {
		t.Fatalf("%d calls", n)
	}
}

func TestClefNormalisesV(t *testing.T) {
	fc := newFakeClef(t)
	fc.answer = func(sig []byte) (any, *ClefError) {
		s := append([]byte(nil), sig...)
		s[64] -= 27 // an implementation that writes 0/1
		return hexutil.Bytes(s), nil
	}
	srv := httptest.NewServer(fc)
	defer srv.Close()
	c, _ := NewClef(srv.URL, fc.address().Hex(), "eip155:84532")
	req := transferRequest(fc.address().Hex())
	got, err := c.Sign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	checkSignature(t, req, got, fc.address())
}

func TestClefRefusals(t *testing.T) {
	other, _ := crypto.GenerateKey()
	cases := []struct {
		name   string
		answer func(sig []byte) (any, *ClefError)
		want   string
	}{
		{"denied", func([]byte) (any, *ClefError) { return nil, &ClefError{Code: -32000, Message: "Request denied"} }, "Request denied"},
		{"another key", func([]byte) (any, *ClefError) {
			td, _ := transferRequest("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266").GetObject("typedData")
			d, _ := evm.TypedDataDigest(td)
			s, _ := crypto.Sign(d[:], other)
			return hexutil.Bytes(s), nil
		}, "does not recover"},
		{"other data", func(sig []byte) (any, *ClefError) {
			s := append([]byte(nil), sig...)
			s[10] ^= 1
			return hexutil.Bytes(s), nil
		}, "does not recover"},
		{"short", func(sig []byte) (any, *ClefError) { return hexutil.Bytes(sig[:64]), nil }, "65-byte"},
		{"bad v", func(sig []byte) (any, *ClefError) {
			s := append([]byte(nil), sig...)
			s[64] = 5
			return hexutil.Bytes(s), nil
		}, "v is 5"},
		{"not a string", func([]byte) (any, *ClefError) { return map[string]int{"x": 1}, nil }, "unexpected result"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fc := newFakeClef(t)
			fc.answer = tc.answer
			srv := httptest.NewServer(fc)
			defer srv.Close()
			c, _ := NewClef(srv.URL, fc.address().Hex(), "eip155:84532")
			_, err := c.Sign(context.Background(), transferRequest(fc.address().Hex()))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
	t.Run("clef error is typed", func(t *testing.T) {
		fc := newFakeClef(t)
		fc.answer = cases[0].answer
		srv := httptest.NewServer(fc)
		defer srv.Close()
		c, _ := NewClef(srv.URL, fc.address().Hex(), "eip155:84532")
		_, err := c.Sign(context.Background(), transferRequest(fc.address().Hex()))
		var ce *ClefError
		if !errors.As(err, &ce) || ce.Code != -32000 {
			t.Fatalf("err %v", err)
		}
	})
}

func TestClefUnknownAccountAndKinds(t *testing.T) {
	fc := newFakeClef(t)
	srv := httptest.NewServer(fc)
	defer srv.Close()
	c, _ := NewClef(srv.URL, "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", "eip155:84532")
	if _, err := c.Sign(context.Background(), transferRequest(fc.address().Hex())); err == nil || !strings.Contains(err.Error(), "unknown account") {
		t.Fatalf("err %v", err)
	}
	before := fc.calls.Load()
	for _, req := range []*jsonv.Object{jsonv.Obj("kind", "tempo-call"), jsonv.Obj("kind", "eip712"),
		jsonv.Obj("kind", "eip712", "typedData", jsonv.Obj("primaryType", "Nope"))} {
		if _, err := c.Sign(context.Background(), req); err == nil {
			t.Errorf("signed %s", jsonv.String(req))
		}
	}
	if fc.calls.Load() != before {
		t.Fatal("asked clef for a request it could not sign")
	}
	if _, err := NewClef(srv.URL, "f39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "eip155:84532"); err == nil {
		t.Fatal("accepted an address without 0x")
	}
	if _, err := NewClef("", fc.address().Hex(), "eip155:84532"); err == nil {
		t.Fatal("accepted no endpoint")
	}
}

func TestClefHTTPLayerAndDeadline(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/forbidden":
			http.Error(w, "invalid host specified", http.StatusForbidden)
		case "/huge":
			w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":"` + strings.Repeat("a", 70<<10) + `"}`))
		case "/slow":
			io.ReadAll(r.Body) // so that the server notices the client leaving
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}
	}))
	defer srv.Close()
	addr := "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
	req := transferRequest(addr)
	c, _ := NewClef(srv.URL+"/forbidden", addr, "eip155:84532")
	if _, err := c.Sign(context.Background(), req); err == nil || !strings.Contains(err.Error(), "HTTP 403") {
		t.Fatalf("err %v", err)
	}
	c, _ = NewClef(srv.URL+"/huge", addr, "eip155:84532")
	if _, err := c.Sign(context.Background(), req); err == nil || !strings.Contains(err.Error(), "too long") {
		t.Fatalf("err %v", err)
	}
	c, _ = NewClef(srv.URL+"/slow", addr, "eip155:84532")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := c.Sign(ctx, req); err == nil || time.Since(start) > 2*time.Second {
		t.Fatalf("err %v after %s", err, time.Since(start))
	}
}

func TestClefAccounts(t *testing.T) {
	fc := newFakeClef(t)
	srv := httptest.NewServer(fc)
	defer srv.Close()
	got, err := ClefAccounts(context.Background(), srv.URL)
	if err != nil || len(got) != 1 || got[0] != fc.address() {
		t.Fatalf("accounts %v, %v", got, err)
	}
	if _, err := ClefAccounts(context.Background(), ""); err == nil {
		t.Fatal("no endpoint accepted")
	}
}
