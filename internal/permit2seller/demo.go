package permit2seller

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

const (
	usdc        = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
	payTo       = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
	facilitator = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC" // Anvil account 2
)

func option(scheme, amount string, extra *jsonv.Object) *jsonv.Object {
	return jsonv.Obj("scheme", scheme, "network", "eip155:84532", "amount", amount, "asset", usdc, "payTo", payTo,
		"maxTimeoutSeconds", 60, "extra", extra)
}

// authCaptureExtra is the vectors' escrow terms, deadlines an hour and a
// day after now.
func authCaptureExtra(now int64, method string) *jsonv.Object {
	e := jsonv.Obj("name", "USDC", "version", "2", "captureAuthorizer", facilitator,
		"receiverAuthorizer", "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
		"captureDeadline", now+3600, "refundDeadline", now+86400,
		"feeRecipient", "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65", "minFeeBps", 0, "maxFeeBps", 100)
	if method != "" {
		e.Set("assetTransferMethod", method)
	}
	return e
}

// demoCase is one row: its option, how the seller verifies, and what the
// story says was signed.
type demoCase struct {
	id, about, signed string
	option            func(now int64) *jsonv.Object
	verify            func(option *jsonv.Object) func(*jsonv.Object, atr.Hash, time.Time) (string, error)
	delegations       bool
	where             []string // the path to the value that carries H, in the payment
}

var cases = []demoCase{
	{id: evm.ExactPermit2ID, signed: "a Permit2 witness transfer (spender x402's exact proxy) whose nonce is H",
		about: "0.01 USDC on Base Sepolia by Permit2: a PermitWitnessTransferFrom through x402's exact proxy, nonce H; the seller verifies as Permit2 does",
		option: func(int64) *jsonv.Object {
			return option("exact", "10000", jsonv.Obj("name", "USDC", "version", "2", "assetTransferMethod", "permit2"))
		},
		verify: func(o *jsonv.Object) func(*jsonv.Object, atr.Hash, time.Time) (string, error) {
			return permit2Verifier(o, false)
		},
		where: []string{"payload", "permit2Authorization", "nonce"}},
	{id: evm.UptoPermit2ID, signed: "a Permit2 witness transfer of at most the maximum (spender x402's upto proxy) whose nonce is H",
		about: "up to 0.02 USDC on Base Sepolia by Permit2 through x402's upto proxy, nonce H; the policy judges the maximum",
		option: func(int64) *jsonv.Object {
			return option("upto", "20000", jsonv.Obj("name", "USDC", "version", "2", "facilitatorAddress", facilitator))
		},
		verify: func(o *jsonv.Object) func(*jsonv.Object, atr.Hash, time.Time) (string, error) {
			return permit2Verifier(o, true)
		},
		where: []string{"payload", "permit2Authorization", "nonce"}},
	{id: evm.AuthCaptureEIP3009ID, signed: "an EIP-3009 ReceiveWithAuthorization to the escrow's collector whose nonce is the payment hash over the salt bound to H",
		about:  "0.01 USDC on Base Sepolia into the commerce-payments escrow (EIP-3009): the payment info's salt binds H; the seller recomputes the payment hash",
		option: func(now int64) *jsonv.Object { return option("auth-capture", "10000", authCaptureExtra(now, "")) },
		verify: func(o *jsonv.Object) func(*jsonv.Object, atr.Hash, time.Time) (string, error) {
			return escrowVerifier(o, false)
		},
		where: []string{"payload", "saltNonce"}},
	{id: evm.AuthCapturePermit2ID, signed: "a Permit2 PermitTransferFrom to the escrow's collector whose nonce is the payment hash over the salt bound to H",
		about: "0.01 USDC on Base Sepolia into the commerce-payments escrow (Permit2): the payment info's salt binds H; the seller recomputes the payment hash",
		option: func(now int64) *jsonv.Object {
			return option("auth-capture", "10000", authCaptureExtra(now, "permit2"))
		},
		verify: func(o *jsonv.Object) func(*jsonv.Object, atr.Hash, time.Time) (string, error) {
			return escrowVerifier(o, true)
		},
		where: []string{"payload", "saltNonce"}},
	{id: evm.ExactERC7710SaltID, signed: "a leaf delegation under MetaMask's DelegationManager whose salt is H", delegations: true,
		about: "0.01 USDC on Base Sepolia by an ERC-7710 delegation: the leaf's signed salt is H; the seller verifies as the DelegationManager does",
		option: func(int64) *jsonv.Object {
			return option("exact", "10000", jsonv.Obj("name", "USDC", "version", "2", "assetTransferMethod", "erc7710"))
		},
		verify: delegationVerifier,
		where:  []string{"payload", "permissionContext"}},
}

func init() {
	for _, c := range cases {
		c := c
		demo.Register(demo.Row{Pairing: c.id, About: c.about, Run: func(ctx context.Context, s *demo.Session) error { return run(ctx, s, c) }})
	}
}

