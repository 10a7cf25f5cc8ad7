package stellarseller

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/sorobansim"
	"github.com/termsgate/termsgate/internal/terms"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/stellar"
	"github.com/termsgate/termsgate/rails/stellar/sorobanrpc"
	"github.com/termsgate/termsgate/signer"
)

// Charge is an MPP seller paid on Stellar (mpp/charge/stellar): its 402 is
// a WWW-Authenticate: Payment charge challenge whose request.recipient is
// its account muxed with H's first 8 bytes, and it accepts a credential only
// after checking it as the token and account contracts would run it (the
// transfer read with the Stellar SDK's XDR, to the muxed recipient, of the
// currency and amount asked, unexpired, signed by the payer) and that the
// challenge it echoes is the one this seller issues for the terms it
// serves, unexpired. It submits nothing.
type Charge struct {
	terms.MPPCharge
	Ledger func() uint32
}

// NewCharge returns a seller of body under terms atrBytes, asking the
// vectors' 10000000 units of Asset; ledger is the current ledger.
func NewCharge(atrBytes, body []byte, ledger func() uint32) *Charge {
	s := &Charge{MPPCharge: terms.MPPCharge{Body: body, Now: time.Now}, Ledger: ledger}
	s.SetATR(atrBytes)
	return s
}

const chargeAmount = "10000000"

func (s *Charge) request() *jsonv.Object {
	return jsonv.Obj("amount", chargeAmount, "currency", Asset, "recipient", SellerAccount,
		"methodDetails", jsonv.Obj("network", stellar.Testnet, "feePayer", true))
}

// Challenges is the 402's challenge list: one Stellar charge placed for
// the terms, valid for five minutes.
func (s *Charge) Challenges() ([]jsonv.Value, error) {
	expires := s.Expires()
	c := jsonv.Obj("realm", "api.seller.example", "method", "stellar", "intent", "charge",
		"request", mpp.EncodeObject(s.request()), "expires", expires)
	h := s.Hash()
	c, err := stellar.PlaceChallenge(c, h)
	if err != nil {
		return nil, err
	}
	return mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
}

func (s *Charge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.Serve(w, r, s.accept, s.Challenges)
}

func (s *Charge) accept(header string) error {
	cred, err := mpp.ParseHeader(header)
	if err != nil {
		return err
	}
	t, _, h, err := stellar.Charge{}.ReadCredential(cred)
	if err != nil {
		return fmt.Errorf("the credential does not read: %w", err)
	}
	if want := s.Hash().String(); h != want {
		return fmt.Errorf("the credential carries %s, not the hash of the terms served, %s", h, want)
	}
	issued, err := s.Challenges()
	if err != nil {
		return err
	}
	echoed, mine, err := terms.EchoesIssued(cred, issued)
	if err != nil {
		return err
	}
	if exp, _ := mpp.UnixOf(mpp.String(echoed, "expires")); exp <= s.Now().Unix() {
		return errors.New("the challenge has expired")
	}
	placed, _ := mpp.DecodeObject(mpp.String(mine, "request"))
	return checkTransfer(t, mpp.String(placed, "recipient"), Asset, chargeAmount, s.Ledger())
}

func init() {
	demo.Register(demo.Row{Pairing: stellar.ChargeID, Aliases: []string{"mpp-stellar"},
		About: "an MPP charge on Stellar: the transfer's recipient is the seller muxed with H's first 8 bytes; inputs from a loopback Soroban RPC",
		Run:   runCharge})
}

