package main

import (
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"

	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/mppseller"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
)

// paySeller serves an x402 seller of buyer.json's A on loopback TLS, points
// the pay command's client at it, and records what the resource received.
type paySeller struct {
	*x402seller.Seller
	mu     sync.Mutex
	bodies []string
	sigs   int
}

func newPaySeller(t *testing.T) *paySeller {
	t.Helper()
	a, _ := hex.DecodeString("7b2261747256657273696f6e223a2231222c226964223a2230663866616435622d643963622d343639662d613136352d373038363737323839353065222c2278343032223a7b227a223a312e302c2261223a226361665c7530306539227d2c2273656c6c6572223a7b226e6f7465223a22436166c3a920e280942033302064c3ad617320e29c93227d7d")
	s := &paySeller{Seller: x402seller.New(a, []byte(`{"report":"paid"}`))}
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Host == s.APIHost {
			b, _ := io.ReadAll(r.Body)
			s.mu.Lock()
			s.bodies = append(s.bodies, r.Method+" "+string(b))
			if r.Header.Get("PAYMENT-SIGNATURE") != "" {
				s.sigs++
			}
			s.mu.Unlock()
			r.Body = io.NopCloser(strings.NewReader(string(b)))
		}
		s.ServeHTTP(w, r)
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	old := payClient
	payClient = func(bool) *http.Client { return srv.Client() }
	t.Cleanup(func() { payClient = old })
	return s
}

func (s *paySeller) signatures() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sigs
}

func (s *paySeller) received() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.bodies, "|")
}

