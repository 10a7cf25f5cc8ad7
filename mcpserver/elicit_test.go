package mcpserver_test

import (
	"context"
	"io"
	"math/big"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/mcpserver"
)

// human is a client's elicitation handler: it answers every question with
// action and keeps the messages it was shown.
type human struct {
	action string
	script []string // answers in turn, before action
	wait   bool     // never answer; wait until the request is given up
	mu     sync.Mutex
	asked  []string
}

func (h *human) elicit(ctx context.Context, req *gosdk.ElicitRequest) (*gosdk.ElicitResult, error) {
	h.mu.Lock()
	h.asked = append(h.asked, req.Params.Message)
	action := h.action
	if len(h.script) > 0 {
		action, h.script = h.script[0], h.script[1:]
	}
	h.mu.Unlock()
	if h.wait {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return &gosdk.ElicitResult{Action: action}, nil
}

func (h *human) questions() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.asked...)
}

func (h *human) options() *gosdk.ClientOptions {
	return &gosdk.ClientOptions{ElicitationHandler: h.elicit}
}

// wantRefused checks a decline no-payable-option whose detail starts with
// the refusal's code.
func wantRefused(t *testing.T, r result, detail string) {
	t.Helper()
	wantDecline(t, r, string(gate.NoPayableOption), "")
	d, _ := r.value.GetObject("decline")
	if got, _ := d.GetString("detail"); !strings.HasPrefix(got, detail+": ") {
		t.Fatalf("detail %q, want %s: …", got, detail)
	}
}

// TestElicitationTransactAgreement: with a client that declared
// elicitation, atr_transact's agreement payment is put to the human (what,
// to whom, H, the link) before anything is signed; accept pays the
// agreement and the offer in one call, decline and cancel sign nothing and
// say the human refused. Over stdio (HTTP: TestElicitationHTTPKeepsRoundTrip).
func TestElicitationTransactAgreement(t *testing.T) {
	for _, tc := range []struct {
		action  string
		refused string
	}{
		{"accept", ""},
		{"decline", mcpserver.DetailHumanDeclined},
		{"cancel", mcpserver.DetailHumanCancelled},
	} {
		t.Run(tc.action, func(t *testing.T) {
			h := &human{action: tc.action}
			a := newAgreementSetupWith(t, nil, mcpserver.Config{}, connectStdio, h.options())
			r := call(t, a.cs, "atr_transact", jsonv.Obj("pairing", unprovenID, "document", a.f.D))
			q := h.questions()
			if len(q) != 1 {
				t.Fatalf("the human was asked %d times: %q", len(q), q)
			}
			payee := strAt(t, a.f.agreement, "required", "accepts", "0", "payTo")
			for _, want := range []string{"agreement payment", hashOf(a.f.A), a.url, payee, "eip155:84532"} {
				if !strings.Contains(q[0], want) {
					t.Errorf("the question does not name %q:\n%s", want, q[0])
				}
			}
			if tc.refused != "" {
				wantRefused(t, r, tc.refused)
				a.counts(t, 0, 1, 0)
				return
			}
			done := wantOK(t, r)
			if strAt(t, done, "signed", "payload", "authorization", "nonce") != hashOf(a.f.A) || !jsonv.Equal(valueAt(t, done, "agreement"), valueAt(t, a.f.agreement, "receipt")) {
				t.Fatalf("transact: %s", jsonv.Marshal(done))
			}
			a.counts(t, 2, 1, 1)
		})
	}
}

// TestElicitationAgree: atr_agree without approved, the human accepting,
// pays and returns the receipt in one call; declining pays nothing.
func TestElicitationAgree(t *testing.T) {
	for _, action := range []string{"accept", "decline"} {
		t.Run(action, func(t *testing.T) {
			h := &human{action: action}
			a := newAgreementSetupWith(t, nil, mcpserver.Config{}, connectStdio, h.options())
			c := wantOK(t, call(t, a.cs, "atr_confirm", jsonv.Obj("pairing", unprovenID, "document", a.f.D, "account", a.f.account)))
			r := call(t, a.cs, "atr_agree", jsonv.Obj("atr", a.atrB64, "chosen", valueAt(t, c, "chosen")))
			if n := len(h.questions()); n != 1 {
				t.Fatalf("the human was asked %d times", n)
			}
			if action == "decline" {
				wantRefused(t, r, mcpserver.DetailHumanDeclined)
				a.counts(t, 0, 1, 0)
				return
			}
			if !jsonv.Equal(valueAt(t, wantOK(t, r), "receipt"), valueAt(t, a.f.agreement, "receipt")) {
				t.Fatalf("agree: %s", r.text)
			}
			a.counts(t, 1, 1, 1)
		})
	}
}

