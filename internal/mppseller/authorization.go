package mppseller

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/terms"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/signer"
)

// Authorization is an MPP seller paid by an EIP-3009 authorization on an
// EVM chain (mpp/charge/evm/authorization): its 402 is a charge challenge
// whose id carries H, and it accepts a credential only after checking what
// the token's transferWithAuthorization would: the nonce is the hash of the
// challenge this seller issued for the terms it serves (id ‖ realm), the
// authorization pays the amount asked to its recipient and is still valid,
// and its EIP-712 signature recovers to the payer the credential names. It
// settles nothing.
type Authorization struct {
	terms.MPPCharge
	Amount, Currency, Recipient string
	ChainID                     int64

	mu    sync.Mutex // guards payer
	payer string
}

// NewAuthorization returns a seller of body under terms atrBytes, asking
// the vectors' 0.01 USDC on Base Sepolia.
func NewAuthorization(atrBytes, body []byte) *Authorization {
	s := &Authorization{Amount: "10000", Currency: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
		Recipient: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", ChainID: 84532,
		MPPCharge: terms.MPPCharge{Body: body, Now: time.Now}}
	s.SetATR(atrBytes)
	return s
}

// Challenges is the 402's challenge list: one EVM charge offering the
// authorization credential only, placed for the terms, valid five minutes.
func (s *Authorization) Challenges() ([]jsonv.Value, error) {
	expires := s.Expires()
	request := jsonv.Obj("amount", s.Amount, "currency", s.Currency, "recipient", s.Recipient,
		"methodDetails", jsonv.Obj("chainId", s.ChainID, "credentialTypes", []jsonv.Value{"authorization"}))
	c := jsonv.Obj("realm", "api.seller.example", "method", "evm", "intent", "charge",
		"request", mpp.EncodeObject(request), "expires", expires)
	h := s.Hash()
	return mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
}

func (s *Authorization) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.Serve(w, r, s.accept, s.Challenges)
}

func (s *Authorization) accept(header string) error {
	cred, err := mpp.ParseHeader(header)
	if err != nil {
		return err
	}
	h, err := evm.MPPAuthorization{}.Bound(cred) // the nonce is the echoed challenge's hash
	if err != nil || h != s.Hash().String() {
		return fmt.Errorf("the credential is not bound to the terms served: %v", err)
	}
	issued, err := s.Challenges()
	if err != nil {
		return err
	}
	if _, _, err := terms.EchoesIssued(cred, issued); err != nil {
		return err
	}
	payload, _ := cred.GetObject("payload")
	auth := jsonv.Obj()
	for _, k := range []string{"from", "to", "value", "validAfter", "validBefore", "nonce"} {
		auth.Set(k, mpp.String(payload, k))
	}
	if mpp.String(auth, "value") != s.Amount || !strings.EqualFold(mpp.String(auth, "to"), s.Recipient) {
		return errors.New("the authorization pays another amount or payee")
	}
	before, err := strconv.ParseInt(mpp.String(auth, "validBefore"), 10, 64)
	if err != nil || before <= s.Now().Unix() {
		return errors.New("the authorization has expired")
	}
	digest, err := evm.TypedDataDigest(evm.TransferWithAuthorization("USDC", "2", s.ChainID, s.Currency, auth))
	if err != nil {
		return err
	}
	sig, ok := evm.HexBytes(mpp.String(payload, "signature"))
	if !ok {
		return errors.New("the signature is not hex")
	}
	who, err := evm.Recover(digest, sig)
	if err != nil {
		return fmt.Errorf("the signature does not recover: %w", err)
	}
	from := mpp.String(auth, "from")
	if !strings.EqualFold(who.Hex(), from) || !strings.EqualFold(mpp.String(cred, "source"), mpp.Source(s.ChainID, from)) {
		return fmt.Errorf("the signature recovers to %s, not the payer %s", who.Hex(), mpp.String(cred, "source"))
	}
	s.mu.Lock()
	s.payer = who.Hex()
	s.mu.Unlock()
	return nil
}

func init() {
	demo.Register(demo.Row{Pairing: evm.MPPAuthorizationID, Aliases: []string{"mpp-authorization"},
		About: "an MPP charge of 0.01 USDC on Base Sepolia: an EIP-3009 authorization whose nonce is the hash of the challenge whose id is H",
		Run:   runAuthorization})
}

// runAuthorization pays the MPP EVM authorization seller, then shows the
// lying link declined unsigned.
func runAuthorization(ctx context.Context, s *demo.Session) error {
	seller := NewAuthorization(demo.ATR, []byte(`{"report":"ETH/USD 3150.42","as_of":"2026-12-01"}`))
	srv, err := loopback.Start(seller)
	if err != nil {
		return demo.Fail("cannot start the local seller:", err)
	}
	defer srv.Close()
	client := srv.Client()
	key, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		return err
	}
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}}
	const resource = "https://api.seller.example/v1/report"
	inputs := jsonv.Obj("tokenDomain", jsonv.Obj("name", "USDC", "version", "2"))

	s.Say("termsgate demo (MPP charge by EIP-3009 authorization): a seller on %s (TLS, loopback only) sells %s", srv.Listener.Addr(), resource)
	s.Say("payer: %s (the published Anvil development key; never hold value with it)", key.Account())
	s.Say("")
	s.Say("1. GET %s", resource)
	resp, doc, offer, err := demo.MPPOffer(ctx, client, g, resource, evm.MPPAuthorizationID)
	if err != nil {
		return err
	}
	c, _ := jsonv.AsObject(doc[0])
	s.Say("   %d with a WWW-Authenticate: Payment challenge for %s; its id %s carries H = %s", resp.StatusCode, evm.MPPAuthorizationID, mpp.String(c, "id"), offer.H)
	s.Say("2. the gate fetches the terms, compares SHA-256 of the bytes with H, and only then signs an EIP-3009")
	s.Say("   authorization whose nonce is keccak256(id ‖ realm), the challenge hash")
	wallet := demo.Count(key)
	res, err := g.Transact(ctx, doc, evm.MPPAuthorizationID, wallet, &gate.TransactOptions{Inputs: inputs})
	if err != nil {
		return demo.Fail("not paid:", err)
	}
	cred, _ := jsonv.AsObject(res.Signed)
	s.Say("   fetched %d bytes; SHA-256 = %s: matches; signer calls: %d; nonce %s", len(res.Bytes), res.H, wallet.Calls(),
		mpp.String(demo.Path(cred, "payload").(*jsonv.Object), "nonce"))
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
	payer := seller.payer
	seller.mu.Unlock()
	s.Say("   the seller checked the nonce is the hash of the challenge it issued, the amount, payee and validity,")
	s.Say("   and that the EIP-712 signature recovers to %s, and answered %d: %s", payer, paid.StatusCode, body)
	if err := s.KeepPayment(res.Bytes, resp.Header.Get("WWW-Authenticate"), cred); err != nil {
		return err
	}
	s.Paid(demo.Amount(seller.Amount, 6, "USDC", "eip155:84532"))
	s.Say("")
	s.Say("4. the same seller now serves other bytes at the link while its challenge still advertises H")
	seller.Lie(demo.Changed(demo.ATR))
	before := wallet.Calls()
	_, err = g.Transact(ctx, doc, evm.MPPAuthorizationID, wallet, &gate.TransactOptions{Inputs: inputs})
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.HashMismatch {
		return fmt.Errorf("the changed terms were not declined: %v", err)
	}
	s.Say("   declined %s; signer calls for it: %d", d.Code, wallet.Calls()-before)
	return nil
}
