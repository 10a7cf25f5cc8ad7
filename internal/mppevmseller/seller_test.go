package mppevmseller_test

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
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/mppevmseller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/signer"
)

// Each pairing's seller takes the credential the gate builds, and refuses
// that credential altered: another amount, a signature of another key, a
// challenge it did not issue.
func TestSellerVerifies(t *testing.T) {
	key, _ := signer.FromHex(signer.AnvilKey, mppevmseller.Network)
	other, _ := signer.FromHex("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d", mppevmseller.Network)
	for _, c := range []struct {
		pairing string
		inputs  *jsonv.Object
		field   []string // a payload member to alter
	}{
		{evm.MPPUSDCID, jsonv.Obj("tokenDomain", jsonv.Obj("name", "USDC", "version", "2")), []string{"value"}},
		{evm.MPPPermit2ID, jsonv.Obj("spender", mppevmseller.Spender), []string{"permit", "deadline"}},
		{evm.MPPSessionID, jsonv.Obj("deposit", "5000", "credentialType", "authorization", "tokenDomain", jsonv.Obj("name", "USDC", "version", "2")), []string{"authorization", "value"}},
	} {
		t.Run(c.pairing, func(t *testing.T) {
			s := mppevmseller.New(c.pairing, demo.ATR, []byte("ok"))
			srv, err := loopback.Start(s)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			g := &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client(), Timeout: 2 * time.Second}}
			pay := func(wallet *signer.Local) *jsonv.Object {
				doc := challenges(t, srv, s)
				res, err := g.Transact(context.Background(), doc, c.pairing, wallet, &gate.TransactOptions{Inputs: c.inputs})
				if err != nil {
					t.Fatal(err)
				}
				return res.Signed.(*jsonv.Object)
			}
			cred := pay(key)
			if got := send(t, srv, s, cred); got != http.StatusOK {
				t.Fatalf("the gate's credential: %d (%v)", got, s.LastRejection())
			}
			// Another key's own valid payment is refused when it claims the payer.
			forged := pay(other)
			forged.Set("source", mpp.String(cred, "source"))
			if got := send(t, srv, s, forged); got != http.StatusPaymentRequired {
				t.Fatalf("a credential claiming another payer: %d", got)
			}
			altered := jsonv.Clone(cred).(*jsonv.Object)
			o, _ := altered.GetObject("payload")
			for _, k := range c.field[:len(c.field)-1] {
				o, _ = o.GetObject(k)
			}
			o.Set(c.field[len(c.field)-1], "1")
			if got := send(t, srv, s, altered); got != http.StatusPaymentRequired || s.LastRejection() == nil {
				t.Fatalf("an altered credential: %d", got)
			}
			unissued := jsonv.Clone(cred).(*jsonv.Object)
			ch, _ := unissued.GetObject("challenge")
			ch.Set("expires", "2099-01-01T00:00:00Z")
			if got := send(t, srv, s, unissued); got != http.StatusPaymentRequired {
				t.Fatalf("a challenge it did not issue: %d", got)
			}
		})
	}
}

// A lying link is declined hash-mismatch before any signature; with no
// agreement paid, a transaction payment is refused by the seller.
func TestSellerLieAndNoAgreement(t *testing.T) {
	s := mppevmseller.New(evm.MPPUSDCID, demo.ATR, []byte("ok"))
	s.Agreements.Lie(demo.Changed(demo.ATR))
	srv, err := loopback.Start(s)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	key, _ := signer.FromHex(signer.AnvilKey, mppevmseller.Network)
	counted := demo.Count(key)
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client(), Timeout: 2 * time.Second}}
	_, err = g.Transact(context.Background(), challenges(t, srv, s), evm.MPPUSDCID, counted,
		&gate.TransactOptions{Inputs: jsonv.Obj("tokenDomain", jsonv.Obj("name", "USDC", "version", "2"))})
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.HashMismatch || counted.Calls() != 0 {
		t.Fatalf("a lying link: %v, %d signer calls", err, counted.Calls())
	}

	tx := mppevmseller.New(evm.MPPTransactionID, demo.ATR, []byte("ok"))
	srv2, err := loopback.Start(tx)
	if err != nil {
		t.Fatal(err)
	}
	defer srv2.Close()
	doc := challenges(t, srv2, tx)
	p := evm.MPPTransaction{}
	read, _ := p.Read(doc)
	choice, err := p.Choose(read, key.Account(), nil, time.Now().Unix(), "")
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.Build(choice, nil, tx.Hash())
	if err != nil {
		t.Fatal(err)
	}
	req, _ := p.Request(u)
	wallet := &signer.EVM{Local: key, FeeSource: tx.Node}
	raw, err := wallet.Sign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	done, err := p.Complete(u, raw, rails.Chosen{})
	if err != nil {
		t.Fatal(err)
	}
	if got := send(t, srv2, tx, done.Signed.(*jsonv.Object)); got != http.StatusPaymentRequired ||
		!strings.Contains(tx.LastRejection().Error(), "agreement") {
		t.Fatalf("no agreement paid: %d (%v)", got, tx.LastRejection())
	}
}

func challenges(t *testing.T, srv *loopback.Server, s *mppevmseller.Seller) []jsonv.Value {
	t.Helper()
	resp, err := srv.Client().Get(s.ResourceURL())
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	doc, err := mpp.ChallengesFromHeader(resp.Header)
	if err != nil || resp.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("unpaid: %d (%v)", resp.StatusCode, err)
	}
	return doc
}

func send(t *testing.T, srv *loopback.Server, s *mppevmseller.Seller, cred *jsonv.Object) int {
	t.Helper()
	name, value := mpp.Header(cred)
	req, _ := http.NewRequest(http.MethodGet, s.ResourceURL(), nil)
	req.Header.Set(name, value)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}
