package tempo_test

import (
	"context"
	"errors"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
	"github.com/termsgate/termsgate/signer"
)

// The vectors' fixtures (mpp-challenge.json, mpp-session-tempo.json,
// mpp-subscription-tempo.json): H = SHA-256("abc").
var (
	terms = []byte("abc")
	h     = atr.Sum(terms)
)

const (
	realm     = "api.seller.example"
	expires   = "2026-09-21T14:14:20Z"
	link      = "https://atr.seller.example/0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	payer     = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
	account   = "eip155:42431:" + payer
	recipient = "0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00"
	pathUSD   = "0x20c0000000000000000000000000000000000000"
	escrowV2  = "0x4D50500000000000000000000000000000000000"
	reqPull   = `{"amount":"1000000","currency":"` + pathUSD + `","methodDetails":{"chainId":42431,"supportedModes":["pull"]},"recipient":"` + recipient + `"}`
	reqBoth   = `{"amount":"1000000","currency":"` + pathUSD + `","methodDetails":{"chainId":42431},"recipient":"` + recipient + `"}`
	reqV2     = `{"amount":"100","currency":"` + pathUSD + `","methodDetails":{"chainId":42431,"escrowContract":"` + escrowV2 + `","sessionProtocol":"v2"},"recipient":"` + recipient + `"}`
	reqSub    = `{"amount":"10000000","currency":"` + pathUSD + `","methodDetails":{"accessKey":{"accessKeyAddress":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8","keyType":"secp256k1"},"chainId":42431},"periodCount":"30","periodUnit":"day","recipient":"` + recipient + `","subscriptionExpires":"2026-12-20T00:00:00Z"}`
)

func code(err error) string {
	var r *rails.Refusal
	if errors.As(err, &r) {
		return r.Code
	}
	if err != nil {
		return "not a refusal: " + err.Error()
	}
	return ""
}

func want(t *testing.T, err error, c string) {
	t.Helper()
	if code(err) != c {
		t.Fatalf("got %q, want %s", code(err), c)
	}
}