// runCharge pays the MPP Stellar seller: the challenge from its 402, the
// buyer's inputs from Soroban RPC, the gate's checks and signature, the
// credential the seller verifies; then the lying link, declined unsigned.
func runCharge(ctx context.Context, s *demo.Session) error {
	const ledger = 988
	node := &sorobansim.Server{Ledger: ledger, Nonce: time.Now().UnixNano(), ResourceFee: 45_000}
	rpcSrv, err := loopback.Start(node)
	if err != nil {
		return demo.Fail("cannot start the local Soroban RPC:", err)
	}
	defer rpcSrv.Close()
	seller := NewCharge(demo.ATR, []byte(`{"report":"XLM/USD 0.4321","as_of":"2026-12-01"}`), func() uint32 { return ledger })
	srv, err := loopback.Start(seller)
	if err != nil {
		return demo.Fail("cannot start the local seller:", err)
	}
	defer srv.Close()
	client := srv.Client()
	key, err := signer.StellarFromSecret(signer.StellarDevSeed, stellar.Testnet)
	if err != nil {
		return err
	}
	rpc := &sorobanrpc.Client{URL: rpcSrv.URL("localhost", "/"), HTTP: rpcSrv.Client()}
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}}
	const resource = "https://api.seller.example/v1/report"

	s.Say("termsgate demo (MPP charge on Stellar): a seller on %s (TLS, loopback only) sells %s", srv.Listener.Addr(), resource)
	s.Say("payer: %s (the vectors' published seed 05×32; never hold value with it)", key.Account())
	s.Say("")
	s.Say("1. GET %s", resource)
	resp, doc, offer, err := demo.MPPOffer(ctx, client, g, resource, stellar.ChargeID)
	if err != nil {
		return err
	}
	c, _ := jsonv.AsObject(doc[0])
	request, _ := mpp.DecodeObject(mpp.String(c, "request"))
	m, _ := stellar.DecodeMuxed(mpp.String(request, "recipient"))
	s.Say("   %d with a WWW-Authenticate: Payment challenge for %s, advertising H = %s", resp.StatusCode, stellar.ChargeID, offer.H)
	s.Say("   request.recipient %s: the seller's account muxed with id %d, H's first 8 bytes", mpp.String(request, "recipient"), m.ID)
	s.Say("")
	s.Say("2. the buyer's inputs from Soroban RPC at %s: simulateTransaction of that transfer, getLatestLedger", rpc.URL)
	inputs, err := rpc.Inputs(ctx, stellar.ChargeID, doc, key.Account())
	if err != nil {
		return err
	}
	s.Say("   %d RPC calls; the simulation returned the payer's address authorization, ledger %d", node.Calls.Load(), ledger)
	s.Say("3. the gate fetches the terms, compares SHA-256 of the bytes with H, checks the transfer is what the")
	s.Say("   challenge asks (recipient, currency, amount, payer), and only then signs the authorization")
	wallet := demo.Count(key)
	res, err := g.Transact(ctx, doc, stellar.ChargeID, wallet, &gate.TransactOptions{Inputs: inputs})
	if err != nil {
		return demo.Fail("not paid:", err)
	}
	s.Say("   fetched %d bytes; SHA-256 = %s: matches; signer calls: %d", len(res.Bytes), res.H, wallet.Calls())
	cred, _ := jsonv.AsObject(res.Signed)
	name, value := mpp.Header(cred)
	s.Say("4. GET again with %s: Payment … (%d bytes)", name, len(value))
	paid, body, err := demo.Get(ctx, client, resource, name, value)
	if err != nil {
		return err
	}
	if paid.StatusCode != http.StatusOK {
		return fmt.Errorf("the seller refused the credential (%d): %v", paid.StatusCode, seller.LastRejection())
	}
	s.Say("   the seller read the transfer with the Stellar SDK, checked the echoed challenge is the one it issued,")
	s.Say("   the muxed recipient's id is H's, the currency, amount and expiry, and the payer's Ed25519 signature over")
	s.Say("   the authorization preimage, and answered %d: %s", paid.StatusCode, body)
	if err := s.KeepPayment(res.Bytes, resp.Header.Get("WWW-Authenticate"), cred); err != nil {
		return err
	}
	s.Paid(demo.Amount(chargeAmount, -1, "the token "+Asset, stellar.Testnet))
	s.Say("")
	s.Say("5. the same seller now serves other bytes at the link while its challenge still advertises H")
	seller.Lie(demo.Changed(demo.ATR))
	before := wallet.Calls()
	_, err = g.Transact(ctx, doc, stellar.ChargeID, wallet, &gate.TransactOptions{Inputs: inputs})
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.HashMismatch {
		return fmt.Errorf("the changed terms were not declined: %v", err)
	}
	s.Say("   declined %s; signer calls for it: %d", d.Code, wallet.Calls()-before)
	return nil
}
