package hedera_test

import (
	"context"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/hedera"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/vectors"
)

// sessionPayment is the vector file's mpp/session/hedera payment (HS3's
// opening with its landed log).
func sessionPayment(t testing.TB) jsonv.Value {
	ps, err := vectors.Payments()
	if err != nil {
		t.Fatal(err)
	}
	return ps[hedera.SessionID]
}

// Inspect reads the opening with its landed log: the deposit of HS3's log
// from the payer to the payee, H the salt; a voucher reads as
// channel-within with no H.
func TestSessionInspect(t *testing.T) {
	in, err := hedera.Session{}.Inspect(sessionPayment(t))
	if err != nil || in.Kind != "channel-open" || in.Grant.Amount.String() != "10000000" || in.Grant.Network != "hedera:testnet" ||
		in.Grant.Payer != "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266" || in.H != "0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Fatalf("inspect %+v, %v", in, err)
	}
	o := jsonv.Clone(sessionPayment(t)).(*jsonv.Object)
	p, _ := o.GetObject("payload")
	p.Set("action", "voucher")
	p.Set("cumulativeAmount", "50")
	p.Set("signature", "0x"+strings.Repeat("11", 65))
	in, err = hedera.Session{}.Inspect(o)
	if err != nil || in.Kind != "channel-within" || in.H != "" || in.Grant.Amount.String() != "50" {
		t.Fatalf("voucher %+v, %v", in, err)
	}
}

// FuzzHederaSessionCredential: mpp/session/hedera's Bound, Reference,
// ChannelKind, ChannelRef and Inspect with the input as the credential's
// JSON never panic and stay within the time bound; an opening Inspect reads
// has Bound's H. Seeded with the vector payment.
func FuzzHederaSessionCredential(f *testing.F) {
	f.Add(jsonv.Marshal(sessionPayment(f)))
	f.Fuzz(func(t *testing.T, raw []byte) {
		cost.Bound(t, len(raw), func() {
			v, err := jsonv.ParseDepth(raw, 16)
			if err != nil {
				return
			}
			p := hedera.Session{}
			h, errB := p.Bound(v)
			_, _ = p.Reference(v)
			_, _ = p.ChannelKind(v)
			_, _ = p.ChannelRef(v)
			in, errI := p.Inspect(v)
			if errI == nil && in.Kind == "channel-open" && (errB != nil || h != in.H) {
				t.Fatalf("inspect says H %q, bound %q (%v)", in.H, h, errB)
			}
			if errI == nil {
				_ = jsonv.Marshal(in.JSON())
			}
		})
	})
}

// sessionDoc is the vector file's placed challenge.
func sessionDoc(t testing.TB) []jsonv.Value {
	v, err := vectors.Load("mpp-session-hedera-solana-xrpl.json")
	if err != nil {
		t.Fatal(err)
	}
	f, _ := jsonv.AsObject(v)
	ss1, _ := f.GetObject("SS1")
	h, _ := ss1.GetObject("hedera")
	placed, _ := h.GetObject("placed")
	return []jsonv.Value{placed}
}

// openSession reads, chooses, builds, answers the sent opening with
// landed (the escrow's ChannelOpened for this channel, as a relay reports
// it), signs the zero voucher with s and completes; it reads H back.
func openSession(t testing.TB, doc []jsonv.Value, s rails.Signer) jsonv.Value {
	p := hedera.Session{}
	read, err := p.Read(doc)
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Choose(read, s.Account(), jsonv.Obj("deposit", "10000000"), 1_790_000_000, "")
	if err != nil {
		t.Fatal(err)
	}
	h := atr.Sum([]byte("abc"))
	u, err := p.Build(c, []byte("abc"), h)
	if err != nil {
		t.Fatal(err)
	}
	const tx = "0x1111111111111111111111111111111111111111111111111111111111111111"
	payer := strings.ToLower(strings.TrimPrefix(s.Account(), "hedera:testnet:"))
	channel := hedera.ChannelID(payer, "0x742d35cc6634c0532925a3b844bc9e7595f8fe00", "0x0000000000000000000000000000000000001549", h,
		"0x0000000000000000000000000000000000000000", "0x8aaf6690c2a6397d595f97e224fc19759de6fdae", 296)
	log := jsonv.Obj("address", "0x8aaf6690c2a6397d595f97e224fc19759de6fdae", "topics", []jsonv.Value{hedera.TopicChannelOpened,
		channel.String(), "0x000000000000000000000000" + payer[2:], "0x000000000000000000000000742d35cc6634c0532925a3b844bc9e7595f8fe00"},
		"data", "0x0000000000000000000000000000000000000000000000000000000000001549"+strings.Repeat("0", 64)+h.String()[2:]+
			"0000000000000000000000000000000000000000000000000000000000989680")
	sent := jsonv.Obj("hash", tx, "landed", jsonv.Obj("transaction", tx, "blockNumber", "40000000", "logs", []jsonv.Value{log}))
	next, err := p.Complete(u, sent, rails.Chosen{})
	if err != nil {
		t.Fatal(err)
	}
	sig, err := s.Sign(context.Background(), next.Next)
	if err != nil {
		t.Fatal(err)
	}
	done, err := p.Complete(u, []jsonv.Value{sent, sig}, rails.Chosen{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := p.Bound(done.Signed); err != nil || got != h.String() {
		t.Fatalf("bound %q, %v", got, err)
	}
	return done.Signed
}

func TestSessionOpenReadsBack(t *testing.T) {
	s, _ := signer.FromHex(signer.AnvilKey, "hedera:testnet")
	signed := openSession(t, sessionDoc(t), s)
	sent, landed := hedera.Session{}.Sent(signed)
	if o, _ := jsonv.AsObject(sent); o.Has("landed") || landed == nil {
		t.Fatalf("sent %v, landed %v", sent, landed)
	}
	if _, err := (hedera.Session{}).Bound(sent); err == nil {
		t.Fatal("an opening without its landed receipt read back")
	}
}

// BenchmarkHederaSessionBuildSignFinish is mpp/session/hedera's opening
// with the ATR in hand: read the placed challenge, choose, build the two
// calls, complete with the sent opening's answer (a fixed hash and landed
// receipt: the send itself is the relay's, not in the figure), sign the
// zero voucher (EIP-712, secp256k1) with the local key, complete the
// credential, read H back from the landed log.
func BenchmarkHederaSessionBuildSignFinish(b *testing.B) {
	s, _ := signer.FromHex(signer.AnvilKey, "hedera:testnet")
	doc := sessionDoc(b)
	b.ReportAllocs()
	for b.Loop() {
		openSession(b, doc, s)
	}
}
