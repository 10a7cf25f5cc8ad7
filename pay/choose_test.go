package pay

import (
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
)

// fakePairing is the exact pairing under another id, with its read or its
// choice replaced.
type fakePairing struct {
	evm.ExactEIP3009
	id     string
	read   func() (rails.Read, error)
	choose func() (jsonv.Value, error)
}

func (f fakePairing) ID() string { return f.id }

func (f fakePairing) Read(doc jsonv.Value) (rails.Read, error) {
	if f.read != nil {
		return f.read()
	}
	return f.ExactEIP3009.Read(doc)
}

func (f fakePairing) Choose(r rails.Read, account string, in *jsonv.Object, now int64, ref string) (jsonv.Value, error) {
	if f.choose != nil {
		return f.choose()
	}
	return f.ExactEIP3009.Choose(r, account, in, now, ref)
}

func TestPickPairingTriesEachInOrder(t *testing.T) {
	doc := jsonv.Obj("x402Version", 2)
	panics := fakePairing{id: "x402/fake/panics", read: func() (rails.Read, error) { panic("seller input") }}
	unreadable := fakePairing{id: "x402/fake/unreadable", read: func() (rails.Read, error) { return rails.Read{}, rails.Refuse("x402/not-v2") }}
	unchoosable := fakePairing{id: "x402/fake/unchoosable",
		read:   func() (rails.Read, error) { return rails.Read{}, nil },
		choose: func() (jsonv.Value, error) { return nil, rails.Refuse("x402/input-missing") }}
	payable := fakePairing{id: "x402/fake/payable",
		read:   func() (rails.Read, error) { return rails.Read{}, nil },
		choose: func() (jsonv.Value, error) { return jsonv.Obj(), nil }}
	other := fakePairing{id: "mpp/fake/never"}

	mppPanics := fakePairing{id: "mpp/fake/panics", choose: func() (jsonv.Value, error) { panic("seller input") },
		read: func() (rails.Read, error) { return rails.Read{}, nil }}
	mppPayable := fakePairing{id: "mpp/fake/payable",
		read:   func() (rails.Read, error) { return rails.Read{}, nil },
		choose: func() (jsonv.Value, error) { return jsonv.Obj(), nil }}

	cases := []struct {
		name     string
		pairings []rails.Pairing
		ns       string
		shortcut bool
		want     string
		decline  *gate.Decline
	}{
		{"first payable after failures", []rails.Pairing{other, panics, unreadable, unchoosable, payable}, "x402", true, "x402/fake/payable", nil},
		{"a choose refusal beats a read refusal", []rails.Pairing{unreadable, panics, unchoosable}, "x402", true, "",
			&gate.Decline{Code: gate.NoPayableOption, Detail: "x402/input-missing"}},
		{"only read refusals", []rails.Pairing{panics, unreadable}, "x402", true, "",
			&gate.Decline{Code: gate.OfferUnreadable, Detail: "x402/read-failed"}},
		{"no x402 pairing", []rails.Pairing{other}, "x402", true, "",
			&gate.Decline{Code: gate.PairingNotSupported, Detail: "The gate has no buyer piece for x402 v2."}},
		{"one x402 pairing is left to Transact", []rails.Pairing{other, unreadable}, "x402", true, "x402/fake/unreadable", nil},
		{"without the shortcut one pairing is tried", []rails.Pairing{other, unreadable}, "x402", false, "",
			&gate.Decline{Code: gate.OfferUnreadable, Detail: "x402/not-v2"}},
		{"mpp: only mpp pairings, a panic recovered", []rails.Pairing{payable, mppPanics, mppPayable}, "mpp", true, "mpp/fake/payable", nil},
		{"mpp: a panicking choice is a choose refusal", []rails.Pairing{payable, mppPanics}, "mpp", false, "",
			&gate.Decline{Code: gate.NoPayableOption, Detail: "mpp/no-payable-option"}},
		{"no mpp pairing", []rails.Pairing{payable}, "mpp", true, "",
			&gate.Decline{Code: gate.PairingNotSupported, Detail: "The gate has no buyer piece for MPP."}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := &gate.Gate{Pairings: rails.NewRegistry(tc.pairings...)}
			got, chose, d := pickPairing(g, doc, "eip155:84532:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", tc.ns, tc.shortcut, (&Transport{}).inputsFor)
			if got != tc.want || (d == nil) != (tc.decline == nil) || d != nil && (d.Code != tc.decline.Code || d.Detail != tc.decline.Detail) {
				t.Fatalf("got %q %v, want %q %v", got, d, tc.want, tc.decline)
			}
			// A pairing picked by trying it comes with its read and choice
			// (one fresh ref), for Transact to use.
			if got != "" && chose != nil && (chose.Chosen.Pairing != got || chose.Chosen.Choice == nil || chose.Chosen.Ref == "") {
				t.Fatalf("choice %+v for %q", chose.Chosen, got)
			}
			if got == "" && chose != nil || !tc.shortcut && got != "" && chose == nil {
				t.Fatalf("choice %v for %q (shortcut %v)", chose, got, tc.shortcut)
			}
		})
	}
}
