package mpp

import (
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

func TestDecodeB64URLStrict(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{
		{"", true}, {"e30", true}, {"AAEC", true}, {"_-8", true},
		{"e30=", false},  // padding
		{"e3+0", false},  // the standard alphabet
		{"e3\n0", false}, // Go's decoder would skip the newline
		{"e", false},     // length mod 4 = 1
		{"e31", false},   // unused trailing bits set
		{"e3 0", false},
	} {
		if _, ok := DecodeB64URL(c.in, 8); ok != c.ok {
			t.Errorf("%q: %v", c.in, ok)
		}
	}
	// The bound is on the encoded length, checked before decoding.
	if _, ok := DecodeB64URL(strings.Repeat("A", 11), 8); !ok {
		t.Error("11 characters for 8 bytes")
	}
	if _, ok := DecodeB64URL(strings.Repeat("A", 12), 8); ok {
		t.Error("12 characters for at most 8 bytes")
	}
}

func TestDecodeObject(t *testing.T) {
	enc := func(s string) string { return EncodeB64URL([]byte(s)) }
	deep := strings.Repeat(`{"a":`, 16) + "1" + strings.Repeat("}", 16)
	tooDeep := strings.Repeat(`[`, 16) + strings.Repeat("]", 16)
	for _, c := range []struct {
		name, in string
		ok       bool
	}{
		{"object", enc(`{"a":1}`), true},
		{"16 levels", enc(deep), true},
		{"17 levels", enc(`{"a":` + tooDeep + `}`), false},
		{"not an object", enc(`[1]`), false},
		{"byte-order mark", enc("\uFEFF{}"), false},
		{"invalid UTF-8", enc("{\"a\":\"\xff\"}"), false},
		{"lone surrogate", enc(`{"a":"\ud800"}`), false},
		{"infinite number", enc(`{"a":1e400}`), false},
		{"trailing data", enc(`{} {}`), false},
		{"over 8192 bytes", enc(`{"a":"` + strings.Repeat("x", MaxDecoded) + `"}`), false},
	} {
		if _, ok := DecodeObject(c.in); ok != c.ok {
			t.Errorf("%s: %v", c.name, ok)
		}
	}
	if _, ok := DecodeStringMap(enc(`{"a":"b","c":"d"}`)); !ok {
		t.Error("string map")
	}
	if _, ok := DecodeStringMap(enc(`{"a":"b","c":1}`)); ok {
		t.Error("a number in a string map")
	}
}

func TestUnixOf(t *testing.T) {
	for _, s := range []string{
		"2026-09-21T14:14:20Z", "2026-09-21t14:14:20z", "2026-09-21T14:14:20.5Z", "2026-09-21T14:14:20.123456789Z",
		"2026-09-21T16:14:20+02:00", "2026-09-21T12:14:20-02:00", "2024-02-29T00:00:00Z", "2000-02-29T23:59:59Z",
		"0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "1969-12-31T23:59:59Z", "2026-09-21T14:14:20+23:59",
	} {
		got, ok := UnixOf(s)
		want, err := time.Parse(time.RFC3339Nano, strings.ToUpper(s))
		if !ok || err != nil || got != want.Unix() {
			t.Errorf("%s: %d %v, want %d (%v)", s, got, ok, want.Unix(), err)
		}
	}
	if got, _ := UnixOf("2026-09-21T14:14:20Z"); got != 1790000060 {
		t.Fatalf("the vectors' expires: %d", got)
	}
	for _, s := range []string{
		"", "2026-09-21", "2026-09-21 14:14:20Z", "2026-09-21T14:14:20", "2026-09-21T14:14:60Z", "2026-09-21T24:00:00Z",
		"2026-09-21T14:60:00Z", "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-02-29T00:00:00Z",
		"1900-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-09-21T14:14:20.Z", "2026-09-21T14:14:20.1234567890Z",
		"2026-09-21T14:14:20+24:00", "2026-09-21T14:14:20+02:60", "2026-09-21T14:14:20+0200", "+2026-09-21T14:14:20Z",
		"2026-9-21T14:14:20Z", "２０２６-09-21T14:14:20Z", "2026-09-21T14:14:20ZZ", "2026-09-21T14:14:20UTC",
	} {
		if _, ok := UnixOf(s); ok {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestHFromID(t *testing.T) {
	h := atr.Sum([]byte("abc"))
	bare := BareID(h)
	for _, id := range []string{bare, bare + ".0", bare + ".9", bare + ".10", bare + ".31"} {
		if got, err := HFromID(id); err != nil || got != h {
			t.Errorf("%s: %v", id, err)
		}
	}
	for _, id := range []string{
		"", bare + ".", bare + ".32", bare + ".00", bare + ".01", bare + ".-1", bare + ". 1", bare + ".0.0",
		bare[:42], bare + "A", h.String(), strings.Replace(bare, "0", "1", 1)[:42] + "b", // trailing bits
		"." + bare,
	} {
		if _, err := HFromID(id); code(err) != CodeIDNotOurs {
			t.Errorf("%q: %v", id, err)
		}
	}
}

// place builds a placed challenge list for tests.
func place(t *testing.T, h atr.Hash, link string, cs ...*jsonv.Object) []jsonv.Value {
	t.Helper()
	doc := make([]jsonv.Value, len(cs))
	for i, c := range cs {
		doc[i] = c
	}
	for _, c := range cs {
		var err error
		if doc, err = Place(doc, h, link, c, ""); err != nil {
			t.Fatal(err)
		}
	}
	return doc
}

const (
	reqT = `{"amount":"1000000","currency":"0x20c0000000000000000000000000000000000000","methodDetails":{"chainId":42431,"supportedModes":["pull"]},"recipient":"0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00"}`
	link = "https://atr.seller.example/x"
)

func issued(method, intent, request string) *jsonv.Object {
	return jsonv.Obj("realm", "api.seller.example", "method", method, "intent", intent,
		"request", EncodeB64URL([]byte(request)), "expires", "2026-09-21T14:14:20Z")
}

func TestReadRefusals(t *testing.T) {
	h := atr.Sum([]byte("abc"))
	cT := issued("tempo", "charge", reqT)
	placed := place(t, h, link, cT)
	withOpaque := func(m *jsonv.Object) []jsonv.Value {
		c, _ := jsonv.AsObject(jsonv.Clone(placed[0]))
		c.Set("opaque", EncodeObject(m))
		return []jsonv.Value{c}
	}
	lc := LegalContextValue(h)
	for _, c := range []struct {
		name string
		doc  jsonv.Value
		code string
	}{
		{"not a list", jsonv.Obj(), CodeChallengeMalformed},
		{"33 challenges", make([]jsonv.Value, 33), CodeChallengeMalformed},
		{"no challenge", []jsonv.Value{}, CodeNoLegalContext},
		{"an unplaced challenge", []jsonv.Value{cT}, CodeNoLegalContext},
		{"an id of another hash", withOpaque(jsonv.Obj(KeyLegalContext, LegalContextValue(atr.Sum(nil)), KeyLegalContextURL, link)), CodeNoLegalContext},
		{"a legalContext of another form", withOpaque(jsonv.Obj(KeyLegalContext, "sha256:"+h.String(), KeyLegalContextURL, link)), CodeNoLegalContext},
		{"an http link", withOpaque(jsonv.Obj(KeyLegalContext, lc, KeyLegalContextURL, "http://atr.seller.example/x")), CodeLinkNotHTTPS},
		{"no link", withOpaque(jsonv.Obj(KeyLegalContext, lc)), CodeLegalContextMalformed},
		{"an http agreement", withOpaque(jsonv.Obj(KeyLegalContext, lc, KeyLegalContextURL, link, KeyLegalContextAgreement, "http://x.example/")), CodeLinkNotHTTPS},
		{"a malformed agreement", withOpaque(jsonv.Obj(KeyLegalContext, lc, KeyLegalContextURL, link, KeyLegalContextAgreement, "")), CodeLegalContextMalformed},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(c.doc)
			if code(err) != c.code {
				t.Fatalf("got %q, want %s", code(err), c.code)
			}
		})
	}
	// An upper-case legalContext hash reads, and H comes back lowercase; a
	// second challenge with another hash conflicts.
	upper := withOpaque(jsonv.Obj(KeyLegalContext, LegalContextPrefix+"0x"+strings.ToUpper(h.String()[2:]), KeyLegalContextURL, link))
	if r, err := Read(upper); err != nil || r.H != h.String() {
		t.Fatalf("upper case: %+v %v", r, err)
	}
	h2 := atr.Sum([]byte("abd"))
	other := issued("tempo", "charge", reqT)
	other.Set("realm", "api.other.example")
	mixed, _ := Place([]jsonv.Value{cT, other}, h, link, cT, "")
	mixed2, _ := Place(mixed, h2, link, other, "")
	if _, err := Read(mixed2); code(err) != CodeLegalContextConflict {
		t.Fatalf("two hashes: %v", err)
	}
	// A challenge that is not of challenge shape is skipped, not refused.
	if r, err := Read(append([]jsonv.Value{"junk", jsonv.Obj("realm", 1)}, placed...)); err != nil || len(r.Options) != 1 {
		t.Fatalf("junk before: %v", err)
	}
}

func TestCheckChallengeRefusals(t *testing.T) {
	cT := issued("tempo", "charge", reqT)
	with := func(k string, v jsonv.Value) *jsonv.Object {
		c := cT.Clone()
		if v == nil {
			c.Delete(k)
		} else {
			c.Set(k, v)
		}
		return c
	}
	req := func(s string) *jsonv.Object { return with("request", EncodeB64URL([]byte(s))) }
	for _, c := range []struct {
		name   string
		in     jsonv.Value
		placed bool
		code   string
	}{
		{"not an object", "x", true, CodeChallengeMalformed},
		{"a number realm", with("realm", jsonv.Number(1)), true, CodeChallengeMalformed},
		{"no opaque", with("opaque", nil), true, ""},
		{"a null opaque", func() *jsonv.Object { c := cT.Clone(); c.Set("opaque", nil); return c }(), true, CodeChallengeMalformed},
		{"an unserved method", with("method", "carrier-pigeon"), true, CodeNotThisPairing},
		{"no expires", with("expires", nil), true, CodeExpiresRequired},
		{"a bad expires", with("expires", "tomorrow"), true, CodeExpiresRequired},
		{"a request that is not base64url", with("request", "e30="), true, CodeRequestMalformed},
		{"methodDetails not an object", req(`{"amount":"1","currency":"0x20c0000000000000000000000000000000000000","recipient":"0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00","methodDetails":[]}`), true, CodeRequestMalformed},
		{"an opaque that is not a map", with("opaque", EncodeB64URL([]byte(`{"a":{}}`))), true, CodeOpaqueMalformed},
		{"an issued opaque holding an LCP key", with("opaque", EncodeB64URL([]byte(`{"legalContextUrl":"x"}`))), false, CodeCarrierTaken},
		{"a seller memo", req(`{"amount":"1","currency":"0x20c0000000000000000000000000000000000000","recipient":"0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00","methodDetails":{"memo":"0x00"}}`), true, CodeCarrierTaken},
		{"push only with a fee payer", req(`{"amount":"1","currency":"0x20c0000000000000000000000000000000000000","recipient":"0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00","methodDetails":{"supportedModes":["push"],"feePayer":true}}`), true, CodeModesPullOnly},
		{"a chainId of 0", req(`{"amount":"1","currency":"0x20c0000000000000000000000000000000000000","recipient":"0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00","methodDetails":{"chainId":0}}`), true, CodeRequestMalformed},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := CheckChallenge(c.in, c.placed)
			if code(err) != c.code {
				t.Fatalf("got %q, want %q", code(err), c.code)
			}
		})
	}
	sessions := []struct{ name, req, code string }{
		{"a named channel", `{"currency":"0x20c0000000000000000000000000000000000000","recipient":"0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00","methodDetails":{"escrowContract":"0x9d136eEa063eDE5418A6BC7bEafF009bBb6CFa70","channelId":"0x00"}}`, CodeChannelNamed},
		{"a v3 session", `{"currency":"0x20c0000000000000000000000000000000000000","recipient":"0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00","methodDetails":{"escrowContract":"0x9d136eEa063eDE5418A6BC7bEafF009bBb6CFa70","sessionProtocol":"v3"}}`, CodeSessionProtocol},
		{"v2 without chainId", `{"currency":"0x20c0000000000000000000000000000000000000","recipient":"0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00","methodDetails":{"escrowContract":"0x9d136eEa063eDE5418A6BC7bEafF009bBb6CFa70","sessionProtocol":"v2"}}`, CodeChainIDRequired},
		{"a bad escrow", `{"currency":"0x20c0000000000000000000000000000000000000","recipient":"0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00","methodDetails":{"escrowContract":"0x9d"}}`, CodeEscrowMalformed},
		{"a bad operator", `{"currency":"0x20c0000000000000000000000000000000000000","recipient":"0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00","methodDetails":{"escrowContract":"0x9d136eEa063eDE5418A6BC7bEafF009bBb6CFa70","operator":1}}`, CodeRequestMalformed},
	}
	for _, c := range sessions {
		t.Run(c.name, func(t *testing.T) {
			_, err := CheckChallenge(issued("tempo", "session", c.req), true)
			if code(err) != c.code {
				t.Fatalf("got %q, want %s", code(err), c.code)
			}
		})
	}
	_, err := CheckChallenge(issued("tempo", "subscription", `{"methodDetails":{"accessKey":{"accessKeyAddress":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8","keyType":"rsa"}}}`), true)
	if code(err) != CodeAccessKeyMalformed {
		t.Fatal(code(err))
	}
	_, err = CheckChallenge(issued("evm", "charge", `{"amount":"1","currency":"0x20c0000000000000000000000000000000000000","recipient":"0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00","methodDetails":{"chainId":1,"credentialTypes":["authorization"],"splits":[{"recipient":"0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00","amount":"1"}]}}`), true)
	if code(err) != CodeCredentialTypes {
		t.Fatal(code(err))
	}
	_, err = CheckChallenge(issued("evm", "charge", `{"amount":"1","currency":"0x20c0000000000000000000000000000000000000","recipient":"0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00","methodDetails":{"chainId":1,"credentialTypes":["permit2"],"splits":[]}}`), true)
	if code(err) != CodeSplitsMalformed {
		t.Fatal(code(err))
	}
}

