package x402seller

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/terms"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	demo.Register(demo.Row{Pairing: evm.BatchID, Aliases: []string{"batch"},
		About: "a channel whose configuration's salt is H: the EIP-3009 deposit, two vouchers the seller recovers", Run: demoBatch})
}

// Batch sells each request for 1000 units under
// x402/batch-settlement/eip155 and checks what a settling chain would: the
// channel id is the EIP-712 hash of a configuration whose salt is the hash
// of the terms it serves; the deposit's ReceiveWithAuthorization recovers to
// the payer, with the nonce the channel id commits; every voucher recovers
// to the payer's authorizer and raises the claimable amount by the price.
type Batch struct {
	terms.Record
	mu        sync.Mutex
	claimable map[string]*big.Int // channel id → largest voucher seen
	authz     map[string]string   // channel id → payer authorizer
	lastErr   error
}

var batchOption = func() *jsonv.Object {
	return jsonv.Obj("scheme", "batch-settlement", "network", "eip155:84532", "amount", "1000",
		"asset", "0x036CbD53842c5426634e7929541eC2318f3dCF7e", "payTo", "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
		"maxTimeoutSeconds", 3600, "extra", jsonv.Obj("receiverAuthorizer", "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
			"withdrawDelay", 900, "name", "USDC", "version", "2"))
}

func (s *Batch) required() (*jsonv.Object, error) {
	h := s.Hash()
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://api.seller.example/v1/stream"), "accepts", []jsonv.Value{batchOption()})
	return x402.Advertise(doc, h, "https://atr.seller.example/"+h.String(), "")
}

func (s *Batch) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.Route(w, r, "atr.seller.example", "api.seller.example", func(w http.ResponseWriter, r *http.Request) {
		terms.ServeX402(w, r, &s.mu, &s.lastErr, s.accept, s.required, []byte(`{"tick":"ETH/USD 3150.42"}`))
	})
}

func recovers(td *jsonv.Object, sig string) (string, error) {
	d, err := evm.TypedDataDigest(td)
	if err != nil {
		return "", err
	}
	raw, ok := evm.HexBytes(sig)
	if !ok {
		return "", errors.New("a signature is not hex")
	}
	who, err := evm.Recover(d, raw)
	return who.Hex(), err
}

func (s *Batch) accept(header string) error {
	payment, err := x402.DecodeHeader(header)
	if err != nil {
		return err
	}
	p := evm.Batch{}
	kind, err := p.ChannelKind(payment)
	if err != nil {
		return err
	}
	h, err := p.BoundWithin(payment) // the salt, once the configuration hashes to the voucher's channel
	if err != nil {
		return err
	}
	if !atr.EqualText(h, s.Hash()) {
		return errors.New("the channel's salt is not the hash of these terms")
	}
	ref, err := p.ChannelRef(payment)
	if err != nil {
		return err
	}
	payload, _ := payment.GetObject("payload")
	config, _ := payload.GetObject("channelConfig")
	authorizer, _ := config.GetString("payerAuthorizer")
	payer, _ := config.GetString("payer")
	s.mu.Lock()
	defer s.mu.Unlock()
	held, open := s.claimable[ref.Channel]
	switch {
	case kind == "open" && open:
		// A replayed opening would reset the claimable amount to zero.
		return errors.New("this channel is already open")
	case kind == "within" && !open:
		return errors.New("no such channel")
	case kind == "within":
		if t, _ := payload.Get("type"); t != "voucher" {
			return errors.New("this seller takes vouchers inside a channel, not refunds")
		}
		authorizer = s.authz[ref.Channel]
	case kind != "open":
		return errors.New("this seller takes openings and vouchers")
	default:
		held = new(big.Int)
	}
	// Each request must raise the claimable amount by exactly the price.
	claim, err := checkVoucher(payload, ref.Channel, authorizer, new(big.Int).Add(held, big.NewInt(batchPrice)))
	if err != nil {
		return err
	}
	if kind == "open" {
		if err := checkDeposit(p, payment, payload, ref.Channel, payer); err != nil {
			return err
		}
		if s.claimable == nil {
			s.claimable, s.authz = map[string]*big.Int{}, map[string]string{}
		}
		s.authz[ref.Channel] = authorizer
	}
	s.claimable[ref.Channel] = claim
	return nil
}

