package hederaseller

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/terms"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/hedera"
	"github.com/termsgate/termsgate/rails/hedera/mirror"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/signer"
)

// The MPP charge's price and its split, in tinybars.
const (
	chargeAmount = "1000"
	Split        = "0.0.67890"
	splitAmount  = "100"
)

// Charge is an MPP seller paid in HBAR (mpp/charge/hedera): its 402 is a
// WWW-Authenticate: Payment charge challenge on testnet (chainId 296) with
// one split, and it accepts a credential only after checking what it would
// submit: the transaction reads field by field, the payer's Ed25519
// signature over the body bytes verifies under the key it holds for the
// payer's account, the memo is the attribution memo of the challenge it
// issued for the terms it serves (unexpired), and the rows move the price
// from the payer to it and the split. It submits nothing.
type Charge struct {
	terms.MPPCharge
	keys map[string]ed25519.PublicKey // what the Mirror Node lists

	mu     sync.Mutex // guards landed
	landed string
}

// NewCharge returns a seller of body under terms atrBytes that knows the
// accounts' keys as the Mirror Node lists them.
func NewCharge(atrBytes, body []byte, keys map[string]ed25519.PublicKey) *Charge {
	s := &Charge{keys: keys, MPPCharge: terms.MPPCharge{Body: body, Now: time.Now}}
	s.SetATR(atrBytes)
	return s
}

// Challenges is the 402's challenge list: one Hedera charge placed for the
// terms, valid for five minutes.
func (s *Charge) Challenges() ([]jsonv.Value, error) {
	request := jsonv.Obj("amount", chargeAmount, "currency", hedera.HBAR, "recipient", PayTo,
		"splits", []jsonv.Value{jsonv.Obj("recipient", Split, "amount", splitAmount)}, "methodDetails", jsonv.Obj("chainId", 296))
	if err := hedera.CheckChargeRequest(request); err != nil {
		return nil, err
	}
	c := jsonv.Obj("realm", "api.seller.example", "method", "hedera", "intent", "charge",
		"request", mpp.EncodeObject(request), "expires", s.Expires())
	h := s.Hash()
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
	h, err := hedera.Charge{}.Bound(cred)
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
	text, _ := demo.Path(cred, "payload", "transaction").(string)
	wire, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return err
	}
	signedTx, ok := only(wire, 5)
	if !ok {
		return errors.New("not a Transaction with only signedTransactionBytes")
	}
	bodyBytes, ok1 := fieldBytes(signedTx, 1)
	sigMap, ok2 := fieldBytes(signedTx, 2)
	if !ok1 || !ok2 {
		return errors.New("the SignedTransaction lacks its body or signature map")
	}
	body, ok := hedera.ReadBody(bodyBytes)
	if !ok || body.Memo != hedera.ChargeMemo(mpp.String(echoed, "realm"), mpp.String(echoed, "id")) {
		return errors.New("the body's memo is not the attribution memo of the challenge issued")
	}
	rows := body.HBAR
	if body.Token != nil || len(rows) != 3 || rows[0].Amount != -1000 || rows[1].Account.String() != PayTo ||
		rows[1].Amount != 900 || rows[2].Account.String() != Split || rows[2].Amount != 100 ||
		body.ID.Account != rows[0].Account {
		return errors.New("the transfer is not the price from the payer to this seller and its split")
	}
	payerKey, known := s.keys[rows[0].Account.String()]
	if !known {
		return errors.New("no key known for the debited account")
	}
	pair, ok := fieldBytes(sigMap, 1)
	pub, okP := fieldBytes(pair, 1)
	sig, okS := fieldBytes(pair, 3)
	if !ok || !okP || !okS || !ed25519.PublicKey(pub).Equal(payerKey) || !ed25519.Verify(payerKey, bodyBytes, sig) {
		return errors.New("the payer's Ed25519 signature over the body bytes does not verify under its listed key")
	}
	s.mu.Lock()
	s.landed = body.ID.Text()
	s.mu.Unlock()
	return nil
}

