package evm_test

// The MPP EVM pairings of docs/mpp-evm.md: one paying helper, their
// benchmarks and the fuzz targets of their credential readers.

import (
	"context"
	"encoding/hex"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/signer"
)

const reqUSDC = `{"amount":"10000","currency":"0x036CbD53842c5426634e7929541eC2318f3dCF7e","methodDetails":{"evm":{"chainId":84532,"credentialTypes":["authorization"],"decimals":6},"type":"evm"},"recipient":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C"}`

// placedMPP is one challenge of method and intent over request, placed with
// h and a link.
func placedMPP(t testing.TB, method, intent, request string) []jsonv.Value {
	t.Helper()
	c := jsonv.Obj("realm", "api.seller.example", "method", method, "intent", intent,
		"request", mpp.EncodeB64URL([]byte(request)), "expires", "2026-09-21T14:14:20Z")
	d, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/x", c, "")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// payMPP runs a pairing as the gate does once the ATR's hash matched: read,
// choose, build, request, sign with s, complete, and read H back.
func payMPP(t testing.TB, p rails.Pairing, doc []jsonv.Value, s rails.Signer, inputs *jsonv.Object) (rails.Request, jsonv.Value) {
	t.Helper()
	read, err := p.Read(doc)
	if err != nil {
		t.Fatal(err)
	}
	choice, err := p.Choose(read, s.Account(), inputs, 1790000000, "")
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.Build(choice, nil, h)
	if err != nil {
		t.Fatal(err)
	}
	req, err := p.Request(u)
	if err != nil {
		t.Fatal(err)
	}
	answer, err := s.Sign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	done, err := p.Complete(u, answer, rails.Chosen{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := p.Bound(done.Signed); err != nil || got != h.String() {
		t.Fatalf("bound %s (%v)", got, err)
	}
	return req, done.Signed
}

func benchMPP(b *testing.B, p rails.Pairing, doc []jsonv.Value, s rails.Signer, inputs *jsonv.Object) {
	b.ReportAllocs()
	cpu0 := cost.CPU()
	for b.Loop() {
		payMPP(b, p, doc, s, inputs)
	}
	b.ReportMetric(float64(cost.CPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

func anvil(t testing.TB, network string) *signer.Local {
	l, err := signer.FromHex(signer.AnvilKey, network)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// BenchmarkMPPUSDCBuildSignFinish: mpp/charge/usdc/evm from the placed
// challenge to the credential read back (request hash, nonce, EIP-712, one
// signature).
func BenchmarkMPPUSDCBuildSignFinish(b *testing.B) {
	benchMPP(b, evm.MPPUSDC{}, placedMPP(b, "usdc", "charge", reqUSDC), anvil(b, "eip155:84532"), tokenDomain)
}

func TestMPPUSDCSummarize(t *testing.T) {
	p := evm.MPPUSDC{}
	req, _ := payMPP(t, p, placedMPP(t, "usdc", "charge", reqUSDC), anvil(t, "eip155:84532"), tokenDomain)
	g, err := p.Summarize(req)
	if err != nil || g.Amount.String() != "10000" || g.Payee != "0x209693Bc6afc0C5328bA36FaF03C514EF312287C" ||
		g.Network != "eip155:84532" || g.PayableUntil.Unix() != 1790000060 {
		t.Fatalf("grant %+v (%v)", g, err)
	}
}

func TestMPPUSDCChoose(t *testing.T) {
	p := evm.MPPUSDC{}
	read, err := p.Read(placedMPP(t, "usdc", "charge", reqUSDC))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Choose(read, account, &jsonv.Object{}, 1, ""); code(err) != mpp.CodeInputMissing {
		t.Fatalf("no tokenDomain: %v", err)
	}
	if _, err := p.Choose(read, "eip155:8453:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", tokenDomain, 1, ""); code(err) != mpp.CodeNoPayableOption {
		t.Fatalf("another chain: %v", err)
	}
	for name, c := range map[string]struct{ request, code string }{
		"two profiles":     {`{"amount":"1","currency":"0x036CbD53842c5426634e7929541eC2318f3dCF7e","methodDetails":{"evm":{"chainId":1},"gateway":{},"type":"evm"},"recipient":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C"}`, mpp.CodeUSDCProfile},
		"no type":          {`{"amount":"1","currency":"0x036CbD53842c5426634e7929541eC2318f3dCF7e","methodDetails":{"evm":{"chainId":1}},"recipient":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C"}`, mpp.CodeUSDCProfile},
		"a zero amount":    {`{"amount":"0","currency":"0x036CbD53842c5426634e7929541eC2318f3dCF7e","methodDetails":{"evm":{"chainId":1},"type":"evm"},"recipient":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C"}`, mpp.CodeRequestMalformed},
		"permit2 listed":   {`{"amount":"1","currency":"0x036CbD53842c5426634e7929541eC2318f3dCF7e","methodDetails":{"evm":{"chainId":1,"credentialTypes":["permit2"]},"type":"evm"},"recipient":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C"}`, mpp.CodeCredentialTypes},
		"a symbol for EVM": {`{"amount":"1","currency":"usdc","methodDetails":{"evm":{"chainId":1},"type":"evm"},"recipient":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C"}`, mpp.CodeRequestMalformed},
	} {
		c0 := jsonv.Obj("realm", "r", "method", "usdc", "intent", "charge", "request", mpp.EncodeB64URL([]byte(c.request)), "expires", "2026-09-21T14:14:20Z")
		if _, err := mpp.PairingsOf(c0); code(err) != c.code {
			t.Errorf("%s: %v, want %s", name, err, c.code)
		}
	}
}

// FuzzMPPUSDCCredential: what mpp/charge/usdc/evm reads back out of a
// credential, seeded with a real one: no panic, within the fuzz bound.
func FuzzMPPUSDCCredential(f *testing.F) {
	fuzzMPPCredential(f, evm.MPPUSDC{}, placedMPP(f, "usdc", "charge", reqUSDC), anvil(f, "eip155:84532"), tokenDomain)
}

func fuzzMPPCredential(f *testing.F, p rails.Pairing, doc []jsonv.Value, s rails.Signer, inputs *jsonv.Object) {
	_, cred := payMPP(f, p, doc, s, inputs)
	f.Add(jsonv.Marshal(cred))
	f.Add([]byte(`{"challenge":{},"payload":{}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := jsonv.Parse(raw)
		if err != nil {
			return
		}
		cost.Bound(t, len(raw), func() {
			h1, err1 := p.Bound(v)
			h2, err2 := p.Bound(v)
			if h1 != h2 || (err1 == nil) != (err2 == nil) {
				t.Fatalf("two answers for %s", raw)
			}
			if in, ok := p.(interface {
				Inspect(jsonv.Value) (rails.Inspection, error)
			}); ok {
				if got, err := in.Inspect(v); (err == nil) != (err1 == nil) || err == nil && got.H != h1 {
					t.Fatalf("inspect and bound disagree on %s", raw)
				}
			}
		})
	})
}

const reqPermit2Split = `{"amount":"10000","currency":"0x036CbD53842c5426634e7929541eC2318f3dCF7e","methodDetails":{"chainId":84532,"credentialTypes":["permit2"],"permit2Address":"0x000000000022D473030F116dDEE9F6B43aC78BA3","splits":[{"amount":"500","recipient":"0x8Ba1f109551bD432803012645Ac136ddd64DBA72"}]},"recipient":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C"}`

var spender = jsonv.Obj("spender", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8")

// BenchmarkMPPPermit2BuildSignFinish: mpp/charge/evm/permit2 with one split
// (the batch form), from the placed challenge to the credential read back.
func BenchmarkMPPPermit2BuildSignFinish(b *testing.B) {
	benchMPP(b, evm.MPPPermit2{}, placedMPP(b, "evm", "charge", reqPermit2Split), anvil(b, "eip155:84532"), spender)
}

func TestMPPPermit2Summarize(t *testing.T) {
	p := evm.MPPPermit2{}
	for name, request := range map[string]string{"single": reqE, "batch": reqPermit2Split} {
		req, _ := payMPP(t, p, placedMPP(t, "evm", "charge", request), anvil(t, "eip155:84532"), spender)
		g, err := p.Summarize(req)
		if err != nil || g.Amount.String() != "10000" || g.Payee != "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" ||
			g.Asset != "0x036CbD53842c5426634e7929541eC2318f3dCF7e" || g.Network != "eip155:84532" || g.PayableUntil.Unix() != 1790000060 {
			t.Fatalf("%s: grant %+v (%v)", name, g, err)
		}
		// Another token in one leg, or a type list Build does not write, is
		// not read as a permit.
		td, _ := req.GetObject("typedData")
		msg, _ := td.GetObject("message")
		if name == "batch" {
			v, _ := msg.Get("permitted")
			list, _ := jsonv.AsArray(v)
			leg, _ := jsonv.AsObject(list[1])
			leg.Set("token", "0x0000000000000000000000000000000000000001")
			if _, err := p.Summarize(req); code(err) != evm.CodeRequestUnreadable {
				t.Fatalf("two tokens: %v", err)
			}
		}
		types, _ := td.GetObject("types")
		types.Set("Extra", []jsonv.Value{})
		if _, err := p.Summarize(req); code(err) != evm.CodeRequestUnreadable {
			t.Fatalf("%s: another type list: %v", name, err)
		}
	}
}

func TestMPPPermit2Build(t *testing.T) {
	p := evm.MPPPermit2{}
	read, _ := p.Read(placedMPP(t, "evm", "charge", reqE))
	if _, err := p.Choose(read, account, &jsonv.Object{}, 1, ""); code(err) != mpp.CodeInputMissing {
		t.Fatalf("no spender: %v", err)
	}
	choice, err := p.Choose(read, account, jsonv.Obj("spender", "bob"), 1, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Build(choice, nil, h); code(err) != mpp.CodeInputMalformed {
		t.Fatalf("a spender that is no address: %v", err)
	}
	choice, _ = p.Choose(read, account, jsonv.Obj("spender", "0x70997970c51812dc3A010C7d01b50e0d17dc79C8"), 1, "")
	if _, err := p.Build(choice, nil, h); code(err) != mpp.CodeInputMalformed {
		t.Fatalf("a spender whose checksum fails: %v", err)
	}
	// A recipient whose EIP-55 checksum fails is not paid.
	badSum := strings.Replace(reqE, "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", "0x209693bc6afc0C5328bA36FaF03C514EF312287C", 1)
	read2, _ := p.Read(placedMPP(t, "evm", "charge", badSum))
	choice, _ = p.Choose(read2, account, spender, 1, "")
	if _, err := p.Build(choice, nil, h); code(err) != mpp.CodeRequestMalformed {
		t.Fatalf("a recipient whose checksum fails: %v", err)
	}
	// Splits that take the whole amount leave the recipient nothing.
	all := strings.Replace(reqPermit2Split, `"amount":"500"`, `"amount":"10000"`, 1)
	read, _ = p.Read(placedMPP(t, "evm", "charge", all))
	choice, _ = p.Choose(read, account, spender, 1, "")
	if _, err := p.Build(choice, nil, h); code(err) != mpp.CodeInputMalformed {
		t.Fatalf("splits of the whole amount: %v", err)
	}
}

// FuzzMPPPermit2Credential: what mpp/charge/evm/permit2 reads back out of a
// credential, seeded with a real batch one.
func FuzzMPPPermit2Credential(f *testing.F) {
	fuzzMPPCredential(f, evm.MPPPermit2{}, placedMPP(f, "evm", "charge", reqPermit2Split), anvil(f, "eip155:84532"), spender)
}

const reqCall = `{"amount":"10000","currency":"0x036CbD53842c5426634e7929541eC2318f3dCF7e","methodDetails":{"chainId":84532},"recipient":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C"}`

// evmCallSigner is the Anvil key with fixed fee fields (no node).
func evmCallSigner(t testing.TB) *signer.EVM {
	return &signer.EVM{Local: anvil(t, "eip155:84532"), Fees: &signer.EVMFees{
		MaxPriorityFeePerGas: big.NewInt(1_000_000_000), MaxFeePerGas: big.NewInt(2_000_000_000), Gas: 60_000}}
}

// payNoProof is payMPP for the pairings whose Bound answers
// mpp/no-signed-place.
func payNoProof(t testing.TB, p rails.Pairing, s rails.Signer) (rails.Request, jsonv.Value) {
	t.Helper()
	read, err := p.Read(placedMPP(t, "evm", "charge", reqCall))
	if err != nil {
		t.Fatal(err)
	}
	choice, err := p.Choose(read, s.Account(), &jsonv.Object{}, 1790000000, "")
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.Build(choice, nil, h)
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
	if _, err := p.Bound(done.Signed); code(err) != evm.CodeNoSignedPlace {
		t.Fatalf("bound: %v", err)
	}
	return req, done.Signed
}

// BenchmarkMPPTransactionBuildSignFinish: mpp/charge/evm/transaction from
// the placed challenge to the credential (an EIP-1559 transaction signed,
// decoded back and compared with the call asked for).
func BenchmarkMPPTransactionBuildSignFinish(b *testing.B) {
	s := evmCallSigner(b)
	b.ReportAllocs()
	cpu0 := cost.CPU()
	for b.Loop() {
		payNoProof(b, evm.MPPTransaction{}, s)
	}
	b.ReportMetric(float64(cost.CPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// hashSigner answers an evm-call with a hash, as a signer that broadcast
// would, without a node.
type hashSigner struct{ *signer.EVM }

func (s hashSigner) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	req = req.Clone()
	req.Set("broadcast", false)
	raw, err := s.EVM.Sign(ctx, req)
	if err != nil {
		return nil, err
	}
	wire, _ := evm.HexBytes(raw.(string))
	return jsonv.Obj("hash", "0x"+hex.EncodeToString(crypto.Keccak256(wire))), nil
}

// BenchmarkMPPHashBuildSignFinish: mpp/charge/evm/hash, the transaction
// signed and its hash answered (no node: the broadcast is the signer's).
func BenchmarkMPPHashBuildSignFinish(b *testing.B) {
	s := hashSigner{evmCallSigner(b)}
	b.ReportAllocs()
	cpu0 := cost.CPU()
	for b.Loop() {
		payNoProof(b, evm.MPPHash{}, s)
	}
	b.ReportMetric(float64(cost.CPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

func TestMPPCallSummarize(t *testing.T) {
	for _, p := range []rails.Pairing{evm.MPPTransaction{}, evm.MPPHash{}} {
		var s rails.Signer = evmCallSigner(t)
		if p.ID() == evm.MPPHashID {
			s = hashSigner{evmCallSigner(t)}
		}
		req, _ := payNoProof(t, p, s)
		g, err := p.(rails.Summarizer).Summarize(req)
		if err != nil || g.Amount.String() != "10000" || g.Payee != "0x209693Bc6afc0C5328bA36FaF03C514EF312287C" ||
			g.Asset != "0x036CbD53842c5426634e7929541eC2318f3dCF7e" || g.Network != "eip155:84532" || !g.PayableUntil.IsZero() {
			t.Fatalf("%s: grant %+v (%v)", p.ID(), g, err)
		}
		call, _ := req.GetObject("call")
		call.Set("data", "0x095ea7b3"+strings.Repeat("00", 64)) // approve, not transfer
		if _, err := p.(rails.Summarizer).Summarize(req); code(err) != evm.CodeRequestUnreadable {
			t.Fatalf("%s: an approve: %v", p.ID(), err)
		}
	}
	// Without fees or a node the key refuses an evm-call rather than
	// signing one nobody would mine.
	l := anvil(t, "eip155:84532")
	req := jsonv.Obj("kind", "evm-call", "chainId", 84532, "call", jsonv.Obj("to", "0x036CbD53842c5426634e7929541eC2318f3dCF7e", "data", "0x"), "broadcast", false)
	if _, err := l.Sign(context.Background(), req); err == nil {
		t.Fatal("the local key signed an evm-call without fees")
	}
	if _, err := (&signer.EVM{Local: l}).Sign(context.Background(), req); err == nil {
		t.Fatal("an EVM signer without fees signed")
	}
	req.Set("broadcast", true)
	if _, err := evmCallSigner(t).Sign(context.Background(), req); err == nil {
		t.Fatal("a broadcast was signed without a node")
	}
}

// FuzzMPPCallCredential: the transaction and hash pairings' read of a
// credential (the shared steps, then mpp/no-signed-place) and their
// reference, seeded with a real transaction credential.
func FuzzMPPCallCredential(f *testing.F) {
	_, cred := payNoProof(f, evm.MPPTransaction{}, evmCallSigner(f))
	f.Add(jsonv.Marshal(cred))
	f.Add([]byte(`{"challenge":{"realm":"r","method":"evm","intent":"charge","request":"e30"}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := jsonv.Parse(raw)
		if err != nil {
			return
		}
		cost.Bound(t, len(raw), func() {
			for _, p := range []interface {
				Bound(jsonv.Value) (string, error)
				Reference(jsonv.Value) (*jsonv.Object, error)
			}{evm.MPPTransaction{}, evm.MPPHash{}} {
				if h, err := p.Bound(v); err == nil || h != "" {
					t.Fatalf("bound %q for %s", h, raw)
				}
				_, _ = p.Reference(v)
				_, _ = p.(interface {
					Inspect(jsonv.Value) (rails.Inspection, error)
				}).Inspect(v)
			}
		})
	})
}

const reqSession = `{"amount":"100","currency":"0x036CbD53842c5426634e7929541eC2318f3dCF7e","methodDetails":{"chainId":84532,"credentialTypes":["hash","authorization","permit2"],"escrowContract":"0x1234567890AbcdEF1234567890aBcdef12345678"},"recipient":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C"}`

// openSession runs the session opening through both signer steps (the
// opening, then the zero voucher) and reads H back.
func openSession(t testing.TB, s rails.Signer, credentialType string) (rails.Request, jsonv.Value) {
	t.Helper()
	p := evm.MPPSession{}
	read, err := p.Read(placedMPP(t, "evm", "session", reqSession))
	if err != nil {
		t.Fatal(err)
	}
	choice, err := p.Choose(read, s.Account(), jsonv.Obj("deposit", "5000000", "credentialType", credentialType,
		"tokenDomain", jsonv.Obj("name", "USDC", "version", "2")), 1790000000, "")
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.Build(choice, nil, h)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := p.Request(u)
	funded, err := s.Sign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	next, err := p.Complete(u, funded, rails.Chosen{})
	if err != nil || next.Next == nil {
		t.Fatalf("no voucher step (%v)", err)
	}
	voucher, err := s.Sign(context.Background(), next.Next)
	if err != nil {
		t.Fatal(err)
	}
	done, err := p.Complete(u, []jsonv.Value{funded, voucher}, rails.Chosen{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := p.Bound(done.Signed); err != nil || got != h.String() {
		t.Fatalf("bound %s (%v)", got, err)
	}
	return req, done.Signed
}

// BenchmarkMPPSessionOpen: mpp/session/evm's authorization opening from
// the placed challenge: the ReceiveWithAuthorization and the zero voucher
// signed, the credential read back.
func BenchmarkMPPSessionOpen(b *testing.B) {
	s := anvil(b, "eip155:84532")
	b.ReportAllocs()
	cpu0 := cost.CPU()
	for b.Loop() {
		openSession(b, s, "authorization")
	}
	b.ReportMetric(float64(cost.CPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkMPPSessionVoucher: one voucher inside the held channel: built
// from the opening, signed, completed.
func BenchmarkMPPSessionVoucher(b *testing.B) {
	s := anvil(b, "eip155:84532")
	_, opening := openSession(b, s, "authorization")
	o, _ := jsonv.AsObject(opening)
	challenge, _ := o.GetObject("challenge")
	p := evm.MPPSession{}
	b.ReportAllocs()
	cpu0 := cost.CPU()
	for b.Loop() {
		in, err := p.BuildWithin(rails.Within{Challenge: challenge, Opening: o, Cumulative: big.NewInt(300), Action: rails.WithinVoucher}, h)
		if err != nil {
			b.Fatal(err)
		}
		sig, err := s.Sign(context.Background(), in.Requests()[0])
		if err != nil {
			b.Fatal(err)
		}
		if _, err := in.Complete([]string{sig.(string)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cost.CPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

func TestMPPSessionSummarize(t *testing.T) {
	p := evm.MPPSession{}
	s := anvil(t, "eip155:84532")
	for typ, payee := range map[string]string{
		"authorization": "0x1234567890AbcdEF1234567890aBcdef12345678", // the escrow: the signed data names no other
		"permit2":       "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", // the witness's payee
	} {
		req, _ := openSession(t, s, typ)
		g, err := p.Summarize(req)
		if err != nil || g.Amount.String() != "5000000" || g.Payee != payee || g.Asset != "0x036CbD53842c5426634e7929541eC2318f3dCF7e" || g.PayableUntil.Unix() != 1790000060 {
			t.Fatalf("%s: grant %+v (%v)", typ, g, err)
		}
	}
	// The hash opening: approve, then open, for the payer's signer to send.
	read, _ := p.Read(placedMPP(t, "evm", "session", reqSession))
	choice, _ := p.Choose(read, s.Account(), jsonv.Obj("deposit", "5000000", "credentialType", "hash"), 1, "")
	u, err := p.Build(choice, nil, h)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := p.Request(u)
	g, err := p.Summarize(req)
	if err != nil || g.Amount.String() != "5000000" || g.Payee != "0x209693Bc6afc0C5328bA36FaF03C514EF312287C" || !p.Moves(req) {
		t.Fatalf("hash: grant %+v (%v)", g, err)
	}
	// A type the challenge does not list is refused; with none named, the
	// first listed type a signer signs whole is taken.
	listed := strings.Replace(reqSession, `["hash","authorization","permit2"]`, `["hash","permit2"]`, 1)
	read, _ = p.Read(placedMPP(t, "evm", "session", listed))
	choice, _ = p.Choose(read, s.Account(), jsonv.Obj("deposit", "5000000", "credentialType", "authorization"), 1, "")
	if _, err := p.Build(choice, nil, h); code(err) != mpp.CodeCredentialTypes {
		t.Fatalf("an unlisted type: %v", err)
	}
	choice, _ = p.Choose(read, s.Account(), jsonv.Obj("deposit", "5000000"), 1, "")
	u, _ = p.Build(choice, nil, h)
	req, _ = p.Request(u)
	if pt := mpp.String(mustObj(req, "typedData"), "primaryType"); pt != "PermitWitnessTransferFrom" {
		t.Fatalf("default type built %s", pt)
	}
}

func mustObj(o *jsonv.Object, k string) *jsonv.Object { v, _ := o.GetObject(k); return v }

// FuzzMPPSessionCredential: mpp/session/evm's read of an opening and of a
// payment inside the channel, seeded with a real opening.
func FuzzMPPSessionCredential(f *testing.F) {
	_, opening := openSession(f, anvil(f, "eip155:84532"), "authorization")
	f.Add(jsonv.Marshal(opening))
	f.Add([]byte(`{"challenge":{},"payload":{"action":"voucher","deposit":{"action":"open"}}}`))
	p := evm.MPPSession{}
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := jsonv.Parse(raw)
		if err != nil {
			return
		}
		cost.Bound(t, len(raw), func() {
			_, _ = p.Bound(v)
			_, _ = p.Inspect(v)
			_, _ = p.Reference(v)
			_, _ = p.ChannelKind(v)
			_, _ = p.ChannelRef(v)
			_, _, _ = p.NamedChannel(v)
			if o, ok := jsonv.AsObject(v); ok {
				_, _ = p.BuildWithin(rails.Within{Challenge: o, Opening: o, Cumulative: big.NewInt(1), Action: rails.WithinVoucher}, h)
			}
		})
	})
}

// Every MPP EVM pairing's Inspect reads the credential the pairing made:
// its pairing, H, the payer, payee and amount.
func TestMPPInspect(t *testing.T) {
	payer := "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
	_, usdc := payMPP(t, evm.MPPUSDC{}, placedMPP(t, "usdc", "charge", reqUSDC), anvil(t, "eip155:84532"), tokenDomain)
	_, permit := payMPP(t, evm.MPPPermit2{}, placedMPP(t, "evm", "charge", reqPermit2Split), anvil(t, "eip155:84532"), spender)
	_, tx := payNoProof(t, evm.MPPTransaction{}, evmCallSigner(t))
	_, hash := payNoProof(t, evm.MPPHash{}, hashSigner{evmCallSigner(t)})
	_, session := openSession(t, anvil(t, "eip155:84532"), "authorization")
	for _, c := range []struct {
		inspect func(jsonv.Value) (rails.Inspection, error)
		payment jsonv.Value
		id      string
		amount  string
	}{
		{evm.MPPUSDC{}.Inspect, usdc, evm.MPPUSDCID, "10000"},
		{evm.MPPPermit2{}.Inspect, permit, evm.MPPPermit2ID, "10000"},
		{evm.MPPTransaction{}.Inspect, tx, evm.MPPTransactionID, "10000"},
		{evm.MPPHash{}.Inspect, hash, evm.MPPHashID, "10000"},
		{evm.MPPSession{}.Inspect, session, evm.MPPSessionID, "5000000"},
	} {
		in, err := c.inspect(c.payment)
		if err != nil {
			t.Fatalf("%s: %v", c.id, err)
		}
		if in.Pairing != c.id || in.H != h.String() || in.Grant.Amount.String() != c.amount || !strings.EqualFold(in.Grant.Payer, payer) ||
			in.Grant.Payee != "0x209693Bc6afc0C5328bA36FaF03C514EF312287C" || in.WhereH == "" {
			t.Errorf("%s: %s", c.id, jsonv.String(in.JSON()))
		}
		if _, err := c.inspect(jsonv.Obj("challenge", "x")); err == nil {
			t.Errorf("%s inspected no credential", c.id)
		}
	}
}

const reqGateway = `{"amount":"25000000","currency":"usdc","methodDetails":{"gateway":{"acceptedSources":["eip155:5042002"],"destinationNetwork":"eip155:84532","maxFee":"500000"},"type":"gateway"},"recipient":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C"}`

var gatewayInputs = jsonv.Obj("maxBlockHeight", "39350204")

// BenchmarkMPPGatewayBuildSignFinish: mpp/charge/usdc/gateway from the
// placed challenge to the credential read back (request hash, salt, the
// burn intent's EIP-712, one signature).
func BenchmarkMPPGatewayBuildSignFinish(b *testing.B) {
	benchMPP(b, evm.MPPGateway{}, placedMPP(b, "usdc", "charge", reqGateway), anvil(b, "eip155:5042002"), gatewayInputs)
}

func TestMPPGatewayChoose(t *testing.T) {
	p := evm.MPPGateway{}
	read, _ := p.Read(placedMPP(t, "usdc", "charge", reqGateway))
	// Base Sepolia is the destination, not an accepted source.
	if _, err := p.Choose(read, "eip155:84532:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", gatewayInputs, 1, ""); code(err) != mpp.CodeNoPayableOption {
		t.Fatalf("a source not accepted: %v", err)
	}
	// Without maxBlockHeight the build says what is missing.
	choice, err := p.Choose(read, "eip155:5042002:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", nil, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Build(choice, nil, h); code(err) != mpp.CodeInputMissing {
		t.Fatalf("no maxBlockHeight: %v", err)
	}
	// A destination with no Gateway deployment termsgate knows offers nothing.
	unknown := strings.Replace(reqGateway, `"destinationNetwork":"eip155:84532"`, `"destinationNetwork":"eip155:1"`, 1)
	read, _ = p.Read(placedMPP(t, "usdc", "charge", unknown))
	if _, err := p.Choose(read, "eip155:5042002:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", gatewayInputs, 1, ""); code(err) != mpp.CodeNoPayableOption {
		t.Fatalf("an unknown destination: %v", err)
	}
	_, cred := payMPP(t, p, placedMPP(t, "usdc", "charge", reqGateway), anvil(t, "eip155:5042002"), gatewayInputs)
	in, err := p.Inspect(cred)
	if err != nil || in.Grant.Amount.String() != "25000000" || in.H != h.String() || in.Grant.Payee != "0x209693Bc6afc0C5328bA36FaF03C514EF312287C" {
		t.Fatalf("inspect %s (%v)", jsonv.String(in.JSON()), err)
	}
}

// FuzzMPPGatewayCredential: what mpp/charge/usdc/gateway reads back out of
// a credential, seeded with a real one.
func FuzzMPPGatewayCredential(f *testing.F) {
	fuzzMPPCredential(f, evm.MPPGateway{}, placedMPP(f, "usdc", "charge", reqGateway), anvil(f, "eip155:5042002"), gatewayInputs)
}
