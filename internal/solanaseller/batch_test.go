package solanaseller

import (
	"context"
	"crypto/ed25519"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

// The Solana channel demo: the opening in one signer call, a voucher and
// the close in one more each, all accepted by a seller that verifies every
// signature with solana-go; other terms' hash declined unsigned.
func TestDemoBatchSolanaPaysEndToEnd(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), "batch-solana", "")
	if err != nil || paid == "" {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"signer calls: 1, a batch", "co-signed as fee payer: 200", "verified for the channel's authorizer: 200",
		"charged 2000 of 2000 signed", "declined hash-mismatch", "signer calls for it: 0", "verified the payer's signature and co-signed: 200"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

// What the Solana channel seller must refuse, each with its reason and
// leaving the channel as it was: an opening whose memo carries another
// hash, or whose configuration states another salt than the channel its
// instruction opens; a voucher signed by another key, for another amount,
// or naming another channel; then, after the genuine voucher, a replay of
// it and of the opening.
func TestSolanaBatchSellerRefusesTampered(t *testing.T) {
	seller := &Batch{feePayer: FeePayer()}
	seller.SetATR(demo.ATR)
	srv, err := loopback.Start(seller)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	client := srv.Client()
	get := func(payment jsonv.Value) (int, string, *jsonv.Object) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, "https://api.seller.example/v1/feed", nil)
		if payment != nil {
			req.Header.Set("PAYMENT-SIGNATURE", x402.EncodeHeader(payment))
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		doc, _ := x402.DecodeHeader(resp.Header.Get("PAYMENT-REQUIRED"))
		return resp.StatusCode, string(body), doc
	}
	key, err := signer.SolanaFromSeedHex(signer.SolanaDevSeed, Devnet)
	if err != nil {
		t.Fatal(err)
	}
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}}
	ctx := context.Background()
	_, _, doc := get(nil)
	inputs := jsonv.Obj("payerAuthorizer", key.Key().String(), "openSlot", "341000000", "tokenProgram", solana.TokenProgram.String(),
		"recentBlockhash", Blockhash, "deposit", "100000", "salt", "7")
	opened, err := g.Transact(ctx, doc, solana.BatchID, key, &gate.TransactOptions{Inputs: inputs})
	if err != nil {
		t.Fatal(err)
	}
	edit := func(v jsonv.Value, f func(payload *jsonv.Object)) jsonv.Value {
		c := jsonv.Clone(v)
		payload, _ := jsonv.AsObject(demo.Path(c, "payload"))
		f(payload)
		return c
	}
	// An opening with another salt in its configuration: the instruction's
	// channel is not the stated configuration's.
	otherSalt := edit(opened.Signed, func(p *jsonv.Object) { o, _ := p.GetObject("channelConfig"); o.Set("salt", "8") })
	if code, body, _ := get(otherSalt); code != http.StatusPaymentRequired || !strings.Contains(body, "not the address of the stated configuration") {
		t.Fatalf("other salt: %d %s", code, body)
	}
	// Other terms: the memo carries a hash this seller does not serve.
	seller.SetATR(demo.Changed(demo.ATR))
	if code, body, _ := get(opened.Signed); code != http.StatusPaymentRequired || !strings.Contains(body, "memo does not carry") {
		t.Fatalf("other terms: %d %s", code, body)
	}
	seller.SetATR(demo.ATR)
	if code, body, _ := get(opened.Signed); code != http.StatusOK {
		t.Fatalf("opening: %d %s", code, body)
	}
	hold, err := g.OpenChannel(opened.Bytes, solana.BatchID, opened.Signed, nil)
	if err != nil {
		t.Fatal(err)
	}
	hold, _ = gate.RecordCharge(hold, "1000")
	_, _, doc = get(nil)
	next, err := g.Within(ctx, doc, hold, solana.BatchID, key, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ch, _ := solana.ParseKey(hold.Channel)
	otherKey := ed25519.NewKeyFromSeed(make([]byte, 32))
	for _, c := range []struct {
		name, reason string
		f            func(v *jsonv.Object)
	}{
		{"another signer", "not the channel authorizer's", func(v *jsonv.Object) {
			v.Set("signature", solana.Base58(ed25519.Sign(otherKey, solana.VoucherMessage(ch, 2000, 0))))
		}},
		{"another amount", "priced at a cumulative 2000", func(v *jsonv.Object) {
			v.Set("maxClaimableAmount", "3000")
		}},
		{"another channel", "names channel", func(v *jsonv.Object) { v.Set("channelId", solana.ChannelProgram.String()) }},
		{"a forged signature", "not the channel authorizer's", func(v *jsonv.Object) { v.Set("signature", strings.Repeat("1", 64)) }},
	} {
		p := edit(next.Signed, func(p *jsonv.Object) { v, _ := p.GetObject("voucher"); c.f(v) })
		if code, body, _ := get(p); code != http.StatusPaymentRequired || !strings.Contains(body, c.reason) {
			t.Fatalf("%s: %d %s", c.name, code, body)
		}
	}
	if code, body, _ := get(next.Signed); code != http.StatusOK {
		t.Fatalf("genuine voucher: %d %s", code, body)
	}
	for name, p := range map[string]jsonv.Value{"replayed voucher": next.Signed, "replayed opening": opened.Signed} {
		if code, _, _ := get(p); code != http.StatusPaymentRequired {
			t.Fatalf("%s accepted", name)
		}
	}
}
