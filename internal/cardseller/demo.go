package cardseller

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/card"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	demo.Register(demo.Row{Pairing: card.VisaTAPID, Aliases: []string{"visa-tap"},
		About: "Visa TAP: the agreement paid by EIP-3009 first, then the agent's RFC 9421 payer signature listing lcp-hash, verified under its registered Ed25519 key", Run: demoTAP})
	demo.Register(demo.Row{Pairing: card.VIImmediateID, Aliases: []string{"vi-immediate"},
		About: "Mastercard Verifiable Intent, Immediate: the agreement paid first, then the user's ES256 L2 mandate over the checkout JWT's digest, verified as the network would", Run: demoVIImmediate})
	demo.Register(demo.Row{Pairing: card.VIAutonomousID, Aliases: []string{"vi-autonomous"},
		About: "Mastercard Verifiable Intent, Autonomous: the agreement paid first, then the agent's L3b under the key the user's L2 delegates, every layer verified", Run: demoVIAutonomous})
	demo.Register(demo.Row{Pairing: card.SellerReferenceID, Aliases: []string{"card"},
		About: "the plain card checkout: the agreement paid first; the buyer signs nothing, the processor reference carries lcp:sha256:<H>", Run: demoSellerReference})
	demo.Register(demo.Row{Pairing: card.MPPChargeID, Aliases: []string{"mpp-card"},
		About: "MPP card charge: the agreement paid first; the card wallet's network token, encrypted to the seller, answers the challenge whose id and externalId carry H", Run: demoMPP})
}

// rig is one demo's checkout and keys: the card issuer, the card holder
// and the agent (P-256, made for the run), the agent's TAP key (RFC 9421's
// published test key) and the agreement payer (the Anvil key).
type rig struct {
	s                   *demo.Session
	seller              *Seller
	srv                 *loopback.Server
	client              *http.Client
	g                   *gate.Gate
	payer               *demo.Counting
	issuer, user, agent *ecdsa.PrivateKey
	tapKey              ed25519.PrivateKey
}

func newRig(s *demo.Session) (*rig, error) {
	r := &rig{s: s}
	for _, k := range []**ecdsa.PrivateKey{&r.issuer, &r.user, &r.agent} {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, err
		}
		*k = key
	}
	var err error
	if r.tapKey, err = signer.Ed25519FromPEM(signer.RFC9421TestKeyEd25519); err != nil {
		return nil, err
	}
	if r.seller, err = New(demo.ATR, &r.issuer.PublicKey, r.tapKey.Public().(ed25519.PublicKey)); err != nil {
		return nil, err
	}
	if r.srv, err = loopback.Start(r.seller); err != nil {
		return nil, demo.Fail("cannot start the local seller:", err)
	}
	r.client = r.srv.Client()
	wallet, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		return nil, err
	}
	r.payer = demo.Count(wallet)
	r.g = &gate.Gate{Fetcher: &atr.Fetcher{Client: r.client}}
	return r, nil
}

// transact runs the gate twice, as an agent does: the first call asks for
// the agreement's approval, the second pays it, waits for its receipt and
// then signs the card step with main (nothing, for a confirm-only pairing).
func (r *rig) transact(ctx context.Context, doc jsonv.Value, pairing string, main rails.Signer) (*gate.Transacted, error) {
	say := r.s.Say
	say("2. the gate fetches the terms and compares SHA-256 with H; a card payment is no public proof, so it asks the")
	say("   agreement URL what an agreement costs and returns that for approval, signing nothing")
	opts := &gate.TransactOptions{AgreementSigner: r.payer}
	first, err := r.g.Transact(ctx, doc, pairing, main, opts)
	if err != nil || first.Approve == nil {
		return nil, demo.Fail("no approval asked:", err)
	}
	a := first.Approve
	amount, _ := a.Option.GetString("amount")
	network, _ := a.Option.GetString("network")
	say("   approval asked: %s atomic units on %s at %s (signer calls so far: %d)", amount, network, a.URL, r.payer.Calls())
	say("3. the agent approves; the gate pays the agreement by EIP-3009 with nonce H and waits for its receipt")
	opts.Approved = a
	paid, err := r.g.Transact(ctx, doc, pairing, main, opts)
	if err != nil {
		return nil, demo.Fail("not paid:", err)
	}
	if paid.Agreement == nil {
		return nil, demo.Fail("no agreement receipt")
	}
	say("   receipt: agreed to %s, recorded in %s on %s (agreement signatures: %d)",
		paid.Agreement.ATRHash, paid.Agreement.Transaction, paid.Agreement.Network, r.payer.Calls())
	return paid, nil
}

