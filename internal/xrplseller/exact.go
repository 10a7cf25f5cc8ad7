// Package xrplseller is the loopback sellers paid on the XRP Ledger and their
// demo rows. Each checks a payment as a seller must before submitting it: the
// signed blob decodes canonically, is signed by its account's key and
// verifies, and carries the hash of the terms it serves where the pairing
// puts it; none submits anything.
package xrplseller

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"sync"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/terms"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/rails/xrpl"
	"github.com/termsgate/termsgate/rails/xrpl/xrplrpc"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	demo.Register(demo.Row{Pairing: xrpl.ExactID, Aliases: []string{"xrpl"},
		About: "1 XRP: a Payment whose InvoiceID is SHA-256 of lcp:sha256:H; fee, sequence and last ledger from a loopback rippled", Run: demoXRPL})
}

// Exact sells one resource for XRP under x402/exact/xrpl. It checks
// a payment as a seller must before submitting it: the blob decodes
// canonically, is single-signed by its SigningPubKey's account and verifies,
// its hash is the one it will submit, its InvoiceID is the hash of the terms
// it serves, and it pays the asked drops to its address.
type Exact struct {
	terms.Record
	payTo, network, amount string

	mu       sync.Mutex
	rejected error
	paidHash string
}

const apiHost = "api.seller.example"

func (s *Exact) link() string { return "https://atr.seller.example/" + s.Hash().String() }

func (s *Exact) option() *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", s.network, "amount", s.amount, "asset", "XRP", "payTo", s.payTo,
		"maxTimeoutSeconds", 60, "extra", jsonv.Obj("areFeesSponsored", false, "invoiceId", mpp.LegalContextValue(s.Hash())))
}

func (s *Exact) required() *jsonv.Object {
	return jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://"+apiHost+"/v1/report"),
		"accepts", []jsonv.Value{s.option()},
		"extensions", jsonv.Obj("legalContext", jsonv.Obj("info",
			jsonv.Obj("type", "sha256", "value", s.Hash().String(), "legalContextUrl", s.link()), "schema", jsonv.Obj())))
}

func (s *Exact) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.Route(w, r, "atr.seller.example", apiHost, s.resource)
}

func (s *Exact) resource(w http.ResponseWriter, r *http.Request) {
	sig := r.Header.Get("PAYMENT-SIGNATURE")
	if sig == "" {
		w.Header().Set("PAYMENT-REQUIRED", x402.EncodeHeader(s.required()))
		w.WriteHeader(http.StatusPaymentRequired)
		return
	}
	hash, err := s.check(sig)
	s.mu.Lock()
	s.rejected, s.paidHash = err, hash
	s.mu.Unlock()
	if err != nil {
		w.Header().Set("PAYMENT-REQUIRED", x402.EncodeHeader(s.required()))
		w.WriteHeader(http.StatusPaymentRequired)
		return
	}
	w.Header().Set("PAYMENT-RESPONSE", x402.EncodeHeader(jsonv.Obj("success", true, "transaction", hash, "network", s.network)))
	_, _ = w.Write([]byte(`{"report":"XRP/USD 2.41","as_of":"2026-12-01"}`))
}

func (s *Exact) check(header string) (string, error) {
	payment, err := x402.DecodeHeader(header)
	if err != nil {
		return "", err
	}
	if acc, _ := payment.GetObject("accepted"); !x402.OptionInDocument(acc, []jsonv.Value{s.option()}) {
		return "", errors.New("the payment accepts another option")
	}
	h, err := xrpl.Exact{}.Bound(payment)
	if err != nil || h != s.Hash().String() {
		return "", fmt.Errorf("the payment is not bound to the terms served: %v", err)
	}
	blob, _ := jsonv.AsString(demo.Path(payment, "payload", "signedTxBlob"))
	tx, err := verifySigned(blob)
	if err != nil {
		return "", err
	}
	fs := tx.Fields
	j := fs.JSON()
	inv, _ := j.GetString("InvoiceID")
	amount, _ := j.GetString("Amount")
	dest, _ := j.GetString("Destination")
	if inv != xrpl.X402InvoiceID(s.Hash()) || amount != s.amount || dest != s.payTo {
		return "", fmt.Errorf("InvoiceID %s, Amount %s, Destination %s: not what was asked", inv, amount, dest)
	}
	return tx.Hash, nil
}

// verifySigned decodes a presented blob canonically and checks what the
// ledger checks of a single-signed transaction: it is signed by its
// account's master key and the signature verifies.
func verifySigned(blob jsonv.Value) (*xrpl.Tx, error) {
	tx, err := xrpl.DecodePresented(blob)
	if err != nil {
		return nil, err
	}
	fs := tx.Fields
	pub, _ := fs.Get(xrpl.FieldSigningPubKey)
	txSig, _ := fs.Get(xrpl.FieldTxnSignature)
	account, _ := fs.Get(xrpl.FieldAccount)
	if len(pub.Value) != 33 || xrpl.AccountIDOf(pub.Value) != xrpl.AccountID(account.Value) {
		return nil, errors.New("not signed by the account's master key")
	}
	if !xrpl.Verify(pub.Value, xrpl.SigningData(fs), txSig.Value) {
		return nil, errors.New("the signature does not verify")
	}
	return tx, nil
}

