package mppseller

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	demo.Register(demo.Row{Pairing: tempo.MemoID, Aliases: []string{"mpp-tempo"},
		About: "1 pathUSD on Tempo Moderato: a Tempo transaction whose transferWithMemo memo attributes the challenge id derived from H", Run: demoMPPTempo})
}

// demoMPPTempo pays an MPP seller (WWW-Authenticate: Payment) on Tempo: the
// challenge id is derived from H, and the signed transferWithMemo carries the
// attribution memo of that id.
func demoMPPTempo(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	seller := New(demo.ATR, []byte(`{"report":"ETH/USD 3150.42","as_of":"2026-12-01"}`))
	srv, err := loopback.Start(seller)
	if err != nil {
		return fail("cannot start the local seller:", err)
	}
	defer srv.Close()
	client := srv.Client()
	payer, err := signer.FromHex(signer.AnvilKey, fmt.Sprintf("eip155:%d", mpp.TempoChargeDefaultChain))
	if err != nil {
		return fail(err)
	}
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}}

	say("termsgate demo (MPP on Tempo): a seller on %s (TLS, loopback only) sells %s", srv.Listener.Addr(), seller.ResourceURL())
	say("payer: %s (the published Anvil development key; never hold value with it)", payer.Account())
	say("")
	say("1. GET %s", seller.ResourceURL())
	resp, err := client.Get(seller.ResourceURL())
	if err != nil {
		return fail(err)
	}
	demo.Read(resp)
	doc, err := mpp.ChallengesFromHeader(resp.Header)
	if err != nil {
		return fail("the seller's WWW-Authenticate:", err)
	}
	offer, err := g.Read(doc, tempo.MemoID)
	if err != nil {
		return fail(err)
	}
	say("   %d with a WWW-Authenticate: Payment challenge for %s", resp.StatusCode, tempo.MemoID)
	say("   advertised terms H = %s", offer.H)
	say("   at %s", offer.Link)
	say("")
	say("2. the gate fetches the terms, compares SHA-256 of the bytes with H, and only then signs")
	res, err := g.Transact(ctx, doc, tempo.MemoID, payer, nil)
	if err != nil {
		return fail("declined:", err)
	}
	say("   fetched %d bytes; SHA-256 = %s: matches", len(res.Bytes), res.H)
	cred, _ := jsonv.AsObject(res.Signed)
	id, _ := jsonv.AsString(demo.Path(cred, "challenge", "id"))
	say("   signed a Tempo transaction whose transferWithMemo memo attributes the challenge id %s (derived from H)", id)
	say("")
	name, value := mpp.Header(cred)
	say("3. GET again with %s: Payment … (%d bytes)", name, len(value))
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, seller.ResourceURL(), nil)
	req.Header.Set(name, value)
	paid, err := client.Do(req)
	if err != nil {
		return fail(err)
	}
	body := demo.Read(paid)
	if paid.StatusCode != http.StatusOK {
		return fail(fmt.Sprintf("the seller refused the credential (%d):", paid.StatusCode), seller.LastRejection())
	}
	say("   the seller checked the credential (H carried, the signature recovers to %s)", seller.Payer())
	say("   and answered %d: %s", paid.StatusCode, body)
	if err := s.KeepPayment(res.Bytes, resp.Header.Get("WWW-Authenticate"), cred); err != nil {
		return err
	}
	s.Paid(demo.Amount(seller.Amount, 6, "pathUSD", fmt.Sprintf("eip155:%d", seller.ChainID)))
	say("")
	say("4. the same seller now serves other bytes at the link while its challenge still advertises H")
	seller.Lie(demo.Changed(demo.ATR))
	calls := demo.Count(payer)
	_, err = g.Transact(ctx, doc, tempo.MemoID, calls, nil)
	var d *gate.Decline
	if !errors.As(err, &d) {
		return fail("the changed terms were not declined:", err)
	}
	say("   declined %s: %s", d.Code, d.Detail)
	say("   signer calls for it: %d", calls.Calls())
	return nil
}