// doc is one placed challenge.
func doc(t testing.TB, method, intent, request string) []jsonv.Value {
	t.Helper()
	c := jsonv.Obj("realm", realm, "method", method, "intent", intent, "request", mpp.EncodeB64URL([]byte(request)), "expires", expires)
	d, err := mpp.Place([]jsonv.Value{c}, h, link, c, "")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func localKey(t testing.TB) *signer.Local {
	t.Helper()
	l, err := signer.FromHex(signer.AnvilKey, "eip155:42431")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// built chooses, builds and returns the pairing's unsigned payment and
// request.
func built(t testing.TB, p rails.Pairing, d []jsonv.Value, inputs *jsonv.Object) (rails.Unsigned, rails.Request) {
	t.Helper()
	read, err := p.Read(d)
	if err != nil {
		t.Fatal(err)
	}
	if inputs == nil {
		inputs = &jsonv.Object{}
	}
	choice, err := p.Choose(read, account, inputs, 1790000000, "")
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.Build(choice, terms, h)
	if err != nil {
		t.Fatal(err)
	}
	req, err := p.Request(u)
	if err != nil {
		t.Fatal(err)
	}
	return u, req
}

func sign(t testing.TB, req rails.Request) jsonv.Value {
	t.Helper()
	a, err := localKey(t).Sign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func credential(t testing.TB, p rails.Pairing, u rails.Unsigned, answer jsonv.Value) *jsonv.Object {
	t.Helper()
	done, err := p.Complete(u, answer, rails.Chosen{})
	if err != nil {
		t.Fatal(err)
	}
	return done.Signed.(*jsonv.Object)
}

func withPayload(c *jsonv.Object, k string, v jsonv.Value) *jsonv.Object {
	x := c.Clone()
	p, _ := x.GetObject("payload")
	if v == nil {
		p.Delete(k)
	} else {
		p.Set(k, v)
	}
	return x
}

func TestMemo(t *testing.T) {
	p := tempo.Memo{}
	u, req := built(t, p, doc(t, "tempo", "charge", reqPull), nil)
	signed := sign(t, req)
	cred := credential(t, p, u, signed)
	if got, err := p.Bound(cred); err != nil || got != h.String() {
		t.Fatalf("bound %s (%v)", got, err)
	}
	wire, _ := mpp.HexBytes(signed.(string), 1, tempo.MaxWireBytes)
	tx, err := tempo.DecodeTx(wire)
	if err != nil {
		t.Fatal(err)
	}
	if who, err := tx.Sender(); err != nil || who != common.HexToAddress(payer) {
		t.Fatalf("signed by %s (%v)", who.Hex(), err)
	}
	// Another call's transfer, with no memo: not bound.
	transferOnly := jsonv.Obj("kind", "tempo-call", "chainId", 42431,
		"call", jsonv.Obj("to", pathUSD, "data", "0xa9059cbb"+strings.Repeat("00", 64)), "validBefore", 1, "broadcast", false)
	for name, c := range map[string]struct {
		in   jsonv.Value
		code string
	}{
		"another type":       {withPayload(cred, "type", "hash"), mpp.CodeCredentialType},
		"a number signature": {withPayload(cred, "signature", jsonv.Number(1)), mpp.CodeCredentialMalformed},
		"odd hex":            {withPayload(cred, "signature", "0x767"), mpp.CodeCredentialMalformed},
		// tempo/tx-too-large cannot come from a credential: the budget
		// (65 536 units) refuses any signature hex of more than ~32 KiB
		// first. DecodeTx's own test pins the code.
		"over 64 KiB":           {withPayload(cred, "signature", "0x"+strings.Repeat("76", tempo.MaxWireBytes+1)), mpp.CodeCredentialMalformed},
		"not a Tempo envelope":  {withPayload(cred, "signature", "0x02c0"), tempo.CodeTxMalformed},
		"no memo call":          {withPayload(cred, "signature", sign(t, transferOnly)), tempo.CodeMemoNotBound},
		"no challenge":          {func() *jsonv.Object { x := cred.Clone(); x.Delete("challenge"); return x }(), mpp.CodeCredentialMalformed},
		"a push-only challenge": {rechallenged(t, cred, strings.Replace(reqPull, `"pull"`, `"push"`, 1)), mpp.CodeNotThisPairing},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := p.Bound(c.in)
			want(t, err, c.code)
		})
	}
	for name, answer := range map[string]jsonv.Value{"a number": jsonv.Number(1), "empty": "0x", "not hex": "0xzz", "an object": jsonv.Obj()} {
		if _, err := p.Complete(u, answer, rails.Chosen{}); code(err) != mpp.CodeCredentialMalformed {
			t.Errorf("complete with %s: %v", name, err)
		}
	}
	// The build's refusals.
	read, _ := p.Read(doc(t, "tempo", "charge", reqPull))
	choice, _ := p.Choose(read, account, &jsonv.Object{}, 1, "")
	_, err = p.Build(choice, terms, atr.Sum([]byte("abd")))
	want(t, err, mpp.CodeIDNotOurs)
	bad := jsonv.Clone(choice).(*jsonv.Object)
	bad.Set("from", "0x12")
	_, err = p.Build(bad, terms, h)
	want(t, err, mpp.CodeInputMalformed)
	_, err = tempo.Push{}.Build(choice, terms, h)
	want(t, err, mpp.CodeNotThisPairing)
}

// rechallenged is cred with its challenge's request replaced.
func rechallenged(t *testing.T, cred *jsonv.Object, request string) *jsonv.Object {
	x := cred.Clone()
	c, _ := x.GetObject("challenge")
	c.Set("request", mpp.EncodeB64URL([]byte(request)))
	return x
}

// landing is a chain that lands every transaction at block 100 and reports
// the TransferWithMemo logs its memo calls emit.
type landing struct {
	withoutReceipt bool
	sent           int
}

// TempoFees makes landing the signer's fee source too: a broadcast needs one.
func (*landing) TempoFees(context.Context, common.Address, *tempo.Tx) (signer.TempoFees, error) {
	return signer.DefaultTempoFees(), nil
}

func (l *landing) Broadcast(_ context.Context, wire []byte) (string, jsonv.Value, error) {
	l.sent++
	tx, err := tempo.DecodeTx(wire)
	if err != nil {
		return "", nil, err
	}
	from, err := tx.Sender()
	if err != nil {
		return "", nil, err
	}
	hash := "0x" + common.Bytes2Hex(crypto.Keccak256(wire))
	if l.withoutReceipt {
		return hash, nil, nil
	}
	var logs []jsonv.Value
	for _, c := range tx.Calls {
		memo, ok := tempo.MemoOf(c, tempo.PathUSD)
		if !ok {
			continue
		}
		word := func(b []byte) string { return "0x" + common.Bytes2Hex(common.LeftPadBytes(b, 32)) }
		logs = append(logs, jsonv.Obj("address", pathUSD,
			"topics", []jsonv.Value{tempo.TopicTransferWithMemo.Hex(), word(from.Bytes()), word(c.Input[16:36]), "0x" + common.Bytes2Hex(memo[:])},
			"data", "0x"+common.Bytes2Hex(c.Input[36:68])))
	}
	return hash, jsonv.Obj("transaction", hash, "blockNumber", "100", "logs", logs), nil
}

func serveTerms(t *testing.T) *gate.Gate {
	t.Helper()
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(terms) }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client(), Timeout: 2 * time.Second},
		Now: func() time.Time { return time.Unix(1790000000, 0) }}
}