func init() {
	demo.Register(demo.Row{Pairing: hedera.ChargeID, Aliases: []string{"mpp-hedera"},
		About: "an MPP charge of 0.00001 HBAR with one split: the body's memo is MPP's attribution memo of the challenge; inputs from a loopback Mirror Node",
		Run:   runCharge})
}

// runCharge pays the MPP Hedera seller: the challenge from its 402, the
// buyer's inputs from a loopback Mirror Node, the gate's checks and one
// signature over the body, the credential the seller verifies; then the
// lying link, declined unsigned.
func runCharge(ctx context.Context, s *demo.Session) error {
	key, err := signer.NewHedera(Testnet+":"+Payer, signer.HederaDevSeed)
	if err != nil {
		return err
	}
	seller := NewCharge(demo.ATR, []byte(`{"report":"HBAR/USD 0.2712","as_of":"2026-12-01"}`),
		map[string]ed25519.PublicKey{Payer: key.PublicKey()})
	node := &Mirror{}
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Host, "localhost") {
			node.ServeHTTP(w, r)
			return
		}
		seller.ServeHTTP(w, r)
	}))
	if err != nil {
		return demo.Fail("cannot start the local seller:", err)
	}
	defer srv.Close()
	client := srv.Client()
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}}
	mc := &mirror.Client{URL: "https://localhost", HTTP: client, Of: Testnet}
	const resource = "https://api.seller.example/v1/report"

	s.Say("termsgate demo (MPP charge on Hedera): a seller on %s (TLS, loopback only) sells %s", srv.Listener.Addr(), resource)
	s.Say("payer: %s (the published seed 07×32; never hold value with it)", key.Account())
	s.Say("")
	s.Say("1. GET %s", resource)
	resp, doc, offer, err := demo.MPPOffer(ctx, client, g, resource, hedera.ChargeID)
	if err != nil {
		return err
	}
	s.Say("   %d with a WWW-Authenticate: Payment challenge for %s, advertising H = %s", resp.StatusCode, hedera.ChargeID, offer.H)
	s.Say("   %s tinybars to %s, of which %s to the split %s, on %s", chargeAmount, PayTo, splitAmount, Split, Testnet)
	inputs, err := mc.Inputs(ctx, hedera.HBAR, time.Now().Unix()-10)
	if err != nil {
		return demo.Fail(err)
	}
	s.Say("2. the buyer's inputs from a Mirror Node (/api/v1/network/nodes): %s", jsonv.Marshal(inputs))
	s.Say("   the gate fetches the terms, compares SHA-256 with H, writes the body with the challenge's attribution memo, and signs")
	wallet := demo.Count(key)
	res, err := g.Transact(ctx, doc, hedera.ChargeID, wallet, &gate.TransactOptions{Inputs: inputs})
	if err != nil {
		return demo.Fail("not paid:", err)
	}
	in, err := hedera.Charge{}.Inspect(res.Signed)
	if err != nil {
		return demo.Fail(err)
	}
	memo, _ := in.Details.GetString("memo")
	s.Say("   signed (signer calls: %d); the body's memo %s commits to the challenge id, which is H", wallet.Calls(), memo)
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
	landed := seller.landed
	seller.mu.Unlock()
	s.Say("   the seller verified the payer's Ed25519 signature over the body bytes, the memo of the challenge it issued")
	s.Say("   and the three rows (%s), and answered %d: %s", landed, paid.StatusCode, body)
	if err := s.KeepPayment(res.Bytes, resp.Header.Get("WWW-Authenticate"), cred); err != nil {
		return err
	}
	s.Paid(demo.Amount(chargeAmount, 8, "HBAR", Testnet))
	s.Say("")
	s.Say("4. the same seller now serves other bytes at the link while its challenge still advertises H")
	seller.Lie(demo.Changed(demo.ATR))
	before := wallet.Calls()
	_, err = g.Transact(ctx, doc, hedera.ChargeID, wallet, &gate.TransactOptions{Inputs: inputs})
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.HashMismatch {
		return fmt.Errorf("the changed terms were not declined: %v", err)
	}
	s.Say("   declined %s; signer calls for it: %d", d.Code, wallet.Calls()-before)
	return nil
}
