package mcpserver_test

import (
	"bytes"
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/mcpserver"
)

const (
	chosenUnverified = "The chosen payment is not one this server process returned, unchanged. Pass chosen exactly as atr_confirm returned it."
	noAgreementURL   = "The chosen payment names no agreement URL."
)

// reordered returns o with its members in reverse order, at every depth.
func reordered(v jsonv.Value) jsonv.Value {
	o, ok := jsonv.AsObject(v)
	if !ok {
		return v
	}
	out := &jsonv.Object{}
	ms := o.Members()
	for i := len(ms) - 1; i >= 0; i-- {
		out.Set(ms[i].Key, reordered(ms[i].Value))
	}
	return out
}

// TestSealTampering: a chosen that is not exactly one this server (or one
// with its key) returned is refused chosen-unverified by atr_agree before
// anything is fetched or signed; member order does not matter.
func TestSealTampering(t *testing.T) {
	f := loadFixture(t)
	s := newSeller(t, f.A)
	sg := newSigner(t, f)
	key := bytes.Repeat([]byte{0x5a}, mcpserver.SealKeySize)
	cs := connectHTTP(t, newServer(t, f, s, mcpserver.Config{Signer: sg, SealKey: key}), nil)
	listTools(t, cs)
	c := wantOK(t, call(t, cs, "atr_confirm", f.confirmArgs()))
	chosen := objAt(t, c, "chosen")
	atrB64 := strAt(t, c, "atr", "base64")

	otherKey := connectHTTP(t, newServer(t, f, s, mcpserver.Config{Signer: sg, SealKey: bytes.Repeat([]byte{0xa5}, mcpserver.SealKeySize)}), nil)
	listTools(t, otherKey)
	foreign := objAt(t, wantOK(t, call(t, otherKey, "atr_confirm", f.confirmArgs())), "chosen")

	edit := func(f func(o *jsonv.Object)) *jsonv.Object {
		o := chosen.Clone()
		f(o)
		return o
	}
	tampered := []struct {
		name   string
		chosen *jsonv.Object
	}{
		{"changed member", edit(func(o *jsonv.Object) { o.Set("ref", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA") })},
		{"changed nested member", edit(func(o *jsonv.Object) {
			acc, _ := jsonv.AsObject(valueAt(t, o, "choice", "accepted"))
			acc.Set("amount", "1")
		})},
		{"added member", edit(func(o *jsonv.Object) { o.Set("extra", true) })},
		{"added agreement", edit(func(o *jsonv.Object) { o.Set("agreement", "https://api.seller.example/agreement/x") })},
		{"removed member", edit(func(o *jsonv.Object) { o.Delete("ref") })},
		{"removed mac", edit(func(o *jsonv.Object) { o.Delete("mac") })},
		{"zeroed mac", edit(func(o *jsonv.Object) { o.Set("mac", "0x"+strings.Repeat("0", 64)) })},
		{"upper-case mac", edit(func(o *jsonv.Object) { o.Set("mac", "0x"+strings.ToUpper(strAt(t, o, "mac")[2:])) })},
		{"mac not a string", edit(func(o *jsonv.Object) { o.Set("mac", jsonv.Number(1)) })},
		{"mac from another key", foreign},
		{"hand-built", jsonv.Obj("pairing", pairing, "choice", valueAt(t, chosen, "choice"), "ref", strAt(t, chosen, "ref"), "mac", "0x"+strings.Repeat("ab", 32))},
	}
	fetches := s.fetches.Load()
	for _, tc := range tampered {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, cs, "atr_agree", jsonv.Obj("atr", atrB64, "chosen", tc.chosen))
			wantDecline(t, r, "chosen-unverified", chosenUnverified)
			if s.fetches.Load() != fetches || s.agreeCalls.Load() != 0 || sg.calls.Load() != 0 {
				t.Fatalf("fetched %d, agreement requests %d, signer calls %d", s.fetches.Load()-fetches, s.agreeCalls.Load(), sg.calls.Load())
			}
		})
	}

	// Accepted: unchanged, reordered at every depth, and by another server
	// given the same key. D's pairing needs no agreement, so an accepted
	// chosen goes on to the next check.
	accepted := map[string]*gosdk.ClientSession{
		"same server":         cs,
		"server with the key": connectHTTP(t, newServer(t, f, s, mcpserver.Config{Signer: sg, SealKey: key}), nil),
	}
	for name, sess := range accepted {
		for _, ch := range []jsonv.Value{chosen, reordered(chosen)} {
			listTools(t, sess)
			wantDecline(t, call(t, sess, "atr_agree", jsonv.Obj("atr", atrB64, "chosen", ch)), string(gate.OfferUnreadable), noAgreementURL)
		}
		if sg.calls.Load() != 0 || s.agreeCalls.Load() != 0 {
			t.Fatalf("%s: signer calls %d, agreement requests %d", name, sg.calls.Load(), s.agreeCalls.Load())
		}
	}
	if keys := reordered(chosen).(*jsonv.Object).Keys(); slices.Equal(keys, chosen.Keys()) {
		t.Fatal("reordered did not reorder")
	}
}

// TestSealProcessKey: servers given no key share the process's key (as
// upstream: two instances in one process accept each other's values).
func TestSealProcessKey(t *testing.T) {
	f := loadFixture(t)
	s := newSeller(t, f.A)
	sg := newSigner(t, f)
	a := connectHTTP(t, newServer(t, f, s, mcpserver.Config{Signer: sg}), nil)
	b := connectHTTP(t, newServer(t, f, s, mcpserver.Config{Signer: sg}), nil)
	listTools(t, a)
	listTools(t, b)
	c := wantOK(t, call(t, a, "atr_confirm", f.confirmArgs()))
	wantDecline(t, call(t, b, "atr_agree", jsonv.Obj("atr", base64.StdEncoding.EncodeToString(f.A), "chosen", valueAt(t, c, "chosen"))), string(gate.OfferUnreadable), noAgreementURL)
}

func TestSealKeyConfig(t *testing.T) {
	if _, err := mcpserver.New(mcpserver.Config{SealKey: make([]byte, 16)}); err == nil {
		t.Fatal("a 16-byte seal key was accepted")
	}
	if _, err := mcpserver.SealKeyFromHex(strings.Repeat("ab", 31)); err == nil {
		t.Fatal("a 31-byte hex key was accepted")
	}
	k, err := mcpserver.SealKeyFromHex(" 0x" + strings.Repeat("ab", 32) + "\n")
	if err != nil || len(k) != 32 || k[0] != 0xab {
		t.Fatalf("hex key: %x, %v", k, err)
	}
	dir := t.TempDir()
	for _, n := range []int{0, 31, 33, 64} {
		path := dir + "/k"
		if err := writeFile(path, bytes.Repeat([]byte{1}, n)); err != nil {
			t.Fatal(err)
		}
		if _, err := mcpserver.SealKeyFromFile(path); err == nil {
			t.Fatalf("a %d-byte key file was accepted", n)
		}
	}
	path := dir + "/good"
	if err := writeFile(path, bytes.Repeat([]byte{2}, 32)); err != nil {
		t.Fatal(err)
	}
	if k, err := mcpserver.SealKeyFromFile(path); err != nil || len(k) != 32 {
		t.Fatalf("32-byte key file: %v", err)
	}
}