func TestChallengeBoundRefusals(t *testing.T) {
	h := atr.Sum([]byte("abc"))
	placed := place(t, h, link, issued("tempo", "charge", reqT))
	c, _ := jsonv.AsObject(placed[0])
	cred := Credential(c, Source(42431, "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"), jsonv.Obj("type", "transaction"))
	edit := func(mut func(ch *jsonv.Object)) *jsonv.Object {
		x := cred.Clone()
		ch, _ := x.GetObject("challenge")
		mut(ch)
		return x
	}
	if b, err := ChallengeBound(cred); err != nil || b.H != h {
		t.Fatalf("bound: %v", err)
	}
	for _, tc := range []struct {
		name string
		in   jsonv.Value
		code string
	}{
		{"no id", edit(func(ch *jsonv.Object) { ch.Delete("id") }), CodeCredentialMalformed},
		{"a number source", func() *jsonv.Object { x := cred.Clone(); x.Set("source", jsonv.Number(1)); return x }(), CodeCredentialMalformed},
		{"an id of no hash", edit(func(ch *jsonv.Object) { ch.Set("id", "pT7yHnKmQ2wErXsZ5vCbNl") }), CodeIDNotOurs},
		{"no opaque", edit(func(ch *jsonv.Object) { ch.Delete("opaque") }), CodeOpaqueNotThisHash},
		{"an opaque of no map", edit(func(ch *jsonv.Object) { ch.Set("opaque", "!") }), CodeOpaqueMalformed},
		{"an opaque naming another hash", edit(func(ch *jsonv.Object) {
			ch.Set("opaque", EncodeObject(jsonv.Obj(KeyLegalContext, LegalContextValue(atr.Sum(nil)))))
		}), CodeOpaqueNotThisHash},
		{"a request that does not decode", edit(func(ch *jsonv.Object) { ch.Set("request", "e30=") }), CodeRequestMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ChallengeBound(tc.in)
			if code(err) != tc.code {
				t.Fatalf("got %q, want %s", code(err), tc.code)
			}
		})
	}
	if _, err := Echoed(cred, PairingEVMAuthorization); code(err) != CodeNotThisPairing {
		t.Fatal(code(err))
	}
	// The budget counts UTF-16 units: 3-byte characters cost one unit each.
	within := cred.Clone()
	p, _ := within.GetObject("payload")
	p.Set("pad", strings.Repeat("€", MaxCredentialUnits-len(jsonv.Marshal(cred))-20))
	if _, err := ChallengeBound(within); err != nil {
		t.Fatalf("within the budget in units: %v", err)
	}
	p.Set("pad", strings.Repeat("€", MaxCredentialUnits))
	if _, err := ChallengeBound(within); code(err) != CodeCredentialMalformed {
		t.Fatal(code(err))
	}
}

