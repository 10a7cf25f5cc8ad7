package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/vectors"
)

func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// buyerFixture serves buyer.json's A on loopback and points the commands'
// client at it.
func buyerFixture(t *testing.T) (doc *jsonv.Object, a []byte, account, b6sig string) {
	t.Helper()
	f, err := vectors.Load("buyer.json")
	if err != nil {
		t.Fatal(err)
	}
	fixed, _ := f.GetObject("fixed")
	aHex, _ := fixed.GetString("A")
	a, _ = hex.DecodeString(aHex)
	doc, _ = fixed.GetObject("D")
	account, _ = fixed.GetString("account")
	rows, _ := f.Get("rows")
	for _, r := range rows.([]jsonv.Value) {
		o := r.(*jsonv.Object)
		if n, _ := o.GetString("name"); n == "B6" {
			e, _ := o.GetObject("expect")
			b6sig, _ = e.GetString("signature")
		}
	}
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(a) }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	old := stepsClient
	stepsClient = func(bool) atr.Doer { return srv.Client() }
	t.Cleanup(func() { stepsClient = old })
	return doc, a, account, b6sig
}

func TestConfirmSignElsewhereFinishCheck(t *testing.T) {
	doc, _, account, _ := buyerFixture(t)
	code, out, errs := runCLI(t, x402.EncodeHeader(doc), "confirm", "--account", account)
	if code != exitOK {
		t.Fatalf("confirm exit %d: %s", code, errs)
	}
	v, err := jsonv.Parse([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	confirmed := v.(*jsonv.Object)
	// Sign elsewhere: here, the local key on the printed request.
	req, _ := confirmed.GetObject("request")
	l, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	sig, err := l.Sign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	in := confirmed.Clone()
	in.Set("signature", sig)
	code, out, errs = runCLI(t, jsonv.String(in), "finish")
	if code != exitOK {
		t.Fatalf("finish exit %d: %s", code, errs)
	}
	fin, _ := jsonv.Parse([]byte(out))
	h, _ := fin.(*jsonv.Object).GetString("atrHash")
	if h != "0x8b1e122580ae3f6a8c3d36a24294e1260a87bde70f597279b973e39310072938" {
		t.Fatalf("atrHash %s", h)
	}
	// check with the same bytes passes; with one byte changed it declines.
	chk := fin.(*jsonv.Object).Clone()
	atrv, _ := confirmed.Get("atr")
	chk.Set("atr", atrv)
	if code, _, errs := runCLI(t, jsonv.String(chk), "check"); code != exitOK {
		t.Fatalf("check exit %d: %s", code, errs)
	}
	chk.Delete("atrHash")
	chk.Set("atr", "YWJj") // "abc"
	code, out, _ = runCLI(t, jsonv.String(chk), "check")
	if code != exitDeclined || !strings.Contains(out, `"signed-not-bound"`) {
		t.Fatalf("check of other bytes: exit %d, %s", code, out)
	}
}

func TestTransactWithTheDevKeyReproducesB6(t *testing.T) {
	doc, _, _, b6sig := buyerFixture(t)
	stepsNow = func() time.Time { return time.Unix(1790000000, 0) }
	defer func() { stepsNow = time.Now }()
	code, out, errs := runCLI(t, jsonv.String(doc), "transact", "--dev-key", "--max-amount", "10000")
	if code != exitOK || !strings.Contains(out, b6sig) {
		t.Fatalf("exit %d, out %s, err %s", code, out, errs)
	}
	if !strings.Contains(errs, "WARNING") {
		t.Fatal("no warning for the published development key")
	}
}

func TestBadInputIsNamed(t *testing.T) {
	doc, _, account, _ := buyerFixture(t)
	cases := []struct {
		stdin string
		args  []string
		want  string
		code  int
	}{
		{jsonv.String(doc), []string{"confirm"}, "--account is required", exitUsage},
		{`{"atr":"YWJj","chosen":{},"signature":"0x","maxAmount":"1"}`, []string{"finish"}, `unknown member "maxAmount"`, exitUsage},
		{`{"atr":"not base64!","chosen":{},"signature":"0x"}`, []string{"finish"}, `"atr" is not standard padded base64`, exitUsage},
		{`not json and not base64 either`, []string{"read"}, "not standard base64", exitUsage},
		{jsonv.String(doc), []string{"confirm", "--account", account, "--inputs", `"x"`}, `invalid value "\"x\"" for flag -inputs: not a JSON object`, exitUsage},
		{jsonv.String(doc), []string{"confirm", "--account", "eip155:1:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"}, `"no-payable-option"`, exitDeclined},
		{jsonv.String(doc), []string{"transact"}, "no signer", exitUsage},
		{"", []string{"nope"}, "unknown command", exitUsage},
	}
	for _, c := range cases {
		code, out, errs := runCLI(t, c.stdin, c.args...)
		if code != c.code || !strings.Contains(out+errs, c.want) {
			t.Errorf("%v: exit %d, want %d with %q; got out %q err %q", c.args, code, c.code, c.want, out, errs)
		}
	}
}

func TestReadAndHash(t *testing.T) {
	doc, a, _, _ := buyerFixture(t)
	code, out, _ := runCLI(t, jsonv.String(doc), "read")
	if code != exitOK || !strings.Contains(out, `"atrHash":"0x8b1e1225`) || !strings.Contains(out, `"publicProof":true`) {
		t.Fatalf("read: %d %s", code, out)
	}
	p := filepath.Join(t.TempDir(), "atr.json")
	if err := os.WriteFile(p, a, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI(t, "", "hash", p)
	if code != exitOK || !strings.HasPrefix(out, "0x8b1e122580ae3f6a8c3d36a24294e1260a87bde70f597279b973e39310072938  138 bytes") {
		t.Fatalf("hash file: %d %s", code, out)
	}
	code, out, _ = runCLI(t, "", "hash", "https://atr.seller.example/x")
	if code != exitOK || !strings.HasPrefix(out, atr.Sum(a).String()) {
		t.Fatalf("hash link: %d %s", code, out)
	}
	if code, _, errs := runCLI(t, "", "hash", "http://atr.seller.example/x"); code != exitUsage || !strings.Contains(errs, "not an https link") {
		t.Fatalf("hash http: %d %s", code, errs)
	}
}

func TestDemoPaysEndToEnd(t *testing.T) {
	code, out, errs := runCLI(t, "", "demo")
	if code != exitOK {
		t.Fatalf("demo exit %d: %s", code, errs)
	}
	for _, want := range []string{"answers 402", "SHA-256 matches", "answered 200", "declined hash-mismatch", "signer calls for it: 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

func TestDemoMPPTempoPaysEndToEnd(t *testing.T) {
	code, out, errs := runCLI(t, "", "demo", "--rail", "mpp-tempo")
	if code != exitOK {
		t.Fatalf("demo exit %d: %s", code, errs)
	}
	for _, want := range []string{"WWW-Authenticate: Payment", "matches", "answered 200", "declined hash-mismatch", "signer calls for it: 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
	if code, _, errs := runCLI(t, "", "demo", "--rail", "nope"); code != exitUsage || !strings.Contains(errs, "unknown rail") {
		t.Fatalf("unknown rail: %d %s", code, errs)
	}
}
