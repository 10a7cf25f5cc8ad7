package x402seller

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

// otherKey is the second published Anvil development key: a signer that is
// not the channel's payer authorizer.
const otherKey = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"

func ecdsaKey(t *testing.T, hexKey string) *ecdsa.PrivateKey {
	t.Helper()
	k, err := crypto.HexToECDSA(strings.TrimPrefix(hexKey, "0x"))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// signVoucher signs the Voucher's EIP-712 digest as rails/evm/batch.go
// defines it, with v as 27/28.
func signVoucher(t *testing.T, k *ecdsa.PrivateKey, channel, amount string) string {
	t.Helper()
	d, err := evm.TypedDataDigest(evm.VoucherTypedData(84532, channel, amount))
	if err != nil {
		t.Fatal(err)
	}
	sig, err := crypto.Sign(d[:], k)
	if err != nil {
		t.Fatal(err)
	}
	sig[64] += 27
	return fmt.Sprintf("0x%x", sig)
}

// A voucher the demo seller must refuse: one naming another channel (its
// id alone, or a self-consistent configuration never opened), one for
// another cumulative amount, one signed by another key. Each gets a 402
// with its reason and leaves the channel as it was, so the genuine voucher
// is accepted afterwards; replaying it or the opening is then refused.
func TestBatchSellerRefusesTamperedVouchers(t *testing.T) {
	seller := &Batch{}
	seller.SetATR(demo.ATR)
	srv, err := loopback.Start(seller)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	client := srv.Client()
	const resource = "https://api.seller.example/v1/stream"
	get := func(payment jsonv.Value) (int, string, *jsonv.Object) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, resource, nil)
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

	key, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		t.Fatal(err)
	}
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}}
	ctx := context.Background()
	_, _, doc := get(nil)
	opened, err := g.Transact(ctx, doc, evm.BatchID, key, &gate.TransactOptions{
		Inputs: jsonv.Obj("payerAuthorizer", key.Address().Hex(), "deposit", "100000")})
	if err != nil {
		t.Fatal(err)
	}
	hold, err := g.OpenChannel(opened.Bytes, evm.BatchID, opened.Signed, nil)
	if err != nil {
		t.Fatal(err)
	}
	if code, body, _ := get(opened.Signed); code != http.StatusOK {
		t.Fatalf("opening: %d %s", code, body)
	}
	hold, _ = gate.RecordCharge(hold, "1000")
	_, _, doc = get(nil)
	next, err := g.Within(ctx, doc, hold, evm.BatchID, key, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	channel := hold.Channel
	payer, other := ecdsaKey(t, signer.AnvilKey), ecdsaKey(t, otherKey)

	// tamper returns a copy of the genuine voucher payment with its voucher
	// (and configuration) changed by f.
	tamper := func(f func(config, voucher *jsonv.Object)) jsonv.Value {
		p := jsonv.Clone(next.Signed)
		payload, _ := jsonv.AsObject(demo.Path(p, "payload"))
		config, _ := payload.GetObject("channelConfig")
		voucher, _ := payload.GetObject("voucher")
		f(config, voucher)
		return p
	}
	revoucher := func(k *ecdsa.PrivateKey, channel, amount string) func(_, v *jsonv.Object) {
		return func(_, v *jsonv.Object) {
			v.Set("channelId", channel)
			v.Set("maxClaimableAmount", amount)
			v.Set("signature", signVoucher(t, k, channel, amount))
		}
	}
	refund := jsonv.Clone(next.Signed)
	if payload, ok := jsonv.AsObject(demo.Path(refund, "payload")); ok {
		payload.Set("type", "refund")
		payload.Set("amount", "1000")
	}
	otherChannel := "0x" + strings.Repeat("ab", 32)
	for _, c := range []struct {
		name, reason string
		payment      jsonv.Value
	}{
		{"other channel id", "channel-id-mismatch", tamper(revoucher(payer, otherChannel, "2000"))},
		{"unopened channel", "no such channel", tamper(func(config, v *jsonv.Object) {
			// A configuration with the other key as authorizer: its id is
			// consistent and its salt is H, but it was never opened.
			salt, _ := config.GetString("salt")
			delay, _ := jsonv.AsSafeInt(demo.Path(config, "withdrawDelay"))
			cc := evm.ChannelConfig{WithdrawDelay: delay}
			cc.Payer, _ = config.GetString("payer")
			cc.Receiver, _ = config.GetString("receiver")
			cc.ReceiverAuthorizer, _ = config.GetString("receiverAuthorizer")
			cc.Token, _ = config.GetString("token")
			cc.PayerAuthorizer = crypto.PubkeyToAddress(other.PublicKey).Hex()
			b, _ := evm.HexBytes(salt)
			copy(cc.Salt[:], b)
			id := cc.ChannelID(84532)
			config.Set("payerAuthorizer", cc.PayerAuthorizer)
			revoucher(other, fmt.Sprintf("0x%x", id[:]), "2000")(config, v)
		})},
		{"amount above the price", "the voucher allows 3000", tamper(revoucher(payer, channel, "3000"))},
		{"amount not raised", "the voucher allows 1000", tamper(revoucher(payer, channel, "1000"))},
		{"amount not decimal", "not a uint128", tamper(revoucher(payer, channel, "0x7d0"))},
		{"signature over another amount", "not the channel's authorizer", tamper(func(_, v *jsonv.Object) {
			v.Set("signature", signVoucher(t, payer, channel, "3000"))
		})},
		{"wrong signer", "not the channel's authorizer", tamper(revoucher(other, channel, "2000"))},
		{"no signature", "does not recover", tamper(func(_, v *jsonv.Object) { v.Delete("signature") })},
		{"a refund", "not refunds", refund},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, body, _ := get(c.payment)
			if code != http.StatusPaymentRequired {
				t.Fatalf("status %d, want 402: %s", code, body)
			}
			if !strings.Contains(body, c.reason) {
				t.Errorf("reason %q lacks %q", body, c.reason)
			}
		})
	}
	if code, body, _ := get(next.Signed); code != http.StatusOK {
		t.Fatalf("the genuine voucher after the tampered ones: %d %s", code, body)
	}
	if code, body, _ := get(next.Signed); code != http.StatusPaymentRequired || !strings.Contains(body, "the voucher allows 2000, the request is priced at a cumulative 3000") {
		t.Errorf("replayed voucher: %d %s", code, body)
	}
	if code, body, _ := get(opened.Signed); code != http.StatusPaymentRequired || !strings.Contains(body, "already open") {
		t.Errorf("replayed opening: %d %s", code, body)
	}
}
