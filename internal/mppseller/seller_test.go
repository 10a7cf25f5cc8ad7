package mppseller_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/mppseller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
	"github.com/termsgate/termsgate/signer"
)

var terms = []byte(`{"terms":"1 pathUSD per report, no refunds"}`)

type fixture struct {
	seller *mppseller.Seller
	srv    *loopback.Server
	client *http.Client
	gate   *gate.Gate
	payer  *signer.Local
}

func start(t *testing.T) *fixture {
	t.Helper()
	s := mppseller.New(terms, []byte(`{"report":"paid"}`))
	srv, err := loopback.Start(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	payer, err := signer.FromHex(signer.AnvilKey, "eip155:42431")
	if err != nil {
		t.Fatal(err)
	}
	client := srv.Client()
	return &fixture{seller: s, srv: srv, client: client, payer: payer,
		gate: &gate.Gate{Fetcher: &atr.Fetcher{Client: client, Timeout: 2 * time.Second}}}
}

// challenge GETs the resource unpaid and returns the 402's challenge list.
func (f *fixture) challenge(t *testing.T) []jsonv.Value {
	t.Helper()
	resp, err := f.client.Get(f.seller.ResourceURL())
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("unpaid: %d", resp.StatusCode)
	}
	doc, err := mpp.ChallengesFromHeader(resp.Header)
	if err != nil || len(doc) != 1 {
		t.Fatalf("challenges %v (%v)", doc, err)
	}
	return doc
}

// present sends the credential and returns the status and body.
func (f *fixture) present(t *testing.T, cred *jsonv.Object) (int, string, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, f.seller.ResourceURL(), nil)
	name, value := mpp.Header(cred)
	req.Header.Set(name, value)
	resp, err := f.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return resp.StatusCode, string(body), resp.Header
}

func TestPaysThroughTheGate(t *testing.T) {
	f := start(t)
	doc := f.challenge(t)
	offer, err := f.gate.Read(doc, tempo.MemoID)
	if err != nil {
		t.Fatal(err)
	}
	if offer.H != f.seller.Hash().String() || offer.Link != f.seller.Link(f.seller.Hash()) {
		t.Fatalf("offer %+v", offer)
	}
	res, err := f.gate.Transact(context.Background(), doc, tempo.MemoID, f.payer, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.H != f.seller.Hash() || f.seller.ATRFetches.Load() != 1 {
		t.Fatalf("h %s, %d fetches", res.H, f.seller.ATRFetches.Load())
	}
	status, body, header := f.present(t, res.Signed.(*jsonv.Object))
	if status != http.StatusOK || body != `{"report":"paid"}` {
		t.Fatalf("paid: %d %s (%v)", status, body, f.seller.LastRejection())
	}
	if f.seller.Payer() != f.payer.Address().Hex() || header.Get("Payment-Receipt") == "" {
		t.Fatalf("payer %s", f.seller.Payer())
	}
	if f.seller.Paid.Load() != 1 || f.seller.Unpaid.Load() != 1 || f.seller.Rejected.Load() != 0 {
		t.Fatalf("counters %d %d %d", f.seller.Paid.Load(), f.seller.Unpaid.Load(), f.seller.Rejected.Load())
	}
}

func TestRefusesWhatItDidNotAsk(t *testing.T) {
	f := start(t)
	doc := f.challenge(t)
	res, err := f.gate.Transact(context.Background(), doc, tempo.MemoID, f.payer, nil)
	if err != nil {
		t.Fatal(err)
	}
	cred := res.Signed.(*jsonv.Object)
	edit := func(mut func(c *jsonv.Object)) *jsonv.Object {
		c := cred.Clone()
		mut(c)
		return c
	}
	other, _ := signer.FromHex("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d", "eip155:42431")
	cases := map[string]*jsonv.Object{
		// Another payer named than the key that signed.
		"source": edit(func(c *jsonv.Object) { c.Set("source", "did:pkh:eip155:42431:"+other.Address().Hex()) }),
		// A challenge the seller did not issue (its expires moved).
		"expires": edit(func(c *jsonv.Object) {
			ch, _ := c.GetObject("challenge")
			ch.Set("expires", "2099-01-01T00:00:00Z")
		}),
		// A transaction without this challenge's memo.
		"transaction": edit(func(c *jsonv.Object) {
			p, _ := c.GetObject("payload")
			p.Set("signature", "0x76c0")
		}),
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			before := f.seller.Rejected.Load()
			if status, _, _ := f.present(t, c); status == http.StatusOK {
				t.Fatal("paid")
			}
			if f.seller.Rejected.Load() != before+1 || f.seller.LastRejection() == nil {
				t.Fatal("not counted as rejected")
			}
		})
	}
	// New terms: the credential for the old ones no longer pays.
	f.seller.SetATR(append(append([]byte(nil), terms...), ' '))
	if status, body, _ := f.present(t, cred); status != http.StatusPaymentRequired || !strings.Contains(body, "verification-failed") {
		t.Fatalf("old terms: %d %s", status, body)
	}
	if f.seller.Paid.Load() != 0 {
		t.Fatal("paid")
	}
}

func TestLyingSellerIsDeclined(t *testing.T) {
	f := start(t)
	doc := f.challenge(t)
	f.seller.Lie(append(append([]byte(nil), terms...), ' '))
	calls := 0
	sg := signerFunc{Local: f.payer, before: func() { calls++ }}
	_, err := f.gate.Transact(context.Background(), doc, tempo.MemoID, sg, nil)
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.HashMismatch || calls != 0 {
		t.Fatalf("%v, %d signer calls", err, calls)
	}
}

type signerFunc struct {
	*signer.Local
	before func()
}

func (s signerFunc) Sign(ctx context.Context, req *jsonv.Object) (jsonv.Value, error) {
	s.before()
	return s.Local.Sign(ctx, req)
}