func (r *rig) get(ctx context.Context, path string) (jsonv.Value, []byte, error) {
	resp, body, err := demo.Get(ctx, r.client, r.seller.URL(path), "", "")
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, demo.Fail("the checkout answered", resp.Status)
	}
	v, err := jsonv.Parse(body)
	if err != nil {
		return nil, nil, demo.Fail("the checkout's document:", err)
	}
	return v, body, nil
}

// post sends a card step to the checkout; the answer is the processor's
// record of the charge.
func (r *rig) post(ctx context.Context, header http.Header, body []byte) (*jsonv.Object, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.seller.URL("/checkout/pay"), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, err
	}
	out := demo.Read(resp)
	if resp.StatusCode != http.StatusOK {
		return nil, demo.Fail("the seller refused the card step:", r.seller.LastRejection())
	}
	v, err := jsonv.Parse(out)
	o, ok := jsonv.AsObject(v)
	if err != nil || !ok {
		return nil, demo.Fail("the seller's record is not JSON")
	}
	return o, nil
}

func (r *rig) close() { r.srv.Close() }

func (r *rig) intro(what, signs string) {
	r.s.Say("termsgate demo: %s on %s, TLS, loopback only", what, r.srv.Listener.Addr())
	r.s.Say("card step: %s", signs)
	r.s.Say("agreement payer: %s (the published Anvil development key)", r.payer.Account())
	r.s.Say("")
}

// closing says what the processor recorded, the card masked.
func (r *rig) closing(rec *jsonv.Object, how string) {
	ref, _ := rec.GetString("reference")
	last, _ := rec.GetString("panLastFour")
	card4 := ""
	if last != "" {
		card4 = ", card •••• " + last
	}
	r.s.Say("   the processor recorded %s USD cents, reference %s%s", fmtAmount(rec), ref, card4)
	r.s.Paid("27.99 USD by " + how + ", after an agreement payment of " + demo.Amount("1", 6, "USDC", "eip155:84532"))
}

func fmtAmount(rec *jsonv.Object) string { a, _ := rec.GetString("amount"); return a }

func demoTAP(ctx context.Context, s *demo.Session) error {
	r, err := newRig(s)
	if err != nil {
		return err
	}
	defer r.close()
	agent := demo.Count(&signer.TAP{Key: r.tapKey, KeyID: "test-key-ed25519", Authority: r.seller.Authority(), Path: "/checkout/pay",
		Acct: "card:visa:agent-1"})
	r.intro("a Visa TAP checkout ("+card.VisaTAPID+")", "the agent's RFC 9421 message signature, Ed25519, RFC 9421's test key as its registered key")
	say := s.Say
	say("1. GET %s", r.seller.URL("/checkout/visa-tap"))
	doc, body, err := r.get(ctx, "/checkout/visa-tap")
	if err != nil {
		return err
	}
	say("   the checkout shows its legal context: H = %s and an agreement URL", r.seller.Hash())
	paid, err := r.transact(ctx, doc, card.VisaTAPID, agent)
	if err != nil {
		return err
	}
	p, _ := jsonv.AsObject(paid.Signed)
	si, _ := p.GetString("signatureInput")
	sig, _ := p.GetString("signature")
	say("4. the agent signed the lcp-hash field into its agent-payer-auth signature: Signature-Input %s", si)
	hdr := http.Header{}
	hdr.Set("Signature-Input", si)
	hdr.Set("Signature", sig)
	lv, _ := p.Get("lcpHash")
	for _, l := range lv.([]jsonv.Value) {
		line, _ := l.(string)
		hdr.Add(card.TAPField, line)
	}
	rec, err := r.post(ctx, hdr, nil)
	if err != nil {
		return err
	}
	say("   the seller's TAP recognition verified the signature under the agent's key, checked the hash it covers and the")
	say("   recorded agreement (agent signatures: %d)", agent.Calls())
	r.closing(rec, "Visa card (agent TAP signature)")
	return s.KeepPayment(paid.Bytes, string(body), paid.Signed)
}