// demoXRPL pays an x402 seller in XRP: the gate fetches the terms, checks
// their hash, takes the fee, sequence and last ledger from a rippled
// JSON-RPC endpoint (a loopback stand-in), signs a Payment whose InvoiceID
// binds the terms, and the seller verifies all of it.
func demoXRPL(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	payer, err := signer.XRPLDev("xrpl:1")
	if err != nil {
		return fail(err)
	}
	seller := &Exact{payTo: "rpjfAeE3DeeHPFnN2PgGFW5YxnZFAjrEyN", network: "xrpl:1", amount: "1000000"}
	seller.SetATR(demo.ATR)
	srv, err := loopback.Start(seller)
	if err != nil {
		return fail("cannot start the local seller:", err)
	}
	defer srv.Close()
	ledger := &xrplrpc.Ledger{Current: 90_000_000, BaseFee: 10, OpenFee: 12, Accounts: map[string]uint32{payer.Address(): 7}}
	rippled, err := loopback.Start(ledger, "rippled.example")
	if err != nil {
		return fail("cannot start the local ledger:", err)
	}
	defer rippled.Close()
	inputs := &xrplrpc.Inputs{Client: &xrplrpc.Client{URL: "https://rippled.example/", HTTP: rippled.Client()}, Account: payer.Address()}
	wallet := demo.Count(payer)
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{
		Network: "xrpl:1", Asset: "XRP", MaxAmount: big.NewInt(2_000_000), Budget: big.NewInt(10_000_000), // 2 XRP a payment, 10 in all
	}}})
	if err != nil {
		return fail(err)
	}
	var signed jsonv.Value
	var terms []byte
	transport := &pay.Transport{
		Base: srv.Transport(), Gate: &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}},
		Signer: wallet, Policy: policy, Inputs: inputs.For,
		Hooks: pay.Hooks{
			BeforeSign: func(_ context.Context, _ *http.Request, s pay.Summary) error {
				say("   fetched the terms; SHA-256 matches the advertised H = %s", s.H)
				say("   fee, sequence and last ledger from rippled (fee, account_info, ledger_current): %d calls", ledger.Calls.Load())
				say("   the policy allows it: %s drops of %s on %s from %s to %s, landing by %s (the last ledger's estimated close)",
					s.Amount, s.Asset, s.Network, s.Payer, s.Payee, s.PayableUntil.UTC().Format(time.RFC3339))
				return nil
			},
			AfterSign: func(_ context.Context, _ *http.Request, r *pay.Result) {
				signed, terms = r.Signed, r.ATR
				blob, _ := jsonv.AsString(demo.Path(r.Signed, "payload", "signedTxBlob"))
				tx, _ := xrpl.DecodePresented(blob)
				inv, _ := tx.Fields.JSON().GetString("InvoiceID")
				say("   signed a Payment (%d bytes, hash %s) whose InvoiceID is SHA-256 of lcp:sha256:H: %s", len(tx.Blob), tx.Hash, inv)
				say("3. the same GET again, with PAYMENT-SIGNATURE (%d bytes)", len(r.Header))
			},
		},
	}
	transport.NoATRCache = true // each step fetches and compares, as it prints (the lie in step 4 too)
	client := pay.NewClient(transport)
	url := "https://" + apiHost + "/v1/report"
	say("termsgate demo (x402/exact/xrpl): a seller on %s (TLS, loopback only) sells %s for 1 XRP", srv.Listener.Addr(), url)
	say("payer: %s (the vectors' published XRPL key; never hold value with it)", payer.Account())
	say("")
	say("1. GET %s: 402 with PAYMENT-REQUIRED, the terms' hash and link, and the option's invoiceId", url)
	say("2. the gate fetches the terms, compares SHA-256 of the bytes with H, asks the policy, and only then signs")
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := client.Do(req)
	if err != nil {
		return fail("not paid:", err)
	}
	body := demo.Read(resp)
	seller.mu.Lock()
	rejected, paidHash := seller.rejected, seller.paidHash
	seller.mu.Unlock()
	if resp.StatusCode != http.StatusOK {
		return fail(fmt.Sprintf("the seller refused the payment (%d):", resp.StatusCode), rejected)
	}
	say("   the seller decoded the blob canonically, verified the signature, took its hash %s,", paidHash)
	say("   checked InvoiceID = SHA-256(lcp:sha256:H), 1000000 drops to %s, and answered %d: %s", seller.payTo, resp.StatusCode, body)
	if err := s.KeepPayment(terms, x402.EncodeHeader(seller.required()), signed); err != nil {
		return err
	}
	s.Paid(demo.Amount(seller.amount, 6, "XRP", seller.network))
	say("")
	say("4. the same seller now serves other bytes at the link while its 402 still advertises H")
	seller.Lie(demo.Changed(demo.ATR))
	before := wallet.Calls()
	_, err = client.Get(url)
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.HashMismatch {
		return fail("the changed terms were not declined:", err)
	}
	say("   declined %s: %s", d.Code, d.Detail)
	say("   signer calls for it: %d; nothing was sent", wallet.Calls()-before)
	return nil
}

// NewExact is a seller of one resource for amount drops to payTo on
// network, under the terms atrBytes.
func NewExact(atrBytes []byte, payTo, network, amount string) *Exact {
	s := &Exact{payTo: payTo, network: network, amount: amount}
	s.SetATR(atrBytes)
	return s
}

// ResourceURL is the paid resource's URL.
func (s *Exact) ResourceURL() string { return "https://" + apiHost + "/v1/report" }