// batchPrice is what the batch seller charges a request, in atomic units.
const batchPrice = 1000

// two128 bounds a voucher's amount, a uint128 in the Voucher struct.
var two128 = new(big.Int).Lsh(big.NewInt(1), 128)

// checkVoucher verifies what a settling chain would of the payload's
// voucher: it names channel, its maxClaimableAmount is want, and its
// signature over the Voucher's EIP-712 digest (rails/evm/batch.go) recovers
// to authorizer. It returns the amount.
func checkVoucher(payload *jsonv.Object, channel, authorizer string, want *big.Int) (*big.Int, error) {
	voucher, ok := payload.GetObject("voucher")
	if !ok {
		return nil, errors.New("the payment has no voucher")
	}
	named, _ := voucher.GetString("channelId")
	if !evm.SameBytes(named, channel) {
		return nil, fmt.Errorf("the voucher names channel %q, not %s", named, channel)
	}
	amount, _ := voucher.GetString("maxClaimableAmount")
	claim, ok := new(big.Int).SetString(amount, 10)
	if !ok || claim.Sign() < 0 || claim.Cmp(two128) >= 0 || strings.HasPrefix(amount, "+") {
		return nil, fmt.Errorf("the voucher's maxClaimableAmount %q is not a uint128 in decimal", amount)
	}
	if claim.Cmp(want) != 0 {
		return nil, fmt.Errorf("the voucher allows %s, the request is priced at a cumulative %s", claim, want)
	}
	sig, _ := voucher.GetString("signature")
	who, err := recovers(evm.VoucherTypedData(84532, channel, amount), sig)
	if err != nil {
		return nil, fmt.Errorf("the voucher's signature does not recover: %v", err)
	}
	if !strings.EqualFold(who, authorizer) {
		return nil, fmt.Errorf("the voucher is signed by %s, not the channel's authorizer %s", who, authorizer)
	}
	return claim, nil
}

// checkDeposit verifies an opening's deposit: its ReceiveWithAuthorization
// recovers to the payer, with the nonce the channel id commits.
func checkDeposit(p evm.Batch, payment jsonv.Value, payload *jsonv.Object, channelID, payer string) error {
	if _, err := p.Bound(payment); err != nil {
		return err
	}
	deposit, _ := payload.GetObject("deposit")
	value, _ := deposit.GetString("amount")
	auth, _ := deposit.GetObject("authorization")
	e, ok := auth.GetObject("erc3009Authorization")
	if !ok {
		return errors.New("this seller takes EIP-3009 deposits")
	}
	validBefore, _ := e.GetString("validBefore")
	saltText, _ := e.GetString("salt")
	depSig, _ := e.GetString("signature")
	var channel, salt [32]byte
	c, _ := evm.HexBytes(channelID)
	b, _ := evm.HexBytes(saltText)
	copy(channel[:], c)
	copy(salt[:], b)
	nonce := evm.DepositNonce(channel, salt)
	td := evm.ReceiveWithAuthorization("USDC", "2", 84532, "0x036CbD53842c5426634e7929541eC2318f3dCF7e", jsonv.Obj(
		"from", payer, "to", evm.ERC3009DepositCollector, "value", value, "validAfter", "0", "validBefore", validBefore,
		"nonce", fmt.Sprintf("0x%x", nonce[:])))
	if who, err := recovers(td, depSig); err != nil || !strings.EqualFold(who, payer) {
		return errors.New("the deposit authorization is not the payer's")
	}
	return nil
}