func TestPayWithTheDevKey(t *testing.T) {
	s := newPaySeller(t)
	code, out, errs := runCLI(t, "", "pay", "--dev-key", "--max-amount", "10000", s.ResourceURL())
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if out != `{"report":"paid"}` {
		t.Fatalf("stdout %q", out)
	}
	t.Logf("stderr:\n%s", errs)
	for _, want := range []string{
		"WARNING: signing with the PUBLISHED Anvil development key",
		"signed 10000 atomic units of USDC 0x036CbD53842c5426634e7929541eC2318f3dCF7e on eip155:84532 from 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 to 0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
		"terms 0x8b1e122580ae3f6a8c3d36a24294e1260a87bde70f597279b973e39310072938",
		"the seller reports it settled",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if s.Paid.Load() != 1 || s.ATRFetches.Load() != 1 {
		t.Fatalf("paid %d, fetched %d", s.Paid.Load(), s.ATRFetches.Load())
	}
}

func TestPayPostReplaysTheBody(t *testing.T) {
	s := newPaySeller(t)
	code, _, errs := runCLI(t, "", "pay", "--dev-key", "--max-amount", "10000", "-d", `{"q":1}`, "-H", "Content-Type: application/json", s.ResourceURL())
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if got := s.received(); got != `POST {"q":1}|POST {"q":1}` {
		t.Fatalf("seller received %s", got)
	}
}

func TestPayDryRunSignsNothing(t *testing.T) {
	s := newPaySeller(t)
	// Flags after the URL are read too.
	code, out, errs := runCLI(t, "", "pay", s.ResourceURL(), "--dev-key", "--dry-run")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if out != "" || !strings.Contains(errs, "dry run: https://api.seller.example asks for a signature granting 10000 atomic units of USDC") ||
		!strings.Contains(errs, "nothing signed") {
		t.Fatalf("stdout %q stderr %s", out, errs)
	}
	if s.signatures() != 0 || s.Paid.Load()+s.Rejected.Load() != 0 {
		t.Fatal("a payment was sent")
	}
}

func TestPayDeclinesAboveTheMaximum(t *testing.T) {
	s := newPaySeller(t)
	code, out, errs := runCLI(t, "", "pay", "--dev-key", "--max-amount", "9999", s.ResourceURL())
	if code != exitDeclined {
		t.Fatalf("exit %d: %s", code, errs)
	}
	v, err := jsonv.Parse([]byte(out))
	if err != nil {
		t.Fatalf("stdout %q: %v", out, err)
	}
	d, _ := v.(*jsonv.Object).GetObject("decline")
	if c, _ := d.GetString("code"); c != "no-payable-option" {
		t.Fatalf("decline %s", out)
	}
	if detail, _ := d.GetString("detail"); detail != "policy/amount-above-maximum: 10000 of eip155:84532 0x036CbD53842c5426634e7929541eC2318f3dCF7e (at most 9999)" {
		t.Fatalf("decline %s", out)
	}
	if s.signatures() != 0 {
		t.Fatal("a payment was sent")
	}
}

func TestPayWithAKeystoreFile(t *testing.T) {
	s := newPaySeller(t)
	priv, _ := crypto.GenerateKey()
	key := &keystore.Key{Id: uuid.New(), Address: crypto.PubkeyToAddress(priv.PublicKey), PrivateKey: priv}
	blob, err := keystore.EncryptKey(key, "correct horse", keystore.LightScryptN, keystore.LightScryptP)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key.json")
	passFile := filepath.Join(dir, "pass")
	os.WriteFile(keyFile, blob, 0o600)
	os.WriteFile(passFile, []byte("correct horse\n"), 0o600)

	t.Setenv("TERMSGATE_PASSPHRASE", "wrong")
	code, _, errs := runCLI(t, "", "pay", "--key-file", keyFile, "--max-amount", "10000", s.ResourceURL())
	if code != exitUsage || !strings.Contains(errs, "the passphrase does not open this key file") {
		t.Fatalf("wrong passphrase: exit %d: %s", code, errs)
	}
	if s.Unpaid.Load() != 0 {
		t.Fatal("requested before the key opened")
	}

	code, out, errs := runCLI(t, "", "pay", "--key-file", keyFile, "--passphrase-file", passFile, "--max-amount", "10000", s.ResourceURL())
	if code != exitOK || out != `{"report":"paid"}` || !strings.Contains(errs, "from "+key.Address.Hex()) {
		t.Fatalf("exit %d stdout %q: %s", code, out, errs)
	}
	if strings.Contains(errs, "WARNING") {
		t.Fatalf("warned for a real key: %s", errs)
	}
}

func TestPaySellerRefusesThePayment(t *testing.T) {
	s := newPaySeller(t)
	s.Now = func() time.Time { return time.Now().Add(24 * time.Hour) } // every authorization has expired for it
	code, _, errs := runCLI(t, "", "pay", "--dev-key", "--max-amount", "10000", s.ResourceURL())
	if code != exitFailure || !strings.Contains(errs, "refused the payment") || s.signatures() != 1 {
		t.Fatalf("exit %d, %d signatures: %s", code, s.signatures(), errs)
	}
}

func TestPayUsage(t *testing.T) {
	for _, args := range [][]string{
		{"pay", "--dev-key", "https://api.seller.example/v1/report"},                              // no --max-amount
		{"pay", "--dev-key", "--max-amount", "10000"},                                             // no URL
		{"pay", "--dev-key", "--max-amount", "0x10", "https://api.seller.example/v1/report"},      // not decimal
		{"pay", "--dev-key", "--max-amount", "1", "ftp://api.seller.example/"},                    // not http(s)
		{"pay", "--max-amount", "1", "https://api.seller.example/v1/report"},                      // no signer
		{"pay", "--dev-key", "--max-amount", "1", "https://a.example/", "https://b.example/"},     // two URLs
		{"pay", "--dev-key", "--max-amount", "1", "-H", "nocolon", "https://api.seller.example/"}, // bad header
	} {
		if code, _, errs := runCLI(t, "", args...); code != exitUsage {
			t.Errorf("%q: exit %d: %s", args, code, errs)
		}
	}
	if code, out, errs := runCLI(t, "", "help", "pay"); code != exitOK || !strings.Contains(out, "-max-amount") || errs != "" {
		t.Fatalf("help: %d %s %s", code, out, errs)
	}
}

// mppPaySeller serves the MPP loopback seller (a Tempo pull charge of 1
// pathUSD on Tempo Moderato, eip155:42431) and points the pay command's
// client at it, counting the credentials its resource received.
type mppPaySeller struct {
	*mppseller.Seller
	mu    sync.Mutex
	creds int
}

func newMPPPaySeller(t *testing.T) *mppPaySeller {
	t.Helper()
	s := &mppPaySeller{Seller: mppseller.New([]byte(`{"terms":"1 pathUSD per report"}`), []byte(`{"report":"paid by mpp"}`))}
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Host == s.APIHost && r.Header.Get("Authorization") != "" {
			s.mu.Lock()
			s.creds++
			s.mu.Unlock()
		}
		s.ServeHTTP(w, r)
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	old := payClient
	payClient = func(bool) *http.Client { return srv.Client() }
	t.Cleanup(func() { payClient = old })
	return s
}

func (s *mppPaySeller) credentials() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.creds
}

