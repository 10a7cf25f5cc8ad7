package tempo_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
)

// opened is a signed mpp/session/tempo opening over request (the two signer
// steps with the development key).
func opened(t *testing.T, request string) *jsonv.Object {
	t.Helper()
	p := tempo.Session{}
	u, funding := built(t, p, doc(t, "tempo", "session", request), jsonv.Obj("deposit", "10000000"))
	signedTx := sign(t, funding)
	next, err := p.Complete(u, signedTx, rails.Chosen{})
	if err != nil || next.Next == nil {
		t.Fatal(err)
	}
	return credential(t, p, u, []jsonv.Value{signedTx, sign(t, next.Next)})
}

// withinChallenge is a challenge the seller issues inside the channel: its
// own id, no LCP opaque, and methodDetails.channelId when channel is set.
func withinChallenge(request, channel string) *jsonv.Object {
	if channel != "" {
		request = strings.Replace(request, `"methodDetails":{`, `"methodDetails":{"channelId":"`+channel+`",`, 1)
	}
	return jsonv.Obj("id", "seller-issued-7", "realm", realm, "method", "tempo", "intent", "session",
		"request", mpp.EncodeB64URL([]byte(request)), "expires", expires)
}

func within(opening *jsonv.Object, challenge *jsonv.Object, amount int64, action rails.WithinAction) rails.Within {
	return rails.Within{Challenge: challenge, Opening: opening, Cumulative: big.NewInt(amount), Action: action}
}

// TestSessionChannel: the channel readings of an opening and of a voucher
// built and signed on it, v2 (H read back from the descriptor) and v1 (no
// H of its own).
func TestSessionChannel(t *testing.T) {
	p := tempo.Session{}
	for _, version := range []string{"v2", "v1"} {
		t.Run(version, func(t *testing.T) {
			req := strings.Replace(reqV2, "v2", version, 1)
			open := opened(t, req)
			channel := mpp.String(mustGet(open, "payload").(*jsonv.Object), "channelId")
			if kind, err := p.ChannelKind(open); err != nil || kind != rails.ChannelOpen {
				t.Fatalf("opening kind %q (%v)", kind, err)
			}
			ref, err := p.ChannelRef(open)
			if err != nil || ref != (rails.ChannelRef{Network: "eip155:42431", Channel: channel}) {
				t.Fatalf("opening ref %+v (%v)", ref, err)
			}
			u, err := p.BuildWithin(within(open, withinChallenge(req, strings.ToUpper(channel[2:])), 250, rails.WithinVoucher), h)
			if err != nil {
				t.Fatal(err)
			}
			reqs := u.Requests()
			if len(reqs) != 1 || mpp.String(reqs[0], "kind") != "eip712" {
				t.Fatalf("requests %s", jsonv.Marshal(reqs))
			}
			td := mustGet(reqs[0], "typedData").(*jsonv.Object)
			name := mpp.String(mustGet(td, "domain").(*jsonv.Object), "name")
			if (version == "v2") != (name == "TIP20 Channel Reserve") {
				t.Fatalf("%s voucher under %q", version, name)
			}
			msg := mustGet(td, "message").(*jsonv.Object)
			if mpp.String(msg, "channelId") != channel || mpp.String(msg, "cumulativeAmount") != "250" {
				t.Fatalf("voucher message %s", jsonv.Marshal(msg))
			}
			sig := sign(t, reqs[0]).(string)
			signed, err := u.Complete([]string{sig})
			if err != nil {
				t.Fatal(err)
			}
			// The signature recovers to the payer over the voucher's digest.
			digest, err := evm.TypedDataDigest(td)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := mpp.HexBytes(sig, 65, 65)
			raw[64] -= 27
			pub, err := crypto.SigToPub(digest[:], raw)
			if err != nil || crypto.PubkeyToAddress(*pub) != common.HexToAddress(payer) {
				t.Fatalf("voucher signer (%v)", err)
			}
			payload := mustGet(signed.(*jsonv.Object), "payload").(*jsonv.Object)
			wantKeys := "action,channelId,cumulativeAmount,signature"
			if version == "v2" {
				wantKeys += ",descriptor"
			}
			if strings.Join(payload.Keys(), ",") != wantKeys || signed.(*jsonv.Object).Has("source") {
				t.Fatalf("credential %s", jsonv.Marshal(signed))
			}
			if kind, err := p.ChannelKind(signed); err != nil || kind != rails.ChannelWithin {
				t.Fatalf("voucher kind %q (%v)", kind, err)
			}
			if got, err := p.ChannelRef(signed); err != nil || got != ref {
				t.Fatalf("voucher ref %+v (%v)", got, err)
			}
			inside, err := p.BoundWithin(signed)
			switch version {
			case "v2":
				if err != nil || inside != h.String() {
					t.Fatalf("bound within %s (%v)", inside, err)
				}
			default:
				want(t, err, tempo.CodeNotBoundWithin)
			}
			// The close: the final voucher at the recorded charge.
			uc, err := p.BuildWithin(within(open, withinChallenge(req, ""), 100, rails.WithinClose), h)
			if err != nil {
				t.Fatal(err)
			}
			closed, err := uc.Complete([]string{sign(t, uc.Requests()[0]).(string)})
			if err != nil {
				t.Fatal(err)
			}
			if kind, err := p.ChannelKind(closed); err != nil || kind != rails.ChannelClose {
				t.Fatalf("close kind %q (%v)", kind, err)
			}
		})
	}
}

