package tempo_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
	"github.com/termsgate/termsgate/vectors"
)

// node is a fixture reader of one receipt, finalized and safe at head.
type node struct {
	network string
	receipt jsonv.Value
	fail    bool
	head    uint64
}

func (n *node) Network() string { return n.network }

func (n *node) Receipt(string) (jsonv.Value, error) {
	if n.fail {
		return nil, errors.New("transport")
	}
	return n.receipt, nil
}

func (n *node) Head(string) (uint64, error) { return n.head, nil }

func moderato(receipt jsonv.Value) *node {
	return &node{network: "eip155:42431", receipt: receipt, head: 100}
}

const txHash = "0x2222222222222222222222222222222222222222222222222222222222222222"

func topicOf(address string) string {
	return "0x" + strings.Repeat("0", 24) + strings.ToLower(strings.TrimPrefix(address, "0x"))
}

func wordOf(n uint64) string { return fmt.Sprintf("0x%064x", n) }

func logOf(address, data string, topics ...string) *jsonv.Object {
	ts := make([]jsonv.Value, len(topics))
	for i, s := range topics {
		ts[i] = s
	}
	return jsonv.Obj("address", address, "topics", ts, "data", data)
}

func receiptOf(status int, logs ...jsonv.Value) *jsonv.Object {
	if logs == nil {
		logs = []jsonv.Value{}
	}
	return jsonv.Obj("status", status, "blockNumber", "100", "logs", logs)
}

func TestReadReceipt(t *testing.T) {
	for name, c := range map[string]struct {
		tx     string
		reader evm.Reader
		code   string
	}{
		"a short hash":     {"0x12", moderato(receiptOf(1)), tempo.CodeNotFound},
		"another network":  {txHash, &node{network: "eip155:1", receipt: receiptOf(1)}, tempo.CodeUnreadable},
		"no reader":        {txHash, nil, tempo.CodeUnreadable},
		"a failed read":    {txHash, &node{network: "eip155:42431", fail: true}, tempo.CodeUnreadable},
		"no receipt":       {txHash, moderato(nil), tempo.CodeNotFound},
		"no receipt shape": {txHash, moderato(jsonv.Obj("status", 1)), tempo.CodeUnreadable},
		"a log's data":     {txHash, moderato(receiptOf(1, jsonv.Obj("address", pathUSD, "topics", []jsonv.Value{}))), tempo.CodeUnreadable},
		"reverted":         {txHash, moderato(receiptOf(0)), tempo.CodeReverted},
		"an upper-case tx": {strings.ToUpper(txHash[2:]), moderato(receiptOf(1)), tempo.CodeNotFound},
		"read, upper hex":  {"0x" + strings.ToUpper(txHash[2:]), moderato(receiptOf(1)), ""},
		"read, lower":      {txHash, moderato(receiptOf(1)), ""},
	} {
		if _, err := tempo.ReadReceipt("eip155:42431", c.tx, c.reader); code(err) != c.code {
			t.Errorf("%s: %v, want %q", name, err, c.code)
		}
	}
}

// memoLogs is a pathUSD Transfer and TransferWithMemo of 1000000 to the
// recipient with memo, the second from emitter.
func memoLogs(emitter, memo string) []jsonv.Value {
	return []jsonv.Value{
		logOf(pathUSD, wordOf(1000000), evm.TopicTransfer.Hex(), topicOf(payer), topicOf(recipient)),
		logOf(emitter, wordOf(1000000), tempo.TopicTransferWithMemo.Hex(), topicOf(payer), topicOf(recipient), memo),
	}
}

func TestMemoReferenceReadsBack(t *testing.T) {
	p := tempo.Memo{}
	u, req := built(t, p, doc(t, "tempo", "charge", reqPull), nil)
	cred := credential(t, p, u, sign(t, req))
	ref, err := p.Reference(cred)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ref.GetObject("bindingLog")
	memo := mpp.String(b, "value")
	if s, _ := ref.GetString("settleBy"); s != "1790000060" {
		t.Fatalf("settleBy %q (the signed valid_before)", s)
	}
	ref.Set("transaction", txHash)
	if s := p.Status(ref, moderato(receiptOf(1, memoLogs(pathUSD, memo)...))); s.State != evm.StateSettled {
		t.Fatalf("status %s", jsonv.String(s.JSON()))
	}
	// A memo log under another memo is not this payment's.
	other := "0x" + strings.Repeat("ab", 32)
	if s := p.Status(ref, moderato(receiptOf(1, memoLogs(pathUSD, other)...))); s.Why != evm.WhyBindingLogNotFound {
		t.Fatalf("status %s", jsonv.String(s.JSON()))
	}
	// A credential that does not read back has no reference.
	_, err = p.Reference(withPayload(cred, "type", "hash"))
	want(t, err, mpp.CodeCredentialType)
}

