package mcppay_test

import (
	"bufio"
	"context"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/mppseller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/mcppay"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

// mppToolServer is a paid MCP server speaking MPP's MCP transport on stdio
// (newline-delimited JSON-RPC, written here since mcp-go's tool handlers
// cannot answer a JSON-RPC error with a code and data of their own): an
// unpaid tools/call of "report" is answered with the error -32042 whose
// data carries the seller's challenges (request and opaque as JSON
// objects); a call carrying params._meta["org.paymentauth/credential"] has
// the credential put back in its HTTP form (request and opaque base64url)
// and handed, as Authorization: Payment, to internal/mppseller's EVM
// authorization seller, which checks the EIP-3009 signature, the nonce
// bound to the challenge whose id carries H, the amount and payee. Paid,
// the result carries a receipt in _meta["org.paymentauth/receipt"].
type mppToolServer struct {
	seller       *mppseller.Authorization
	calls, paid  atomic.Int64
	lastRefusal  atomic.Value
	challengesOf func() ([]jsonv.Value, error)
	// callOf, when set, answers tools/call in place of the MPP seller.
	callOf func(params *jsonv.Object) *jsonv.Object
}

func (s *mppToolServer) serve(in io.Reader, out io.WriteCloser) {
	defer out.Close()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	for sc.Scan() {
		v, err := jsonv.Parse(sc.Bytes())
		o, _ := jsonv.AsObject(v)
		if err != nil || o == nil {
			continue
		}
		id, hasID := o.Get("id")
		if !hasID {
			continue // a notification
		}
		method, _ := o.GetString("method")
		params, _ := o.GetObject("params")
		var answer *jsonv.Object
		switch method {
		case "initialize":
			answer = jsonv.Obj("result", jsonv.Obj("protocolVersion", "2025-06-18", "capabilities", jsonv.Obj("tools", jsonv.Obj()),
				"serverInfo", jsonv.Obj("name", "mpp-paid", "version", "1")))
		case "tools/list":
			answer = jsonv.Obj("result", jsonv.Obj("tools", []jsonv.Value{jsonv.Obj("name", "report", "inputSchema", jsonv.Obj("type", "object"))}))
		case "tools/call":
			if s.callOf != nil {
				answer = s.callOf(params)
			} else {
				answer = s.call(params)
			}
		default:
			answer = jsonv.Obj("error", jsonv.Obj("code", jsonv.Number(-32601), "message", "method not found"))
		}
		answer.Set("jsonrpc", "2.0")
		answer.Set("id", id)
		if _, err := out.Write(append(jsonv.Marshal(answer), '\n')); err != nil {
			return
		}
	}
}

// required is the -32042 answer with the challenges as JSON.
func (s *mppToolServer) required(reason string) *jsonv.Object {
	issued, err := s.challengesOf()
	if err != nil {
		return jsonv.Obj("error", jsonv.Obj("code", jsonv.Number(-32603), "message", err.Error()))
	}
	list := make([]jsonv.Value, len(issued))
	for i, c := range issued {
		o := c.(*jsonv.Object).Clone()
		req, _ := mpp.DecodeObject(mpp.String(o, "request"))
		o.Set("request", req)
		if op, ok := o.GetString("opaque"); ok {
			m, _ := mpp.DecodeStringMap(op)
			o.Set("opaque", m)
		}
		list[i] = o
	}
	data := jsonv.Obj("httpStatus", jsonv.Number(402), "challenges", list)
	if reason != "" {
		data.Set("problem", jsonv.Obj("detail", reason))
	}
	return jsonv.Obj("error", jsonv.Obj("code", jsonv.Number(mcppay.CodeMPPPaymentRequired), "message", "Payment Required", "data", data))
}

func (s *mppToolServer) call(params *jsonv.Object) *jsonv.Object {
	s.calls.Add(1)
	meta, _ := params.GetObject("_meta")
	cred, ok := meta.GetObject(mcppay.MetaMPPCredential)
	if !ok {
		return s.required("")
	}
	// Back to the HTTP form the seller reads.
	httpCred := cred.Clone()
	ch, _ := httpCred.GetObject("challenge")
	ch = ch.Clone()
	if req, ok := ch.GetObject("request"); ok {
		ch.Set("request", mpp.EncodeObject(req))
	}
	if op, ok := ch.GetObject("opaque"); ok {
		ch.Set("opaque", mpp.EncodeObject(op))
	}
	httpCred.Set("challenge", ch)
	r := httptest.NewRequest(http.MethodGet, "https://api.seller.example/v1/report", nil)
	r.Header.Set("Authorization", "Payment "+mpp.EncodeB64URL(jsonv.Marshal(httpCred)))
	rec := httptest.NewRecorder()
	s.seller.ServeHTTP(rec, r)
	if rec.Code != http.StatusOK {
		err := s.seller.LastRejection()
		if err != nil {
			s.lastRefusal.Store(err.Error())
		}
		return s.required("payment refused")
	}
	s.paid.Add(1)
	receipt := jsonv.Obj("status", "success", "method", "evm", "reference", "0x"+strings.Repeat("00", 32), "timestamp", "2026-12-03T00:00:00Z")
	return jsonv.Obj("result", jsonv.Obj("content", []jsonv.Value{jsonv.Obj("type", "text", "text", rec.Body.String())},
		"_meta", jsonv.Obj(mcppay.MetaMPPReceipt, receipt)))
}

// TestProxyPaysAnMPPTool: through the proxy, a tool answered with MPP's
// -32042 challenge is paid as an HTTP 402 would be: the seller's terms
// fetched and hashed against the H its challenge carries, one EIP-3009
// authorization signed (mpp/charge/evm/authorization: its nonce the hash of
// the challenge whose id carries H), the credential echoing the challenge
// exactly as the server wrote it; the server's seller verifies it and the
// agent gets the tool's output with the receipt. Terms that do not hash to
// the advertised H are declined with nothing signed.
func TestProxyPaysAnMPPTool(t *testing.T) {
	terms := vectorATR(t)
	seller := mppseller.NewAuthorization(terms, []byte(paidBody))
	srv, err := loopback.Start(seller)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	tool := &mppToolServer{seller: seller, challengesOf: seller.Challenges}

	l, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		t.Fatal(err)
	}
	s := &countingSigner{Signer: l}
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{Network: "eip155:84532", MaxAmount: big.NewInt(10000)}}})
	if err != nil {
		t.Fatal(err)
	}
	tr := &pay.Transport{Gate: &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}}, Signer: s, Policy: policy, NoATRCache: true,
		Inputs: func(string) *jsonv.Object { return jsonv.Obj("tokenDomain", jsonv.Obj("name", "USDC", "version", "2")) }}
	payer := &mcppay.Payer{Transport: tr, Server: "mpp-paid"}

	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	sIn, sInW := pipe()
	sOutR, sOut := pipe()
	go tool.serve(sIn, sOut)
	c := viaProxy(t, ctx, payer, mcppay.NewStreamConn(sInW, sOutR, nil))

	res := callTool(t, c, "report")
	if res.IsError || text(res) != paidBody {
		t.Fatalf("result %v: %s (seller: %v)", res.IsError, text(res), tool.lastRefusal.Load())
	}
	if res.Meta == nil || res.Meta.AdditionalFields[mcppay.MetaMPPReceipt] == nil {
		t.Fatalf("no receipt in _meta: %+v", res.Meta)
	}
	if s.calls.Load() != 1 || tool.paid.Load() != 1 || tool.calls.Load() != 2 || seller.ATRFetches.Load() != 1 {
		t.Fatalf("signer %d, paid %d, calls %d, fetches %d", s.calls.Load(), tool.paid.Load(), tool.calls.Load(), seller.ATRFetches.Load())
	}

	// The link now serves other bytes than the challenge's H names.
	seller.Lie(append([]byte(nil), append(terms, ' ')...))
	res = callTool(t, c, "report")
	code, detail, moved := declineOf(t, res)
	if code == "" || moved || s.calls.Load() != 1 || tool.paid.Load() != 1 {
		t.Fatalf("decline %s %s moved %v; signer %d, paid %d", code, detail, moved, s.calls.Load(), tool.paid.Load())
	}
}

