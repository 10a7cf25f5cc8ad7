// Package gate is the only place that orders the checks: read the seller's
// offer, choose, check the link, fetch the ATR, compare SHA-256 of its bytes
// with the advertised H, build with the computed H, and only then sign, and
// after signing read H back out of what was signed (docs/protocol.md, "Confirm, finish, check").
//
// Every protocol outcome is a value: functions return (result, error) where
// the error is a *Decline (errors.As) with one of the twelve codes. Nothing
// is fetched or signed before the checks that precede it pass.
package gate

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/all"
)

// Signer is a wallet; see rails.Signer.
type Signer = rails.Signer

// Gate holds what the checks need from outside: the pairings, the fetch, the
// clock and the source of refs. The zero Gate is usable: every pairing
// termsgate has, a fetch that connects only to public addresses, the wall
// clock, fresh random refs.
type Gate struct {
	Pairings *rails.Registry
	Fetcher  *atr.Fetcher     // the caller's client goes in Fetcher.Client
	Now      func() time.Time // injected in tests
	NewRef   func() string    // injected in tests
	// Sleep waits between agreement requests; nil is a real timer. Tests
	// inject one that advances their clock.
	Sleep func(ctx context.Context, d time.Duration) error
	// Policy, when set, is asked after the hash comparison and before any
	// signer call; a non-nil error declines the payment. The gate is the
	// explicit step-by-step API: it asks only the policy it is given, and
	// with none it signs what the pairing builds. pay.Transport, the CLI
	// and the MCP server refuse to pay without limits; a program calling
	// the gate itself sets them here (a *pay.Policy).
	Policy Policy
}

// Policy vets a payment before it is signed. Implementations return a
// *Decline (or any error, which becomes a no-payable-option decline).
type Policy interface {
	Allow(ctx context.Context, p PaymentSummary) error
}

// Reserver is a Policy whose Allow reserves something (a spend budget) that
// the outcome settles. For every Allow that returned nil the gate calls
// exactly one of them, once: Commit when a signature for p left the gate
// (returned to the caller, or kept in a decline as moved), Release when
// nothing was signed or what was signed was dropped.
type Reserver interface {
	Commit(ctx context.Context, p PaymentSummary)
	Release(ctx context.Context, p PaymentSummary)
}

// PaymentSummary is what a signature grants, for an approver or a policy.
type PaymentSummary struct {
	Pairing string
	H       atr.Hash
	Request rails.Request
	Chosen  rails.Chosen
	// Rail is the pairing itself, from the gate's registry: a policy asks
	// it (rails.Summarizer) what the request grants.
	Rail rails.Pairing
	// Hold is set for a payment inside a held channel (Within): the hold
	// it is signed in. A voucher grants its cumulative amount, so what it
	// adds is that amount less Hold.SignedMax.
	Hold *Hold
	// Unbound is set for a payment to an offer that publishes no terms
	// (TransactUnbound): H is zero and the payment binds the buyer to
	// nothing it read. A policy refuses it unless it was told to allow it.
	Unbound bool
	// ConfirmOnly is set for a pairing the gate signs nothing for and
	// whose confirm commits the buyer to pay (a rails.ConfirmSummarizer:
	// the checkouts): Request is nil. A policy reads what it commits to
	// from Chosen and H (rails.ConfirmSummarizer). It is asked before the
	// agreement payment, so nothing is paid for a checkout over the limits.
	ConfirmOnly bool
}

var defaultRegistry = all.Default()

func (g *Gate) pairings() *rails.Registry {
	if g != nil && g.Pairings != nil {
		return g.Pairings
	}
	return defaultRegistry
}

func (g *Gate) fetcher() *atr.Fetcher {
	if g != nil && g.Fetcher != nil {
		return g.Fetcher
	}
	return defaultFetcher
}

var defaultFetcher = &atr.Fetcher{}