func TestPushThroughTheGate(t *testing.T) {
	g := serveTerms(t)
	d := doc(t, "tempo", "charge", reqBoth)
	chain := &landing{}
	res, err := g.Transact(context.Background(), d, tempo.PushID, signer.NewTempo(localKey(t), chain), nil)
	if err != nil {
		t.Fatal(err)
	}
	sent := res.Signed.(*jsonv.Object)
	if sent.Has("landed") || res.Landed == nil || chain.sent != 1 {
		t.Fatalf("signed %s landed %v", jsonv.String(sent), res.Landed)
	}
	if t2, _ := jsonv.AsObject(mustGet(sent, "payload")); mpp.String(t2, "type") != "hash" {
		t.Fatal("payload type")
	}
	// Check takes the payment with landed put back.
	held := sent.Clone()
	held.Set("landed", res.Landed)
	if got, err := g.Check(terms, tempo.PushID, held); err != nil || got != h {
		t.Fatalf("check: %v", err)
	}
	// A signer that broadcast but reports no receipt: the money moved, the
	// gate cannot read H back, and the decline keeps what was signed.
	_, err = g.Transact(context.Background(), d, tempo.PushID, signer.NewTempo(localKey(t), &landing{withoutReceipt: true}), nil)
	var dec *gate.Decline
	if !errors.As(err, &dec) || dec.Code != gate.SignedNotBound || dec.Moved == nil {
		t.Fatalf("%v", err)
	}
	// The plain local key cannot broadcast: signer-failed, nothing moved.
	_, err = g.Transact(context.Background(), d, tempo.PushID, localKey(t), nil)
	if !errors.As(err, &dec) || dec.Code != gate.SignerFailed || dec.Moved != nil {
		t.Fatalf("%v", err)
	}
	// The push Complete's refusals.
	u, _ := built(t, tempo.Push{}, d, nil)
	hash := "0x" + strings.Repeat("11", 32)
	landed := func(k string, v jsonv.Value) jsonv.Value {
		l := jsonv.Obj("transaction", hash, "blockNumber", "100", "logs", []jsonv.Value{})
		l.Set(k, v)
		return jsonv.Obj("hash", hash, "landed", l)
	}
	for name, answer := range map[string]jsonv.Value{
		"a string":             hash,
		"no hash":              jsonv.Obj(),
		"a short hash":         jsonv.Obj("hash", "0x11"),
		"landed a string":      jsonv.Obj("hash", hash, "landed", "x"),
		"logs an object":       landed("logs", jsonv.Obj()),
		"a number blockNumber": landed("blockNumber", jsonv.Number(100)),
		"a number transaction": landed("transaction", jsonv.Number(1)),
	} {
		if _, err := (tempo.Push{}).Complete(u, answer, rails.Chosen{}); code(err) != mpp.CodeCredentialMalformed {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func mustGet(o *jsonv.Object, k string) jsonv.Value {
	v, _ := o.Get(k)
	return v
}

func TestSession(t *testing.T) {
	p := tempo.Session{}
	d := doc(t, "tempo", "session", reqV2)
	u, funding := built(t, p, d, jsonv.Obj("deposit", "10000000"))
	signedTx := sign(t, funding)
	next, err := p.Complete(u, signedTx, rails.Chosen{})
	if err != nil || next.Next == nil {
		t.Fatal(err)
	}
	cred := credential(t, p, u, []jsonv.Value{signedTx, sign(t, next.Next)})
	if got, err := p.Bound(cred); err != nil || got != h.String() {
		t.Fatalf("bound %s (%v)", got, err)
	}
	// Choose's and build's refusals.
	read, _ := p.Read(d)
	for name, in := range map[string]*jsonv.Object{
		"no deposit":              jsonv.Obj(),
		"a decimal point":         jsonv.Obj("deposit", "1.0"),
		"a bad authorized signer": jsonv.Obj("deposit", "1", "authorizedSigner", "0x1"),
		"an unknown type":         jsonv.Obj("deposit", "1", "credentialType", "cash"),
		"a tokenDomain string":    jsonv.Obj("deposit", "1", "tokenDomain", "USDC"),
	} {
		if _, err := p.Choose(read, account, in, 1, ""); code(err) != mpp.CodeInputMissing {
			t.Errorf("choose with %s: %v", name, err)
		}
	}
	choice, err := p.Choose(read, account, jsonv.Obj("deposit", "1"), 1, "")
	if err != nil {
		t.Fatal(err)
	}
	rebuild := func(k string, v jsonv.Value) error {
		c := jsonv.Clone(choice).(*jsonv.Object)
		c.Set(k, v)
		_, err := p.Build(c, terms, h)
		return err
	}
	want(t, rebuild("deposit", "0"), mpp.CodeInputMalformed)
	want(t, rebuild("deposit", new(big.Int).Lsh(big.NewInt(1), 96).String()), mpp.CodeInputMalformed)
	want(t, rebuild("deposit", "ten"), mpp.CodeChoiceMalformed)
	want(t, rebuild("authorizedSigner", "0x12"), mpp.CodeInputMalformed)
	// Complete's refusals.
	for name, answer := range map[string]jsonv.Value{
		"a number":           jsonv.Number(1),
		"one answer in list": []jsonv.Value{signedTx},
		"a short voucher":    []jsonv.Value{signedTx, "0x" + strings.Repeat("ab", 64)},
		"a non-hex tx":       "0xzz",
	} {
		if _, err := p.Complete(u, answer, rails.Chosen{}); code(err) != mpp.CodeCredentialMalformed {
			t.Errorf("complete with %s: %v", name, err)
		}
	}
	if _, err := p.Complete(u, "0x02c0", rails.Chosen{}); code(err) != tempo.CodeTxMalformed {
		t.Errorf("step 1 over a non-Tempo transaction: %v", err)
	}
	// Bound's refusals.
	resigned := func(data string) jsonv.Value {
		req := funding.Clone()
		call, _ := req.GetObject("call")
		call.Set("data", data)
		return sign(t, req)
	}
	open := mpp.String(mustGet(funding, "call").(*jsonv.Object), "data")
	twoOpens := funding.Clone()
	twoOpens.Delete("call")
	twoOpens.Set("kind", "tempo-calls")
	twoOpens.Set("calls", []jsonv.Value{mustGet(funding, "call"), mustGet(funding, "call")})
	elsewhere := funding.Clone()
	elsewhere.Set("call", jsonv.Obj("to", pathUSD, "data", open))
	for name, c := range map[string]struct {
		in   jsonv.Value
		code string
	}{
		"a voucher":             {withPayload(cred, "action", "voucher"), tempo.CodeNotAnOpening},
		"a hash opening":        {withPayload(cred, "type", "hash"), tempo.CodeNotAnOpening},
		"no transaction":        {withPayload(cred, "transaction", nil), mpp.CodeCredentialMalformed},
		"over 64 KiB":           {withPayload(cred, "transaction", "0x"+strings.Repeat("76", tempo.MaxWireBytes+1)), mpp.CodeCredentialMalformed}, // the budget first
		"a broken transaction":  {withPayload(cred, "transaction", "0x76c0"), tempo.CodeTxMalformed},
		"an open elsewhere":     {withPayload(cred, "transaction", sign(t, elsewhere)), tempo.CodeOpenNotFound},
		"two opens":             {withPayload(cred, "transaction", sign(t, twoOpens)), tempo.CodeOpenAmbiguous},
		"a short open":          {withPayload(cred, "transaction", resigned(open[:len(open)-2])), tempo.CodeTxMalformed},
		"another salt":          {withPayload(cred, "transaction", resigned(strings.Replace(open, h.String()[2:], strings.Repeat("00", 32), 1))), tempo.CodeSaltNotBound},
		"a bad channel id":      {withPayload(cred, "channelId", "0x12"), mpp.CodeCredentialMalformed},
		"another channel id":    {withPayload(cred, "channelId", "0x"+strings.Repeat("00", 32)), tempo.CodeDescriptorMismatch},
		"no descriptor":         {withPayload(cred, "descriptor", nil), tempo.CodeDescriptorMismatch},
		"a v1 challenge echoed": {rechallenged(t, cred, strings.Replace(reqV2, "v2", "v1", 1)), tempo.CodeOpenNotFound},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := p.Bound(c.in)
			want(t, err, c.code)
		})
	}
}

func TestSubscription(t *testing.T) {
	p := tempo.Subscription{}
	d := doc(t, "tempo", "subscription", reqSub)
	u, req := built(t, p, d, nil)
	cred := credential(t, p, u, sign(t, req))
	if got, err := p.Bound(cred); err != nil || got != h.String() {
		t.Fatalf("bound %s (%v)", got, err)
	}
	sig := mpp.String(mustGet(cred, "payload").(*jsonv.Object), "signature")
	noWitness := withoutWitness(t, sig)
	for name, c := range map[string]struct {
		in   jsonv.Value
		code string
	}{
		"another type":       {withPayload(cred, "type", "transaction"), tempo.CodeNotAnOpening},
		"a number signature": {withPayload(cred, "signature", jsonv.Number(1)), tempo.CodeKeyAuthorizationMalformed},
		"not RLP":            {withPayload(cred, "signature", "0x00"), tempo.CodeKeyAuthorizationMalformed},
		"no witness":         {withPayload(cred, "signature", noWitness), tempo.CodeNoWitness},
		"a dotted id": {func() *jsonv.Object {
			x := cred.Clone()
			c, _ := x.GetObject("challenge")
			c.Set("id", mpp.BareID(h)+".0")
			return x
		}(), mpp.CodeIDNotOurs},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := p.Bound(c.in)
			want(t, err, c.code)
		})
	}
	if _, err := p.Complete(u, "0x"+strings.Repeat("ab", 64), rails.Chosen{}); code(err) != mpp.CodeCredentialMalformed {
		t.Error("a 64-byte signature")
	}
	// A period past 2^64 seconds cannot be written.
	long := doc(t, "tempo", "subscription", strings.Replace(strings.Replace(reqSub, `"30"`, `"9999999999999999"`, 1), `"day"`, `"week"`, 1))
	read, _ := p.Read(long)
	choice, err := p.Choose(read, account, nil, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Build(choice, terms, h)
	want(t, err, tempo.CodeKeyAuthorizationMalformed)
	// Through the gate, one signer call.
	res, err := serveTerms(t).Transact(context.Background(), d, tempo.SubscriptionID, localKey(t), nil)
	if err != nil || jsonv.String(res.Signed) != jsonv.String(cred) {
		t.Fatalf("transact: %v", err)
	}
}

