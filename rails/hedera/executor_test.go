package hedera_test

import (
	"context"
	"crypto/ed25519"
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

// executorPayment is the vector file's B6 payment.
func executorPayment(t testing.TB) *jsonv.Object {
	v, err := vectors.Load("x402-exact-hedera-transfer-executor.json")
	if err != nil {
		t.Fatal(err)
	}
	f, _ := jsonv.AsObject(v)
	rows, _ := f.Get("buyer")
	b, _ := jsonv.AsObject(rows)
	list, _ := b.Get("rows")
	for _, r := range list.([]jsonv.Value) {
		o, _ := jsonv.AsObject(r)
		if n, _ := o.GetString("name"); n == "B6" {
			in, _ := o.GetObject("input")
			p, _ := in.GetObject("presented")
			return p
		}
	}
	t.Fatal("no B6")
	return nil
}

// Inspect reads the vector payment: H, the payer's grant, the idDigest.
func TestExecutorInspect(t *testing.T) {
	in, err := hedera.Executor{}.Inspect(executorPayment(t))
	if err != nil || in.Grant.Payer != "0.0.5001" || in.Grant.Payee != "0.0.4001" || in.Grant.Amount.Int64() != 100000000 ||
		in.Grant.Decimals != 8 || in.H != "0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Fatalf("inspect %+v, %v", in, err)
	}
	if d, _ := in.Details.GetString("idDigest"); d != "0xe3c70ca164e2edb9392b9914239c506f3d4e6bcbcbe701819c7c3b2721c935c3" {
		t.Fatalf("idDigest %s", d)
	}
}

// FuzzHederaExecutorPayment: x402/exact/hedera/transfer-executor's Bound,
// Reference and Inspect with the input as the payment's JSON never panic and
// stay within the time bound; Inspect's H is Bound's. Seeded with the
// vector payment.
func FuzzHederaExecutorPayment(f *testing.F) {
	f.Add(jsonv.Marshal(executorPayment(f)))
	f.Fuzz(func(t *testing.T, raw []byte) {
		cost.Bound(t, len(raw), func() {
			v, err := jsonv.ParseDepth(raw, 16)
			if err != nil {
				return
			}
			p := hedera.Executor{}
			h, errB := p.Bound(v)
			_, _ = p.Reference(v)
			in, errI := p.Inspect(v)
			if errI == nil && (errB != nil || h != in.H) {
				t.Fatalf("inspect says H %q, bound %q (%v)", in.H, h, errB)
			}
		})
	})
}

// executorDoc is the vector file's B2 document (the option, H advertised).
func executorDoc(t testing.TB) *jsonv.Object {
	v, err := vectors.Load("x402-exact-hedera-transfer-executor.json")
	if err != nil {
		t.Fatal(err)
	}
	f, _ := jsonv.AsObject(v)
	b, _ := f.GetObject("buyer")
	list, _ := b.Get("rows")
	for _, r := range list.([]jsonv.Value) {
		o, _ := jsonv.AsObject(r)
		if n, _ := o.GetString("name"); n == "B2" {
			in, _ := o.GetObject("input")
			d, _ := in.GetObject("doc")
			return d
		}
	}
	t.Fatal("no B2")
	return nil
}

// payExecutor reads, chooses, builds, signs with s and completes at now;
// it answers the payment and the request signed.
func payExecutor(t testing.TB, d *jsonv.Object, s rails.Signer, now int64) (jsonv.Value, rails.Request) {
	p := hedera.Executor{}
	read, err := p.Read(d)
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Choose(read, s.Account(), nil, now, "")
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.Build(c, []byte("abc"), atr.Sum([]byte("abc")))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := p.Request(u)
	answer, err := s.Sign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	done, err := p.Complete(u, answer, rails.Chosen{})
	if err != nil {
		t.Fatal(err)
	}
	return done.Signed, req
}

