package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/termsgatetest"
)

// startSeller starts termsgatetest's seller (x402, or MPP's Tempo charge)
// and points the step commands' client at it.
func startSeller(t *testing.T, protocol termsgatetest.Protocol) *termsgatetest.Seller {
	t.Helper()
	s, err := termsgatetest.Start(termsgatetest.Config{Protocol: protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	old := stepsClient
	stepsClient = func(bool) atr.Doer { return s.Client() }
	t.Cleanup(func() { stepsClient = old })
	return s
}

// unpaid is the 402's header field name from the seller's answer to an
// unpaid request.
func unpaid(t *testing.T, s *termsgatetest.Seller, name string) string {
	t.Helper()
	resp, err := s.Client().Get(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusPaymentRequired || resp.Header.Get(name) == "" {
		t.Fatalf("%d, no %s", resp.StatusCode, name)
	}
	return resp.Header.Get(name)
}

// sendWith sends the one header line a step printed to the seller.
func sendWith(t *testing.T, s *termsgatetest.Seller, line string) int {
	t.Helper()
	name, value, ok := strings.Cut(strings.TrimSpace(line), ": ")
	if !ok {
		t.Fatalf("%q is no header line", line)
	}
	req, _ := http.NewRequest(http.MethodGet, s.URL, nil)
	req.Header.Set(name, value)
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// MPP in the step commands (issue 21 item 3): read takes the
// WWW-Authenticate value as sent, or the header line, or curl -i's whole
// answer, and picks the pairing from the challenge; confirm names the
// network the challenge pays on; transact --header prints the one
// Authorization line, which the seller accepts.
func TestStepsReadMPPChallenge(t *testing.T) {
	s := startSeller(t, termsgatetest.MPP)
	value := unpaid(t, s, "WWW-Authenticate")
	for name, text := range map[string]string{
		"value":       value,
		"header line": "WWW-Authenticate: " + value,
		"curl -i":     "HTTP/2 402\r\ncontent-type: text/plain\r\nwww-authenticate: " + value + "\r\n\r\n",
	} {
		code, out, errs := runCLI(t, "", "read", writeFile(t, "offer.txt", text))
		if code != exitOK || !strings.Contains(out, `"pairing":"mpp/charge/tempo/memo"`) || !strings.Contains(out, `"atrHash":"`+s.Hash()+`"`) {
			t.Fatalf("%s: exit %d\nstdout %s\nstderr %s", name, code, out, errs)
		}
	}
	code, out, errs := runCLI(t, "", "confirm", "--account", "eip155:84532:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", writeFile(t, "offer.txt", value))
	if code != exitDeclined || !strings.Contains(out, `"no-payable-option"`) ||
		!strings.Contains(errs, "on eip155:42431 (mpp/charge/tempo/memo)") || !strings.Contains(errs, "--account eip155:42431:ADDRESS would match") {
		t.Fatalf("confirm on another network: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	code, out, errs = runCLI(t, "", "transact", "--dev-key", "--network", "eip155:42431", "--max-amount", "1000000", "--header", writeFile(t, "offer.txt", value))
	if code != exitOK || !strings.HasPrefix(out, "Authorization: Payment ") || strings.Count(out, "\n") != 1 {
		t.Fatalf("transact --header: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	if got := sendWith(t, s, out); got != http.StatusOK {
		t.Fatalf("the seller answered %d to the printed header: %v", got, s.LastRejection())
	}
	// A pairing of the other protocol is refused by name, before anything.
	code, _, errs = runCLI(t, "", "read", "--pairing", "x402/exact/eip155/eip3009", writeFile(t, "offer.txt", value))
	if code != exitUsage || !strings.Contains(errs, "reads x402 (PAYMENT-REQUIRED) offers, and this 402 has none") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}

// URLs in the step commands (issue 21 item 4): read, confirm and transact
// make the unpaid request themselves; https only unless --allow-http; a
// resource that answers no 402, and an unreachable one, exit 3 with why.
func TestStepsRequestTheOffer(t *testing.T) {
	s := startSeller(t, termsgatetest.X402)
	code, out, errs := runCLI(t, "", "read", s.URL)
	if code != exitOK || !strings.Contains(out, `"pairing":"x402/exact/eip155/eip3009"`) || !strings.Contains(out, s.Hash()) {
		t.Fatalf("read URL: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	code, out, errs = runCLI(t, "", "confirm", "--account", "eip155:84532:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", s.URL)
	if code != exitOK || !strings.Contains(out, `"request":{`) {
		t.Fatalf("confirm URL: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	code, out, errs = runCLI(t, "", "transact", "--dev-key", "--max-amount", "10000", "--header", s.URL)
	if code != exitOK || !strings.HasPrefix(out, "PAYMENT-SIGNATURE: ") {
		t.Fatalf("transact --header URL: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	if got := sendWith(t, s, out); got != http.StatusOK {
		t.Fatalf("the seller answered %d to the printed header: %v", got, s.LastRejection())
	}
	if c := s.Counts(); c.Unpaid != 3 || c.Paid != 1 {
		t.Fatalf("counts %+v: one unpaid request per command, one payment", c)
	}
	plain := "http" + strings.TrimPrefix(s.URL, "https")
	if code, _, errs := runCLI(t, "", "read", plain); code != exitUsage || !strings.Contains(errs, "--allow-http reads it") {
		t.Fatalf("plain http: exit %d: %s", code, errs)
	}
	noOffer := strings.TrimSuffix(s.URL, "/v1/report") + "/nothing-here"
	if code, _, errs := runCLI(t, "", "read", noOffer); code != exitFailure || !strings.Contains(errs, "not 402 Payment Required: it asks for no payment") {
		t.Fatalf("no 402: exit %d: %s", code, errs)
	}
	stepsClient = func(allowPrivate bool) atr.Doer { return atr.NewClient(allowPrivate) }
	if code, _, errs := runCLI(t, "", "read", s.URL); code != exitFailure || !strings.Contains(errs, "--allow-private allows it") {
		t.Fatalf("a loopback URL without --allow-private: exit %d: %s", code, errs)
	}
}

// finish (issue 20 item 9): a malformed signature is signer-failed with its
// form, not signed-not-bound; a confirmed payment whose window passed is
// said to be stale before its signature is looked at. check (issue 21
// item 5) states the window and exits 1 once it passed, while B7's binding
// result stays: other bytes are signed-not-bound.
func TestFinishAndCheckSayWhatIsWrong(t *testing.T) {
	doc, _, account, b6sig := buyerFixture(t)
	stepsNow = func() time.Time { return time.Unix(1790000000, 0) }
	defer func() { stepsNow = time.Now }()
	code, confirmed, errs := runCLI(t, jsonv.String(doc), "confirm", "--account", account)
	if code != exitOK {
		t.Fatalf("confirm: %d %s", code, errs)
	}
	v, _ := jsonv.Parse([]byte(confirmed))
	in := v.(*jsonv.Object)

	in.Set("signature", "0x1234")
	code, out, errs := runCLI(t, jsonv.String(in), "finish")
	if code != exitDeclined || !strings.Contains(out, `"code":"signer-failed"`) || !strings.Contains(out, gate.DetailSignatureMalformed) ||
		!strings.Contains(errs, `"0x1234" is 2 bytes`) {
		t.Fatalf("finish 0x1234: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}

	in.Set("signature", b6sig)
	code, out, errs = runCLI(t, jsonv.String(in), "finish", "--header")
	if code != exitOK || !strings.HasPrefix(out, "PAYMENT-SIGNATURE: ey") {
		t.Fatalf("finish --header: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	code, finished, errs := runCLI(t, jsonv.String(in), "finish")
	if code != exitOK {
		t.Fatalf("finish: exit %d %s", code, errs)
	}
	code, out, errs = runCLI(t, finished, "check")
	if code != exitOK || !strings.Contains(out, `"payableUntil":"1790000060"`) || !strings.Contains(out, `"payableUntilTime":"2026-09-21T`) || !strings.Contains(out, `"expired":false`) {
		t.Fatalf("check in the window: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}

	stepsNow = func() time.Time { return time.Unix(1790000061, 0) }
	code, out, errs = runCLI(t, finished, "check")
	if code != exitDeclined || !strings.Contains(out, `"expired":true`) || !strings.Contains(out, `"atrHash":"0x8b1e`) ||
		!strings.Contains(errs, "validity window closed at 2026-09-21T") {
		t.Fatalf("check past the window: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	f, _ := jsonv.Parse([]byte(finished))
	other := f.(*jsonv.Object).Clone()
	other.Delete("atrHash")
	other.Set("atr", "YWJj")
	code, out, _ = runCLI(t, jsonv.String(other), "check")
	if code != exitDeclined || !strings.Contains(out, `"signed-not-bound"`) {
		t.Fatalf("check of other bytes past the window: exit %d, %s", code, out)
	}
	code, out, errs = runCLI(t, jsonv.String(in), "finish")
	if code != exitDeclined || !strings.Contains(out, `"code":"signer-failed"`) || !strings.Contains(errs, "standard input is stale: the payment confirm chose was payable until 2026-09-21T") {
		t.Fatalf("finish of a stale confirm: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
}

// -h lists only the flags a command uses.
func TestStepsHelpListsOnlyTheirFlags(t *testing.T) {
	for cmd, c := range map[string]struct{ has, hasNot []string }{
		"read":     {[]string{"-pairing", "-allow-http", "-allow-private", "-ca-file"}, []string{"-max-amount", "-header", "-dev-key", "-account"}},
		"finish":   {[]string{"-pairing", "-header"}, []string{"-allow-private", "-ca-file", "-allow-http", "  -v\t"}},
		"check":    {[]string{"-pairing"}, []string{"-allow-private", "-ca-file", "-header"}},
		"hash":     {[]string{"-allow-private", "-ca-file"}, []string{"-pairing"}},
		"transact": {[]string{"-header", "-allow-http", "-max-amount"}, []string{"-account"}},
	} {
		code, out, _ := runCLI(t, "", cmd, "-h")
		if code != exitOK {
			t.Fatalf("%s -h: exit %d", cmd, code)
		}
		for _, h := range c.has {
			if !strings.Contains(out, "  "+strings.TrimSpace(h)) {
				t.Errorf("%s -h lacks %s", cmd, h)
			}
		}
		for _, h := range c.hasNot {
			if strings.Contains(out, "\n  "+strings.TrimLeft(h, " ")) {
				t.Errorf("%s -h lists %q, which it does not use", cmd, h)
			}
		}
	}
}

// parseOffer reads each form a person may hold a 402's offer in, and says
// what is wrong with the rest; an unreadable header of one protocol does not
// hide the other's offer, as pay then pays the other.
func TestParseOfferForms(t *testing.T) {
	challenge := `Payment id="x", realm="a", method="tempo", intent="charge", request="e30", expires="2030-01-01T00:00:00Z"`
	x402Value := "eyJ4NDAyVmVyc2lvbiI6Mn0=" // {"x402Version":2}
	for text, want := range map[string]string{
		x402Value:                        "x402",
		"PAYMENT-REQUIRED: " + x402Value: "x402",
		challenge:                        "mpp",
		"WWW-Authenticate: " + challenge: "mpp",
		`{"x402Version":2}`:              "x402",
		`[{"id":"x"}]`:                   "mpp",
		"PAYMENT-REQUIRED: !!\n" +
			"WWW-Authenticate: " + challenge: "mpp",
		"PAYMENT-REQUIRED: " + x402Value + "\nWWW-Authenticate: " + challenge: "x402 mpp",
		"":                                   "error: empty",
		"not an offer at all!":               "error: PAYMENT-REQUIRED",
		"content-type: text/plain":           "error: no offer in it",
		"WWW-Authenticate: Payment id=\"x\"": "error: WWW-Authenticate: refused: mpp/challenge-malformed",
	} {
		d, err := parseOffer([]byte(text))
		got := ""
		switch {
		case err != nil:
			got = "error: " + err.Error()
		default:
			if d.x402 != nil {
				got = "x402"
			}
			if len(d.mpp) > 0 {
				got = strings.TrimSpace(got + " mpp")
			}
		}
		if !strings.HasPrefix(got, want) {
			t.Errorf("%q: %s, want %s", text, got, want)
		}
	}
}
