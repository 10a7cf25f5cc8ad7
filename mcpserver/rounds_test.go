package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/mcpserver"
	"github.com/termsgate/termsgate/rails/x402"
)

// pairHuman answers the agreement payment's question with agreement and
// any other with offer: mcp-go's client asks the questions of one round
// concurrently, so the answer goes by what is asked, not by turn.
type pairHuman struct {
	agreement, offer mcp.ElicitationResponseAction
	mu               sync.Mutex
	asked            []string
}

func (h *pairHuman) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asked = append(h.asked, req.Params.Message)
	action := h.offer
	if strings.Contains(req.Params.Message, "agreement payment (") {
		action = h.agreement
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: action}}, nil
}

func (h *pairHuman) set(agreement, offer mcp.ElicitationResponseAction) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.agreement, h.offer = agreement, offer
}

// questions counts the agreement payment's questions and the others.
func (h *pairHuman) questions() (agreement, offer int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, q := range h.asked {
		if strings.Contains(q, "agreement payment (") {
			agreement++
		} else {
			offer++
		}
	}
	return agreement, offer
}

// wire is the HTTP transport of mcp-go's client: it counts the tools/call
// requests and lets a test read or change each one's params (the
// arguments, requestState, inputResponses) before it is sent.
type wire struct {
	calls  atomic.Int64
	mu     sync.Mutex
	change func(params *jsonv.Object)
}

func (w *wire) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Method == http.MethodPost {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		if v, err := jsonv.Parse(body); err == nil {
			if o, ok := jsonv.AsObject(v); ok {
				if m, _ := o.GetString("method"); m == "tools/call" {
					w.calls.Add(1)
					w.mu.Lock()
					change := w.change
					w.mu.Unlock()
					if params, ok := o.GetObject("params"); ok && change != nil {
						change(params)
						body = jsonv.Marshal(o)
					}
				}
			}
		}
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
	}
	return http.DefaultTransport.RoundTrip(req)
}

func (w *wire) setChange(f func(params *jsonv.Object)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.change = f
}

// pairSetup is the agreement pairing served over streamable HTTP to
// mcp-go's client at protocol 2026-07-28, with every payment above
// ConfirmAbove 0: atr_transact's agreement payment and its offer payment
// both need the human.
type pairSetup struct {
	*agreementSetup
	human *pairHuman
	wire  *wire
	c     *client.Client
}

