package pay_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
)

// tempoMemoSummary is what the gate hands a policy for the MPP seller's
// Tempo charge: the challenges of a real 402, confirmed (the ATR fetched
// and its hash compared) by the gate itself.
func tempoMemoSummary(t *testing.T) (gate.PaymentSummary, *mppEnv) {
	t.Helper()
	e := newMPPEnv(t, nil)
	resp, err := (&http.Client{Transport: e.base}).Get(e.seller.ResourceURL())
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	doc, err := mpp.ChallengesFromHeader(resp.Header)
	if err != nil {
		t.Fatal(err)
	}
	c, err := e.transport.Gate.Confirm(context.Background(), doc, tempo.MemoID, e.signer.Account(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return gate.PaymentSummary{Pairing: tempo.MemoID, H: c.H, Request: c.Request, Chosen: c.Chosen}, e
}

func TestSummarizeTempoMemo(t *testing.T) {
	ps, e := tempoMemoSummary(t)
	if k, _ := ps.Request.GetString("kind"); k != tempo.KindTempoCall {
		t.Fatalf("request %s", jsonv.Marshal(ps.Request))
	}
	s, err := pay.Summarize(ps)
	if err != nil {
		t.Fatal(err)
	}
	vb, _ := ps.Request.Get("validBefore")
	until, _ := jsonv.AsSafeInt(vb)
	if s.Amount.String() != "1000000" || s.Asset != pathUSD || s.Payee != common.HexToAddress(mppPayee).Hex() ||
		s.Payer != payer || s.Network != tempoNetwork || s.H != e.seller.Hash() || s.Pairing != tempo.MemoID ||
		!s.PayableUntil.Equal(time.Unix(until, 0)) || !s.PayableFrom.Equal(time.Unix(0, 0)) || s.AssetName != "" {
		t.Fatalf("%+v", s)
	}
	want := "1000000 atomic units of token " + pathUSD + " on " + tempoNetwork + " from " + payer + " to " +
		common.HexToAddress(mppPayee).Hex() + ", payable until " + time.Unix(until, 0).UTC().Format(time.RFC3339) +
		", terms " + e.seller.Hash().String() + " (" + tempo.MemoID + ")"
	if s.String() != want {
		t.Fatalf("%s\n%s", s, want)
	}
	// A broadcast (push) request is the same transfer.
	push := ps
	push.Request = ps.Request.Clone()
	push.Request.Set("broadcast", true)
	if s2, err := pay.Summarize(push); err != nil || s2.Amount.Cmp(s.Amount) != 0 {
		t.Fatalf("push: %+v %v", s2, err)
	}
}

// Every tempo request the summary cannot state exactly is refused, by
// Summarize and by the Policy.
func TestSummarizeTempoRefusesWhatItCannotState(t *testing.T) {
	ok, _ := tempoMemoSummary(t)
	edit := func(f func(r, call *jsonv.Object)) gate.PaymentSummary {
		ps := ok
		ps.Request = ok.Request.Clone()
		call, _ := ps.Request.GetObject("call")
		f(ps.Request, call)
		return ps
	}
	data := func(call *jsonv.Object) []byte {
		d, _ := call.GetString("data")
		b, _ := mpp.HexBytes(d, 0, 1000)
		return b
	}
	setData := func(call *jsonv.Object, b []byte) { call.Set("data", "0x"+common.Bytes2Hex(b)) }
	cases := map[string]gate.PaymentSummary{
		"extra member":         edit(func(r, _ *jsonv.Object) { r.Set("feeToken", pathUSD) }),
		"no broadcast":         edit(func(r, _ *jsonv.Object) { r.Delete("broadcast") }),
		"broadcast text":       edit(func(r, _ *jsonv.Object) { r.Set("broadcast", "false") }),
		"chainId text":         edit(func(r, _ *jsonv.Object) { r.Set("chainId", "42431") }),
		"chainId zero":         edit(func(r, _ *jsonv.Object) { r.Set("chainId", jsonv.Number(0)) }),
		"validBefore negative": edit(func(r, _ *jsonv.Object) { r.Set("validBefore", jsonv.Number(-1)) }),
		"validBefore text":     edit(func(r, _ *jsonv.Object) { r.Set("validBefore", "1790000000") }),
		"tempo-calls (splits)": edit(func(r, call *jsonv.Object) {
			r.Set("kind", tempo.KindTempoCalls)
			r.Delete("call")
			r.Set("calls", []jsonv.Value{call.Clone()})
		}),
		"call with a value":  edit(func(_, call *jsonv.Object) { call.Set("value", "1") }),
		"call to no address": edit(func(_, call *jsonv.Object) { call.Set("to", "pathUSD") }),
		"call is a list":     edit(func(r, call *jsonv.Object) { r.Set("call", []jsonv.Value{call}) }),
		"plain transfer": edit(func(_, call *jsonv.Object) {
			b := data(call)
			copy(b, tempo.SelectorTransfer[:])
			setData(call, b[:68])
		}),
		"other selector":          edit(func(_, call *jsonv.Object) { b := data(call); b[0] ^= 1; setData(call, b) }),
		"dirty address word":      edit(func(_, call *jsonv.Object) { b := data(call); b[4] = 1; setData(call, b) }),
		"calldata too long":       edit(func(_, call *jsonv.Object) { setData(call, append(data(call), 0)) }),
		"calldata odd hex":        edit(func(_, call *jsonv.Object) { d, _ := call.GetString("data"); call.Set("data", d+"0") }),
		"tempo-key-authorization": {Pairing: ok.Pairing, Request: jsonv.Obj("kind", tempo.KindTempoKeyAuthorization, "authorization", jsonv.Obj(), "digest", "0x00")},
	}
	p := newPolicy(t, pay.PolicyConfig{Limits: []pay.Limit{{Network: tempoNetwork, MaxAmount: bigInt(1 << 62)}}, Now: time.Now})
	if err := p.Allow(context.Background(), ok); err != nil {
		t.Fatalf("the unedited request: %v", err)
	}
	for name, ps := range cases {
		if _, err := pay.Summarize(ps); refusal(err) != pay.DetailRequestUnreadable {
			t.Errorf("Summarize %s: %v", name, err)
		}
		if got := refusal(p.Allow(context.Background(), ps)); got != pay.DetailRequestUnreadable {
			t.Errorf("%s: %s", name, got)
		}
	}
	// validBefore 0 is no deadline: readable, and past every MaxPayable.
	forever := edit(func(r, _ *jsonv.Object) { r.Set("validBefore", jsonv.Number(0)) })
	if s, err := pay.Summarize(forever); err != nil || s.PayableUntil.Before(time.Now().Add(100*365*24*time.Hour)) {
		t.Fatalf("%+v %v", s, err)
	}
	if got := refusal(p.Allow(context.Background(), forever)); got != pay.DetailPayableTooLong {
		t.Fatalf("no deadline: %s", got)
	}
}

// evmAuthorizationDoc is an MPP EVM charge of 0.01 USDC on Base Sepolia
// offering mpp/charge/evm/authorization, placed for h at link.
func evmAuthorizationDoc(t *testing.T, link string, h atr.Hash) []jsonv.Value {
	t.Helper()
	request := jsonv.Obj("amount", "10000", "currency", usdc, "recipient", payee,
		"methodDetails", jsonv.Obj("chainId", 84532, "credentialTypes", []jsonv.Value{"authorization"}))
	c := jsonv.Obj("realm", "api.seller.example", "method", "evm", "intent", "charge",
		"request", mpp.EncodeObject(request), "expires", time.Now().Add(5*time.Minute).UTC().Format("2006-01-02T15:04:05Z"))
	doc, err := mpp.Place([]jsonv.Value{c}, h, link, c, "")
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// mpp/charge/evm/authorization asks for the same EIP-3009 typed data as
// x402 exact (the nonce is the challenge hash, not H; validBefore the
// challenge's expiry): Summarize reads it as it reads x402's.
func TestSummarizeMPPAuthorization(t *testing.T) {
	a, _ := vectorATRs(t)
	h := atr.Sum(a)
	p := evm.MPPAuthorization{}
	read, err := p.Read(evmAuthorizationDoc(t, "https://atr.seller.example/"+h.String(), h))
	if err != nil {
		t.Fatal(err)
	}
	choice, err := p.Choose(read, anvil(t).Account(), jsonv.Obj("tokenDomain", jsonv.Obj("name", "USDC", "version", "2")), time.Now().Unix(), "")
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.Build(choice, a, h)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := p.Request(u)
	ps := gate.PaymentSummary{Pairing: evm.MPPAuthorizationID, H: h, Request: req}
	s, err := pay.Summarize(ps)
	if err != nil {
		t.Fatal(err)
	}
	expires, _ := mpp.UnixOf(mpp.String(mustObject(t, read.Options[0]), "expires"))
	if s.Amount.String() != "10000" || s.Asset != usdc || s.AssetName != "USDC" || s.Payee != payee || s.Payer != payer ||
		s.Network != network || s.Pairing != evm.MPPAuthorizationID || !s.PayableUntil.Equal(time.Unix(expires, 0)) ||
		!s.PayableFrom.Equal(time.Unix(0, 0)) {
		t.Fatalf("%+v", s)
	}
	policy := newPolicy(t, pay.PolicyConfig{Limits: []pay.Limit{{Network: network, Asset: usdc, MaxAmount: bigInt(9999)}}, Now: time.Now})
	if got := refusal(policy.Allow(context.Background(), ps)); got != pay.DetailAmountAboveMaximum {
		t.Fatalf("policy: %s", got)
	}
}

func mustObject(t *testing.T, v jsonv.Value) *jsonv.Object {
	t.Helper()
	o, ok := jsonv.AsObject(v)
	if !ok {
		t.Fatalf("%v is no object", v)
	}
	return o
}
