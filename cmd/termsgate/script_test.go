package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/signer"
)

// TestScripts runs testdata/script/*.txtar: each command's output and exit
// code, good and bad, as a person at a shell sees them. Setup writes the
// vectors' fixtures into each script's directory, so that the scripts need
// no network: a.atr (buyer.json's A), c.atr (its changed twin C), doc.json
// (the seller's document D, advertising A's hash), finish.json (confirm's
// output for D with B6's signature added), other.json (finish's payment with C
// in place of A), wallet.json (a key file under
// the passphrase in pass) and $AHASH.
//
// "exits N command args..." runs a command and fails unless it exits N;
// "waitfile FILE" waits for a background command to write FILE;
// "waitseller FILE" waits for termsgate seller --url-file FILE and sets
// $URL to the URL it wrote, $ORIGIN to its https://HOST:PORT and
// $HOSTPORT to its HOST:PORT. Sellers
// listen on port 0 (--addr 127.0.0.1:0), never a fixed port: two runs on
// one machine must not collide (TestNoFixedListenPorts).
func TestScripts(t *testing.T) {
	doc, a, account, b6sig := buyerFixture(t)
	stepsNow = func() time.Time { return time.Unix(1790000000, 0) }
	// Cleanup, not defer: testscript runs the scripts as parallel subtests,
	// which run after this function returns.
	t.Cleanup(func() { stepsNow = time.Now })
	code, confirmed, errs := runCLI(t, jsonv.String(doc), "confirm", "--account", account)
	if code != exitOK {
		t.Fatalf("confirm: %d %s", code, errs)
	}
	c, err := jsonv.Parse([]byte(confirmed))
	if err != nil {
		t.Fatal(err)
	}
	fin := c.(*jsonv.Object)
	fin.Set("signature", b6sig)
	changed := append([]byte(nil), a...)
	changed[124] = 0x31 // buyer.json's C: byte 124 changed from 0x30 to 0x31
	code, finished, errs := runCLI(t, jsonv.String(fin), "finish")
	if code != exitOK {
		t.Fatalf("finish: %d %s", code, errs)
	}
	f, err := jsonv.Parse([]byte(finished))
	if err != nil {
		t.Fatal(err)
	}
	signed, _ := f.(*jsonv.Object).Get("signed")
	other := jsonv.Obj("atr", base64.StdEncoding.EncodeToString(changed), "presented", signed)
	key, _ := crypto.GenerateKey()
	wallet, err := signer.EncryptKeystore(key, "correct horse battery", 1<<12)
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(e *testscript.Env) error {
			e.Setenv(scriptNowEnv, "1790000000")
			files := map[string][]byte{
				"a.atr":       a,
				"c.atr":       changed,
				"doc.json":    []byte(jsonv.String(doc)),
				"finish.json": []byte(jsonv.String(fin)),
				"other.json":  []byte(jsonv.String(other)),
				"wallet.json": wallet,
				"pass":        []byte("correct horse battery\n"),
			}
			for name, b := range files {
				if err := os.WriteFile(filepath.Join(e.WorkDir, name), b, 0o600); err != nil {
					return err
				}
			}
			e.Setenv(stateEnv, stateMemory) // no script writes a state file
			e.Setenv("AHASH", atr.Sum(a).String())
			e.Setenv("ADDRESS", crypto.PubkeyToAddress(key.PublicKey).Hex())
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// "waitfile FILE" waits up to 20 s for a background command to
			// write FILE.
			"waitfile": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: waitfile FILE")
				}
				for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
					if _, err := os.Stat(ts.MkAbs(args[0])); err == nil {
						return
					}
				}
				ts.Fatalf("%s did not appear", args[0])
			},
			"waitseller": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: waitseller URLFILE")
				}
				for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
					b, err := os.ReadFile(ts.MkAbs(args[0]))
					if err != nil {
						continue
					}
					u, err := url.Parse(strings.TrimSpace(string(b)))
					if err != nil || u.Scheme != "https" || u.Host == "" {
						ts.Fatalf("%s holds %q, not the seller's URL", args[0], b)
					}
					ts.Setenv("URL", u.String())
					ts.Setenv("ORIGIN", u.Scheme+"://"+u.Host)
					ts.Setenv("HOSTPORT", u.Host)
					return
				}
				ts.Fatalf("%s did not appear", args[0])
			},
			// "get402 URL CAFILE FILE" requests URL trusting CAFILE and writes
			// the 402's PAYMENT-REQUIRED header to FILE, as curl does in the
			// README's walk-through.
			"get402": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 3 {
					ts.Fatalf("usage: get402 URL CAFILE FILE")
				}
				pem, err := os.ReadFile(ts.MkAbs(args[1]))
				ts.Check(err)
				pool := x509.NewCertPool()
				if !pool.AppendCertsFromPEM(pem) {
					ts.Fatalf("%s holds no certificate", args[1])
				}
				c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
				resp, err := c.Get(args[0])
				ts.Check(err)
				resp.Body.Close()
				if resp.StatusCode != http.StatusPaymentRequired {
					ts.Fatalf("%s answered %d, not 402", args[0], resp.StatusCode)
				}
				ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(resp.Header.Get("PAYMENT-REQUIRED")+"\n"), 0o600))
			},
			"exits": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exits CODE command [args...]")
				}
				want, err := strconv.Atoi(args[0])
				if err != nil {
					ts.Fatalf("exits: %q is not a code", args[0])
				}
				got := 0
				if err := ts.Exec(args[1], args[2:]...); err != nil {
					var ee *exec.ExitError
					if !errors.As(err, &ee) {
						ts.Fatalf("exits: %v", err)
					}
					got = ee.ExitCode()
				}
				if got != want {
					ts.Fatalf("exit code %d, want %d", got, want)
				}
			},
		},
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
	})
}
