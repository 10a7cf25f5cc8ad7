package casper

import (
	"encoding/hex"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
)

// c2 is the vector file's C2 payment.
const c2 = `{"x402Version":2,"resource":{"url":"https://api.seller.example/v1/quote"},"accepted":{"scheme":"exact","network":"casper:casper-test","amount":"7500000000","asset":"17be3c3dc67ddf193b8f64bfc2421826407470f88b3dab68184ebffebdd57f59","payTo":"007a9f9948cb7b258d18f3c5e85780372971b5b40096e724c9e596c284a01445fa","maxTimeoutSeconds":60,"extra":{"name":"Casper X402 Token","version":"1"}},"payload":{"authorization":{"from":"0076d080b4e769f0b29c77fc6472d6e425710840c2f46a4506e5544d2ce34f43a3","to":"007a9f9948cb7b258d18f3c5e85780372971b5b40096e724c9e596c284a01445fa","value":"7500000000","validAfter":"0","validBefore":"1790000060","nonce":"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},"publicKey":"011111111111111111111111111111111111111111111111111111111111111111","signature":"0122222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222"}}`

// FuzzCasperPayment: any JSON as a presented payment reads through Bound,
// the reference and Inspect without a panic, and a payment Bound reads,
// Inspect states with the same H.
func FuzzCasperPayment(f *testing.F) {
	f.Add([]byte(c2))
	f.Add([]byte(`{"x402Version":2}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		cost.Bound(t, len(b), func() {
			v, err := jsonv.Parse(b)
			if err != nil {
				return
			}
			h, errB := Exact{}.Bound(v)
			_, _ = PaymentReference(v)
			in, errI := Exact{}.Inspect(v)
			if errB == nil && errI == nil && in.H != h {
				t.Fatalf("inspect's H %s, bound's %s", in.H, h)
			}
		})
	})
}

// FuzzSigningRequest: any JSON as a casper-eip712 request's typed data
// reads through Summarize without a panic; one that reads carries a digest
// that is its own.
func FuzzSigningRequest(f *testing.F) {
	v, _ := jsonv.Parse([]byte(c2))
	c, _ := carried(v)
	a, _ := PaymentAuthorization(c)
	d := a.Digest()
	seed := jsonv.Obj("kind", KindEIP712, "network", "casper:casper-test", "typedData", a.TypedData(), "digest", "0x"+hex.EncodeToString(d[:]))
	if _, err := RequestAuthorization(seed); err != nil {
		f.Fatalf("the seed does not read: %v", err)
	}
	f.Add([]byte(jsonv.String(a.TypedData())), d[:])
	f.Fuzz(func(t *testing.T, b []byte, digest []byte) {
		cost.Bound(t, len(b), func() {
			td, err := jsonv.Parse(b)
			if err != nil {
				return
			}
			req := jsonv.Obj("kind", KindEIP712, "network", "casper:casper-test", "typedData", td, "digest", "0x"+hex.EncodeToString(digest[:]))
			if a, err := RequestAuthorization(req); err == nil && hex.EncodeToString(digest) != hexOfDigest(a) {
				t.Fatal("a request read whose digest is not its typed data's")
			}
		})
	})
}

// FuzzPublicKey: any tagged hex as a key and signature reads or fails,
// never panics.
func FuzzPublicKey(f *testing.F) {
	f.Add("011111111111111111111111111111111111111111111111111111111111111111", "01"+hexZeros(64))
	f.Add("02"+"0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798", "02"+hexZeros(64))
	f.Fuzz(func(t *testing.T, key, sig string) {
		cost.Bound(t, len(key)+len(sig), func() {
			k, err := ParsePublicKey(key)
			if err != nil {
				return
			}
			_ = k.AccountAddress()
			_ = k.Verify(make([]byte, 32), sig)
		})
	})
}

func hexZeros(n int) string { return hex.EncodeToString(make([]byte, n)) }

func hexOfDigest(a *Authorization) string { d := a.Digest(); return hex.EncodeToString(d[:]) }

// FuzzCasperBare: any JSON object through IsBare and InspectBare without a
// panic; a form that reads states H as its nonce, and typed data that reads
// states the network its domain names.
func FuzzCasperBare(f *testing.F) {
	v, _ := jsonv.Parse([]byte(c2))
	p, _ := jsonv.AsObject(v)
	payload, _ := p.GetObject("payload")
	auth, _ := payload.GetObject("authorization")
	c, _ := carried(v)
	a, _ := PaymentAuthorization(c)
	for _, seed := range []jsonv.Value{payload, auth, a.TypedData()} {
		f.Add(jsonv.Marshal(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		cost.Bound(t, len(b), func() {
			v, err := jsonv.Parse(b)
			o, ok := jsonv.AsObject(v)
			if err != nil || !ok {
				return
			}
			_ = IsBare(o)
			in, err := InspectBare(o)
			if err != nil {
				return
			}
			n, _ := hex.DecodeString(in.H[2:])
			if len(n) != 32 || in.Grant.Payer == "" || in.Grant.Amount == nil {
				t.Fatalf("read %+v", in)
			}
			if in.Kind == "casper-typed-data" && !IsNetwork(in.Grant.Network) {
				t.Fatalf("typed data on %q", in.Grant.Network)
			}
		})
	})
}