const tempoModerato = "eip155:42431"

func TestPayAnMPPSeller(t *testing.T) {
	s := newMPPPaySeller(t)
	if got := "eip155:" + strconv.Itoa(mpp.TempoChargeDefaultChain); got != tempoModerato {
		t.Fatalf("the Tempo charge chain is %s", got)
	}
	code, out, errs := runCLI(t, "", "pay", "--dev-key", "--network", tempoModerato, "--max-amount", "1000000", s.ResourceURL())
	if code != exitOK {
		t.Fatalf("exit %d: %s (seller: %v)", code, errs, s.LastRejection())
	}
	if out != `{"report":"paid by mpp"}` {
		t.Fatalf("stdout %q", out)
	}
	t.Logf("stderr:\n%s", errs)
	for _, want := range []string{
		"signed 1000000 atomic units of token 0x20c0000000000000000000000000000000000000 on eip155:42431 from 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 to " +
			common.HexToAddress(s.Recipient).Hex(),
		"terms " + s.Hash().String() + " (mpp/charge/tempo/memo)",
		"the seller reports it settled: transaction 0x",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if s.Paid.Load() != 1 || s.ATRFetches.Load() != 1 || s.credentials() != 1 || s.Payer() != "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266" {
		t.Fatalf("paid %d, fetched %d, %d credentials, payer %s", s.Paid.Load(), s.ATRFetches.Load(), s.credentials(), s.Payer())
	}
}

func TestPayMPPDeclines(t *testing.T) {
	t.Run("above the maximum", func(t *testing.T) {
		s := newMPPPaySeller(t)
		code, out, errs := runCLI(t, "", "pay", "--dev-key", "--network", tempoModerato, "--max-amount", "999999", s.ResourceURL())
		if code != exitDeclined || !strings.Contains(out, `"policy/amount-above-maximum: 1000000 of eip155:42431 0x20c0000000000000000000000000000000000000 (at most 999999)"`) || s.credentials() != 0 {
			t.Fatalf("exit %d stdout %s: %s", code, out, errs)
		}
	})
	t.Run("the default network has no challenge", func(t *testing.T) {
		s := newMPPPaySeller(t)
		code, out, errs := runCLI(t, "", "pay", "--dev-key", "--max-amount", "1000000", s.ResourceURL())
		if code != exitDeclined || !strings.Contains(out, `"mpp/no-payable-option"`) || s.ATRFetches.Load() != 0 {
			t.Fatalf("exit %d stdout %s: %s", code, out, errs)
		}
	})
	t.Run("a lying seller", func(t *testing.T) {
		s := newMPPPaySeller(t)
		s.Lie([]byte(`{"terms":"other"}`))
		code, out, errs := runCLI(t, "", "pay", "--dev-key", "--network", tempoModerato, "--max-amount", "1000000", s.ResourceURL())
		if code != exitDeclined || !strings.Contains(out, `"hash-mismatch"`) || s.credentials() != 0 {
			t.Fatalf("exit %d stdout %s: %s", code, out, errs)
		}
	})
	t.Run("dry run", func(t *testing.T) {
		s := newMPPPaySeller(t)
		code, out, errs := runCLI(t, "", "pay", "--dev-key", "--network", tempoModerato, "--dry-run", s.ResourceURL())
		if code != exitOK || out != "" || !strings.Contains(errs, "granting 1000000 atomic units of token 0x20c0") || s.credentials() != 0 {
			t.Fatalf("exit %d stdout %q: %s", code, out, errs)
		}
	})
}