func (r *rig) l1() (string, error) {
	return card.IssueL1(r.issuer, "https://issuer.example", "user-1", &r.user.PublicKey, time.Now().Unix(), time.Now().Add(365*24*time.Hour).Unix(), "4444", "Mastercard")
}

var merchant = jsonv.Obj("id", "merch_1001", "name", "Seller Example", "website", "https://seller.example")

func demoVIImmediate(ctx context.Context, s *demo.Session) error {
	r, err := newRig(s)
	if err != nil {
		return err
	}
	defer r.close()
	l1, err := r.l1()
	if err != nil {
		return err
	}
	r.seller.Enroll(l1)
	wallet := demo.Count(&signer.VIWallet{User: r.user, L1: l1, Instrument: jsonv.Obj("type", "mastercard.srcDigitalCard", "id", "card-4444"),
		Payee: merchant, Currency: "USD", Amount: Amount, Audience: "https://network.example/vi", Acct: "card:mastercard:user-1"})
	r.intro("a Mastercard Verifiable Intent checkout ("+card.VIImmediateID+")", "the user's wallet signs L2 (ES256) over the checkout mandate")
	return r.runVI(ctx, card.VIImmediateID, wallet, "Mastercard card (the user's L2 mandate)")
}

func demoVIAutonomous(ctx context.Context, s *demo.Session) error {
	r, err := newRig(s)
	if err != nil {
		return err
	}
	defer r.close()
	l1, err := r.l1()
	if err != nil {
		return err
	}
	open, err := card.OpenCheckoutMandate(&r.agent.PublicKey, "agent-1", merchant)
	if err != nil {
		return err
	}
	now := time.Now().Unix()
	l2, err := card.Layer(r.user, jsonv.Obj("alg", "ES256", "typ", card.TypUserDelegate),
		card.LayerClaims(rails.NewRef(), "https://agent.example", now, now+30*24*3600, l1), open)
	if err != nil {
		return err
	}
	agent := demo.Count(&signer.VIAgent{Agent: r.agent, Kid: "agent-1", L1: l1, L2: l2, Audience: "https://seller.example", Acct: "card:mastercard:agent-1"})
	r.intro("a Mastercard Verifiable Intent checkout ("+card.VIAutonomousID+")", "the agent signs L3b (ES256) with the key the user's L2 delegated to it")
	return r.runVI(ctx, card.VIAutonomousID, agent, "Mastercard card (the agent's L3b mandate)")
}

func (r *rig) runVI(ctx context.Context, pairing string, sg *demo.Counting, how string) error {
	say := r.s.Say
	say("1. GET %s", r.seller.URL("/checkout/mastercard-vi"))
	doc, body, err := r.get(ctx, "/checkout/mastercard-vi")
	if err != nil {
		return err
	}
	say("   the checkout JWT, signed by the merchant, carries H = %s and an agreement URL", r.seller.Hash())
	paid, err := r.transact(ctx, doc, pairing, sg)
	if err != nil {
		return err
	}
	say("4. the mandate's checkout_hash is the checkout JWT's digest; the seller checks it and verifies the layers as the")
	say("   network would (signer calls: %d)", sg.Calls())
	rec, err := r.post(ctx, nil, jsonv.Marshal(paid.Signed))
	if err != nil {
		return err
	}
	r.closing(rec, how)
	return r.s.KeepPayment(paid.Bytes, string(body), paid.Signed)
}