func (g *Gate) now() int64 {
	if g != nil && g.Now != nil {
		return g.Now().Unix()
	}
	return time.Now().Unix()
}

func (g *Gate) newRef() string {
	if g != nil && g.NewRef != nil {
		return g.NewRef()
	}
	return rails.NewRef()
}

func (g *Gate) lookup(id string) (rails.Pairing, *Decline) {
	p, ok := g.pairings().Lookup(id)
	if !ok {
		return nil, decline(PairingNotSupported, "The gate has no buyer piece for the pairing "+id+".")
	}
	return p, nil
}

// Offer is what a seller's document advertises for one pairing, read without
// fetching anything.
type Offer struct {
	Pairing     string
	PublicProof bool
	H           string // as advertised (x402 reads give it lowercase)
	Link        string
	// Agreement is the agreement URL the offer names. Only a pairing whose
	// payment is no public proof uses it; the others ignore it.
	Agreement string
	Options   []jsonv.Value
}

// Read reports what doc advertises for the pairing. It fetches nothing and
// signs nothing.
func (g *Gate) Read(doc jsonv.Value, pairing string) (*Offer, error) {
	p, d := g.lookup(pairing)
	if d != nil {
		return nil, d
	}
	read, err := call(rails.Namespace(pairing)+"/read-failed", func() (rails.Read, error) { return p.Read(doc) })
	if err != nil {
		return nil, decline(OfferUnreadable, refusalCode(err))
	}
	return &Offer{
		Pairing: pairing, PublicProof: p.Pattern().PublicProof,
		H: read.H, Link: read.Link, Agreement: read.Agreement, Options: read.Options,
	}, nil
}

// Confirmed is a checked offer: the ATR bytes whose hash matched, what was
// chosen, and the request to sign (nil when the pairing has nothing for the
// buyer to sign).
type Confirmed struct {
	Chosen  rails.Chosen
	Request rails.Request
	Bytes   []byte
	H       atr.Hash
	// unsigned is the payment Request was made from: Transact completes it
	// rather than build it again (the second build was an eighth of a
	// Permit2 payment's CPU). Nil when confirmed elsewhere: Finish rebuilds.
	unsigned rails.Unsigned
}

// Confirm runs the checks up to the signing request, in the order of
// docs/protocol.md, "Confirm, finish, check". It never calls a signer.
//
// inputs are the buyer's inputs as JSON: nil for none, else an object
// (anything else is declined no-payable-option, <ns>/input-malformed, before
// anything is fetched).
func (g *Gate) Confirm(ctx context.Context, doc jsonv.Value, pairing, account string, inputs jsonv.Value) (*Confirmed, error) {
	p, d := g.lookup(pairing)
	if d != nil {
		return nil, d
	}
	in, err := inputsObject(inputs, rails.Namespace(pairing))
	if err != nil {
		return nil, err
	}
	c, _, err := g.confirm(ctx, doc, p, account, in, nil)
	return c, err
}