// withoutWitness re-encodes a signed authorization with an empty witness.
func withoutWitness(t *testing.T, signed string) string {
	t.Helper()
	k, err := tempo.DecodeKeyAuthorization(signed)
	if err != nil {
		t.Fatal(err)
	}
	auth, err := tempo.Decode(k.Authorized, tempo.Limits{MaxDepth: 6, MaxItems: 100})
	if err != nil {
		t.Fatal(err)
	}
	var items []rlp.RawValue
	for _, it := range auth.Items[:6] {
		items = append(items, it.Raw)
	}
	items = append(items, rlp.RawValue{0x80})
	out, err := rlp.EncodeToBytes([]any{items, k.Signature})
	if err != nil {
		t.Fatal(err)
	}
	return "0x" + common.Bytes2Hex(out)
}

// BenchmarkTempoBuild is a memo charge's build, request, completion and
// read-back (the signature is made once, outside the loop: it is the
// wallet's work, not the gate's).
func BenchmarkTempoBuild(b *testing.B) {
	p := tempo.Memo{}
	d := doc(b, "tempo", "charge", reqPull)
	read, err := p.Read(d)
	if err != nil {
		b.Fatal(err)
	}
	choice, err := p.Choose(read, account, &jsonv.Object{}, 1790000000, "")
	if err != nil {
		b.Fatal(err)
	}
	_, req := built(b, p, d, nil)
	signed := sign(b, req)
	b.ReportAllocs()
	for b.Loop() {
		u, err := p.Build(choice, terms, h)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Request(u); err != nil {
			b.Fatal(err)
		}
		done, err := p.Complete(u, signed, rails.Chosen{})
		if err != nil {
			b.Fatal(err)
		}
		if got, err := p.Bound(done.Signed); err != nil || got != h.String() {
			b.Fatal(err)
		}
	}
}
