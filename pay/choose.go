package pay

import (
	"errors"
	"sync"
	"time"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/all"
)

var defaultRegistry = sync.OnceValue(all.Default)

// defaultCandidates is the default registry's pairings by namespace, in
// registration order. That registry is this package's own and nothing
// registers into it after it is made, so the lists never go stale; a
// Gate's own registry may change between payments and is read every time.
// Listing every pairing and cutting its id was about 2 µs and four
// allocations of each payment (some pairings build their id).
var defaultCandidates = sync.OnceValue(func() map[string][]rails.Pairing {
	by := map[string][]rails.Pairing{}
	for _, p := range defaultRegistry().All() {
		ns := rails.Namespace(p.ID())
		by[ns] = append(by[ns], p)
	}
	return by
})

// candidates are the pairings of reg (nil: the default registry) in
// namespace ns, in registration order: the default registry's shared list,
// which the caller only reads (capped, so an append cannot write into
// it), or reg's appended to buf.
func candidates(reg *rails.Registry, ns string, buf []rails.Pairing) []rails.Pairing {
	if reg == nil {
		list := defaultCandidates()[ns]
		return list[:len(list):len(list)]
	}
	for _, p := range reg.All() {
		if rails.Namespace(p.ID()) == ns {
			buf = append(buf, p)
		}
	}
	return buf
}

// pickPairing returns the first pairing of the registry, in registration
// order, whose id is in namespace ns ("x402" or "mpp"), that reads doc (a
// decoded PAYMENT-REQUIRED, or the challenge list of WWW-Authenticate) and
// has an option the account can pay. It fetches and signs nothing: Transact
// then repeats the read and the choice and runs every check.
//
// When none can pay, the decline is the gate's for the first pairing that
// got furthest: a choose refusal (no-payable-option) over a read refusal
// (offer-unreadable), each with its refusal code as the detail.
//
// With shortcut, a namespace holding one pairing returns it untried:
// Transact reads and chooses first and declines exactly as this would. The
// caller turns it off when a failure here must be known before Transact (to
// fall back to the other protocol of the 402).
//
// The read and the choice of the pairing returned come back with it (nil
// when shortcut skipped them): the choice is made with the gate's clock and
// a fresh ref, as Transact makes it, so Transact takes it (TransactOptions.
// Chose) rather than read and choose again.
func pickPairing(g *gate.Gate, doc jsonv.Value, account, ns string, shortcut bool, inputs func(string) *jsonv.Object) (string, *gate.Choice, *gate.Decline) {
	var buf [16]rails.Pairing
	candidates := candidates(g.Pairings, ns, buf[:0])
	if shortcut && len(candidates) == 1 {
		return candidates[0].ID(), nil, nil
	}
	now := time.Now().Unix()
	if g.Now != nil {
		now = g.Now().Unix()
	}
	ref := "" // made for the first pairing that reads the offer; one ref a payment, as the gate's
	newRef := func() string {
		if ref == "" {
			if g.NewRef != nil {
				ref = g.NewRef()
			} else {
				ref = rails.NewRef()
			}
		}
		return ref
	}
	var readFail, chooseFail *gate.Decline
	for _, p := range candidates {
		read, err := guarded(func() (rails.Read, error) { return p.Read(doc) })
		if err != nil {
			if readFail == nil {
				readFail = &gate.Decline{Code: gate.OfferUnreadable, Detail: code(err, ns+"/read-failed")}
			}
			continue
		}
		in := inputs(p.ID())
		r := newRef()
		choice, err := guarded(func() (jsonv.Value, error) { return p.Choose(read, account, in, now, r) })
		if err != nil {
			if chooseFail == nil {
				chooseFail = &gate.Decline{Code: gate.NoPayableOption, Detail: code(err, ns+"/no-payable-option")}
			}
			continue
		}
		return p.ID(), &gate.Choice{Read: read, Chosen: rails.Chosen{Pairing: p.ID(), Choice: choice, Ref: r}}, nil
	}
	switch {
	case chooseFail != nil:
		return "", nil, chooseFail
	case readFail != nil:
		return "", nil, readFail
	}
	return "", nil, &gate.Decline{Code: gate.PairingNotSupported, Detail: "The gate has no buyer piece for " + protocolName(ns) + "."}
}

func protocolName(ns string) string {
	if ns == ProtocolX402 {
		return "x402 v2"
	}
	return "MPP"
}

// errPanicked stands for a pairing member that panicked on seller input.
var errPanicked = errors.New("pay: pairing member failed")

// guarded runs one pairing member so that seller input can never crash the
// caller, as the gate does.
func guarded[T any](f func() (T, error)) (out T, err error) {
	defer func() {
		if recover() != nil {
			var zero T
			out, err = zero, errPanicked
		}
	}()
	return f()
}

// code is a refusal's code, or fallback for anything that is no refusal.
func code(err error, fallback string) string {
	var r *rails.Refusal
	if errors.As(err, &r) {
		return r.Code
	}
	return fallback
}