// TestElicitationWithoutCapability: a client that declared no elicitation
// keeps the approve round trip, even with ConfirmAbove 0.
func TestElicitationWithoutCapability(t *testing.T) {
	a := newAgreementSetupWith(t, nil, mcpserver.Config{ConfirmAbove: big.NewInt(0)}, connectStdio, nil)
	args := jsonv.Obj("pairing", unprovenID, "document", a.f.D)
	r := wantOK(t, call(t, a.cs, "atr_transact", args))
	if r.Has("signed") || !r.Has("approve") {
		t.Fatalf("first transact: %s", jsonv.Marshal(r))
	}
	a.counts(t, 0, 1, 0)
	args.Set("approved", valueAt(t, r, "approve"))
	wantOK(t, call(t, a.cs, "atr_transact", args))
	a.counts(t, 2, 1, 1)
}

// TestElicitationConfirmAbove: a payment above ConfirmAbove is put to the
// human; one at or below it is not; a refusal signs nothing.
func TestElicitationConfirmAbove(t *testing.T) {
	f := loadFixture(t)
	amount := new(big.Int)
	amount.SetString(strAt(t, f.D, "accepts", "0", "amount"), 10)
	for _, tc := range []struct {
		name    string
		above   *big.Int
		usd     *big.Rat
		action  string
		asked   int
		refused string
	}{
		{"at-limit", amount, nil, "decline", 0, ""},
		{"above-accept", new(big.Int).Sub(amount, big.NewInt(1)), nil, "accept", 1, ""},
		{"above-decline", new(big.Int).Sub(amount, big.NewInt(1)), nil, "decline", 1, mcpserver.DetailHumanDeclined},
		{"above-cancel", big.NewInt(0), nil, "cancel", 1, mcpserver.DetailHumanCancelled},
		{"usd-above", nil, new(big.Rat), "decline", 1, mcpserver.DetailHumanDeclined},
		{"usd-below", nil, big.NewRat(1000, 1), "decline", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &human{action: tc.action}
			s := newSeller(t, f.A)
			sg := newSigner(t, f)
			cs := connectStdio(t, newServer(t, f, s, mcpserver.Config{Signer: sg, ConfirmAbove: tc.above, ConfirmAboveUSD: tc.usd}), h.options())
			listTools(t, cs)
			r := call(t, cs, "atr_transact", jsonv.Obj("pairing", pairing, "document", f.D))
			q := h.questions()
			if len(q) != tc.asked {
				t.Fatalf("the human was asked %d times, want %d", len(q), tc.asked)
			}
			if tc.asked > 0 && (!strings.Contains(q[0], amount.String()) || !strings.Contains(q[0], hashOf(f.A)) || !strings.Contains(q[0], strAt(t, f.D, "accepts", "0", "payTo"))) {
				t.Fatalf("the question:\n%s", q[0])
			}
			if tc.refused != "" {
				wantRefused(t, r, tc.refused)
				if sg.calls.Load() != 0 {
					t.Fatalf("%d signer calls after a refusal", sg.calls.Load())
				}
				return
			}
			if got := strAt(t, wantOK(t, r), "signed", "payload", "signature"); got != f.b6Sig || sg.calls.Load() != 1 {
				t.Fatalf("signature %s, %d signer calls", got, sg.calls.Load())
			}
		})
	}
}

// TestElicitationUnanswered: no answer within the timeout signs nothing.
func TestElicitationUnanswered(t *testing.T) {
	h := &human{wait: true}
	a := newAgreementSetupWith(t, nil, mcpserver.Config{ElicitationTimeout: 300 * time.Millisecond}, connectStdio, h.options())
	wantRefused(t, call(t, a.cs, "atr_transact", jsonv.Obj("pairing", unprovenID, "document", a.f.D)), mcpserver.DetailApprovalUnanswered)
	a.counts(t, 0, 1, 0)
}