// The local Hedera key answers a hedera-executor request with the Ed25519
// form for the first executor: the executor's check passes for exactly the
// transfer the facilitator constructs, and fails for any other field, a
// later time, another key or a changed byte.
func TestExecutorLocalSigner(t *testing.T) {
	const payer, now = "0.0.5001", 1755500000
	s, err := signer.NewHedera("hedera:testnet:"+payer, signer.HederaDevSeed)
	if err != nil {
		t.Fatal(err)
	}
	payment, req := payExecutor(t, executorDoc(t), s, now)
	in, err := hedera.Executor{}.Inspect(payment)
	if err != nil || in.Grant.Payer != payer || in.H != atr.Sum([]byte("abc")).String() {
		t.Fatalf("inspect %+v, %v", in, err)
	}
	auth, _ := in.Details.GetString("authorization")
	executor, _ := in.Details.GetString("executor")
	before, _, ok := hedera.ReadExecutorAuthorization(auth)
	if !ok || before != now+120 || executor != "0.0.7000" {
		t.Fatalf("authorization %s (valid before %d), executor %s", auth, before, executor)
	}
	pub := s.PublicKey()
	check := func(pub ed25519.PublicKey, auth, network, executor, payer, asset, payTo, amount string, at int64) string {
		return hedera.VerifyExecutorAuthorization(pub, auth, network, executor, payer, asset, payTo, amount, at)
	}
	if why := check(pub, auth, "hedera:testnet", "0.0.7000", payer, "0.0.0", "0.0.4001", "100000000", now); why != "" {
		t.Fatalf("the executor refuses the authorization: %s", why)
	}
	other, _ := signer.NewHedera("hedera:testnet:"+payer, "0808080808080808080808080808080808080808080808080808080808080808")
	flipped := auth[:len(auth)-2] + map[bool]string{true: "00", false: "01"}[auth[len(auth)-2:] != "00"]
	for name, why := range map[string]string{
		"network":  check(pub, auth, "hedera:mainnet", "0.0.7000", payer, "0.0.0", "0.0.4001", "100000000", now),
		"executor": check(pub, auth, "hedera:testnet", "0.0.7001", payer, "0.0.0", "0.0.4001", "100000000", now),
		"payer":    check(pub, auth, "hedera:testnet", "0.0.7000", "0.0.5002", "0.0.0", "0.0.4001", "100000000", now),
		"asset":    check(pub, auth, "hedera:testnet", "0.0.7000", payer, "0.0.456", "0.0.4001", "100000000", now),
		"payTo":    check(pub, auth, "hedera:testnet", "0.0.7000", payer, "0.0.0", "0.0.4002", "100000000", now),
		"amount":   check(pub, auth, "hedera:testnet", "0.0.7000", payer, "0.0.0", "0.0.4001", "100000001", now),
		"expired":  check(pub, auth, "hedera:testnet", "0.0.7000", payer, "0.0.0", "0.0.4001", "100000000", now+120),
		"key":      check(other.PublicKey(), auth, "hedera:testnet", "0.0.7000", payer, "0.0.0", "0.0.4001", "100000000", now),
		"byte":     check(pub, flipped, "hedera:testnet", "0.0.7000", payer, "0.0.0", "0.0.4001", "100000000", now),
		"short":    check(pub, auth[:len(auth)-2], "hedera:testnet", "0.0.7000", payer, "0.0.0", "0.0.4001", "100000000", now),
		"no key":   check(nil, auth, "hedera:testnet", "0.0.7000", payer, "0.0.0", "0.0.4001", "100000000", now),
	} {
		if why == "" {
			t.Errorf("%s: the executor accepts the authorization", name)
		}
	}
	// What the key refuses to sign: another network, another kind, a
	// request that does not read, no executor.
	bad := func(edit func(o *jsonv.Object)) error {
		r := req.Clone()
		edit(r)
		_, err := s.Sign(context.Background(), r)
		return err
	}
	for name, err := range map[string]error{
		"network":   bad(func(o *jsonv.Object) { o.Set("network", "hedera:mainnet") }),
		"kind":      bad(func(o *jsonv.Object) { o.Set("kind", "hedera-allowance") }),
		"amount":    bad(func(o *jsonv.Object) { o.Set("amount", "-1") }),
		"payTo":     bad(func(o *jsonv.Object) { o.Set("payTo", "alice") }),
		"executors": bad(func(o *jsonv.Object) { o.Set("executors", []jsonv.Value{}) }),
		"executor":  bad(func(o *jsonv.Object) { o.Set("executors", []jsonv.Value{"*"}) }),
		"before":    bad(func(o *jsonv.Object) { o.Delete("validBefore") }),
	} {
		if err == nil {
			t.Errorf("%s: the key signed", name)
		}
	}
}

// FuzzExecutorAuthorization: ReadExecutorAuthorization and the executor's
// check never panic on any text, and what reads writes back to the same
// text (lowercase hex). Seeded with an authorization of the local key.
func FuzzExecutorAuthorization(f *testing.F) {
	s, _ := signer.NewHedera("hedera:testnet:0.0.5001", signer.HederaDevSeed)
	payment, _ := payExecutor(f, executorDoc(f), s, 1755500000)
	in, _ := hedera.Executor{}.Inspect(payment)
	auth, _ := in.Details.GetString("authorization")
	f.Add(auth)
	f.Add("0x0f2c9d1a")
	pub := s.PublicKey()
	f.Fuzz(func(t *testing.T, text string) {
		cost.Bound(t, len(text), func() {
			before, sig, ok := hedera.ReadExecutorAuthorization(text)
			if ok && hedera.ExecutorAuthorization(before, sig) != strings.ToLower(text) {
				t.Fatalf("%q reads as %d, %x", text, before, sig)
			}
			_ = hedera.VerifyExecutorAuthorization(pub, text, "hedera:testnet", "0.0.7000", "0.0.5001", "0.0.0", "0.0.4001", "100000000", 1755500000)
		})
	})
}

// BenchmarkExecutorBuildSignFinish is x402/exact/hedera/transfer-executor
// with the ATR in hand: read, choose, build the request, sign the
// authorization with the local Ed25519 key, complete the payment, read H
// back.
func BenchmarkExecutorBuildSignFinish(b *testing.B) {
	s, _ := signer.NewHedera("hedera:testnet:0.0.5001", signer.HederaDevSeed)
	d := executorDoc(b)
	b.ReportAllocs()
	for b.Loop() {
		payment, _ := payExecutor(b, d, s, 1755500000)
		if _, err := (hedera.Executor{}).Bound(payment); err != nil {
			b.Fatal(err)
		}
	}
}
