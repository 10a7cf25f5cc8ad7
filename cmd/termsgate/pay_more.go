package main

// pay's look before paying (--dry-run without a key), its approval of an
// agreement payment given up front (--approve-agreement-up-to), and the
// hints of its declines: what the offer asks for, and what was spent.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"sync"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/ledger"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/signer"
)

// last402 keeps the headers of the last 402 the seller answered, so that a
// decline can say what the offer asked for.
type last402 struct {
	base http.RoundTripper
	mu   sync.Mutex
	h    http.Header
}

func (l *last402) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := l.base.RoundTrip(r)
	if err == nil && resp.StatusCode == http.StatusPaymentRequired {
		l.mu.Lock()
		l.h = resp.Header.Clone()
		l.mu.Unlock()
	}
	return resp, err
}

// offer is the last 402's offer, nil when none could be read.
func (l *last402) offer() *offerDocs {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.h == nil {
		return nil
	}
	d, err := offerOfHeader(l.h)
	if err != nil {
		return nil
	}
	return d
}

// given reports whether the flags name a signer.
func (k *keyFlags) given() bool { return k.devKey || k.keyFile != "" || k.clef != "" }

// lookingSigner is the account a dry run without a key is shown for: the
// published development key's on --network, which signs nothing here.
func (k *keyFlags) lookingSigner() (gate.Signer, error) {
	namespace, _, _ := strings.Cut(k.network, ":")
	if ck, ok := chainKeys[namespace]; ok {
		return ck.dev(k.network)
	}
	return signer.FromHex(signer.AnvilKey, k.network)
}

// allowAll is a dry run's policy without --max-amount: it lets the dry run
// reach BeforeSign, which stops it; nothing is ever signed under it.
type allowAll struct{}

func (allowAll) Allow(context.Context, gate.PaymentSummary) error { return nil }

// approveAgreementUpTo approves an agreement payment whose option asks for
// at most max atomic units (the spend limits are asked again when it is
// signed).
func approveAgreementUpTo(max *big.Int, stderr io.Writer) func(context.Context, *http.Request, *gate.AgreementPayment) error {
	return func(_ context.Context, _ *http.Request, p *gate.AgreementPayment) error {
		s, _ := p.Option.GetString("amount")
		amount, ok := new(big.Int).SetString(s, 10)
		if !ok || amount.Sign() < 0 {
			fmt.Fprintf(stderr, "termsgate: not approving the agreement payment at %s: its amount %q is not a number of atomic units\n", termText(shorten(p.URL)), termText(shorten(s)))
			return errors.New("unreadable amount")
		}
		if amount.Cmp(max) > 0 {
			fmt.Fprintf(stderr, "termsgate: not approving the agreement payment at %s: it asks %s, above --approve-agreement-up-to %s\n", termText(shorten(p.URL)), amount, max)
			return errors.New("above the approval")
		}
		fmt.Fprintf(stderr, "termsgate: approved the agreement payment at %s: %s atomic units (--approve-agreement-up-to %s)\n", termText(shorten(p.URL)), amount, max)
		return nil
	}
}

// payDeclineHints follows a pay decline with what would help: what the
// offer asks for and the flag that matches, how an agreement payment is
// approved, what was spent of a budget and where it is kept.
func (f *payFlags) payDeclineHints(stderr io.Writer, d *gate.Decline, offer *offerDocs, store ledger.Store, ceiling *big.Int) {
	switch {
	case d.Code == gate.NoPayableOption && pay.DetailCode(d.Detail) == pay.DetailBudgetExhausted:
		budgetHint(stderr, d, store, ceiling)
	case d.Code == gate.NoPayableOption && strings.HasSuffix(d.Detail, "/no-payable-option"):
		noPayableHint(stderr, offer, f.keys.network, false)
	case d.Detail == pay.DetailAgreementNeedsApproval && f.approveAgreement == "":
		fmt.Fprintln(stderr, "termsgate: hint: the offer is payable only after the agreement exchange; --approve-agreement-up-to N approves its agreement payment up front (N atomic units at most), or termsgate transact runs the exchange step by step (--approved)")
	}
}

// budgetHint says what a budget-exhausted decline counted: spent so far, the
// ceiling, and the state file that keeps it.
func budgetHint(stderr io.Writer, d *gate.Decline, store ledger.Store, ceiling *big.Int) {
	// The detail names what was asked: "...: AMOUNT of NETWORK ASSET (...)".
	_, rest, _ := strings.Cut(d.Detail, ": ")
	fields := strings.Fields(rest)
	if len(fields) < 4 || fields[1] != "of" {
		return
	}
	key := ledger.Key{Network: fields[2], Asset: strings.ToLower(fields[3])}
	if !strings.HasPrefix(key.Asset, "0x") {
		key.Asset = fields[3]
	}
	where := "memory (--state memory): this process only"
	if store != nil {
		where = store.Where()
	}
	if i := strings.Index(rest, "(budget $"); i >= 0 { // a budget in US dollars (--budget-usd)
		fmt.Fprintf(stderr, "termsgate: the budget in US dollars is spent (%s), counted in %s; this payment asks %s more\n",
			termText(strings.TrimSuffix(rest[i+1:], ")")), termText(where), fields[0])
		fmt.Fprintln(stderr, "termsgate: hint: termsgate budget shows every budget; termsgate budget reset clears them")
		return
	}
	spent := "?"
	if store != nil {
		if n, err := store.Spent(context.Background(), key); err == nil {
			spent = n.String()
		}
	}
	c := "none"
	if ceiling != nil {
		c = ceiling.String()
	}
	fmt.Fprintf(stderr, "termsgate: the budget of %s %s: %s spent of %s, counted in %s; this payment asks %s more\n",
		termText(key.Network), termText(key.Asset), spent, c, termText(where), fields[0])
	fmt.Fprintln(stderr, "termsgate: hint: termsgate budget shows every budget; termsgate budget reset clears them")
}