// TestElicitationHTTP: over streamable HTTP the human is asked too. The
// official go-sdk client speaks protocol 2026-07-28, so the question is the
// call's input_required result and the client calls again with the answer
// (rounds.go); the human is asked once, accept pays the agreement and the
// offer, decline and cancel sign nothing. With and without the client's
// standalone GET stream.
func TestElicitationHTTP(t *testing.T) {
	for _, conn := range []struct {
		name    string
		connect func(testing.TB, *mcpserver.Server, *gosdk.ClientOptions) *gosdk.ClientSession
	}{{"post-only", connectHTTP}, {"listening", connectHTTPListening}} {
		for _, tc := range []struct {
			action  string
			refused string
		}{
			{"accept", ""},
			{"decline", mcpserver.DetailHumanDeclined},
			{"cancel", mcpserver.DetailHumanCancelled},
		} {
			t.Run(conn.name+"/"+tc.action, func(t *testing.T) {
				h := &human{action: tc.action}
				a := newAgreementSetupWith(t, nil, mcpserver.Config{}, conn.connect, h.options())
				r := call(t, a.cs, "atr_transact", jsonv.Obj("pairing", unprovenID, "document", a.f.D))
				q := h.questions()
				if len(q) != 1 || !strings.Contains(q[0], "agreement payment") || !strings.Contains(q[0], hashOf(a.f.A)) {
					t.Fatalf("the human was asked %d times: %q", len(q), q)
				}
				if tc.refused != "" {
					wantRefused(t, r, tc.refused)
					a.counts(t, 0, 2, 0)
					return
				}
				done := wantOK(t, r)
				if strAt(t, done, "signed", "payload", "authorization", "nonce") != hashOf(a.f.A) {
					t.Fatalf("transact: %s", jsonv.Marshal(done))
				}
				a.counts(t, 2, 2, 1)
			})
		}
	}
}

// connectHTTPListening is connectHTTP with the client's standalone GET
// stream open: where mcp-go sends a server request when the call's own POST
// does not stream.
func connectHTTPListening(t testing.TB, srv *mcpserver.Server, opts *gosdk.ClientOptions) *gosdk.ClientSession {
	t.Helper()
	ts := httptest.NewServer(srv.HTTPHandler(mcpserver.HTTPOptions{}))
	t.Cleanup(ts.Close)
	return connect(t, &gosdk.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, opts)
}

// rawElicitingStdio is rawStdio whose client declares elicitation.
func rawElicitingStdio(t testing.TB, srv *mcpserver.Server) *rawSession {
	t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.ServeStdio(ctx, sr, sw, nil)
		sw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		cw.Close()
		cr.Close()
		<-done
	})
	rs := newRawSession(t, cw, cr)
	rs.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"1"}}}`)
	if o := rs.recv(); !o.Has("result") {
		t.Fatalf("initialize: %s", jsonv.Marshal(o))
	}
	rs.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return rs
}

// nextRequest reads the server's next request (a message with a method and
// an id), skipping notifications.
func (r *rawSession) nextRequest() *jsonv.Object {
	r.t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case line, ok := <-r.lines:
			if !ok {
				r.t.Fatal("the server closed its output")
			}
			v, err := jsonv.Parse(line)
			if err != nil {
				r.t.Fatalf("the server wrote no JSON: %v\n%s", err, line)
			}
			if o, _ := jsonv.AsObject(v); o != nil && o.Has("method") && o.Has("id") {
				return o
			}
		case <-timeout:
			r.t.Fatal("no request from the server")
		}
	}
}

// TestElicitationClientAnswers: the stdio session matches answers to its
// question by id; an answer to another id, or a second answer, is dropped;
// an error, an unknown action or a result-less answer signs nothing.
func TestElicitationClientAnswers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answers []string // %s is the question's id, as sent
		refused string
	}{
		{"accept", []string{`{"jsonrpc":"2.0","id":"termsgate-999","result":{"action":"decline"}}`, `{"jsonrpc":"2.0","id":%s,"result":{"action":"accept"}}`, `{"jsonrpc":"2.0","id":%s,"result":{"action":"decline"}}`}, ""},
		{"error", []string{`{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"no human here"}}`}, mcpserver.DetailApprovalUnanswered},
		{"unknown-action", []string{`{"jsonrpc":"2.0","id":%s,"result":{"action":"maybe"}}`}, mcpserver.DetailApprovalUnanswered},
		{"null-result", []string{`{"jsonrpc":"2.0","id":%s,"result":null}`}, mcpserver.DetailApprovalUnanswered},
		{"not-an-object", []string{`{"jsonrpc":"2.0","id":%s,"result":"accept"}`}, mcpserver.DetailApprovalUnanswered},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var srv *mcpserver.Server
			a := newAgreementSetupWith(t, nil, mcpserver.Config{}, func(t testing.TB, s *mcpserver.Server, o *gosdk.ClientOptions) *gosdk.ClientSession {
				srv = s
				return connectStdio(t, s, o)
			}, nil)
			rs := rawElicitingStdio(t, srv)
			rs.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"atr_transact","arguments":` + string(jsonv.Marshal(jsonv.Obj("pairing", unprovenID, "document", a.f.D))) + `}}`)
			q := rs.nextRequest()
			if m, _ := q.GetString("method"); m != "elicitation/create" {
				t.Fatalf("the server asked %s", jsonv.Marshal(q))
			}
			id, _ := q.Get("id")
			for _, ans := range tc.answers {
				rs.send(strings.ReplaceAll(ans, "%s", string(jsonv.Marshal(id))))
			}
			resp := rs.recv()
			res := objAt(t, resp, "result")
			isErr, _ := res.Get("isError")
			if tc.refused == "" {
				if isErr == true || !objAt(t, res, "structuredContent").Has("signed") {
					t.Fatalf("accepted: %s", jsonv.Marshal(resp))
				}
				a.counts(t, 2, 1, 1)
				return
			}
			detail := strAt(t, res, "structuredContent", "decline", "detail")
			if isErr != true || !strings.HasPrefix(detail, tc.refused+": ") {
				t.Fatalf("refused: %s", jsonv.Marshal(resp))
			}
			a.counts(t, 0, 1, 0)
		})
	}
}