// NewSeller is the seller of one case's pairing: the x402 seller with the
// pairing's option and verification.
func NewSeller(id string, atrBytes, body []byte) (*x402seller.Seller, error) {
	for _, c := range cases {
		if c.id == id {
			seller := x402seller.New(atrBytes, body)
			seller.Option = c.option(time.Now().Unix())
			seller.Verify = c.verify(seller.Option)
			return seller, nil
		}
	}
	return nil, fmt.Errorf("permit2seller: no seller for %s", id)
}

// demoIssuer issues the demo's leaf delegations: to the facilitator, held
// by one caveat to the requested token and amount.
func demoIssuer(req rails.Request) (string, []evm.Caveat, error) {
	token, _ := req.GetString("token")
	amount, _ := req.GetString("amount")
	return facilitator, []evm.Caveat{{Enforcer: demoTransferEnforcer, Terms: TransferTerms(token, amount)}}, nil
}

// demoTransferEnforcer stands for an ERC20TransferAmountEnforcer in the
// demo; no contract runs there, the seller reads its terms.
const demoTransferEnforcer = "0x00000000000000000000000000000000000e2c20"

func run(ctx context.Context, s *demo.Session, c demoCase) error {
	seller, err := NewSeller(c.id, demo.ATR, x402seller.DemoBody)
	if err != nil {
		return err
	}
	srv, err := loopback.Start(seller)
	if err != nil {
		return fmt.Errorf("cannot start the local seller: %w", err)
	}
	defer srv.Close()
	payer, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		return err
	}
	if c.delegations {
		payer = payer.WithDelegations(demoIssuer)
	}
	wallet := demo.Count(payer)
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{
		Network: "eip155:84532", Asset: usdc, MaxAmount: big.NewInt(50_000), Budget: big.NewInt(1_000_000),
	}}})
	if err != nil {
		return err
	}
	var signed jsonv.Value
	transport := &pay.Transport{
		Base: srv.Transport(), Gate: &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}}, Signer: wallet, Policy: policy,
		NoATRCache: true, // every step fetches and compares, the lie included
		Hooks: pay.Hooks{
			BeforeSign: func(_ context.Context, _ *http.Request, sum pay.Summary) error {
				s.Say("   fetched the terms; SHA-256 matches the advertised H = %s", sum.H)
				s.Say("   the policy allows it (%s); the signature would grant at most %s atomic units of %s on %s to %s, until %s",
					sum.Pairing, sum.Amount, sum.Asset, sum.Network, sum.Payee, sum.PayableUntil.UTC().Format(time.RFC3339))
				return nil
			},
			AfterSign: func(_ context.Context, _ *http.Request, r *pay.Result) {
				signed = r.Signed
				s.Say("   signed %s", c.signed)
				s.Say("3. the same GET again, with PAYMENT-SIGNATURE (%d bytes)", len(r.Header))
			},
			Declined: func(_ context.Context, _ *http.Request, d *gate.Decline) {
				s.Say("   declined %s: %s", d.Code, d.Detail)
			},
		},
	}
	client := pay.NewClient(transport)
	offer, err := seller.Required()
	if err != nil {
		return err
	}
	s.Say("termsgate demo: %s against a seller on %s (TLS, loopback only)", c.id, srv.Listener.Addr())
	s.Say("payer: %s (the published Anvil development key; never hold value with it)", payer.Account())
	s.Say("")
	s.Say("1. GET %s: 402 with PAYMENT-REQUIRED, advertising the terms' hash and link", seller.ResourceURL())
	s.Say("2. the gate fetches the terms, compares SHA-256 of the exact bytes with H, asks the policy, and only then signs")
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, seller.ResourceURL(), nil)
	resp, err := client.Do(req)
	if err != nil {
		return demo.Fail("not paid:", err)
	}
	body := demo.Read(resp)
	res := pay.ResultOf(resp)
	if resp.StatusCode != http.StatusOK || res == nil || res.Settlement == nil {
		return fmt.Errorf("the seller refused the payment (%d): %v", resp.StatusCode, seller.LastRejection())
	}
	s.Say("   the seller verified it as the contract would (signer %s, H where the pairing puts it) and answered %d: %s",
		res.Settlement.Payer, resp.StatusCode, body)
	if err := s.KeepPayment(res.ATR, x402.EncodeHeader(offer), signed); err != nil {
		return err
	}
	amount, _ := seller.Option.GetString("amount")
	s.Say("")
	s.Say("4. the same seller now serves other bytes at the link while its 402 still advertises H")
	seller.Lie(demo.Changed(demo.ATR))
	before := wallet.Calls()
	req, _ = http.NewRequestWithContext(ctx, http.MethodGet, seller.ResourceURL(), nil)
	_, err = client.Do(req)
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.HashMismatch {
		return fmt.Errorf("the changed terms were not declined: %v", err)
	}
	s.Say("   signer calls for it: %d; nothing was sent", wallet.Calls()-before)
	paid := demo.Amount(amount, 6, "USDC", "eip155:84532")
	if c.id == evm.UptoPermit2ID {
		paid = "up to " + paid // the authorized maximum; the facilitator settles what was used
	}
	s.Paid(paid)
	return nil
}