func TestPushLanded(t *testing.T) {
	p := tempo.Push{}
	u, _ := built(t, p, doc(t, "tempo", "charge", reqBoth), nil)
	bare := credential(t, p, u, jsonv.Obj("hash", "0x"+strings.ToUpper(txHash[2:])))
	read, _ := tempo.Memo{}.Read(doc(t, "tempo", "charge", reqBoth))
	challenge, _ := jsonv.AsObject(read.Options[0])
	memo := mpp.AttributionMemo(realm, mpp.String(challenge, "id"), "", false)
	memoHex := fmt.Sprintf("0x%x", memo)
	elsewhere := logOf("0x20c0000000000000000000000000000000000001", "0x", evm.TopicTransfer.Hex())
	r := moderato(receiptOf(1, append(memoLogs(pathUSD, memoHex), elsewhere)...))
	landed, err := p.Landed(bare, r)
	if err != nil {
		t.Fatal(err)
	}
	l, _ := landed.GetObject("landed")
	logs, _ := l.Get("logs")
	if tx, _ := l.GetString("transaction"); tx != txHash || len(logs.([]jsonv.Value)) != 2 || mpp.String(l, "blockNumber") != "100" {
		t.Fatalf("landed %s", jsonv.String(l))
	}
	if got, err := p.Bound(landed); err != nil || got != h.String() {
		t.Fatalf("bound %s (%v)", got, err)
	}
	ref, err := p.Reference(landed)
	if err != nil {
		t.Fatal(err)
	}
	if ref.Has("settleBy") {
		t.Fatal("a landed push has a settleBy")
	}
	ref.Set("transaction", txHash)
	if s := p.Status(ref, r); s.State != evm.StateSettled {
		t.Fatalf("status %s", jsonv.String(s.JSON()))
	}
	for name, c := range map[string]struct {
		in   jsonv.Value
		code string
	}{
		"not an object": {"x", mpp.CodeCredentialMalformed},
		"no payload":    {func() *jsonv.Object { x := bare.Clone(); x.Delete("payload"); return x }(), mpp.CodeCredentialMalformed},
		"a transaction": {withPayload(bare, "type", "transaction"), mpp.CodeCredentialType},
		"a short hash":  {withPayload(bare, "hash", "0x12"), mpp.CodeCredentialMalformed},
		"no expiry": {func() *jsonv.Object {
			x := bare.Clone()
			c, _ := x.GetObject("challenge")
			c.Delete("expires")
			return x
		}(), mpp.CodeExpiresRequired},
	} {
		_, err := p.Landed(c.in, r)
		if code(err) != c.code {
			t.Errorf("%s: %v, want %s", name, err, c.code)
		}
	}
	// A memo log with no amount word reads back, but gives no reference.
	short := landed.Clone()
	sl, _ := short.GetObject("landed")
	sl.Set("logs", []jsonv.Value{logOf(pathUSD, "0x", tempo.TopicTransferWithMemo.Hex(), topicOf(payer), topicOf(recipient), memoHex)})
	_, err = p.Reference(short)
	want(t, err, mpp.CodeCredentialMalformed)
}

func TestSessionStatusReadsOnlyWhatItChecks(t *testing.T) {
	channel := "0x" + strings.Repeat("cd", 32)
	ref := func() *jsonv.Object {
		return jsonv.Obj("network", "eip155:42431", "transaction", txHash,
			"opened", jsonv.Obj("address", escrowV2, "version", "v2", "channel", channel, "h", h.String(), "chainId", 42431))
	}
	opened := logOf(escrowV2, "0x"+strings.Repeat("00", 96)+h.String()[2:]+strings.Repeat("00", 64), tempo.TopicChannelOpenedV2, channel, topicOf(payer), topicOf(recipient))
	r := moderato(receiptOf(1, opened))
	if s := tempo.SessionStatus(ref(), r); s.State != evm.StateSettled {
		t.Fatalf("status %s", jsonv.String(s.JSON()))
	}
	for name, mut := range map[string]func(*jsonv.Object){
		"an EVM close":           func(o *jsonv.Object) { o.Set("closes", jsonv.Obj("escrow", escrowV2, "channel", channel)) },
		"a spend under a key":    func(o *jsonv.Object) { o.Set("accessKey", jsonv.Obj("account", payer)) },
		"a version":              func(o *jsonv.Object) { x, _ := o.GetObject("opened"); x.Set("version", "v3") },
		"a chain":                func(o *jsonv.Object) { x, _ := o.GetObject("opened"); x.Set("chainId", "42431") },
		"an opened not a member": func(o *jsonv.Object) { o.Set("opened", "v2") },
	} {
		x := ref()
		mut(x)
		if s := tempo.SessionStatus(x, r); s.Why != evm.WhyUnreadable {
			t.Errorf("%s: %s", name, jsonv.String(s.JSON()))
		}
	}
	// The subscription's own accessKey (no account) does not stop the read.
	x := ref()
	x.Set("accessKey", jsonv.Obj("keyId", payer))
	if s := tempo.SessionStatus(x, r); s.State != evm.StateSettled {
		t.Fatalf("with accessKey: %s", jsonv.String(s.JSON()))
	}
}