// TestElicitationChannelVoucher: above ConfirmAbove, a channel's opening
// and what a voucher adds are put to the human; a declined voucher is not
// signed and the hold still pays the next one once accepted.
func TestElicitationChannelVoucher(t *testing.T) {
	f := loadFixture(t)
	h := &human{script: []string{"accept", "decline"}, action: "accept"}
	sg := newBatchSigner(t)
	cs := connectStdio(t, newServer(t, f, newSeller(t, sessionATR), mcpserver.Config{Signer: sg, ConfirmAbove: big.NewInt(50)}), h.options())
	listTools(t, cs)
	c := &channelSession{cs: cs, sg: sg, atrB64: b64(sessionATR)}
	_, hold := c.opened(t)
	if n := len(h.questions()); n != 1 || sg.calls.Load() != 2 {
		t.Fatalf("the opening: asked %d times, %d signer calls", n, sg.calls.Load())
	}
	args := jsonv.Obj("pairing", sessionPairing, "hold", hold, "document", inChannel(strAt(t, hold, "channel"), "100"))
	wantRefused(t, call(t, cs, "atr_channel_within", args), mcpserver.DetailHumanDeclined)
	if q := h.questions(); len(q) != 2 || !strings.Contains(q[1], "Pay: 100 atomic units") || sg.calls.Load() != 2 {
		t.Fatalf("the declined voucher: asked %q, %d signer calls", q, sg.calls.Load())
	}
	r := wantOK(t, call(t, cs, "atr_channel_within", args))
	if strAt(t, r, "signed", "payload", "cumulativeAmount") != "100" || sg.calls.Load() != 3 || len(h.questions()) != 3 {
		t.Fatalf("the accepted voucher: %s, %d signer calls", jsonv.Marshal(r), sg.calls.Load())
	}
}

// TestElicitationHTTPRounds: in the multi round-trip form a call signs its
// payments in one run, so with the agreement payment and an offer payment
// above ConfirmAbove both are asked about in the one round (the official
// go-sdk client here; mcp-go's in TestRoundsAskBothPayments) and both are
// signed on the next, once each. A payment above ConfirmAbove that comes
// first is asked about and, declined, not signed.
func TestElicitationHTTPRounds(t *testing.T) {
	t.Run("both-questions", func(t *testing.T) {
		h := &human{action: "accept"}
		a := newAgreementSetupWith(t, nil, mcpserver.Config{ConfirmAbove: big.NewInt(0)}, connectHTTP, h.options())
		r := call(t, a.cs, "atr_transact", jsonv.Obj("pairing", unprovenID, "document", a.f.D))
		q := h.questions()
		if len(q) != 2 || strings.HasPrefix(q[0], "Approve the agreement payment") == strings.HasPrefix(q[1], "Approve the agreement payment") {
			t.Fatalf("the human was asked %q", q)
		}
		if strAt(t, wantOK(t, r), "signed", "payload", "authorization", "nonce") != hashOf(a.f.A) {
			t.Fatalf("transact: %s", r.text)
		}
		a.counts(t, 2, 2, 1)
	})
	t.Run("confirm-above-decline", func(t *testing.T) {
		f := loadFixture(t)
		h := &human{action: "decline"}
		sg := newSigner(t, f)
		cs := connectHTTP(t, newServer(t, f, newSeller(t, f.A), mcpserver.Config{Signer: sg, ConfirmAbove: big.NewInt(0)}), h.options())
		r := call(t, cs, "atr_transact", jsonv.Obj("pairing", pairing, "document", f.D))
		if q := h.questions(); len(q) != 1 || !strings.Contains(q[0], hashOf(f.A)) {
			t.Fatalf("the human was asked %q", q)
		}
		wantRefused(t, r, mcpserver.DetailHumanDeclined)
		if sg.calls.Load() != 0 {
			t.Fatalf("%d signer calls after a refusal", sg.calls.Load())
		}
	})
}