func TestSessionNamedChannel(t *testing.T) {
	p := tempo.Session{}
	word := "0x" + strings.Repeat("Ab", 32)
	if _, named, err := p.NamedChannel(withinChallenge(reqV2, "")); named || err != nil {
		t.Fatalf("no channel named: %v %v", named, err)
	}
	ref, named, err := p.NamedChannel(withinChallenge(reqV2, word))
	if err != nil || !named || ref != (rails.ChannelRef{Network: "eip155:42431", Channel: strings.ToLower(word)}) {
		t.Fatalf("named %+v %v (%v)", ref, named, err)
	}
	noChain := `{"amount":"1","currency":"` + pathUSD + `","methodDetails":{"escrowContract":"` + escrowV2 + `"},"recipient":"` + recipient + `"}`
	if ref, _, err := p.NamedChannel(withinChallenge(noChain, word)); err != nil || ref.Network != "eip155:4217" {
		t.Fatalf("the v1 default chain: %+v (%v)", ref, err)
	}
	charge := withinChallenge(reqV2, word)
	charge.Set("intent", "charge")
	for name, c := range map[string]struct {
		in   jsonv.Value
		code string
	}{
		"a charge challenge":  {charge, mpp.CodeNotThisPairing},
		"not an object":       {"x", mpp.CodeCredentialMalformed},
		"a short channel id":  {withinChallenge(reqV2, "0x12"), mpp.CodeRequestMalformed},
		"a request not b64":   {jsonv.Obj("intent", "session", "method", "tempo", "request", "!"), mpp.CodeRequestMalformed},
		"a zero chain":        {withinChallenge(strings.Replace(reqV2, "42431", "0", 1), word), mpp.CodeChainIDRequired},
		"a malformed escrow":  {withinChallenge(strings.Replace(reqV2, escrowV2, "0x12", 1), word), mpp.CodeEscrowMalformed},
		"a request no string": {jsonv.Obj("intent", "session", "method", "tempo", "request", jsonv.Number(1)), mpp.CodeCredentialMalformed},
	} {
		if _, _, err := p.NamedChannel(c.in); code(err) != c.code {
			t.Errorf("%s: %q, want %s", name, code(err), c.code)
		}
	}
}