// confirm is Confirm; with pre, the read and the choice it holds are used
// rather than made again.
func (g *Gate) confirm(ctx context.Context, doc jsonv.Value, p rails.Pairing, account string, inputs *jsonv.Object, pre *Choice) (*Confirmed, rails.Pairing, error) {
	pairing := p.ID()
	ns := rails.Namespace(pairing)
	var read rails.Read
	var choice jsonv.Value
	var ref string
	if pre != nil {
		read, choice, ref = pre.Read, pre.Chosen.Choice, pre.Chosen.Ref
	} else {
		var err error
		read, err = callIn(ns, "/read-failed", func() (rails.Read, error) { return p.Read(doc) })
		if err != nil {
			return nil, nil, decline(OfferUnreadable, refusalCode(err))
		}
	}
	publicProof := p.Pattern().PublicProof
	agreement := ""
	if !publicProof {
		agreement = read.Agreement
	}
	if pre == nil {
		ref = g.newRef()
		var err error
		choice, err = callIn(ns, "/no-payable-option", func() (jsonv.Value, error) {
			return p.Choose(read, account, inputs, g.now(), ref)
		})
		if err != nil {
			return nil, nil, decline(NoPayableOption, refusalCode(err))
		}
	}
	chosen := rails.Chosen{Pairing: pairing, Choice: choice, Ref: ref, Agreement: agreement}

	switch atr.CheckLink(read.Link) {
	case atr.LinkOK:
	case atr.LinkOtherScheme:
		return nil, nil, decline(LinkNotHTTPS, ns+"/link-not-https")
	default:
		return nil, nil, decline(LinkNotHTTPS, ns+"/legal-context-malformed")
	}
	if f := progressOf(ctx); f != nil {
		f("fetching the ATR at " + read.Link)
	}
	bytes, h, err := g.fetcher().FetchFor(ctx, read.Link, read.H)
	if err != nil {
		var fe *atr.FetchError
		if errors.As(err, &fe) {
			return nil, nil, decline(Code(fe.Code), fe.Detail).because(fe.Err)
		}
		return nil, nil, decline(ATRUnfetchable, atr.DetailUnfetchable).because(err)
	}
	if !atr.EqualText(read.H, h) {
		return nil, nil, decline(HashMismatch, DetailHashMismatch)
	}
	if f := progressOf(ctx); f != nil {
		f("the ATR's hash matched: " + h.String() + " (" + strconv.Itoa(len(bytes)) + " bytes)")
	}
	if !publicProof && agreement == "" {
		return nil, nil, decline(AgreementNotOffered, DetailAgreementNotOffered)
	}
	u, req, d := build(p, chosen, bytes, h)
	if d != nil {
		return nil, nil, d
	}
	return &Confirmed{Chosen: chosen, Request: req, Bytes: bytes, H: h, unsigned: u}, p, nil
}

// build rebuilds the unsigned payment from chosen with the computed hash and
// returns it with its signing request; nil request means nothing to sign
// (and then no unsigned payment either: finish builds again and says why).
func build(p rails.Pairing, chosen rails.Chosen, bytes []byte, h atr.Hash) (rails.Unsigned, rails.Request, *Decline) {
	u, err := rebuild(p, chosen, bytes, h)
	if err != nil {
		if code := refusalCode(err); nothingToSign(code) {
			return nil, nil, nil
		} else {
			return nil, nil, decline(OfferUnreadable, code)
		}
	}
	ns := rails.Namespace(p.ID())
	req, err := callIn(ns, "/build-failed", func() (rails.Request, error) { return p.Request(u) })
	if err != nil {
		if code := refusalCode(err); nothingToSign(code) {
			return nil, nil, nil
		} else {
			return nil, nil, decline(OfferUnreadable, code)
		}
	}
	return u, req, nil
}

func rebuild(p rails.Pairing, chosen rails.Chosen, bytes []byte, h atr.Hash) (rails.Unsigned, error) {
	return callIn(rails.Namespace(p.ID()), "/build-failed", func() (rails.Unsigned, error) {
		return p.Build(chosen.Choice, bytes, h)
	})
}

// Finished is a payment whose read-back carried H, or the next request of a
// multi-step payment (then Signed is nil and Next is set).
type Finished struct {
	Signed jsonv.Value
	Landed jsonv.Value // what a push payment's signer reported landing; nil otherwise
	Next   rails.Request
	H      atr.Hash
}