// L1 is a live v2 opening on Moderato: its receipt settles the opening under
// the salt its signed transaction carries.
func TestSessionStatusOnTheLiveOpening(t *testing.T) {
	f, err := vectors.Load("mpp-session-tempo.json")
	if err != nil {
		t.Fatal(err)
	}
	l1, _ := f.GetObject("L1")
	receipt, _ := l1.GetObject("receipt")
	logs, _ := receipt.Get("logs")
	openedLog, _ := jsonv.AsObject(logs.([]jsonv.Value)[1])
	topics, _ := openedLog.Get("topics")
	channel := topics.([]jsonv.Value)[1].(string)
	wire, _ := mpp.HexBytes(mpp.String(l1, "raw"), 0, tempo.MaxWireBytes)
	tx, err := tempo.DecodeTx(wire)
	if err != nil {
		t.Fatal(err)
	}
	salt := fmt.Sprintf("0x%x", tx.Calls[0].Input[4+32*4:4+32*5])
	ref := jsonv.Obj("network", "eip155:42431", "transaction", "0x274c152568833e92246fdb8a01271e4af32c60edd2e561a53dcac3346865e1d1",
		"opened", jsonv.Obj("address", escrowV2, "version", "v2", "channel", channel, "h", salt, "chainId", 42431))
	r := &node{network: "eip155:42431", receipt: receipt, head: 36699652}
	if s := tempo.SessionStatus(ref, r); s.State != evm.StateSettled || s.Finality != evm.FinalityFinalized {
		t.Fatalf("status %s", jsonv.String(s.JSON()))
	}
	o, _ := ref.GetObject("opened")
	o.Set("h", h.String())
	if s := tempo.SessionStatus(ref, r); s.Why != evm.WhyBindingLogNotFound {
		t.Fatalf("under H: %s", jsonv.String(s.JSON()))
	}
}

func TestCloseRefs(t *testing.T) {
	issued := func(intent, request string) *jsonv.Object {
		return jsonv.Obj("realm", realm, "method", "tempo", "intent", intent, "request", mpp.EncodeB64URL([]byte(request)), "expires", expires)
	}
	channel := "0x" + strings.Repeat("AB", 32)
	ref, err := tempo.Session{}.CloseRef(issued("session", reqV2), channel)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := ref.GetObject("bindingLog"); mpp.String(b, "value") != strings.ToLower(channel) || mpp.String(b, "address") != escrowV2 {
		t.Fatalf("close ref %s", jsonv.String(ref))
	}
	// A challenge naming the channel (a resume) still reads.
	named := strings.Replace(reqV2, `"sessionProtocol"`, `"channelId":"`+channel+`","sessionProtocol"`, 1)
	if _, err := (tempo.Session{}).CloseRef(issued("session", named), channel); err != nil {
		t.Fatalf("a named channel: %v", err)
	}
	v1NoChain := `{"currency":"` + pathUSD + `","methodDetails":{"escrowContract":"0x9d136eEa063eDE5418A6BC7bEafF009bBb6CFa70"},"recipient":"` + recipient + `"}`
	if ref, err := (tempo.Session{}).CloseRef(issued("session", v1NoChain), channel); err != nil || mpp.String(ref, "network") != "eip155:4217" {
		t.Fatalf("v1 default chain: %v", err)
	}
	for name, c := range map[string]struct {
		err  error
		code string
	}{
		"a short channel": {closeErr(tempo.Session{}.CloseRef(issued("session", reqV2), "0x12")), mpp.CodeCredentialMalformed},
		"a subscription":  {closeErr(tempo.Session{}.CloseRef(issued("subscription", reqSub), channel)), mpp.CodeNotThisPairing},
		"no escrow":       {closeErr(tempo.Session{}.CloseRef(issued("session", `{"methodDetails":{"chainId":1}}`), channel)), mpp.CodeEscrowMalformed},
		"a bad chain":     {closeErr(tempo.Session{}.CloseRef(issued("session", `{"methodDetails":{"chainId":0}}`), channel)), mpp.CodeChainIDRequired},
		"not base64url":   {closeErr(tempo.Session{}.CloseRef(jsonv.Obj("method", "tempo", "intent", "session", "request", "!"), channel)), mpp.CodeRequestMalformed},
		"not a challenge": {closeErr(tempo.Session{}.CloseRef("x", channel)), mpp.CodeCredentialMalformed},
		"no key":          {closeErr(tempo.Subscription{}.CloseRef(issued("subscription", `{"methodDetails":{"chainId":42431}}`), "")), mpp.CodeAccessKeyMalformed},
		"no chain":        {closeErr(tempo.Subscription{}.CloseRef(issued("subscription", `{"methodDetails":{}}`), "")), mpp.CodeChainIDRequired},
	} {
		if code(c.err) != c.code {
			t.Errorf("%s: %v, want %s", name, c.err, c.code)
		}
	}
}

