package vectors_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// lnNode is a Lightning payer that counts its calls and pays nothing: the
// plant rows decline before any payment, and a call is the failure.
type lnNode struct {
	account string
	calls   atomic.Int64
}

func (n *lnNode) Account() string { return n.account }
func (n *lnNode) Sign(context.Context, rails.Request) (jsonv.Value, error) {
	n.calls.Add(1)
	return nil, errors.New("this node was not to be asked to pay")
}

// x402TestKey is x402's test-only node key, 1: its public key is the
// vectors' payee.
func x402TestKey() *secp256k1.PrivateKey {
	var b [32]byte
	b[31] = 1
	return secp256k1.PrivKeyFromBytes(b[:])
}

// setDotted returns a copy of o with the dotted path set to v (nil
// deletes it): a row's optionSet or requestSet.
func setDotted(o *jsonv.Object, path string, v jsonv.Value) *jsonv.Object {
	out := o.Clone()
	keys := strings.Split(path, ".")
	cur := out
	for _, k := range keys[:len(keys)-1] {
		next, ok := cur.GetObject(k)
		if !ok {
			next = jsonv.Obj()
		} else {
			next = next.Clone()
		}
		cur.Set(k, next)
		cur = next
	}
	if v == nil {
		cur.Delete(keys[len(keys)-1])
	} else {
		cur.Set(keys[len(keys)-1], v)
	}
	return out
}

// applySet applies every member of set (a row's optionSet) to o.
func applySet(o *jsonv.Object, set *jsonv.Object) *jsonv.Object {
	for _, m := range set.Members() {
		o = setDotted(o, m.Key, m.Value)
	}
	return o
}

// lnBuyerRows runs a Lightning file's B2 (the plant: hash-mismatch after
// one fetch, the node never asked) and B6 (check over the held payment).
func lnBuyerRows(t *testing.T, f *jsonv.Object) {
	rows := get(t, f, "buyer", "rows")
	t.Run("B2", func(t *testing.T) {
		r := row(t, rows, "B2")
		in := obj(t, r, "input")
		s := newATRSeller(t)
		s.serveBytes(unhex(t, str(t, in, "servesHex")))
		node := &lnNode{account: str(t, in, "account")}
		now, _ := jsonv.AsSafeInt(get(t, in, "now"))
		var opts *gate.TransactOptions
		if in.Has("inputs") {
			opts = &gate.TransactOptions{Inputs: obj(t, in, "inputs")}
		}
		_, err := s.gateFor(now, nil).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), node, opts)
		wantDecline(t, err, gate.Code(str(t, r, "expect", "decline")), "")
		if node.calls.Load() != 0 {
			t.Fatal("the node was asked to pay")
		}
		if s.fetches.Load() != 1 {
			t.Fatalf("%d fetches, want 1", s.fetches.Load())
		}
	})
	t.Run("B6", func(t *testing.T) {
		r := row(t, rows, "B6")
		presented := get(t, r, "input", "presented")
		checks := get(t, r, "input", "check").([]jsonv.Value)
		expects := get(t, r, "expect").([]jsonv.Value)
		g := &gate.Gate{}
		h, err := g.Check(unhex(t, str(t, checks[0], "bytesHex")), str(t, r, "pairing"), presented)
		if err != nil || h.String() != str(t, expects[0], "h") {
			t.Fatalf("check = %v, %v", h, err)
		}
		_, err = g.Check(unhex(t, str(t, checks[1], "bytesHex")), str(t, r, "pairing"), presented)
		wantDecline(t, err, gate.Code(str(t, expects[1], "decline")), "")
	})
}

// chosenFor is the Chosen that Confirm would return for choice.
func chosenFor(pairing string, choice jsonv.Value) rails.Chosen {
	return rails.Chosen{Pairing: pairing, Choice: choice, Ref: rails.NewRef()}
}