// Finish joins a signature to the payment chosen by Confirm (which may have
// run in another process) and releases it only if what was signed carries the
// hash of bytes (docs/protocol.md, "Confirm, finish, check"). For a multi-step payment pass every
// answer so far, in order, as a []jsonv.Value.
//
// A signature whose signer is recoverable (a 65-byte EIP-712 signature, a
// signed Tempo transaction, a key authorization's signature) must recover to
// the address the choice names, and the payment's deadline must not have
// passed (g.Now): else signer-failed, DetailSignerNotAccount or
// DetailWindowClosed, and nothing is returned. An answer to an EIP-712
// request or a key authorization that is no signature at all (not hex,
// fewer than 65 bytes) is signer-failed DetailSignatureMalformed, its
// cause saying what it was.
func (g *Gate) Finish(bytes []byte, pairing string, chosen rails.Chosen, signature jsonv.Value) (*Finished, error) {
	p, d := g.lookup(pairing)
	if d != nil {
		return nil, d
	}
	if len(bytes) > atr.MaxBytes {
		return nil, decline(ATRTooLarge, DetailTooLarge)
	}
	h := atr.Sum(bytes)
	// One build serves the three checks: the build is a function of
	// chosen, bytes and h, so the request made from it is the one a
	// second or third build would make (each was a third of a Permit2
	// Finish's build work).
	req, first, pre := finishBuild(p, chosen, bytes, h, signature)
	// A malformed signature is the signer's failure, said as such, not a
	// payment that does not carry H.
	if d := signatureForm(req, first); d != nil {
		return nil, d
	}
	f, err := finish(p, bytes, h, chosen, signature, pre)
	if err != nil {
		return nil, err
	}
	// A signature made elsewhere: it must be the chosen account's, and
	// still valid (docs/mcp.md, "Finish checks the signature").
	if d := checkFinished(chosen, req, first, g.now()); d != nil {
		return nil, d
	}
	return f, nil
}

// finishBuild builds the chosen payment once for Finish: its first signing
// request, the answer to it among signature (the only one, or the first of
// a multi-step payment's), and the build for finish to complete. Nil
// request and build when there is no signature, or the build or its
// request fails: finish then builds again and declines as it says.
func finishBuild(p rails.Pairing, chosen rails.Chosen, bytes []byte, h atr.Hash, signature jsonv.Value) (rails.Request, jsonv.Value, *prebuilt) {
	if signature == nil {
		return nil, nil, nil
	}
	first := signature
	if list, ok := signature.([]jsonv.Value); ok {
		if len(list) == 0 {
			return nil, nil, nil
		}
		first = list[0]
	}
	if _, ok := jsonv.AsObject(chosen.Choice); !ok || chosen.Pairing != p.ID() || len(bytes) > atr.MaxBytes {
		return nil, nil, nil
	}
	u, err := rebuild(p, chosen, bytes, h)
	if err != nil {
		return nil, nil, nil
	}
	req, err := callIn(rails.Namespace(p.ID()), "/build-failed", func() (rails.Request, error) { return p.Request(u) })
	if err != nil || req == nil {
		return nil, nil, nil
	}
	moves := false
	if m, ok := p.(rails.Mover); ok {
		// The signature exists already: a pairing that panics saying
		// whether it moved value is taken to have moved it, so a later
		// decline keeps the signature rather than lose a payment.
		mv, merr := protect(func() (bool, error) { return m.Moves(req), nil })
		moves = mv || merr != nil
	}
	return req, first, &prebuilt{u: u, moves: moves}
}

// prebuilt is the unsigned payment a signing request was made from, and
// whether the pairing said that request moves value, handed from the build
// to the first finish of the same call.
type prebuilt struct {
	u     rails.Unsigned
	moves bool
}

