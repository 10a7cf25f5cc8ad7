package evm_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/signer"
)

// chain is a fixture reader: one receipt (or a failure), and heads that
// can fail on their own.
type chain struct {
	network         string
	receipt         jsonv.Value
	fail            bool
	finalized, safe uint64
	headFails       map[string]bool
	reads           int
}

func (c *chain) Network() string { return c.network }

func (c *chain) Receipt(string) (jsonv.Value, error) {
	c.reads++
	if c.fail {
		return nil, errors.New("transport")
	}
	return c.receipt, nil
}

func (c *chain) Head(tag string) (uint64, error) {
	c.reads++
	if c.headFails[tag] {
		return 0, errors.New("transport")
	}
	if tag == evm.TagFinalized {
		return c.finalized, nil
	}
	return c.safe, nil
}

const (
	usdc  = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
	topic = "0x98de503528ee59b575ef0c0a2576a82497bfc029a5685b209e9ec333479b10a5"
	payer = "0x000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266"
	tx    = "0x1111111111111111111111111111111111111111111111111111111111111111"
)

func logJSON(address string, data string, topics ...string) *jsonv.Object {
	ts := make([]jsonv.Value, len(topics))
	for i, s := range topics {
		ts[i] = s
	}
	o := jsonv.Obj("address", address, "topics", ts)
	if data != "" {
		o.Set("data", data)
	}
	return o
}

func receipt(status int, block string, logs ...jsonv.Value) *jsonv.Object {
	if logs == nil {
		logs = []jsonv.Value{}
	}
	return jsonv.Obj("status", status, "blockNumber", block, "logs", logs)
}

func exactRef(hash string) *jsonv.Object {
	return jsonv.Obj("network", "eip155:84532", "asset", usdc, "transaction", tx, "h", hash)
}

func TestParseReceipt(t *testing.T) {
	for name, c := range map[string]struct {
		v  jsonv.Value
		ok bool
	}{
		"status 1":                {receipt(1, "7"), true},
		"status \"1\"":            {jsonv.Obj("status", "1", "blockNumber", "7", "logs", []jsonv.Value{}), true},
		"status 2":                {receipt(2, "7"), false},
		"status true":             {jsonv.Obj("status", true, "blockNumber", "7", "logs", []jsonv.Value{}), false},
		"status 0x1":              {jsonv.Obj("status", "0x1", "blockNumber", "7", "logs", []jsonv.Value{}), false},
		"block with a leading 0":  {receipt(1, "07"), false},
		"block a number":          {jsonv.Obj("status", 1, "blockNumber", 7, "logs", []jsonv.Value{}), false},
		"block beyond 64 bits":    {receipt(1, "18446744073709551616"), false},
		"block 0":                 {receipt(1, "0"), true},
		"logs not a list":         {jsonv.Obj("status", 1, "blockNumber", "7", "logs", jsonv.Obj()), false},
		"not an object":           {"receipt", false},
		"a log that is no object": {receipt(1, "7", "x"), true},
	} {
		if _, ok := evm.ParseReceipt(c.v); ok != c.ok {
			t.Errorf("%s: ok %v", name, ok)
		}
	}
	r, _ := evm.ParseReceipt(receipt(1, "7", "x", logJSON(usdc, "", topic), logJSON(usdc, "0x", topic)))
	if r.AllWellFormed() || r.Logs[0].WellFormed || r.Logs[1].WellFormed || !r.Logs[2].WellFormed {
		t.Fatalf("well formed: %+v", r.Logs)
	}
}

func TestSettledAtCountsAFailedHeadAsNotReached(t *testing.T) {
	c := &chain{network: "eip155:1", finalized: 100, safe: 105, headFails: map[string]bool{evm.TagFinalized: true}}
	if s := evm.SettledAt(100, c); s.Finality != evm.FinalitySafe {
		t.Fatalf("finalized failing: %+v", s)
	}
	c.headFails[evm.TagSafe] = true
	if s := evm.SettledAt(100, c); s.Finality != evm.FinalityLatest || s.BlockNumber != 100 {
		t.Fatalf("both failing: %+v", s)
	}
	c.headFails = nil
	if s := evm.SettledAt(100, c); s.Finality != evm.FinalityFinalized || jsonv.String(s.JSON()) != `{"state":"settled","finality":"finalized","blockNumber":"100"}` {
		t.Fatalf("finalized: %s", jsonv.String(s.JSON()))
	}
}