func demoSellerReference(ctx context.Context, s *demo.Session) error {
	r, err := newRig(s)
	if err != nil {
		return err
	}
	defer r.close()
	nobody := demo.Count(&noSigner{account: "card:visa:buyer-1"})
	r.intro("a plain card checkout ("+card.SellerReferenceID+")", "none for the gate: the buyer pays by card, the seller places the hash in its processor reference")
	say := s.Say
	say("1. GET %s", r.seller.URL("/checkout/seller-reference"))
	doc, body, err := r.get(ctx, "/checkout/seller-reference")
	if err != nil {
		return err
	}
	say("   the checkout shows its legal context: H = %s and an agreement URL", r.seller.Hash())
	paid, err := r.transact(ctx, doc, card.SellerReferenceID, nobody)
	if err != nil {
		return err
	}
	if paid.Signed != nil || nobody.Calls() != 0 {
		return demo.Fail("the gate signed something for a confirm-only pairing")
	}
	say("4. the gate signed nothing (signer calls: %d); the buyer pays with card %s", nobody.Calls(), card.MaskCard(VisaTestPAN))
	rec, err := r.post(ctx, nil, jsonv.Marshal(jsonv.Obj("pan", VisaTestPAN, "exp", "12/30")))
	if err != nil {
		return err
	}
	r.closing(rec, "Visa card (the seller's processor reference)")
	return s.KeepPayment(paid.Bytes, string(body), rec)
}

func demoMPP(ctx context.Context, s *demo.Session) error {
	r, err := newRig(s)
	if err != nil {
		return err
	}
	defer r.close()
	nobody := demo.Count(&noSigner{account: "card:visa:buyer-1"})
	r.intro("an MPP card charge ("+card.MPPChargeID+")", "none for the gate: the card wallet's network token, encrypted to the seller's key")
	say := s.Say
	url := r.seller.URL("/checkout/mpp")
	say("1. GET %s", url)
	unpaid, doc, _, err := demo.MPPOffer(ctx, r.client, r.g, url, card.MPPChargeID)
	if err != nil {
		return err
	}
	say("   402: an MPP card challenge whose id and request.externalId carry H = %s, and an agreement URL", r.seller.Hash())
	paid, err := r.transact(ctx, doc, card.MPPChargeID, nobody)
	if err != nil {
		return err
	}
	if paid.Signed != nil || nobody.Calls() != 0 {
		return demo.Fail("the gate signed something for a confirm-only pairing")
	}
	read, err := mpp.Read(doc)
	if err != nil {
		return err
	}
	ch, _ := jsonv.AsObject(read.Options[0])
	req, _ := mpp.DecodeObject(mpp.String(ch, "request"))
	d, _ := req.GetObject("methodDetails")
	n, ok := new(big.Int).SetString(b64ToHex(mpp.String(d, "encryptionKey")), 16)
	if !ok {
		return demo.Fail("the challenge names no encryption key")
	}
	enc, err := EncryptToken(&rsa.PublicKey{N: n, E: 65537}, NetworkToken)
	if err != nil {
		return err
	}
	cred := jsonv.Obj("challenge", ch, "payload", jsonv.Obj("network", "visa", "panLastFour", VisaTestPAN[12:], "encryptedPayload", enc))
	say("4. the gate signed nothing (signer calls: %d); the card wallet answers with its network token %s, encrypted", nobody.Calls(), card.MaskCard(NetworkToken))
	name, value := mpp.Header(cred)
	resp, body, err := demo.Get(ctx, r.client, url, name, value)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return demo.Fail("the seller refused the card credential:", r.seller.LastRejection())
	}
	v, err := jsonv.Parse(body)
	rec, ok := jsonv.AsObject(v)
	if err != nil || !ok {
		return demo.Fail("the seller's record is not JSON")
	}
	r.closing(rec, "Visa network token (MPP card charge)")
	return s.KeepPayment(paid.Bytes, strings.Join(unpaid.Header.Values("WWW-Authenticate"), "\n"), cred)
}

func b64ToHex(s string) string {
	b, err := base64RawURL(s)
	if err != nil {
		return ""
	}
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// noSigner names the buyer of a confirm-only pairing; it signs nothing.
type noSigner struct{ account string }

func (n *noSigner) Account() string { return n.account }
func (n *noSigner) Sign(context.Context, rails.Request) (jsonv.Value, error) {
	return nil, demo.Fail("a confirm-only pairing asked for a signature")
}