// finish is Finish with the hash of bytes already computed: Transact hashed
// them once when it compared, and a 1 MiB record is not hashed twice. With
// pre, the payment the signer was asked about is completed as it was built;
// without it, it is built again from chosen.
func finish(p rails.Pairing, bytes []byte, h atr.Hash, chosen rails.Chosen, signature jsonv.Value, pre *prebuilt) (*Finished, error) {
	if len(bytes) > atr.MaxBytes {
		return nil, decline(ATRTooLarge, DetailTooLarge)
	}
	if _, ok := jsonv.AsObject(chosen.Choice); !ok {
		return nil, decline(OfferUnreadable, DetailNoChoice)
	}
	if chosen.Pairing != p.ID() {
		return nil, decline(PairingNotSupported, "The chosen payment is not for the pairing "+p.ID()+".")
	}
	ns := rails.Namespace(p.ID())
	var u rails.Unsigned
	if pre != nil {
		u = pre.u
	} else {
		var err error
		if u, err = rebuild(p, chosen, bytes, h); err != nil {
			return nil, decline(OfferUnreadable, refusalCode(err))
		}
	}
	var moved *Moved
	if signature != nil && pre != nil {
		if pre.moves {
			moved = &Moved{Signed: signature, Bytes: bytes, H: h}
		}
	} else if signature != nil {
		if m, ok := p.(rails.Mover); ok {
			first, rerr := callIn(ns, "/build-failed", func() (rails.Request, error) { return p.Request(u) })
			// The signature exists already: a pairing that panics saying
			// whether it moved value is taken to have moved it, so a later
			// decline keeps the signature rather than lose a payment.
			moves, merr := protect(func() (bool, error) { return m.Moves(first), nil })
			if rerr == nil && (moves || merr != nil) {
				moved = &Moved{Signed: signature, Bytes: bytes, H: h}
			}
		}
	}
	done, err := protect(func() (rails.Completion, error) { return p.Complete(u, signature, chosen) })
	if errors.Is(err, errThrew) {
		return nil, decline(SignedNotBound, DetailNotCompleted).with(moved)
	}
	if err != nil {
		return nil, decline(SignedNotBound, refusalCode(err)).with(moved)
	}
	if done.Next != nil {
		return &Finished{Next: done.Next, H: h}, nil
	}
	sent, landed := done.Signed, jsonv.Value(nil)
	if sd, ok := p.(rails.Sender); ok {
		type split struct{ sent, landed jsonv.Value }
		got, err := protect(func() (split, error) {
			a, b := sd.Sent(done.Signed)
			return split{a, b}, nil
		})
		if err != nil {
			return nil, decline(SignedNotBound, DetailNotCompleted).with(moved)
		}
		sent, landed = got.sent, got.landed
	}
	inside, err := call("bound-failed", func() (string, error) { return p.Bound(done.Signed) })
	if err != nil {
		if !p.Pattern().PublicProof && nothingToSign(refusalCode(err)) {
			return &Finished{Signed: sent, Landed: landed, H: h}, nil // its proof is the agreement payment
		}
		return nil, decline(SignedNotBound, DetailSignedNotBound).with(movedSigned(moved, sent))
	}
	if !atr.EqualText(inside, h) {
		return nil, decline(SignedNotBound, DetailSignedNotBound).with(movedSigned(moved, sent))
	}
	return &Finished{Signed: sent, Landed: landed, H: h}, nil
}

func movedSigned(m *Moved, signed jsonv.Value) *Moved {
	if m == nil {
		return nil
	}
	return &Moved{Signed: signed, Bytes: m.Bytes, H: m.H}
}

// Check re-verifies a held payment against kept bytes: the payment must carry
// their hash (docs/protocol.md, "Confirm, finish, check").
func (g *Gate) Check(bytes []byte, pairing string, presented jsonv.Value) (atr.Hash, error) {
	p, d := g.lookup(pairing)
	if d != nil {
		return atr.Hash{}, d
	}
	if len(bytes) > atr.MaxBytes {
		return atr.Hash{}, decline(ATRTooLarge, DetailTooLarge)
	}
	h := atr.Sum(bytes)
	inside, err := call("bound-failed", func() (string, error) { return p.Bound(presented) })
	if err != nil || !atr.EqualText(inside, h) {
		return atr.Hash{}, decline(SignedNotBound, DetailCheckNotBound)
	}
	return h, nil
}
