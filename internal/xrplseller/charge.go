package xrplseller

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/terms"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/xrpl"
	"github.com/termsgate/termsgate/rails/xrpl/xrplrpc"
	"github.com/termsgate/termsgate/signer"
)

// Charge is an MPP seller paid in XRP (mpp/charge/xrpl): its 402 is a
// WWW-Authenticate: Payment charge challenge whose
// request.methodDetails.invoiceId is H's 64 hex digits, and it accepts a
// credential only after checking what it would submit: the blob decodes
// canonically, is signed by its account's master key and verifies, is a
// Payment of the drops asked to its address whose InvoiceID is H, and
// answers the challenge this seller issues for the terms it serves,
// unexpired. It submits nothing.
type Charge struct {
	terms.MPPCharge
	PayTo, Amount string // the classic address paid, and drops

	mu       sync.Mutex // guards paidHash
	paidHash string
}

// NewCharge returns a seller of body under terms atrBytes, asking the
// vectors' 1 XRP to their recipient on testnet.
func NewCharge(atrBytes, body []byte) *Charge {
	s := &Charge{PayTo: "rpjfAeE3DeeHPFnN2PgGFW5YxnZFAjrEyN", Amount: "1000000", MPPCharge: terms.MPPCharge{Body: body, Now: time.Now}}
	s.SetATR(atrBytes)
	return s
}