func TestExactStatus(t *testing.T) {
	p := evm.ExactEIP3009{}
	used := logJSON(usdc, "", topic, payer, h.String())
	at := func(r jsonv.Value) *chain {
		return &chain{network: "eip155:84532", receipt: r, finalized: 100, safe: 100}
	}
	for name, c := range map[string]struct {
		ref    *jsonv.Object
		reader evm.Reader
		want   string
	}{
		"settled":              {exactRef(h.String()), at(receipt(1, "100", used)), `{"state":"settled","finality":"finalized","blockNumber":"100"}`},
		"upper-case nonce":     {exactRef(h.String()), at(receipt(1, "100", logJSON(strings.ToLower(usdc), "", "0x"+strings.ToUpper(topic[2:]), payer, "0x"+strings.ToUpper(h.String()[2:])))), `{"state":"settled","finality":"finalized","blockNumber":"100"}`},
		"another network":      {exactRef(h.String()), &chain{network: "eip155:1", receipt: receipt(1, "100", used)}, `{"state":"pending","why":"unreadable"}`},
		"no reader":            {exactRef(h.String()), nil, `{"state":"pending","why":"unreadable"}`},
		"a malformed h":        {exactRef("0x1234"), at(receipt(1, "100", used)), `{"state":"pending","why":"unreadable"}`},
		"a malformed receipt":  {exactRef(h.String()), at(jsonv.Obj("status", 1)), `{"state":"pending","why":"unreadable"}`},
		"four topics":          {exactRef(h.String()), at(receipt(1, "100", logJSON(usdc, "", topic, payer, h.String(), payer))), `{"state":"failed","why":"authorization-not-used"}`},
		"another nonce":        {exactRef(h.String()), at(receipt(1, "100", logJSON(usdc, "", topic, payer, tx))), `{"state":"failed","why":"authorization-not-used"}`},
		"a log that is no log": {exactRef(h.String()), at(receipt(1, "100", "x", jsonv.Obj("topics", "x"))), `{"state":"failed","why":"authorization-not-used"}`},
	} {
		if got := jsonv.String(p.Status(c.ref, c.reader).JSON()); got != c.want {
			t.Errorf("%s: %s, want %s", name, got, c.want)
		}
	}
	// A reverted receipt costs one read; a settled one at most three.
	c := at(receipt(0, "100"))
	if s := p.Status(exactRef(h.String()), c); s.Why != evm.WhyReverted || c.reads != 1 {
		t.Fatalf("reverted: %+v after %d reads", s, c.reads)
	}
	c = &chain{network: "eip155:84532", receipt: receipt(1, "100", used), finalized: 1, safe: 1}
	if s := p.Status(exactRef(h.String()), c); s.Finality != evm.FinalityLatest || c.reads != 3 {
		t.Fatalf("latest: %+v after %d reads", s, c.reads)
	}
}

func TestExactRecover(t *testing.T) {
	p := evm.ExactEIP3009{}
	ref := jsonv.Obj("network", "eip155:84532", "asset", usdc, "transaction", tx)
	used := logJSON(usdc, "", topic, payer, "0x"+strings.ToUpper(h.String()[2:]))
	for name, c := range map[string]struct {
		ref    *jsonv.Object
		reader evm.Reader
		code   string
	}{
		"another network":  {ref, &chain{network: "eip155:1"}, evm.CodeWrongReader},
		"a failed read":    {ref, &chain{network: "eip155:84532", fail: true}, evm.CodeUnreadable},
		"no receipt":       {ref, &chain{network: "eip155:84532"}, evm.CodeNotFound},
		"no receipt shape": {ref, &chain{network: "eip155:84532", receipt: jsonv.Obj()}, evm.CodeUnreadable},
		"reverted":         {ref, &chain{network: "eip155:84532", receipt: receipt(0, "1", used)}, evm.CodeReverted},
		"no use":           {ref, &chain{network: "eip155:84532", receipt: receipt(1, "1", logJSON(tx[:42], "", topic, payer, h.String()))}, evm.CodeNoAuthorizationUse},
		"a short nonce":    {ref, &chain{network: "eip155:84532", receipt: receipt(1, "1", logJSON(usdc, "", topic, payer, "0x12"))}, evm.CodeUnreadable},
		"a malformed ref":  {jsonv.Obj("network", "eip155:84532", "asset", "USDC", "transaction", tx), &chain{network: "eip155:84532"}, evm.CodeFieldMalformed},
	} {
		if _, err := p.Recover(c.ref, c.reader); code(err) != c.code {
			t.Errorf("%s: %v, want %s", name, err, c.code)
		}
	}
	// The same nonce twice is one nonce, lowercase.
	got, err := p.Recover(ref, &chain{network: "eip155:84532", receipt: receipt(1, "1", used, used)})
	if err != nil || got != h.String() {
		t.Fatalf("recover %s (%v)", got, err)
	}
}

