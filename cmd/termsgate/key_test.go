package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/signer"
)

func lightKeys(t *testing.T) {
	old := keyScryptN
	keyScryptN = 1 << 12
	t.Cleanup(func() { keyScryptN = old })
}

// TestKeyNewThenPay: key new writes a key file that key address reads and
// transact opens with the same passphrase; the address printed is the one
// that signs.
func TestKeyNewThenPay(t *testing.T) {
	lightKeys(t)
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "wallet.json")
	passFile := filepath.Join(dir, "pass")
	os.WriteFile(passFile, []byte("correct horse battery\n"), 0o600)

	code, addr, errs := runCLI(t, "", "key", "new", "--out", keyFile, "--passphrase-file", passFile)
	addr = strings.TrimSpace(addr)
	if code != exitOK || len(addr) != 42 || !strings.Contains(errs, "wrote "+keyFile) {
		t.Fatalf("key new: exit %d, out %q, err %s", code, addr, errs)
	}
	if fi, err := os.Stat(keyFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file %v %v", fi, err)
	}
	code, out, errs := runCLI(t, "", "key", "address", keyFile)
	if code != exitOK || strings.TrimSpace(out) != addr {
		t.Fatalf("key address: exit %d, %q, %s", code, out, errs)
	}
	// Never overwritten.
	if code, _, errs := runCLI(t, "", "key", "new", "--out", keyFile, "--passphrase-file", passFile); code != exitUsage || !strings.Contains(errs, "exists") {
		t.Fatalf("overwrite: exit %d, %s", code, errs)
	}

	doc, _, _, _ := buyerFixture(t)
	code, out, errs = runCLI(t, jsonv.String(doc), "transact", "--max-amount", "10000", "--key-file", keyFile, "--passphrase-file", passFile)
	if code != exitOK || !strings.Contains(out, strings.ToLower(addr)) && !strings.Contains(out, addr) {
		t.Fatalf("transact: exit %d, %s, %s", code, out, errs)
	}
}

// TestKeyFileWithoutPassphraseSaysSo: no --passphrase-file, no
// $TERMSGATE_PASSPHRASE, not a terminal: the message says the passphrase is
// missing, not that it was wrong; nothing is fetched.
func TestKeyFileWithoutPassphraseSaysSo(t *testing.T) {
	lightKeys(t)
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "wallet.json")
	passFile := filepath.Join(dir, "pass")
	os.WriteFile(passFile, []byte("p4ss"), 0o600)
	if code, _, errs := runCLI(t, "", "key", "new", "--out", keyFile, "--passphrase-file", passFile); code != exitOK {
		t.Fatal(errs)
	}
	t.Setenv("TERMSGATE_PASSPHRASE", "")
	os.Unsetenv("TERMSGATE_PASSPHRASE") // unset, not empty; t.Setenv restores it
	doc, _, _, _ := buyerFixture(t)
	code, _, errs := runCLI(t, jsonv.String(doc), "transact", "--max-amount", "10000", "--key-file", keyFile)
	if code != exitUsage || !strings.Contains(errs, "no passphrase was given") || strings.Contains(errs, "does not open") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// key new off a terminal without a file says so too.
	if code, _, errs := runCLI(t, "", "key", "new", "--out", filepath.Join(dir, "other.json")); code != exitUsage || !strings.Contains(errs, "no passphrase") {
		t.Fatalf("key new: exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, "", "key", "address", passFile); code != exitUsage || !strings.Contains(errs, "not a key file") {
		t.Fatalf("key address of a non-key: exit %d: %s", code, errs)
	}
}

// miniClef answers account_list with the development key's address and
// account_signTypedData by signing with it, as Clef's JSON-RPC API does.
func miniClef(t *testing.T) (*httptest.Server, *atomic.Int64) {
	l, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		t.Fatal(err)
	}
	var signs atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage   `json:"id"`
			Method string            `json:"method"`
			Params []json.RawMessage `json:"params"`
		}
		_ = json.Unmarshal(body, &req)
		out := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		switch req.Method {
		case "account_list":
			out["result"] = []string{l.Address().Hex()}
		case "account_signTypedData":
			signs.Add(1)
			td, err := jsonv.Parse(req.Params[1])
			if err != nil {
				t.Error(err)
				return
			}
			sig, err := l.Sign(context.Background(), jsonv.Obj("kind", "eip712", "typedData", td))
			if err != nil {
				t.Error(err)
				return
			}
			out["result"] = sig
		default:
			out["error"] = map[string]any{"code": -32601, "message": "no such method"}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv, &signs
}

// TestTransactWithClef: --clef signs through Clef's API, taking the account
// Clef holds; the result is B6's signature exactly.
func TestTransactWithClef(t *testing.T) {
	clef, signs := miniClef(t)
	doc, _, _, b6sig := buyerFixture(t)
	stepsNow = func() time.Time { return time.Unix(1790000000, 0) }
	defer func() { stepsNow = time.Now }()
	code, out, errs := runCLI(t, jsonv.String(doc), "transact", "--max-amount", "10000", "--clef", clef.URL)
	if code != exitOK || !strings.Contains(out, b6sig) || signs.Load() != 1 {
		t.Fatalf("exit %d, %d signs, out %s, err %s", code, signs.Load(), out, errs)
	}
	if code, _, errs := runCLI(t, jsonv.String(doc), "transact", "--max-amount", "10000", "--clef", clef.URL, "--dev-key"); code != exitUsage || !strings.Contains(errs, "give one of") {
		t.Fatalf("two signers: exit %d, %s", code, errs)
	}
}

// TestKeyNewTakesPassphraseEnv: key new takes $TERMSGATE_PASSPHRASE when no
// --passphrase-file is given, as the commands that open a key file do: the
// file it writes opens under that passphrase (transact signs with it), and an
// empty one is refused.
func TestKeyNewTakesPassphraseEnv(t *testing.T) {
	lightKeys(t)
	keyFile := filepath.Join(t.TempDir(), "wallet.json")
	t.Setenv(passphraseEnv, "from the environment")
	code, addr, errs := runCLI(t, "", "key", "new", "--out", keyFile)
	addr = strings.TrimSpace(addr)
	if code != exitOK || len(addr) != 42 {
		t.Fatalf("key new: exit %d, out %q, err %s", code, addr, errs)
	}
	doc, _, _, _ := buyerFixture(t)
	code, out, errs := runCLI(t, jsonv.String(doc), "transact", "--max-amount", "10000", "--key-file", keyFile)
	if code != exitOK || !strings.Contains(strings.ToLower(out), strings.ToLower(addr)) {
		t.Fatalf("transact under the environment's passphrase: exit %d, %s, %s", code, out, errs)
	}
	t.Setenv(passphraseEnv, "another one")
	if code, _, errs := runCLI(t, jsonv.String(doc), "transact", "--max-amount", "10000", "--key-file", keyFile); code == exitOK {
		t.Fatalf("transact under another passphrase: exit %d, %s", code, errs)
	}
	t.Setenv(passphraseEnv, "")
	if code, _, errs := runCLI(t, "", "key", "new", "--out", filepath.Join(t.TempDir(), "empty.json")); code != exitUsage || !strings.Contains(errs, "the passphrase is empty") {
		t.Fatalf("empty passphrase: exit %d, %s", code, errs)
	}
}