// Challenges is the 402's challenge list: one XRPL charge placed for the
// terms, valid for five minutes.
func (s *Charge) Challenges() ([]jsonv.Value, error) {
	expires := s.Expires()
	request := jsonv.Obj("amount", s.Amount, "currency", "XRP", "recipient", s.PayTo, "methodDetails", jsonv.Obj("network", "testnet"))
	c := jsonv.Obj("realm", "api.seller.example", "method", "xrpl", "intent", "charge",
		"request", mpp.EncodeObject(request), "expires", expires)
	h := s.Hash()
	return xrpl.PlaceCharge([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
}

func (s *Charge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.Serve(w, r, s.accept, s.Challenges)
}

func (s *Charge) accept(header string) error {
	cred, err := mpp.ParseHeader(header)
	if err != nil {
		return err
	}
	h, err := xrpl.Charge{}.Bound(cred)
	if err != nil || h != s.Hash().String() {
		return fmt.Errorf("the credential is not bound to the terms served: %v", err)
	}
	issued, err := s.Challenges()
	if err != nil {
		return err
	}
	echoed, _, err := terms.EchoesIssued(cred, issued)
	if err != nil {
		return err
	}
	if exp, _ := mpp.UnixOf(mpp.String(echoed, "expires")); exp <= s.Now().Unix() {
		return errors.New("the challenge has expired")
	}
	blob, _ := demo.Path(cred, "payload", "blob").(string)
	tx, err := verifySigned(blob)
	if err != nil {
		return err
	}
	j := tx.Fields.JSON()
	inv, _ := j.GetString("InvoiceID")
	amount, _ := j.GetString("Amount")
	dest, _ := j.GetString("Destination")
	if tx.Type != "Payment" || inv != xrpl.MPPInvoiceID(s.Hash()) || amount != s.Amount || dest != s.PayTo {
		return fmt.Errorf("%s with InvoiceID %s, Amount %s, Destination %s: not what was asked", tx.Type, inv, amount, dest)
	}
	s.mu.Lock()
	s.paidHash = tx.Hash
	s.mu.Unlock()
	return nil
}

func init() {
	demo.Register(demo.Row{Pairing: xrpl.ChargeID, Aliases: []string{"mpp-xrpl"},
		About: "an MPP charge of 1 XRP: the Payment's InvoiceID is H; fee, sequence and last ledger from a loopback rippled",
		Run:   runCharge})
}

// runCharge pays the MPP XRPL seller: the challenge from its 402, the
// buyer's inputs from rippled, the gate's checks and signature, the
// credential the seller verifies; then the lying link, declined unsigned.
func runCharge(ctx context.Context, s *demo.Session) error {
	key, err := signer.XRPLDev("xrpl:1")
	if err != nil {
		return err
	}
	seller := NewCharge(demo.ATR, []byte(`{"report":"XRP/USD 2.41","as_of":"2026-12-01"}`))
	srv, err := loopback.Start(seller)
	if err != nil {
		return demo.Fail("cannot start the local seller:", err)
	}
	defer srv.Close()
	ledger := &xrplrpc.Ledger{Current: 90_000_000, BaseFee: 10, OpenFee: 12, Accounts: map[string]uint32{key.Address(): 7}}
	rippled, err := loopback.Start(ledger, "rippled.example")
	if err != nil {
		return demo.Fail("cannot start the local ledger:", err)
	}
	defer rippled.Close()
	rpc := &xrplrpc.Client{URL: "https://rippled.example/", HTTP: rippled.Client()}
	client := srv.Client()
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}}
	const resource = "https://api.seller.example/v1/report"

	s.Say("termsgate demo (MPP charge on the XRP Ledger): a seller on %s (TLS, loopback only) sells %s for 1 XRP", srv.Listener.Addr(), resource)
	s.Say("payer: %s (the vectors' published XRPL key; never hold value with it)", key.Account())
	s.Say("")
	s.Say("1. GET %s", resource)
	resp, doc, offer, err := demo.MPPOffer(ctx, client, g, resource, xrpl.ChargeID)
	if err != nil {
		return err
	}
	c, _ := jsonv.AsObject(doc[0])
	request, _ := mpp.DecodeObject(mpp.String(c, "request"))
	s.Say("   %d with a WWW-Authenticate: Payment challenge for %s, advertising H = %s", resp.StatusCode, xrpl.ChargeID, offer.H)
	s.Say("   request.methodDetails.invoiceId = %s", mpp.String(demo.Path(request, "methodDetails").(*jsonv.Object), "invoiceId"))
	inputs, err := rpc.Inputs(ctx, xrpl.ChargeID, key.Address(), nil)
	if err != nil {
		return err
	}
	s.Say("2. fee, sequence and last ledger from rippled (fee, account_info, ledger_current): %s", jsonv.Marshal(inputs))
	s.Say("   the gate fetches the terms, compares SHA-256 of the bytes with H, and only then signs a Payment")
	wallet := demo.Count(key)
	res, err := g.Transact(ctx, doc, xrpl.ChargeID, wallet, &gate.TransactOptions{Inputs: inputs})
	if err != nil {
		return demo.Fail("not paid:", err)
	}
	s.Say("   fetched %d bytes; SHA-256 = %s: matches; signer calls: %d", len(res.Bytes), res.H, wallet.Calls())
	cred, _ := jsonv.AsObject(res.Signed)
	name, value := mpp.Header(cred)
	s.Say("3. GET again with %s: Payment … (%d bytes)", name, len(value))
	paid, body, err := demo.Get(ctx, client, resource, name, value)
	if err != nil {
		return err
	}
	if paid.StatusCode != http.StatusOK {
		return fmt.Errorf("the seller refused the credential (%d): %v", paid.StatusCode, seller.LastRejection())
	}
	seller.mu.Lock()
	hash := seller.paidHash
	seller.mu.Unlock()
	s.Say("   the seller decoded the blob canonically, verified the signature, took its hash %s,", hash)
	s.Say("   checked the echoed challenge is the one it issued, InvoiceID = H, %s drops to %s, and answered %d: %s", seller.Amount, seller.PayTo, paid.StatusCode, body)
	if err := s.KeepPayment(res.Bytes, resp.Header.Get("WWW-Authenticate"), cred); err != nil {
		return err
	}
	s.Paid(demo.Amount(seller.Amount, 6, "XRP", "xrpl:1"))
	s.Say("")
	s.Say("4. the same seller now serves other bytes at the link while its challenge still advertises H")
	seller.Lie(demo.Changed(demo.ATR))
	before := wallet.Calls()
	_, err = g.Transact(ctx, doc, xrpl.ChargeID, wallet, &gate.TransactOptions{Inputs: inputs})
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.HashMismatch {
		return fmt.Errorf("the changed terms were not declined: %v", err)
	}
	s.Say("   declined %s; signer calls for it: %d", d.Code, wallet.Calls()-before)
	return nil
}
