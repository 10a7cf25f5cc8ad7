package polkadot_test

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"math/big"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/polkadot"
	"github.com/termsgate/termsgate/rails/x402"
)

const network = "polkadot:68d56f15f85d3136970ec16946040bc1"

// Compacts are written in their shortest mode and read only so; the
// boundaries of each mode round-trip, and a longer form is refused.
func TestCompact(t *testing.T) {
	for _, v := range []uint64{0, 1, 63, 64, 16383, 16384, 1<<30 - 1, 1 << 30, 1<<32 - 1, 1 << 32, 1<<64 - 1} {
		b := polkadot.AppendCompact(nil, v)
		got, next, ok := polkadot.Compact(b, 0)
		if !ok || next != len(b) || got.Uint64() != v {
			t.Fatalf("%d: %x read as %v, %d, %v", v, b, got, next, ok)
		}
	}
	max128 := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(1))
	b := polkadot.AppendCompactBig(nil, max128)
	if got, _, ok := polkadot.Compact(b, 0); !ok || got.Cmp(max128) != 0 || len(b) != 17 {
		t.Fatalf("u128 max: %x", b)
	}
	for _, long := range [][]byte{{0x01, 0x00}, {0x02, 0x01, 0x00, 0x00}, {0x03, 0x00, 0x00, 0x00, 0x10}, {0x07, 1, 0, 0, 0, 0}} {
		if _, _, ok := polkadot.Compact(long, 0); ok {
			t.Errorf("%x is not the shortest form and was read", long)
		}
	}
}

// An era encodes and decodes to itself, V3's a502 is 64 blocks at phase
// 42, and Birth and Death bound the blocks it admits.
func TestEra(t *testing.T) {
	e, next, ok := polkadot.DecodeEra([]byte{0xa5, 0x02}, 0)
	if !ok || next != 2 || e.Period != 64 || e.Phase != 42 {
		t.Fatalf("a502 = %+v", e)
	}
	for _, p := range []uint64{4, 16, 1024, 4096, 65536} {
		era := polkadot.MortalEra(p, 9_000_123)
		got, _, ok := polkadot.DecodeEra(era.Encode(), 0)
		if !ok || got != era || era.Birth(9_000_123) > 9_000_123 || era.Death(9_000_123) <= 9_000_123 {
			t.Fatalf("period %d: %+v read as %+v", p, era, got)
		}
	}
}

func TestSS58(t *testing.T) {
	a, prefix, ok := polkadot.DecodeSS58("15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5")
	if !ok || prefix != 0 || hex.EncodeToString(a[:]) != "d43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d" {
		t.Fatalf("%x %d %v", a, prefix, ok)
	}
	if polkadot.EncodeSS58(a, 42) != "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY" {
		t.Fatal("Alice's generic address")
	}
	for _, bad := range []string{"", "15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp6", "0OIl", strings.Repeat("1", 65)} {
		if _, _, ok := polkadot.DecodeSS58(bad); ok {
			t.Errorf("%q read", bad)
		}
	}
}

// chain answers fixed inputs: what a wallet reads from its node.
type chain struct{ in polkadot.Inputs }

func (c chain) Network() string { return network }
func (c chain) Inputs(context.Context, [32]byte) (polkadot.Inputs, error) {
	return c.in, nil
}

func option() *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", network, "amount", "10000", "asset", "1337",
		"payTo", "15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5", "maxTimeoutSeconds", 60,
		"extra", jsonv.Obj("assetTransferMethod", "lcp-assets-remark"))
}

func doc(h atr.Hash) *jsonv.Object {
	d, err := x402.Advertise(jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://api.seller.example/v1/quote"),
		"accepts", []jsonv.Value{option()}), h, "https://atr.seller.example/"+h.String(), "")
	if err != nil {
		panic(err)
	}
	return d
}

// built is the pairing's build for key's account at now, its request,
// and a signer's answer made from in (changed by change).
func built(t *testing.T, key ed25519.PrivateKey, h atr.Hash, in polkadot.Inputs, change func(*polkadot.Extra, []byte) []byte) (rails.Unsigned, rails.Request, *jsonv.Object) {
	t.Helper()
	p := polkadot.Exact{}
	var id [32]byte
	copy(id[:], key.Public().(ed25519.PublicKey))
	read, err := p.Read(doc(h))
	if err != nil {
		t.Fatal(err)
	}
	choice, err := p.Choose(read, network+":"+polkadot.Address(network, id), nil, 1_790_000_000, "ref")
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.Build(choice, nil, h)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := p.Request(u)
	r, err := polkadot.ReadRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	x := polkadot.Extra{Era: polkadot.MortalEra(r.EraPeriod, in.BlockNumber), Nonce: in.Nonce}
	a := polkadot.Additional{SpecVersion: in.SpecVersion, TxVersion: in.TxVersion, Genesis: in.Genesis, EraBlock: in.BlockHash}
	call := r.CallBytes
	if change != nil {
		call = change(&x, call)
	}
	xt := polkadot.EncodeSigned(id, polkadot.SigEd25519, ed25519.Sign(key, polkadot.SigningPayload(call, &x, &a)), &x, call)
	answer := jsonv.Obj("extrinsic", "0x"+hex.EncodeToString(xt), "specVersion", "1006000", "transactionVersion", "15",
		"genesisHash", "0x"+hex.EncodeToString(in.Genesis[:]), "blockHash", "0x"+hex.EncodeToString(in.BlockHash[:]))
	return u, req, answer
}

