package nearintentsseller

import (
	"context"
	"net/http"
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/near"
	"github.com/termsgate/termsgate/signer"
)

// DemoBody is what the demo's paid request gets.
var DemoBody = []byte(`{"report":"q3","rows":42}` + "\n")

func init() {
	demo.Register(demo.Row{Pairing: near.NearIntentsID, Aliases: []string{"nearintents"},
		About: "1.005 USDC from Arbitrum One through NEAR Intents: H as the challenge's externalId; the agreement paid first (EIP-3009), then the buyer's signer sends the deposit and the credential names it by hash",
		Run:   run})
}

func run(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	seller := New(demo.ATR, DemoBody)
	srv, err := loopback.Start(seller)
	if err != nil {
		return fail("cannot start the local seller:", err)
	}
	defer srv.Close()
	client := srv.Client()
	key, err := signer.FromHex(signer.AnvilKey, Network)
	if err != nil {
		return err
	}
	agreementKey, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		return err
	}
	wallet, agreer := demo.Count(signer.NewEVM(key, seller.Node)), demo.Count(agreementKey)
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}}
	url := seller.ResourceURL()
	say("termsgate demo: a NEAR Intents seller (%s) on %s, TLS, loopback only; the origin chain in process", near.NearIntentsID, srv.Listener.Addr())
	say("payer: %s (the published Anvil development key, on Arbitrum One and, for the agreement, Base Sepolia)", key.Account())
	say("")
	say("1. GET %s", url)
	resp, doc, _, err := demo.MPPOffer(ctx, client, g, url, near.NearIntentsID)
	if err != nil {
		return fail(err)
	}
	offer := resp.Header.Get("WWW-Authenticate")
	say("   402: a nearintents charge of 1.005 USDC to a deposit address for this challenge; its externalId is H = %s", seller.Hash())
	opts := &gate.TransactOptions{AgreementSigner: agreer}
	first, err := g.Transact(ctx, doc, near.NearIntentsID, wallet, opts)
	if err != nil {
		return fail("the gate declined:", err)
	}
	if first.Approve == nil {
		return fail("no approval asked")
	}
	amount, _ := first.Approve.Option.GetString("amount")
	say("2. terms fetched and compared; the deposit is no public proof, so approval is asked for the agreement (deposits so far: %d)", wallet.Calls())
	opts.Approved = first.Approve
	paid, err := g.Transact(ctx, doc, near.NearIntentsID, wallet, opts)
	if err != nil {
		return fail("the gate declined:", err)
	}
	if paid.Agreement == nil {
		return fail("no agreement receipt")
	}
	say("3. agreement paid (agreement signatures: %d), receipt for %s; then the deposit sent (signer calls: %d)", agreer.Calls(), paid.Agreement.ATRHash, wallet.Calls())
	cred, ok := jsonv.AsObject(paid.Signed)
	if !ok {
		return fail("the gate returned no credential")
	}
	h, _ := near.NearIntents{}.Bound(cred)
	name, value := mpp.Header(cred)
	resp, body, err := demo.Get(ctx, client, url, name, value)
	if err != nil {
		return fail(err)
	}
	if resp.StatusCode != http.StatusOK {
		return fail("the seller refused the credential:", seller.LastRejection())
	}
	payload, _ := cred.GetObject("payload")
	say("4. %s naming deposit %s; externalId reads back H = %s; the seller found the deposit on the chain: %d, %s",
		name, mpp.String(payload, "hash"), h, resp.StatusCode, strings.TrimSpace(string(body)))
	if err := s.KeepPayment(paid.Bytes, offer, cred); err != nil {
		return err
	}
	s.Paid(demo.Amount(Amount, 6, "USDC", Network) + " (delivered as 1 USDC to merchant.near), after an agreement payment of " +
		demo.Amount(amount, 6, "USDC", "eip155:84532"))
	return nil
}
