package stellar_test

import (
	"context"
	"testing"

	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/stellar"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/vectors"
)

// BenchmarkStellarBuildSignFinish is one x402/exact/stellar payment with the
// ATR in hand: read the document, choose, build from the simulated envelope
// (decode, caps, checks, preimage), sign (Ed25519 over SHA-256), complete
// (write the signature, encode), and read H back out of the payment.
func BenchmarkStellarBuildSignFinish(b *testing.B) {
	f, err := vectors.Load("x402-exact-stellar.json")
	if err != nil {
		b.Fatal(err)
	}
	buyer, _ := f.GetObject("buyer")
	rows, _ := buyer.Get("rows")
	in, _ := rows.([]jsonv.Value)[0].(*jsonv.Object).GetObject("input")
	doc, _ := in.Get("doc")
	inputs, _ := in.GetObject("inputs")
	account, _ := in.GetString("account")
	atrBytes := []byte("abc")
	h := atr.Sum(atrBytes)
	payer, err := signer.StellarFromSecret(signer.StellarDevSeed, stellar.Testnet)
	if err != nil {
		b.Fatal(err)
	}
	p := stellar.Exact{}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		read, err := p.Read(doc)
		if err != nil {
			b.Fatal(err)
		}
		choice, err := p.Choose(read, account, inputs, 0, "ref")
		if err != nil {
			b.Fatal(err)
		}
		u, err := p.Build(choice, atrBytes, h)
		if err != nil {
			b.Fatal(err)
		}
		req, _ := p.Request(u)
		sig, err := payer.Sign(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		done, err := p.Complete(u, sig, rails.Chosen{Pairing: stellar.ExactID, Choice: choice, Ref: "ref"})
		if err != nil {
			b.Fatal(err)
		}
		if got, err := p.Bound(done.Signed); err != nil || got != h.String() {
			b.Fatalf("bound %s (%v)", got, err)
		}
	}
}

// largestEnvelope is V2's signed envelope with a second authorization
// entry (source-account credentials) whose argument is one vector of as
// many voids as keep the envelope within 8192 base64 characters: the most
// elements and bytes the reader accepts.
func largestEnvelope(tb testing.TB) string {
	f, err := vectors.Load("x402-exact-stellar.json")
	if err != nil {
		tb.Fatal(err)
	}
	v2, _ := f.GetObject("V2")
	text, _ := v2.GetString("expectEnvelope")
	var env xdr.TransactionEnvelope
	if err := xdr.SafeUnmarshalBase64(text, &env); err != nil {
		tb.Fatal(err)
	}
	op := env.V1.Tx.Operations[0].Body.InvokeHostFunctionOp
	build := func(n int) string {
		voids := make(xdr.ScVec, n)
		for i := range voids {
			voids[i] = xdr.ScVal{Type: xdr.ScValTypeScvVoid}
		}
		vp := &voids
		call := *op.HostFunction.InvokeContract
		call.Args = []xdr.ScVal{{Type: xdr.ScValTypeScvVec, Vec: &vp}}
		e := env
		v1 := *env.V1
		e.V1 = &v1
		ops := []xdr.Operation{env.V1.Tx.Operations[0]}
		body := *op
		body.Auth = append([]xdr.SorobanAuthorizationEntry{op.Auth[0]}, xdr.SorobanAuthorizationEntry{
			Credentials:    xdr.SorobanCredentials{Type: xdr.SorobanCredentialsTypeSorobanCredentialsSourceAccount},
			RootInvocation: xdr.SorobanAuthorizedInvocation{Function: xdr.SorobanAuthorizedFunction{Type: xdr.SorobanAuthorizedFunctionTypeSorobanAuthorizedFunctionTypeContractFn, ContractFn: &call}},
		})
		ops[0].Body.InvokeHostFunctionOp = &body
		v1.Tx.Operations = ops
		s, err := xdr.MarshalBase64(&e)
		if err != nil {
			tb.Fatal(err)
		}
		return s
	}
	n := stellar.MaxScElements
	for len(build(n)) > stellar.MaxEnvelopeChars {
		n--
	}
	return build(n)
}

// BenchmarkStellarDecodeLargestEnvelope reads the largest envelope the
// reader accepts: strict base64, the SDK's decode, the caps walk, the
// transfer read.
func BenchmarkStellarDecodeLargestEnvelope(b *testing.B) {
	env := largestEnvelope(b)
	if _, err := stellar.ReadSignedTransfer(env, stellar.Testnet); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(env)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := stellar.ReadSignedTransfer(env, stellar.Testnet); err != nil {
			b.Fatal(err)
		}
	}
}

func TestLargestEnvelopeIsAccepted(t *testing.T) {
	env := largestEnvelope(t)
	if len(env) > stellar.MaxEnvelopeChars || len(env) < stellar.MaxEnvelopeChars-8 {
		t.Fatalf("largest envelope has %d characters", len(env))
	}
	if _, err := stellar.ReadSignedTransfer(env, stellar.Testnet); err != nil {
		t.Fatal(err)
	}
}