func inputs() polkadot.Inputs {
	in := polkadot.Inputs{Nonce: 4, SpecVersion: 1006000, TxVersion: 15, BlockNumber: 9_000_000}
	g, _ := hex.DecodeString("68d56f15f85d3136970ec16946040bc1")
	copy(in.Genesis[:], g)
	in.BlockHash[0] = 0xbb
	return in
}

// The request states what is signed: Summarize reads the call's transfer
// and the estimate of the era's end; Complete takes the signed extrinsic
// and refuses each way an answer can differ from what was asked.
func TestBuildSummarizeComplete(t *testing.T) {
	p := polkadot.Exact{}
	key := ed25519.NewKeyFromSeed(make([]byte, 32))
	h := atr.Sum([]byte("abc"))
	u, req, answer := built(t, key, h, inputs(), nil)
	g, err := p.Summarize(req)
	if err != nil || g.Amount.Int64() != 10000 || g.Asset != "1337" || g.Decimals != 6 || g.Payee != "15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5" ||
		g.PayableUntil.Unix() != 1_790_000_000+16*polkadot.BlockSeconds {
		t.Fatalf("grant %+v, %v", g, err)
	}
	c, err := p.Complete(u, answer, rails.Chosen{Ref: "ref"})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := p.Bound(c.Signed); err != nil || b != h.String() {
		t.Fatalf("bound %s, %v", b, err)
	}
	in, err := p.Inspect(c.Signed)
	if err != nil || in.H != h.String() || in.Grant.Amount.Int64() != 10000 {
		t.Fatalf("inspect %+v, %v", in, err)
	}
	if v, _ := in.Details.Get("paysOption"); v != true {
		t.Fatal("the payment does not pay its option")
	}
	bare, err := polkadot.InspectExtrinsic(sget(answer, "extrinsic"))
	if err != nil || bare.H != h.String() {
		t.Fatalf("bare %+v, %v", bare, err)
	}

	other := ed25519.NewKeyFromSeed(append(make([]byte, 31), 1))
	_, _, foreign := built(t, other, h, inputs(), nil)
	_, _, otherH := built(t, key, atr.Sum([]byte("abd")), inputs(), nil)
	_, _, long := built(t, key, h, inputs(), func(x *polkadot.Extra, c []byte) []byte { x.Era = polkadot.MortalEra(64, 9_000_000); return c })
	_, _, tipped := built(t, key, h, inputs(), func(x *polkadot.Extra, c []byte) []byte { x.Tip = 1; return c })
	wrongChain := inputs()
	wrongChain.Genesis[0] ^= 1
	_, _, elsewhere := built(t, key, h, wrongChain, nil)
	badSig := answer.Clone()
	badSig.Set("blockHash", "0x"+strings.Repeat("cc", 32))
	for name, tc := range map[string]struct {
		answer jsonv.Value
		code   string
	}{
		"another signer":      {foreign, "x402/signed-not-bound"},
		"another H":           {otherH, "x402/signed-not-bound"},
		"a longer era":        {long, polkadot.CodeExtraMalformed},
		"a tip":               {tipped, polkadot.CodeExtraMalformed},
		"another genesis":     {elsewhere, polkadot.CodeNetworkUnsupported},
		"another era block":   {badSig, polkadot.CodeSignatureInvalid},
		"no answer":           {nil, x402.CodeSignatureMalformed},
		"uppercase extrinsic": {jsonv.Obj("extrinsic", strings.ToUpper(sget(answer, "extrinsic"))), x402.CodeSignatureMalformed},
	} {
		if _, err := p.Complete(u, tc.answer, rails.Chosen{}); !isRefusal(err, tc.code) {
			t.Errorf("%s: %v, want %s", name, err, tc.code)
		}
	}
	// A request whose call or period is not the pairing's is not summarized.
	for _, k := range []string{"call", "eraPeriod", "tip", "signer", "network"} {
		r := req.Clone()
		r.Set(k, "0x00")
		if _, err := p.Summarize(r); err == nil {
			t.Errorf("a request with %s changed was summarized", k)
		}
	}
}

func isRefusal(err error, code string) bool {
	r, ok := err.(*rails.Refusal)
	return ok && r.Code == code
}

// The era asked for follows maxTimeoutSeconds in 6 s blocks, within 4 and 1024.
func TestEraPeriod(t *testing.T) {
	for s, want := range map[int64]uint64{1: 4, 24: 4, 25: 8, 60: 16, 600: 128, 3600: 1024} {
		if got := polkadot.EraPeriod(s); got != want {
			t.Errorf("%d s: %d blocks, want %d", s, got, want)
		}
	}
}

func sget(o *jsonv.Object, k string) string { s, _ := o.GetString(k); return s }
