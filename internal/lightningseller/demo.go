package lightningseller

import (
	"context"
	"net/http"
	"strconv"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/lightning"
	"github.com/termsgate/termsgate/rails/lightning/lnd"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

// DemoBody is what the demo's paid request gets.
var DemoBody = []byte(`{"report":"q3","rows":42}` + "\n")

// PayerHost is the host name the buyer's node answers on.
const PayerHost = "node.payer.example"

func init() {
	demo.Register(demo.Row{Pairing: lightning.ExactID, Aliases: []string{"lnbtc"},
		About: "21 sat over Lightning: an invoice whose m field the seller's node signs with H; the agreement paid first (EIP-3009), then the buyer's LND node pays the invoice",
		Run:   func(ctx context.Context, s *demo.Session) error { return demoX402(ctx, s, lightning.ExactID) }})
	demo.Register(demo.Row{Pairing: lightning.InvoiceNamedID, Aliases: []string{"lnbtc-named"},
		About: "21 sat over Lightning: an invoice without H, named by the terms' own x402 slot; the gate pays only an invoice its terms name, after the agreement",
		Run:   func(ctx context.Context, s *demo.Session) error { return demoX402(ctx, s, lightning.InvoiceNamedID) }})
	demo.Register(demo.Row{Pairing: lightning.ChargeID, Aliases: []string{"mpp-lightning"},
		About: "21 sat by MPP's lightning charge: the challenge's invoice has H as its description hash, signed by the seller's node; the agreement first, then the buyer's LND node pays",
		Run:   func(ctx context.Context, s *demo.Session) error { return demoMPP(ctx, s, lightning.ChargeID) }})
	demo.Register(demo.Row{Pairing: lightning.SessionID, Aliases: []string{"session-lightning"},
		About: "a 21 sat Lightning session deposit by MPP: the deposit invoice's description hash is H; the agreement first, then the open pays the deposit and registers the buyer's return invoice",
		Run:   func(ctx context.Context, s *demo.Session) error { return demoMPP(ctx, s, lightning.SessionID) }})
}

// demoMPP pays the seller's mpp/charge/lightning challenge: the terms
// fetched and compared, the agreement paid, then the node pays the
// challenge's invoice and the credential carries the preimage.
func demoMPP(ctx context.Context, s *demo.Session, pairing string) error {
	say, fail := s.Say, demo.Fail
	seller := NewCharge(demo.ATR, DemoBody)
	if pairing == lightning.SessionID {
		seller = NewSession(demo.ATR, DemoBody)
	}
	net, err := Start(seller)
	if err != nil {
		return fail("cannot start the local seller:", err)
	}
	defer net.Close()
	client := net.Server.Client()
	node, err := net.Node(ctx)
	if err != nil {
		return fail("the payer's node:", err)
	}
	payer := demo.Count(node)
	key, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		return err
	}
	agreer := demo.Count(key)
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}}
	url := seller.ResourceURL()
	say("termsgate demo: an MPP Lightning seller (%s) on %s, TLS, loopback only", pairing, net.Server.Listener.Addr())
	say("payer node: %s (LND REST at https://%s)", node.Account(), PayerHost)
	say("")
	say("1. GET %s", url)
	resp, doc, _, err := demo.MPPOffer(ctx, client, g, url, pairing)
	if err != nil {
		return fail(err)
	}
	offer := resp.Header.Get("WWW-Authenticate")
	opts := &gate.TransactOptions{AgreementSigner: agreer}
	if pairing == lightning.SessionID {
		// The buyer's node writes the return invoice the seller refunds to at close: no amount.
		ret, _, err := NewReceiver(PayerKey()).Issue(0, 86400, make([]byte, 32), nil)
		if err != nil {
			return err
		}
		opts.Inputs = jsonv.Obj("returnInvoice", ret)
		say("   402: a lightning session; its 21 sat deposit invoice's description hash is H = %s, signed by the seller's node", seller.Hash())
	} else {
		say("   402: a lightning charge of 21 sat; its invoice's description hash is H = %s, signed by the seller's node", seller.Hash())
	}
	first, err := g.Transact(ctx, doc, pairing, payer, opts)
	if err != nil {
		return fail("the gate declined:", err)
	}
	if first.Approve == nil {
		return fail("no approval asked")
	}
	amount, _ := first.Approve.Option.GetString("amount")
	say("2. terms fetched and compared; no public proof, so approval is asked for the agreement (node payments so far: %d)", payer.Calls())
	opts.Approved = first.Approve
	paid, err := g.Transact(ctx, doc, pairing, payer, opts)
	if err != nil {
		return fail("the gate declined:", err)
	}
	if paid.Agreement == nil {
		return fail("no agreement receipt")
	}
	say("3. agreement paid (agreement signatures: %d), receipt for %s; node payments: %d", agreer.Calls(), paid.Agreement.ATRHash, payer.Calls())
	cred, ok := jsonv.AsObject(paid.Signed)
	if !ok {
		return fail("the gate returned no credential")
	}
	name, value := mpp.Header(cred)
	resp, body, err := demo.Get(ctx, client, url, name, value)
	if err != nil {
		return fail(err)
	}
	if resp.StatusCode != http.StatusOK {
		return fail("the seller refused the credential:", seller.LastRejection())
	}
	say("4. %s with the preimage: %d, %s", name, resp.StatusCode, string(body[:len(body)-1]))
	if err := s.KeepPayment(paid.Bytes, offer, cred); err != nil {
		return err
	}
	s.Paid(demo.Amount(strconv.Itoa(AmountMsat), lightning.Decimals, "BTC", lightning.Mainnet) + " (21 sat), after an agreement payment of " +
		demo.Amount(amount, 6, "USDC", "eip155:84532"))
	return nil
}