// TestSessionBuildWithinRefusals: the checks in the reference's order, and
// the completion's.
func TestSessionBuildWithinRefusals(t *testing.T) {
	p := tempo.Session{}
	open := opened(t, reqV2)
	good := withinChallenge(reqV2, "")
	noID := good.Clone()
	noID.Delete("id")
	charge := good.Clone()
	charge.Set("intent", "charge")
	planted := withPayload(open, "channelId", "0x"+strings.Repeat("00", 32))
	for name, c := range map[string]struct {
		w    rails.Within
		h    atr.Hash
		code string
	}{
		"no challenge":        {rails.Within{Opening: open, Cumulative: big.NewInt(1), Action: rails.WithinVoucher}, h, mpp.CodeInputMalformed},
		"a challenge, no id":  {within(open, noID, 1, rails.WithinVoucher), h, mpp.CodeInputMalformed},
		"a charge challenge":  {within(open, charge, 1, rails.WithinVoucher), h, mpp.CodeNotThisPairing},
		"no opening":          {within(nil, good, 1, rails.WithinVoucher), h, mpp.CodeCredentialMalformed},
		"an opening planted":  {within(planted, good, 1, rails.WithinVoucher), h, tempo.CodeDescriptorMismatch},
		"another hash":        {within(open, good, 1, rails.WithinVoucher), atr.Sum([]byte("abd")), mpp.CodeIDNotOurs},
		"no amount":           {rails.Within{Challenge: good, Opening: open, Action: rails.WithinVoucher}, h, mpp.CodeInputMalformed},
		"a negative amount":   {within(open, good, -1, rails.WithinVoucher), h, mpp.CodeInputMalformed},
		"a top-up":            {within(open, good, 1, "topUp"), h, tempo.CodeWithinActionNotBuilt},
		"an unknown action":   {within(open, good, 1, "refund"), h, tempo.CodeSessionAction},
		"no action":           {within(open, good, 1, ""), h, tempo.CodeSessionAction},
		"a voucher as opened": {within(withPayload(open, "action", "voucher"), good, 1, rails.WithinVoucher), h, tempo.CodeNotAnOpening},
	} {
		if _, err := p.BuildWithin(c.w, c.h); code(err) != c.code {
			t.Errorf("%s: %q, want %s", name, code(err), c.code)
		}
	}
	// The width: 2^96 − 1 is signed on v2, 2^96 is not.
	w := within(open, good, 0, rails.WithinVoucher)
	w.Cumulative = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 96), big.NewInt(1))
	if _, err := p.BuildWithin(w, h); err != nil {
		t.Fatalf("2^96-1: %v", err)
	}
	w.Cumulative = new(big.Int).Lsh(big.NewInt(1), 96)
	if _, err := p.BuildWithin(w, h); code(err) != mpp.CodeInputMalformed {
		t.Fatalf("2^96: %v", err)
	}
	u, err := p.BuildWithin(within(open, good, 5, rails.WithinVoucher), h)
	if err != nil {
		t.Fatal(err)
	}
	for name, answers := range map[string][]string{
		"none":        nil,
		"two":         {"0x" + strings.Repeat("ab", 65), "0x" + strings.Repeat("ab", 65)},
		"64 bytes":    {"0x" + strings.Repeat("ab", 64)},
		"not hex":     {"0x" + strings.Repeat("zz", 65)},
		"no prefix":   {strings.Repeat("ab", 65)},
		"over 8 KiB":  {"0x" + strings.Repeat("ab", 8193)},
		"odd digits":  {"0x" + strings.Repeat("a", 131)},
		"empty":       {""},
		"only prefix": {"0x"},
	} {
		if _, err := u.Complete(answers); code(err) != mpp.CodeCredentialMalformed {
			t.Errorf("complete with %s: %v", name, err)
		}
	}
	// Requests are copies: editing one changes nothing built.
	r := u.Requests()[0]
	r.Set("kind", "tempo-call")
	if mpp.String(u.Requests()[0], "kind") != "eip712" {
		t.Fatal("the request was shared")
	}
}