func newPairSetup(t *testing.T, cfg mcpserver.Config, maxRounds int) *pairSetup {
	t.Helper()
	var endpoint string
	serve := func(t testing.TB, srv *mcpserver.Server, _ *gosdk.ClientOptions) *gosdk.ClientSession {
		ts := httptest.NewServer(srv.HTTPHandler(mcpserver.HTTPOptions{}))
		t.Cleanup(ts.Close)
		endpoint = ts.URL + "/mcp"
		return connect(t, &gosdk.StreamableClientTransport{Endpoint: endpoint, DisableStandaloneSSE: true}, nil)
	}
	if cfg.ConfirmAbove == nil && cfg.ConfirmAboveUSD == nil {
		cfg.ConfirmAbove = big.NewInt(0)
	}
	a := newAgreementSetupWith(t, nil, cfg, serve, nil)
	p := &pairSetup{agreementSetup: a, human: &pairHuman{agreement: mcp.ElicitationResponseActionAccept, offer: mcp.ElicitationResponseActionAccept}, wire: &wire{}}
	tr, err := transport.NewStreamableHTTP(endpoint, transport.WithHTTPBasicClient(&http.Client{Transport: p.wire}))
	if err != nil {
		t.Fatal(err)
	}
	version := mcp.ProtocolVersion20260728
	opts := []client.ClientOption{client.WithElicitationHandler(p.human), client.WithProtocolVersion(version)}
	if maxRounds > 0 {
		opts = append(opts, client.WithMaxInputRoundTrips(maxRounds))
	}
	p.c = client.NewClient(tr, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := p.c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcp.Implementation{Name: "agent", Version: "1"}
	if init, err := p.c.Initialize(ctx, req); err != nil || init.ProtocolVersion != version {
		t.Fatalf("initialize: %v, %+v", err, init)
	}
	return p
}

// transact calls atr_transact with doc (the fixture's D when nil) and
// returns the structured result, or the client's error.
func (p *pairSetup) transact(t *testing.T, doc *jsonv.Object) (*jsonv.Object, error) {
	t.Helper()
	if doc == nil {
		doc = p.f.D
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = "atr_transact"
	req.Params.Arguments = json.RawMessage(jsonv.Marshal(jsonv.Obj("pairing", unprovenID, "document", doc)))
	res, err := p.c.CallTool(ctx, req)
	if err != nil {
		return nil, err
	}
	if len(res.Content) != 1 {
		t.Fatalf("%d content blocks", len(res.Content))
	}
	text, _ := res.Content[0].(mcp.TextContent)
	v, err := jsonv.Parse([]byte(text.Text))
	o, ok := jsonv.AsObject(v)
	if err != nil || !ok {
		t.Fatalf("atr_transact: %s", text.Text)
	}
	return o, nil
}

// wantAsked checks how many times the human was asked about the agreement
// payment and about the offer payment, and in how many tools/call rounds.
func (p *pairSetup) wantAsked(t *testing.T, agreement, offer, rounds int) {
	t.Helper()
	ga, gotOffer := p.human.questions()
	if ga != agreement || gotOffer != offer || int(p.wire.calls.Load()) != rounds {
		t.Fatalf("asked %d about the agreement and %d about the offer in %d rounds; want %d, %d in %d", ga, gotOffer, p.wire.calls.Load(), agreement, offer, rounds)
	}
}

// wantFetches checks the ATR fetches: each round's atr_transact runs the
// gate twice (once for the agreement payment to approve, once to pay it),
// and a round that reaches the agreement payment with an offer payment
// above ConfirmAbove builds that offer once more (gate.Confirm): three a
// round.
func (p *pairSetup) wantFetches(t *testing.T, n int) {
	t.Helper()
	if got := int(p.s.fetches.Load()); got != n {
		t.Fatalf("%d ATR fetches, want %d", got, n)
	}
}

func offerAmount(t *testing.T, doc *jsonv.Object) string {
	t.Helper()
	return strAt(t, doc, "accepts", "0", "amount")
}

// withAmount is doc with its first option's amount set to amount.
func withAmount(t *testing.T, doc *jsonv.Object, amount string) *jsonv.Object {
	t.Helper()
	v, err := jsonv.Parse(jsonv.Marshal(doc))
	if err != nil {
		t.Fatal(err)
	}
	o, _ := jsonv.AsObject(v)
	objAt(t, o, "accepts", "0").Set("amount", amount)
	return o
}

// TestRoundsAskBothPayments: at protocol 2026-07-28 over streamable HTTP,
// atr_transact whose agreement payment and offer payment both need the
// human asks both in one round (two inputRequests, one requestState), and
// the next round signs each only on its own accept: both accepted, both
// signed, once each, in two rounds; the offer declined, neither; the
// agreement declined, neither.
func TestRoundsAskBothPayments(t *testing.T) {
	accept, decline, cancel := mcp.ElicitationResponseActionAccept, mcp.ElicitationResponseActionDecline, mcp.ElicitationResponseActionCancel
	for _, tc := range []struct {
		name             string
		agreement, offer mcp.ElicitationResponseAction
		refused          string
		names            string // what the refusal's detail must name
	}{
		{"both-accepted", accept, accept, "", ""},
		{"offer-declined", accept, decline, mcpserver.DetailHumanDeclined, "is not paid either"},
		{"offer-cancelled", accept, cancel, mcpserver.DetailHumanCancelled, "is not paid either"},
		{"agreement-declined", decline, accept, mcpserver.DetailHumanDeclined, "the human declined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPairSetup(t, mcpserver.Config{}, 0)
			p.human.set(tc.agreement, tc.offer)
			r, err := p.transact(t, nil)
			if err != nil {
				t.Fatal(err)
			}
			p.wantAsked(t, 1, 1, 2)
			p.wantFetches(t, 6)
			if tc.refused != "" {
				// Neither payment signed, the agreement never paid (each
				// round asks for the agreement's 402 once).
				p.counts(t, 0, 2, 0)
				d, _ := r.GetObject("decline")
				detail, _ := d.GetString("detail")
				if !strings.HasPrefix(detail, tc.refused+": ") || !strings.Contains(detail, tc.names) {
					t.Fatalf("result %s, want %s naming %q", jsonv.Marshal(r), tc.refused, tc.names)
				}
				return
			}
			if strAt(t, r, "signed", "payload", "authorization", "nonce") != hashOf(p.f.A) ||
				strAt(t, r, "signed", "payload", "authorization", "value") != offerAmount(t, p.f.D) {
				t.Fatalf("transact: %s", jsonv.Marshal(r))
			}
			p.counts(t, 2, 2, 1)
		})
	}
}

// TestRoundsOfferChanged: the offer payment asked about is not the one the
// next round reaches (the retry carries another amount): the agreement is
// not paid on the earlier accept, both are asked about again, and the
// payment signed after that accept is the changed one, each payment signed
// once.
func TestRoundsOfferChanged(t *testing.T) {
	p := newPairSetup(t, mcpserver.Config{}, 0)
	changed := withAmount(t, p.f.D, "9000")
	p.wire.setChange(func(params *jsonv.Object) {
		if params.Has("requestState") {
			args, _ := params.GetObject("arguments")
			args.Set("document", changed)
		}
	})
	r, err := p.transact(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.wantAsked(t, 2, 2, 3)
	if got := strAt(t, r, "signed", "payload", "authorization", "value"); got != "9000" {
		t.Fatalf("signed %s: %s", got, jsonv.Marshal(r))
	}
	p.counts(t, 2, 3, 1)
}

// TestRoundsAgreementChanged: the agreement payment changed between the
// rounds (the seller's agreement asks for more): nothing is signed on the
// earlier accept; both are asked about again.
func TestRoundsAgreementChanged(t *testing.T) {
	p := newPairSetup(t, mcpserver.Config{}, 0)
	required := objAt(t, p.f.agreement, "required")
	v, _ := jsonv.Parse(jsonv.Marshal(required))
	more, _ := jsonv.AsObject(v)
	objAt(t, more, "accepts", "0").Set("amount", "2")
	var once sync.Once
	p.wire.setChange(func(params *jsonv.Object) {
		if params.Has("requestState") {
			once.Do(func() { p.s.setAgreement(agreementServing(t, more, p.f.agreement)) })
		}
	})
	r, err := p.transact(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.wantAsked(t, 2, 2, 3)
	if !r.Has("signed") {
		t.Fatalf("transact: %s", jsonv.Marshal(r))
	}
	p.counts(t, 2, 3, 1)
}

// TestRoundsHostileState: a requestState changed by the client, or one
// replayed from an earlier call for another payment, or one that ran out
// (older than the elicitation timeout), signs nothing on the answers that
// come with it: the payments are asked about again.
func TestRoundsHostileState(t *testing.T) {
	t.Run("tampered", func(t *testing.T) {
		p := newPairSetup(t, mcpserver.Config{}, 3)
		p.wire.setChange(func(params *jsonv.Object) {
			if st, ok := params.GetString("requestState"); ok {
				params.Set("requestState", strings.Replace(st, `"until":`, `"until":1`, 1))
			}
		})
		if _, err := p.transact(t, nil); err == nil || !strings.Contains(err.Error(), "exceeded maximum") {
			t.Fatalf("err %v, want the client to give up asking", err)
		}
		p.wantAsked(t, 2, 2, 3)
		p.counts(t, 0, 3, 0)
	})
	for _, tc := range []struct {
		name    string
		advance time.Duration // the clock between the two calls
		doc     func(t *testing.T, d *jsonv.Object) *jsonv.Object
	}{
		{"replayed-for-another-payment", 0, func(t *testing.T, d *jsonv.Object) *jsonv.Object { return withAmount(t, d, "9000") }},
		{"replayed-after-it-ran-out", 2 * time.Minute, func(_ *testing.T, d *jsonv.Object) *jsonv.Object { return d }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := loadFixture(t)
			var now atomic.Int64
			now.Store(f.now.Unix())
			p := newPairSetup(t, mcpserver.Config{ElicitationTimeout: time.Minute, Now: func() time.Time { return time.Unix(now.Load(), 0) }}, 0)
			// The first call: asked, accepted, both signed; its answering
			// round is kept.
			var kept *jsonv.Object
			p.wire.setChange(func(params *jsonv.Object) {
				if params.Has("requestState") {
					kept = params.Clone()
				}
			})
			if r, err := p.transact(t, nil); err != nil || !r.Has("signed") || kept == nil {
				t.Fatalf("first call: %v %s", err, jsonv.Marshal(r))
			}
			p.counts(t, 2, 2, 1)
			now.Add(int64(tc.advance / time.Second))
			// The second call brings the first one's state and answers from
			// its start; the human, asked again, declines.
			p.human.set(mcp.ElicitationResponseActionDecline, mcp.ElicitationResponseActionDecline)
			p.wire.setChange(func(params *jsonv.Object) {
				if !params.Has("requestState") {
					st, _ := kept.Get("requestState")
					ans, _ := kept.Get("inputResponses")
					params.Set("requestState", st)
					params.Set("inputResponses", ans)
				}
			})
			r, err := p.transact(t, tc.doc(t, p.f.D))
			if err != nil {
				t.Fatal(err)
			}
			d, _ := r.GetObject("decline")
			if detail, _ := d.GetString("detail"); !strings.HasPrefix(detail, mcpserver.DetailHumanDeclined+": ") {
				t.Fatalf("second call: %s", jsonv.Marshal(r))
			}
			p.wantAsked(t, 2, 2, 4)
			p.counts(t, 2, 4, 1)
		})
	}
}

// agreementServing is the seller's agreement endpoint asking for required
// unpaid and answering the fixture's receipt paid.
func agreementServing(t *testing.T, required, agreement *jsonv.Object) http.HandlerFunc {
	t.Helper()
	header := x402.EncodeHeader(required)
	receipt := jsonv.Marshal(valueAt(t, agreement, "receipt"))
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("PAYMENT-SIGNATURE") == "" {
			w.Header().Set("PAYMENT-REQUIRED", header)
			w.WriteHeader(http.StatusPaymentRequired)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(receipt)
	}
}