// Network is a seller and the buyer's node on one loopback TLS server.
type Network struct {
	Seller *Seller
	Payer  *Payer
	Server *loopback.Server
}

// Start serves seller and a payer node that can route to its node.
func Start(seller *Seller) (*Network, error) {
	payer := &Payer{Key: PayerKey(), Macaroon: []byte("demo-macaroon"), Receivers: []*Receiver{seller.Node}}
	names := append(append([]string(nil), loopback.DefaultNames...), PayerHost)
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hostOnly(r.Host) == PayerHost {
			payer.ServeHTTP(w, r)
			return
		}
		seller.ServeHTTP(w, r)
	}), names...)
	if err != nil {
		return nil, err
	}
	return &Network{Seller: seller, Payer: payer, Server: srv}, nil
}

// Node dials the payer's node over its REST API.
func (n *Network) Node(ctx context.Context) (*lnd.Node, error) {
	return lnd.Dial(ctx, "https://"+PayerHost, n.Payer.Macaroon, n.Server.Client())
}

func (n *Network) Close() { n.Server.Close() }

// demoX402 pays the seller's x402 Lightning offer: the terms fetched and
// compared, the agreement paid with EIP-3009 and its receipt read, then the
// payer's node pays the invoice and the preimage is the payment.
func demoX402(ctx context.Context, s *demo.Session, pairing string) error {
	say, fail := s.Say, demo.Fail
	seller := New(demo.ATR, DemoBody)
	var p interface {
		Bound(jsonv.Value) (string, error)
	} = lightning.Exact{}
	if pairing == lightning.InvoiceNamedID {
		seller, p = NewNamed(demo.ATR, DemoBody), lightning.InvoiceNamed{}
	}
	net, err := Start(seller)
	if err != nil {
		return fail("cannot start the local seller:", err)
	}
	defer net.Close()
	client := net.Server.Client()
	node, err := net.Node(ctx)
	if err != nil {
		return fail("the payer's node:", err)
	}
	payer := demo.Count(node)
	key, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		return err
	}
	agreer := demo.Count(key)
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}}
	url := seller.ResourceURL()
	say("termsgate demo: a Lightning seller (%s) on %s, TLS, loopback only", pairing, net.Server.Listener.Addr())
	say("payer node: %s (LND REST at https://%s)", node.Account(), PayerHost)
	say("agreement payer: %s (the published Anvil development key)", key.Account())
	say("")
	say("1. GET %s", url)
	resp, _, err := demo.Get(ctx, client, url, "", "")
	if err != nil {
		return fail(err)
	}
	offer := resp.Header.Get("PAYMENT-REQUIRED")
	doc, err := x402.DecodeHeader(offer)
	if resp.StatusCode != http.StatusPaymentRequired || err != nil {
		return fail("the seller did not answer 402 with a readable PAYMENT-REQUIRED:", err)
	}
	if pairing == lightning.InvoiceNamedID {
		say("   402: a BOLT11 invoice for 21 sat with no H in it; the terms at the link (H = %s) name it in their x402 slot", seller.Hash())
	} else {
		say("   402: a BOLT11 invoice for 21 sat whose m field is H = %s, signed by the seller's node", seller.Hash())
	}
	say("2. the gate fetches the terms and compares SHA-256 with H; a Lightning payment is no public proof, so it")
	say("   asks the agreement URL what an agreement costs and returns that for approval, paying nothing")
	opts := &gate.TransactOptions{AgreementSigner: agreer,
		Inputs: jsonv.Obj("request", jsonv.Obj("method", "GET", "url", url))}
	first, err := g.Transact(ctx, doc, pairing, payer, opts)
	if err != nil {
		return fail("the gate declined:", err)
	}
	if first.Approve == nil {
		return fail("no approval asked")
	}
	a := first.Approve
	amount, _ := a.Option.GetString("amount")
	say("   approval asked: %s atomic unit of USDC at %s (node payments so far: %d)", amount, a.URL, payer.Calls())
	say("3. approved: the agreement is paid by EIP-3009 with nonce H and its receipt read; then the node pays the invoice")
	opts.Approved = a
	paid, err := g.Transact(ctx, doc, pairing, payer, opts)
	if err != nil {
		return fail("the gate declined:", err)
	}
	if paid.Agreement == nil {
		return fail("no agreement receipt")
	}
	say("   receipt: agreed to %s (agreement signatures: %d); node payments: %d", paid.Agreement.ATRHash, agreer.Calls(), payer.Calls())
	h, _ := p.Bound(paid.Signed)
	if pairing == lightning.InvoiceNamedID {
		say("4. the payment is the preimage; it echoes the terms' legal context, H = %s, and the terms named its invoice", h)
	} else {
		say("4. the payment is the preimage; the paid invoice's m reads back H = %s", h)
	}
	resp, body, err := demo.Get(ctx, client, url, "PAYMENT-SIGNATURE", x402.EncodeHeader(paid.Signed))
	if err != nil {
		return fail(err)
	}
	if resp.StatusCode != http.StatusOK {
		return fail("the seller refused the payment:", seller.LastRejection())
	}
	say("   the seller checked its node's signature, the preimage, its node's settlement and the agreement: %d, %s",
		resp.StatusCode, string(body[:len(body)-1]))
	if err := s.KeepPayment(paid.Bytes, offer, paid.Signed); err != nil {
		return err
	}
	s.Paid(demo.Amount(strconv.Itoa(AmountMsat), lightning.Decimals, "BTC", lightning.Mainnet) + " (21 sat), after an agreement payment of " +
		demo.Amount(amount, 6, "USDC", "eip155:84532"))
	return nil
}