func TestSessionBoundWithinRefusals(t *testing.T) {
	p := tempo.Session{}
	open := opened(t, reqV2)
	u, err := p.BuildWithin(within(open, withinChallenge(reqV2, ""), 7, rails.WithinVoucher), h)
	if err != nil {
		t.Fatal(err)
	}
	signed, err := u.Complete([]string{"0x" + strings.Repeat("ab", 65)})
	if err != nil {
		t.Fatal(err)
	}
	v := signed.(*jsonv.Object)
	descriptor := func(k, val string) *jsonv.Object {
		x := v.Clone()
		d, _ := mustGet(x, "payload").(*jsonv.Object).GetObject("descriptor")
		d.Set(k, val)
		return x
	}
	otherEscrow := v.Clone()
	otherEscrow.Set("challenge", withinChallenge(strings.Replace(reqV2, escrowV2, "0x"+strings.Repeat("11", 20), 1), ""))
	for name, c := range map[string]struct {
		in   jsonv.Value
		code string
	}{
		"not an object":   {"x", mpp.CodeCredentialMalformed},
		"no challenge id": {func() *jsonv.Object { x := v.Clone(); mustGet(x, "challenge").(*jsonv.Object).Delete("id"); return x }(), mpp.CodeCredentialMalformed},
		"a number source": {func() *jsonv.Object { x := v.Clone(); x.Set("source", jsonv.Number(1)); return x }(), mpp.CodeCredentialMalformed},
		"no descriptor":   {withPayload(v, "descriptor", nil), tempo.CodeDescriptorMismatch},
		"another salt":    {descriptor("salt", atr.Sum([]byte("abd")).String()), tempo.CodeDescriptorMismatch},
		"another channel": {withPayload(v, "channelId", "0x"+strings.Repeat("00", 32)), tempo.CodeDescriptorMismatch},
		"a short channel": {withPayload(v, "channelId", "0x00"), tempo.CodeDescriptorMismatch},
		"another escrow":  {otherEscrow, tempo.CodeDescriptorMismatch},
		"a v1 challenge": {func() *jsonv.Object {
			x := v.Clone()
			x.Set("challenge", withinChallenge(strings.Replace(reqV2, "v2", "v1", 1), ""))
			return x
		}(), tempo.CodeNotBoundWithin},
		"a number nonceHash": {func() *jsonv.Object {
			x := descriptor("salt", h.String())
			return withPayloadIn(x, "descriptor", "expiringNonceHash", jsonv.Number(1))
		}(), tempo.CodeDescriptorMismatch},
	} {
		if _, err := p.BoundWithin(c.in); code(err) != c.code {
			t.Errorf("%s: %q, want %s", name, code(err), c.code)
		}
	}
	for name, in := range map[string]jsonv.Value{
		"an unknown action": withPayload(v, "action", "refund"),
		"no action":         withPayload(v, "action", nil),
	} {
		if _, err := p.ChannelKind(in); code(err) != tempo.CodeSessionAction {
			t.Errorf("kind of %s: %v", name, err)
		}
	}
	if _, err := p.ChannelKind(jsonv.Obj("payload", "x")); code(err) != mpp.CodeCredentialMalformed {
		t.Errorf("kind of a string payload: %v", err)
	}
	if _, err := p.ChannelRef(withPayload(v, "channelId", jsonv.Number(1))); code(err) != mpp.CodeCredentialMalformed {
		t.Errorf("ref of a number channel: %v", err)
	}
}

func withPayloadIn(c *jsonv.Object, inner, k string, v jsonv.Value) *jsonv.Object {
	x := c.Clone()
	o, _ := mustGet(x, "payload").(*jsonv.Object).GetObject(inner)
	o.Set(k, v)
	return x
}

// TestSessionChannelHostile: no channel member panics on values of every
// JSON shape where a credential, a challenge or an opening goes.
func TestSessionChannelHostile(t *testing.T) {
	p := tempo.Session{}
	open := opened(t, reqV2)
	shapes := []jsonv.Value{nil, true, jsonv.Number(1), "x", []jsonv.Value{}, jsonv.Obj(), (*jsonv.Object)(nil),
		jsonv.Obj("payload", nil), jsonv.Obj("challenge", nil, "payload", jsonv.Obj()),
		jsonv.Obj("challenge", jsonv.Obj("request", "e30"), "payload", jsonv.Obj("action", "voucher"))}
	for _, v := range shapes {
		_, _ = p.ChannelKind(v)
		_, _ = p.ChannelRef(v)
		_, _ = p.BoundWithin(v)
		_, _, _ = p.NamedChannel(v)
		o, _ := v.(*jsonv.Object)
		_, _ = p.BuildWithin(rails.Within{Challenge: o, Opening: o, Cumulative: big.NewInt(1), Action: rails.WithinVoucher}, h)
		_, _ = p.BuildWithin(rails.Within{Challenge: withinChallenge(reqV2, ""), Opening: o, Cumulative: big.NewInt(1), Action: rails.WithinVoucher}, h)
		_, _ = p.BuildWithin(rails.Within{Challenge: o, Opening: open, Cumulative: big.NewInt(1), Action: rails.WithinVoucher}, h)
	}
}