// x402RPCCall answers tools/call as a paid MCP tool using x402's other MCP
// form: the JSON-RPC error 402 whose data is the PaymentRequired document;
// a call carrying params._meta["x402/payment"] is handed, as
// PAYMENT-SIGNATURE, to the x402 seller, which verifies it as a
// facilitator would.
func x402RPCCall(p *paidServer) func(params *jsonv.Object) *jsonv.Object {
	return func(params *jsonv.Object) *jsonv.Object {
		p.calls.Add(1)
		meta, _ := params.GetObject("_meta")
		payment, ok := meta.Get(mcppay.MetaX402Payment)
		required := func() *jsonv.Object {
			doc, _ := p.seller.Required()
			return jsonv.Obj("error", jsonv.Obj("code", jsonv.Number(mcppay.CodeX402PaymentRequired), "message", "Payment required", "data", doc))
		}
		if !ok {
			return required()
		}
		r := httptest.NewRequest(http.MethodGet, p.seller.ResourceURL(), nil)
		r.Header.Set(pay.HeaderSignature, x402.EncodeHeader(payment))
		rec := httptest.NewRecorder()
		p.seller.ServeHTTP(rec, r)
		if rec.Code != http.StatusOK {
			return required()
		}
		p.paid.Add(1)
		settled, _ := x402.DecodeHeader(rec.Header().Get(pay.HeaderResponse))
		return jsonv.Obj("result", jsonv.Obj("content", []jsonv.Value{jsonv.Obj("type", "text", "text", rec.Body.String())},
			"_meta", jsonv.Obj(mcppay.MetaX402Response, settled)))
	}
}

// TestProxyPaysAnX402ErrorTool: x402's JSON-RPC error 402 form (beside the
// tool-result form the other proxy tests use) is paid once through the
// proxy, and the settlement comes back in _meta.
func TestProxyPaysAnX402ErrorTool(t *testing.T) {
	p := newPaidServer(t, "")
	payer, s := p.payer(t, false)
	tool := &mppToolServer{callOf: x402RPCCall(p)}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	sIn, sInW := pipe()
	sOutR, sOut := pipe()
	go tool.serve(sIn, sOut)
	c := viaProxy(t, ctx, payer, mcppay.NewStreamConn(sInW, sOutR, nil))
	res := callTool(t, c, "report")
	if res.IsError || text(res) != paidBody || res.Meta == nil || res.Meta.AdditionalFields[mcppay.MetaX402Response] == nil {
		t.Fatalf("result %v: %s, meta %+v (seller: %v)", res.IsError, text(res), res.Meta, p.seller.LastRejection())
	}
	if s.calls.Load() != 1 || p.paid.Load() != 1 || p.calls.Load() != 2 {
		t.Fatalf("signer %d, paid %d, calls %d", s.calls.Load(), p.paid.Load(), p.calls.Load())
	}
}