func TestCredentialHeader(t *testing.T) {
	h := atr.Sum([]byte("abc"))
	c, _ := jsonv.AsObject(place(t, h, link, issued("tempo", "charge", reqT))[0])
	cred := Credential(c, "did:pkh:eip155:42431:0x0000000000000000000000000000000000000001", jsonv.Obj("type", "transaction", "signature", "0x76"))
	name, value := Header(cred)
	if name != "Authorization" || !strings.HasPrefix(value, "Payment ") {
		t.Fatalf("%s: %s", name, value)
	}
	c.Set("header", "Payment-Authorization")
	if name, _ := Header(Credential(c, "", jsonv.Obj())); name != PaymentAuthorization {
		t.Fatal(name)
	}
	for _, bad := range []string{"", "Payment", "Bearer " + value[8:], "Payment " + value[8:] + "=", "Payment  " + value[8:], "Payment e30"[:10]} {
		if _, err := ParseHeader(bad); code(err) != CodeCredentialMalformed {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if back, err := ParseHeader("payment " + value[8:]); err != nil || jsonv.String(back) != jsonv.String(cred) {
		t.Fatalf("round trip: %v", err)
	}
}

func TestChoose(t *testing.T) {
	h := atr.Sum([]byte("abc"))
	other := issued("tempo", "charge", strings.Replace(reqT, "42431", "4217", 1))
	doc := place(t, h, link, other, issued("tempo", "charge", reqT))
	read, err := Read(doc)
	if err != nil {
		t.Fatal(err)
	}
	c, from, err := Choose(read, "eip155:42431:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", PairingTempoMemo)
	if err != nil || from != "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266" || String(c, "id") != BareID(h)+".1" {
		t.Fatalf("chose %v %s (%v)", c, from, err)
	}
	for _, account := range []string{
		"eip155:1:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",         // no challenge on chain 1
		"solana:mainnet:9hSR6S7WPtxmTojgo6GG3k4yDPecgJY292j7xrsUGWBu", // not eip155
		"eip155:42431:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb9226",      // not an address
		"eip155:42431:%30xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
	} {
		if _, _, err := Choose(read, account, PairingTempoMemo); code(err) != CodeNoPayableOption {
			t.Errorf("%s: %v", account, err)
		}
	}
	if _, _, err := Choose(read, "eip155:42431:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", PairingTempoPush); code(err) != CodeNoPayableOption {
		t.Error("push offered by a pull-only challenge")
	}
	// Inputs: kinds and absence.
	if _, err := Inputs(jsonv.Obj("deposit", "1.0"), Input{Name: "deposit", Kind: "decimal"}); code(err) != CodeInputMissing {
		t.Error("decimal")
	}
	if _, err := Inputs(&jsonv.Object{}, Input{Name: "tokenDomain", Kind: "object"}); code(err) != CodeInputMissing {
		t.Error("missing")
	}
	if got, err := Inputs(jsonv.Obj("x", 1), Input{Name: "clientId", Kind: "string", Optional: true}); err != nil || got.Len() != 0 {
		t.Error("optional")
	}
	var _ rails.Read = read
}