func closeErr(_ *jsonv.Object, err error) error { return err }

func TestSubscriptionRecover(t *testing.T) {
	p := tempo.Subscription{}
	ref := jsonv.Obj("network", "eip155:42431", "transaction", txHash)
	witness := logOf(tempo.AccountKeychain, "0x", tempo.TopicKeyAuthorizationWitness, topicOf(payer), h.String())
	if got, err := p.Recover(ref, moderato(receiptOf(1, witness))); err != nil || got != h.String() {
		t.Fatalf("recover %s (%v)", got, err)
	}
	for name, c := range map[string]struct {
		r    evm.Reader
		code string
	}{
		"none":            {moderato(receiptOf(1)), tempo.CodeNoWitness},
		"two":             {moderato(receiptOf(1, witness, witness)), tempo.CodeAmbiguous},
		"a short one":     {moderato(receiptOf(1, logOf(tempo.AccountKeychain, "0x", tempo.TopicKeyAuthorizationWitness, topicOf(payer), "0x12"))), tempo.CodeUnreadable},
		"another emitter": {moderato(receiptOf(1, logOf(pathUSD, "0x", tempo.TopicKeyAuthorizationWitness, topicOf(payer), h.String()))), tempo.CodeNoWitness},
		"reverted":        {moderato(receiptOf(0, witness)), tempo.CodeReverted},
	} {
		if _, err := p.Recover(ref, c.r); code(err) != c.code {
			t.Errorf("%s: %v, want %s", name, err, c.code)
		}
	}
}

// FuzzTempoSettlementReads: no ref, credential or receipt makes a reader
// panic.
func FuzzTempoSettlementReads(f *testing.F) {
	f.Add([]byte(`{"network":"eip155:42431","transaction":"`+txHash+`","opened":{"address":"`+escrowV2+`","version":"v1","channel":"`+txHash+`","h":"`+txHash+`","chainId":1}}`),
		[]byte(`{"status":1,"blockNumber":"1","logs":[{"address":"`+escrowV2+`","topics":["`+tempo.TopicChannelOpenedV1+`","`+txHash+`","0x","0x01"],"data":"0x00"}]}`))
	f.Add([]byte(`{"challenge":{"realm":"r","method":"tempo","intent":"charge","request":"e30","expires":"2026-09-21T14:14:20Z"},"payload":{"type":"hash","hash":"`+txHash+`"}}`),
		[]byte(`{"status":1,"blockNumber":"1","logs":[]}`))
	f.Add([]byte(`{}`), []byte(`"reader-error"`))
	f.Fuzz(func(t *testing.T, refJSON, receiptJSON []byte) {
		cost.Bound(t, len(refJSON)+len(receiptJSON), func() {
			rv, err := jsonv.Parse(refJSON)
			if err != nil {
				return
			}
			receipt, err := jsonv.Parse(receiptJSON)
			if err != nil {
				return
			}
			r := moderato(receipt)
			ref, _ := jsonv.AsObject(rv)
			tempo.SessionStatus(ref, r)
			_, _ = tempo.Subscription{}.Recover(ref, r)
			_, _ = tempo.Push{}.Landed(rv, r)
			_, _ = tempo.Push{}.Reference(rv)
			_, _ = tempo.Memo{}.Reference(rv)
			_, _ = tempo.Session{}.Reference(rv)
			_, _ = tempo.Subscription{}.Reference(rv)
			_, _ = tempo.Session{}.CloseRef(rv, "0x")
			_, _ = tempo.Subscription{}.CloseRef(rv, "")
		})
	})
}