func TestRefStatus(t *testing.T) {
	transfer := evm.TopicTransfer.Hex()
	word := func(n uint64) string { return fmt.Sprintf("0x%064x", n) }
	to := "0x000000000000000000000000209693bc6afc0c5328ba36faf03c514ef312287c"
	digest, _ := evm.TransferDigest(evm.TransferFields{To: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", Value: big.NewInt(10000)})
	digestHex := fmt.Sprintf("0x%x", digest)
	base := func() *jsonv.Object {
		return jsonv.Obj("network", "eip155:84532", "transaction", tx,
			"bindingLog", jsonv.Obj("address", usdc, "topic0", topic, "index", 2, "value", h.String()),
			"transferLog", jsonv.Obj("address", usdc, "topic0", transfer, "identity", "to,value", "digest", digestHex))
	}
	bind := logJSON(usdc, "0x", topic, payer, h.String())
	moved := logJSON(usdc, word(10000), transfer, payer, to)
	guard := logJSON(usdc, word(10000), transfer, payer, "0x000000000000000000000000"+evm.ReceivePolicyGuard[2:])
	at := func(logs ...jsonv.Value) *chain {
		return &chain{network: "eip155:84532", receipt: receipt(1, "9", logs...), finalized: 9, safe: 9}
	}
	with := func(mut func(*jsonv.Object)) *jsonv.Object { r := base(); mut(r); return r }
	for name, c := range map[string]struct {
		ref    *jsonv.Object
		reader evm.Reader
		want   string
	}{
		"settled":            {base(), at(bind, moved), `{"state":"settled","finality":"finalized","blockNumber":"9"}`},
		"no binding":         {base(), at(moved), `{"state":"failed","why":"binding-log-not-found"}`},
		"no transfer":        {base(), at(bind), `{"state":"failed","why":"transfer-not-found"}`},
		"another amount":     {base(), at(bind, logJSON(usdc, word(9999), transfer, payer, to)), `{"state":"failed","why":"transfer-not-found"}`},
		"blocked":            {base(), at(guard), `{"state":"failed","why":"receive-policy-blocked"}`},
		"a log without data": {base(), at(bind, moved, logJSON(usdc, "", topic)), `{"state":"pending","why":"unreadable"}`},
		"no transaction":     {with(func(r *jsonv.Object) { r.Delete("transaction") }), at(bind, moved), `{"state":"pending","why":"unreadable"}`},
		"index 4":            {with(func(r *jsonv.Object) { b, _ := r.GetObject("bindingLog"); b.Set("index", jsonv.Number(4)) }), at(bind, moved), `{"state":"pending","why":"unreadable"}`},
		"index and word":     {with(func(r *jsonv.Object) { b, _ := r.GetObject("bindingLog"); b.Set("dataWord", jsonv.Number(0)) }), at(bind, moved), `{"state":"pending","why":"unreadable"}`},
		"an identity":        {with(func(r *jsonv.Object) { b, _ := r.GetObject("transferLog"); b.Set("identity", "value") }), at(bind, moved), `{"state":"pending","why":"unreadable"}`},
		"a data word": {with(func(r *jsonv.Object) {
			r.Set("bindingLog", jsonv.Obj("address", usdc, "topic0", transfer, "dataWord", 0, "value", word(10000)))
		}), at(moved), `{"state":"settled","finality":"finalized","blockNumber":"9"}`},
		"only a transfer": {with(func(r *jsonv.Object) { r.Delete("bindingLog") }), at(moved), `{"state":"settled","finality":"finalized","blockNumber":"9"}`},
		"no logs named":   {jsonv.Obj("network", "eip155:84532", "transaction", tx), at(), `{"state":"settled","finality":"finalized","blockNumber":"9"}`},
		"not found":       {base(), &chain{network: "eip155:84532"}, `{"state":"pending","why":"not-found"}`},
	} {
		s, r := evm.RefStatus(c.ref, c.reader)
		if got := jsonv.String(s.JSON()); got != c.want || (r != nil) != (s.State == evm.StateSettled) {
			t.Errorf("%s: %s, want %s", name, got, c.want)
		}
	}
}

func TestTransferDigest(t *testing.T) {
	if _, err := evm.TransferDigest(evm.TransferFields{From: "0x12"}); code(err) != evm.CodeFieldMalformed {
		t.Fatalf("a short address: %v", err)
	}
	if _, err := evm.TransferDigest(evm.TransferFields{Value: big.NewInt(-1)}); code(err) != evm.CodeAmountMalformed {
		t.Fatalf("a negative value: %v", err)
	}
	// Only to: SHA-256 of the 20 address bytes.
	d, err := evm.TransferDigest(evm.TransferFields{To: "0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00"})
	if err != nil || fmt.Sprintf("0x%x", d) != "0x89b2134890a170c97762b6aca097db78cad7a8e6d49f1436869aa987eb90eb2b" {
		t.Fatalf("to only: %x (%v)", d, err)
	}
}

func TestMPPAuthorizationReference(t *testing.T) {
	p := evm.MPPAuthorization{}
	read, _ := p.Read(placedDoc(t, reqE))
	choice, _ := p.Choose(read, account, tokenDomain, 1790000000, "")
	u, _ := p.Build(choice, nil, h)
	req, _ := p.Request(u)
	l, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	sig, _ := l.Sign(context.Background(), req)
	done, err := p.Complete(u, sig, rails.Chosen{})
	if err != nil {
		t.Fatal(err)
	}
	cred := done.Signed.(*jsonv.Object)
	ref, err := p.Reference(cred)
	if err != nil {
		t.Fatal(err)
	}
	// The reference reads back through the status: the receipt of the
	// transfer, with the token's AuthorizationUsed of the signed nonce.
	nonce := jsonv.String(mustGet(t, ref, "bindingLog", "value"))
	ref.Set("transaction", tx)
	word := fmt.Sprintf("0x%064x", 10000)
	logs := []jsonv.Value{
		logJSON(usdc, "0x", topic, payer, strings.Trim(nonce, `"`)),
		logJSON(usdc, word, evm.TopicTransfer.Hex(), payer, "0x000000000000000000000000209693bc6afc0c5328ba36faf03c514ef312287c"),
	}
	if s := p.Status(ref, &chain{network: "eip155:84532", receipt: receipt(1, "5", logs...), finalized: 5}); s.State != evm.StateSettled {
		t.Fatalf("status %s", jsonv.String(s.JSON()))
	}
	pl, _ := cred.GetObject("payload")
	pl.Set("validBefore", "soon")
	if _, err := p.Reference(cred); code(err) != "mpp/credential-malformed" {
		t.Fatalf("a malformed validBefore: %v", err)
	}
	if _, err := p.Reference("x"); code(err) != "mpp/credential-malformed" {
		t.Fatalf("not a credential: %v", err)
	}
}

func mustGet(t *testing.T, o *jsonv.Object, path ...string) jsonv.Value {
	t.Helper()
	var v jsonv.Value = o
	for _, k := range path {
		x, ok := jsonv.AsObject(v)
		if !ok {
			t.Fatalf("no %v", path)
		}
		v, _ = x.Get(k)
	}
	return v
}

// FuzzSettlementReads: no ref or receipt makes a reader panic.
func FuzzSettlementReads(f *testing.F) {
	f.Add([]byte(`{"network":"eip155:84532","asset":"`+usdc+`","transaction":"`+tx+`","h":"`+tx+`"}`),
		[]byte(`{"status":1,"blockNumber":"100","logs":[{"address":"`+usdc+`","topics":["`+topic+`","`+payer+`","`+tx+`"]}]}`))
	f.Add([]byte(`{"network":"eip155:84532","transaction":"`+tx+`","bindingLog":{"address":"`+usdc+`","topic0":"`+topic+`","dataWord":3,"value":"0x"}}`),
		[]byte(`{"status":1,"blockNumber":"1","logs":[{"address":"`+usdc+`","topics":["`+topic+`"],"data":"0x00"}]}`))
	f.Add([]byte(`{}`), []byte(`null`))
	f.Fuzz(func(t *testing.T, refJSON, receiptJSON []byte) {
		cost.Bound(t, len(refJSON)+len(receiptJSON), func() {
			rv, err := jsonv.Parse(refJSON)
			if err != nil {
				return
			}
			ref, ok := jsonv.AsObject(rv)
			if !ok {
				return
			}
			receiptValue, err := jsonv.Parse(receiptJSON)
			if err != nil {
				return
			}
			c := &chain{network: "eip155:84532", receipt: receiptValue, finalized: 5, safe: 5}
			evm.ExactEIP3009{}.Status(ref, c)
			_, _ = evm.ExactEIP3009{}.Recover(ref, c)
			evm.RefStatus(ref, c)
		})
	})
}