// demoBatch opens an x402/batch-settlement/eip155 channel and pays a
// second request inside it with a voucher, each checked by the seller.
func demoBatch(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	seller := &Batch{}
	seller.SetATR(demo.ATR)
	srv, err := loopback.Start(seller)
	if err != nil {
		return fail("cannot start the local seller:", err)
	}
	defer srv.Close()
	client := srv.Client()
	key, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		return fail(err)
	}
	wallet := demo.Count(key)
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}}
	const resource = "https://api.seller.example/v1/stream"
	get := func(header string) (int, *jsonv.Object, error) {
		req, _ := http.NewRequest(http.MethodGet, resource, nil)
		if header != "" {
			req.Header.Set("PAYMENT-SIGNATURE", header)
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		demo.Read(resp)
		doc, _ := x402.DecodeHeader(resp.Header.Get("PAYMENT-REQUIRED"))
		return resp.StatusCode, doc, nil
	}
	say("termsgate demo: an x402 batch-settlement seller (%s) on %s, TLS, loopback only", evm.BatchID, srv.Listener.Addr())
	say("payer and voucher authorizer: %s (the published Anvil development key)", key.Account())
	say("")
	say("1. GET %s: 402, 1000 units a request, paid from a channel", resource)
	_, doc, err := get("")
	firstDoc := doc
	if err != nil || doc == nil {
		return fail("no readable 402:", err)
	}
	say("2. the gate fetches the terms, compares SHA-256 with H, and opens a channel whose configuration's salt is H:")
	inputs := jsonv.Obj("payerAuthorizer", key.Address().Hex(), "deposit", "100000")
	opened, err := g.Transact(ctx, doc, evm.BatchID, wallet, &gate.TransactOptions{Inputs: inputs})
	if err != nil {
		return fail("not opened:", err)
	}
	hold, err := g.OpenChannel(opened.Bytes, evm.BatchID, opened.Signed, nil)
	if err != nil {
		return fail(err)
	}
	say("   signer calls: %d, a batch: the deposit (EIP-3009 ReceiveWithAuthorization of 100000) and the first voucher (1000)", wallet.Calls())
	say("   channel %s (its EIP-712 id commits to H = %s)", hold.Channel, hold.H)
	status, _, err := get(x402.EncodeHeader(opened.Signed))
	if err != nil || status != http.StatusOK {
		return fail("the seller refused the opening:", seller.lastErr)
	}
	say("   the seller recovered both signatures and recomputed the channel id from H: 200")
	hold, _ = gate.RecordCharge(hold, "1000")
	say("3. the next request: 402 again; Within signs a voucher for 2000 in the held channel, nothing fetched")
	_, doc, _ = get("")
	before := wallet.Calls()
	next, err := g.Within(ctx, doc, hold, evm.BatchID, wallet, nil, nil)
	if err != nil {
		return fail("no voucher:", err)
	}
	status, _, err = get(x402.EncodeHeader(next.Signed))
	if err != nil || status != http.StatusOK {
		return fail("the seller refused the voucher:", seller.lastErr)
	}
	hold, _ = gate.RecordCharge(next.Hold, "2000")
	say("   signer calls: %d; the seller recovered the voucher to the authorizer and answered 200; charged %s of %s signed", wallet.Calls()-before, hold.Charged, hold.SignedMax)
	if err := s.KeepPayment(opened.Bytes, x402.EncodeHeader(firstDoc), opened.Signed); err != nil {
		return err
	}
	s.Paid(demo.Amount(hold.Charged, 6, "USDC", "eip155:84532") + " in two vouchers, from a deposit of 0.1 USDC")
	say("4. the seller's next 402 advertises other terms' hash")
	seller.SetATR(demo.Changed(demo.ATR))
	_, doc, _ = get("")
	before = wallet.Calls()
	_, err = g.Within(ctx, doc, hold, evm.BatchID, wallet, nil, nil)
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.HashMismatch {
		return fail("the changed terms were not declined:", err)
	}
	say("   declined %s (%s); signer calls for it: %d", d.Code, d.Detail, wallet.Calls()-before)
	return nil
}
