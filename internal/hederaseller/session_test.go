package hederaseller

import (
	"context"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/hedera"
	"github.com/termsgate/termsgate/rails/hedera/relay"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/signer/evmrpc"
)

// sessionRig is the session seller on loopback with its relay and the
// gate's payer.
type sessionRig struct {
	seller *Session
	relay  *Relay
	client *http.Client
	payer  *demo.Counting
	g      *gate.Gate
}

func startSession(t *testing.T) *sessionRig {
	t.Helper()
	chain, url, stop := StartRelay()
	t.Cleanup(stop)
	node, err := evmrpc.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(node.Close)
	node.Poll = 5 * time.Millisecond
	rd, err := relay.Reader(context.Background(), node)
	if err != nil {
		t.Fatal(err)
	}
	seller := &Session{reader: rd, body: []byte(`{"ok":true}`), expires: time.Now().Add(10 * time.Minute).UTC().Format(time.RFC3339)}
	seller.SetATR(demo.ATR)
	srv, err := loopback.Start(seller)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	key, _ := signer.FromHex(signer.AnvilKey, "hedera:testnet")
	return &sessionRig{seller: seller, relay: chain, client: srv.Client(), payer: demo.Count(signer.NewEVM(key, node)),
		g: &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}}}
}

func (r *sessionRig) challenge(t *testing.T) []jsonv.Value {
	t.Helper()
	resp, _, err := demo.Get(context.Background(), r.client, "https://api.seller.example/v1/complete", "", "")
	if err != nil || resp.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("402: %v", err)
	}
	doc, err := mpp.ChallengesFromHeader(resp.Header)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func (r *sessionRig) present(t *testing.T, signed jsonv.Value) int {
	t.Helper()
	cred, _ := jsonv.AsObject(signed)
	_, value := mpp.Header(cred)
	resp, _, err := demo.Get(context.Background(), r.client, "https://api.seller.example/v1/complete", "Authorization", value)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode
}

// The seller refuses an opening whose landed salt is not the hash of the
// terms it serves now, a voucher for another amount than the price, and a
// voucher signed by another key; the relay holds the one channel opened.
func TestSessionSellerRefuses(t *testing.T) {
	r := startSession(t)
	doc := r.challenge(t)
	opened, err := r.g.Transact(context.Background(), doc, hedera.SessionID, r.payer, &gate.TransactOptions{Inputs: jsonv.Obj("deposit", "100")})
	if err != nil {
		t.Fatal(err)
	}
	if r.payer.Calls() != 2 {
		t.Fatalf("%d signer calls, want 2 (the sent calls, the zero voucher)", r.payer.Calls())
	}
	// Other terms now: the channel's salt is not their hash.
	r.seller.SetATR([]byte("other terms"))
	if code := r.present(t, opened.Signed); code != http.StatusPaymentRequired || !strings.Contains(r.seller.LastRejection().Error(), "salt") {
		t.Fatalf("other terms: %d, %v", code, r.seller.LastRejection())
	}
	r.seller.SetATR(demo.ATR)
	if code := r.present(t, opened.Signed); code != http.StatusOK {
		t.Fatalf("control: %d, %v", code, r.seller.LastRejection())
	}
	hold, err := r.g.OpenChannel(opened.Bytes, hedera.SessionID, opened.Signed, opened.Landed)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.relay.ChannelOf(hold.Channel); !ok || r.relay.Channels() != 1 {
		t.Fatalf("the relay holds %d channels", r.relay.Channels())
	}
	v, err := r.g.Within(context.Background(), r.challenge(t), hold, hedera.SessionID, r.payer, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	more := jsonv.Clone(v.Signed).(*jsonv.Object)
	p, _ := more.GetObject("payload")
	p.Set("cumulativeAmount", "26")
	if code := r.present(t, more); code != http.StatusPaymentRequired {
		t.Fatalf("another amount: %d", code)
	}
	other, _ := signer.FromHex("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d", "hedera:testnet")
	ch, _ := atr.ParseHash(hold.Channel)
	td := hedera.VoucherTypedData(296, EscrowContract, ch, mustBig("25"))
	sig, err := other.Sign(context.Background(), jsonv.Obj("kind", "eip712", "typedData", td))
	if err != nil {
		t.Fatal(err)
	}
	forged := jsonv.Clone(v.Signed).(*jsonv.Object)
	fp, _ := forged.GetObject("payload")
	fp.Set("signature", sig)
	if code := r.present(t, forged); code != http.StatusPaymentRequired || !strings.Contains(r.seller.LastRejection().Error(), "not the payer's") {
		t.Fatalf("another key: %d, %v", code, r.seller.LastRejection())
	}
	if code := r.present(t, v.Signed); code != http.StatusOK {
		t.Fatalf("the voucher: %d, %v", code, r.seller.LastRejection())
	}
}

// A key with no node refuses the opening before signing anything.
func TestSessionNeedsANode(t *testing.T) {
	r := startSession(t)
	key, _ := signer.FromHex(signer.AnvilKey, "hedera:testnet")
	_, err := r.g.Transact(context.Background(), r.challenge(t), hedera.SessionID, &signer.EVM{Local: key},
		&gate.TransactOptions{Inputs: jsonv.Obj("deposit", "100")})
	if err == nil || r.relay.Channels() != 0 {
		t.Fatalf("opened without a node: %v", err)
	}
}

func mustBig(s string) *big.Int { n, _ := new(big.Int).SetString(s, 10); return n }
