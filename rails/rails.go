// Package rails is the pairing contract: what every protocol/scheme/rail
// combination (a pairing, such as x402/exact/eip155/eip3009) must provide for
// the gate to read a seller's offer, build a payment with the ATR hash H bound
// in, and read H back out of what was signed.
//
// rails knows nothing of fetching or signing; the gate orders the calls. A
// pairing lives in one file of a sub-package (rails/evm, rails/x402, …), and
// the default registry (rails/all) lists them.
package rails

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
)

// Refusal is a pairing's "no" with a namespaced code such as
// x402/no-payable-option. The gate turns it into a decline whose detail is the
// code.
type Refusal struct {
	Code string
}

func (r *Refusal) Error() string { return "refused: " + r.Code }

// Refuse returns a refusal with code.
func Refuse(code string) *Refusal { return &Refusal{Code: code} }

// Pattern describes how a pairing's payment relates to H. The gate reads only
// PublicProof: a payment that is no public proof of H needs the agreement
// exchange first.
type Pattern struct {
	Name        string // e.g. "native-field", "id-reuse", "opaque-challenge"
	PublicProof bool
}

// Read is what a seller's document advertises for one pairing. H is the
// advertised hash exactly as the document wrote it; the gate compares it with
// what it computes and builds only with the computed hash.
type Read struct {
	H         string
	Link      string
	Agreement string        // the agreement URL, "" when the offer names none
	Required  jsonv.Value   // the whole seller document
	Options   []jsonv.Value // the entries of the document this pairing serves, in order
}

// Chosen is what Confirm chose to pay, as plain JSON so that it can cross a
// process boundary and come back to Finish, which trusts nothing in it that it
// does not rebuild.
type Chosen struct {
	Pairing   string
	Choice    jsonv.Value // pairing-specific; enough to rebuild the same request
	Ref       string      // 24 random bytes, unpadded base64url; the x402 payment identifier
	Agreement string      // only for pairings whose payment is no public proof
}

// JSON returns chosen in its wire form {pairing, choice, ref, agreement?}.
func (c Chosen) JSON() *jsonv.Object {
	o := jsonv.Obj("pairing", c.Pairing, "choice", c.Choice, "ref", c.Ref)
	if c.Agreement != "" {
		o.Set("agreement", c.Agreement)
	}
	return o
}

// Request is a signing request in its JSON form: an object with a "kind"
// member (eip712, tempo-call, …), byte strings as 0x hex, big integers as
// decimal strings.
type Request = *jsonv.Object

// Unsigned is a pairing's built, not yet signed payment. Only the pairing that
// built it looks inside.
type Unsigned any

// Completion is what a pairing makes of the signer's answer: the payment, or
// the next request of a multi-step payment.
type Completion struct {
	Signed jsonv.Value
	Next   Request
}

// Pairing is the contract every pairing implements (docs/protocol.md, "The pairing contract").
// Every method must be deterministic given its arguments: Finish rebuilds
// from Chosen and must arrive at the request that was signed.
type Pairing interface {
	// ID is the pairing id, e.g. "x402/exact/eip155/eip3009".
	ID() string
	Pattern() Pattern
	// Read reads the seller's document (x402: the decoded PAYMENT-REQUIRED).
	Read(doc jsonv.Value) (Read, error)
	// Choose picks the option to pay for account (CAIP-10) and checks inputs,
	// before anything is fetched. now is Unix seconds; ref is fresh per call.
	Choose(read Read, account string, inputs *jsonv.Object, now int64, ref string) (jsonv.Value, error)
	// Build makes the unsigned payment from the choice with H bound in. h is
	// always the hash the gate computed, never the advertised text.
	Build(choice jsonv.Value, atrBytes []byte, h atr.Hash) (Unsigned, error)
	// Request is the signing request for the built payment. A refusal ending in
	// /nothing-to-sign means the build is itself the payment.
	Request(u Unsigned) (Request, error)
	// Complete joins the signer's answer to the built payment. For a
	// multi-step payment answer is the list of answers so far.
	Complete(u Unsigned, answer jsonv.Value, chosen Chosen) (Completion, error)
	// Bound reads H back out of a payment: "0x" + 64 lowercase hex.
	Bound(presented jsonv.Value) (string, error)
}

// Mover is implemented by pairings whose signer moves value itself on some
// requests (a broadcast transaction, a Lightning payment); every decline after
// such a signature keeps it as moved.
type Mover interface {
	Moves(first Request) bool
}

// Sender is implemented by pairings whose completed payment carries values
// only the read-back needs (a push payment's landed receipt): Sent is the
// payment as it is sent, Landed what was stripped from it. Check takes the
// payment with landed put back.
type Sender interface {
	Sent(signed jsonv.Value) (sent, landed jsonv.Value)
}

// Namespace is a pairing id up to its first '/': "x402", "mpp", …
func Namespace(id string) string {
	ns, _, _ := strings.Cut(id, "/")
	return ns
}

// NewRef returns 24 random bytes as unpadded base64url (32 characters).
func NewRef() string {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("rails: no randomness: %v", err)) // crypto/rand does not fail on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// Registry maps pairing ids to pairings and keeps their registration order,
// which the agreement exchange follows when it tries pairings on an option.
type Registry struct {
	order []Pairing
	byID  map[string]Pairing
}

// NewRegistry returns a registry holding pairings, in that order.
func NewRegistry(pairings ...Pairing) *Registry {
	r := &Registry{byID: map[string]Pairing{}}
	for _, p := range pairings {
		r.Register(p)
	}
	return r
}

// Register adds p; a second pairing with the same id replaces the first.
func (r *Registry) Register(p Pairing) {
	if _, dup := r.byID[p.ID()]; dup {
		for i, q := range r.order {
			if q.ID() == p.ID() {
				r.order[i] = p
			}
		}
	} else {
		r.order = append(r.order, p)
	}
	r.byID[p.ID()] = p
}

// Lookup returns the pairing registered under id.
func (r *Registry) Lookup(id string) (Pairing, bool) {
	if r == nil {
		return nil, false
	}
	p, ok := r.byID[id]
	return p, ok
}

// All returns the pairings in registration order.
func (r *Registry) All() []Pairing {
	if r == nil {
		return nil
	}
	return append([]Pairing(nil), r.order...)
}

// IDs returns the registered ids in order.
func (r *Registry) IDs() []string {
	ids := make([]string, 0, len(r.order))
	for _, p := range r.order {
		ids = append(ids, p.ID())
	}
	return ids
}

// Signer is a wallet: a CAIP-10 account and a way to sign a request for it.
// It is called only after the ATR's hash matched, and must sign exactly the
// request it is given. Its answer is JSON: a 0x hex string for eip712, an
// object or a list for other kinds.
type Signer interface {
	Account() string
	Sign(ctx context.Context, req Request) (jsonv.Value, error)
}
