package solanaseller

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	solanago "github.com/gagliardetto/solana-go"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/terms"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/x402"
)

func init() {
	demo.Register(demo.Row{Pairing: solana.BatchID, Aliases: []string{"batch-solana"},
		About: "a channel whose opening memo carries H: open, a voucher, the close; verified with solana-go", Run: demoBatchSolana})
}

// solanaBatchPrice is what the Solana channel seller charges a request.
const solanaBatchPrice = 1000

// solanaChannel is what the seller keeps of an open channel.
type solanaChannel struct {
	authorizer solanago.PublicKey
	payer      solanago.PublicKey
	claimable  uint64
}

// Batch sells each request under x402/batch-settlement/solana
// and checks a payment as its facilitator and the payment-channels program
// would, with solana-go (an implementation independent of the gate's): the
// opening's payer signature over the message; its one memo carrying the
// hash of the terms it serves; its one open instruction, whose channel
// account is the program-derived address of the configuration the payment
// states and whose deposit is the one stated; every voucher's Ed25519
// signature by the channel's authorizer over exactly the channel and a
// cumulative amount raised by the price; and a close's request_close by the
// payer for the held channel. It co-signs what it would send as fee payer
// and then verifies every signature.
type Batch struct {
	terms.Record
	feePayer solanago.PrivateKey
	mu       sync.Mutex
	channels map[string]*solanaChannel
	lastErr  error
	sent     []string // the transactions co-signed, by signature
}

func (s *Batch) required() (*jsonv.Object, error) {
	h := s.Hash()
	option := jsonv.Obj("scheme", "batch-settlement", "network", Devnet, "amount", strconv.Itoa(solanaBatchPrice),
		"asset", Mint, "payTo", PayTo, "maxTimeoutSeconds", 300,
		"extra", jsonv.Obj("feePayer", s.feePayer.PublicKey().String(), "withdrawDelay", 3600, "tokenProgram", solana.TokenProgram.String()))
	option, err := solana.PlaceCarrier(option, h)
	if err != nil {
		return nil, err
	}
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://api.seller.example/v1/feed"), "accepts", []jsonv.Value{option})
	return x402.Advertise(doc, h, "https://atr.seller.example/"+h.String(), "")
}

func (s *Batch) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.Route(w, r, "atr.seller.example", "api.seller.example", func(w http.ResponseWriter, r *http.Request) {
		terms.ServeX402(w, r, &s.mu, &s.lastErr, s.accept, s.required, []byte(`{"tick":"SOL/USD 212.40"}`))
	})
}

// solanaConfig is a payment's channelConfig read by the seller.
type solanaConfig struct {
	payer, authorizer, mint solanago.PublicKey
	salt, openSlot          uint64
}

func readSolanaConfig(payload *jsonv.Object) (solanaConfig, error) {
	cfg, _ := payload.GetObject("channelConfig")
	var c solanaConfig
	var err error
	for _, f := range []struct {
		k   string
		dst *solanago.PublicKey
	}{{"payer", &c.payer}, {"payerAuthorizer", &c.authorizer}, {"token", &c.mint}} {
		v, _ := cfg.GetString(f.k)
		if *f.dst, err = solanago.PublicKeyFromBase58(v); err != nil {
			return c, fmt.Errorf("channelConfig.%s is not a key", f.k)
		}
	}
	salt, _ := cfg.GetString("salt")
	if c.salt, err = strconv.ParseUint(salt, 10, 64); err != nil {
		return c, errors.New("channelConfig.salt is not a u64")
	}
	sv, _ := cfg.Get("openSlot")
	slot, ok := jsonv.AsSafeInt(sv)
	if !ok || slot < 0 {
		return c, errors.New("channelConfig.openSlot is not a slot")
	}
	c.openSlot = uint64(slot)
	if c.mint.String() != Mint {
		return c, errors.New("the channel is not in this seller's mint")
	}
	return c, nil
}

// address is the channel's program-derived address, as the program
// derives it: seeds "channel", payer, payee (this fee payer), mint, voucher
// signer, salt and opening slot.
func (s *Batch) address(c solanaConfig) (solanago.PublicKey, error) {
	salt, slot := make([]byte, 8), make([]byte, 8)
	binary.LittleEndian.PutUint64(salt, c.salt)
	binary.LittleEndian.PutUint64(slot, c.openSlot)
	program := solanago.MustPublicKeyFromBase58(solana.ChannelProgram.String())
	pda, _, err := solanago.FindProgramAddress([][]byte{[]byte("channel"), c.payer[:], s.feePayer.PublicKey().Bytes(), c.mint[:], c.authorizer[:], salt, slot}, program)
	return pda, err
}

// checkVoucher verifies a voucher: it names channel, allows exactly want,
// never expires, and its signature is authorizer's over the 50 bytes the
// program checks.
func checkSolanaVoucher(payload *jsonv.Object, channel, authorizer solanago.PublicKey, want uint64) error {
	v, ok := payload.GetObject("voucher")
	if !ok {
		return errors.New("the payment has no voucher")
	}
	id, _ := v.GetString("channelId")
	amount, _ := v.GetString("maxClaimableAmount")
	exp, _ := v.Get("expiresAt")
	sigText, _ := v.GetString("signature")
	if id != channel.String() {
		return fmt.Errorf("the voucher names channel %q, not %s", id, channel)
	}
	if amount != strconv.FormatUint(want, 10) || exp != jsonv.Number(0) {
		return fmt.Errorf("the voucher allows %q, the request is priced at a cumulative %d", amount, want)
	}
	sig, err := solanago.SignatureFromBase58(sigText)
	if err != nil {
		return errors.New("the voucher's signature is not base58")
	}
	msg := append([]byte{0x56, 0x01}, channel[:]...)
	msg = binary.LittleEndian.AppendUint64(msg, want)
	msg = binary.LittleEndian.AppendUint64(msg, 0)
	if !sig.Verify(authorizer, msg) {
		return errors.New("the voucher's signature is not the channel authorizer's")
	}
	return nil
}

// channelIx is the transaction's one payment-channels instruction and the
// account at position pos of it.
func channelIx(tx *solanago.Transaction, pos int) (solanago.CompiledInstruction, solanago.PublicKey, error) {
	keys := tx.Message.AccountKeys
	var found []solanago.CompiledInstruction
	for _, ix := range tx.Message.Instructions {
		if int(ix.ProgramIDIndex) < len(keys) && keys[ix.ProgramIDIndex].String() == solana.ChannelProgram.String() {
			found = append(found, ix)
		}
	}
	if len(found) != 1 || len(found[0].Accounts) <= pos || int(found[0].Accounts[pos]) >= len(keys) || len(found[0].Data) == 0 {
		return solanago.CompiledInstruction{}, solanago.PublicKey{}, errors.New("not one channel instruction")
	}
	return found[0], keys[found[0].Accounts[pos]], nil
}

// cosign verifies the payer's signature, signs as fee payer and verifies
// every signature: what the cluster checks before it runs the transaction.
func (s *Batch) cosign(tx *solanago.Transaction, payer solanago.PublicKey) error {
	msg, err := tx.Message.MarshalBinary()
	if err != nil {
		return err
	}
	keys := tx.Message.AccountKeys
	if len(tx.Signatures) != 2 || len(keys) < 2 || !keys[0].Equals(s.feePayer.PublicKey()) || !keys[1].Equals(payer) {
		return errors.New("not a transaction for this fee payer and the channel's payer")
	}
	if !tx.Signatures[1].Verify(payer, msg) {
		return errors.New("the payer's signature does not verify")
	}
	sig, err := s.feePayer.Sign(msg)
	if err != nil {
		return err
	}
	tx.Signatures[0] = sig
	if err := tx.VerifySignatures(); err != nil {
		return err
	}
	s.sent = append(s.sent, sig.String())
	return nil
}

func (s *Batch) accept(header string) error {
	payment, err := x402.DecodeHeader(header)
	if err != nil {
		return err
	}
	payload, _ := payment.GetObject("payload")
	c, err := readSolanaConfig(payload)
	if err != nil {
		return err
	}
	channel, err := s.address(c)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	held := s.channels[channel.String()]
	switch t, _ := payload.GetString("type"); {
	case t == "deposit" && held == nil:
		return s.open(payload, c, channel)
	case t == "deposit":
		return errors.New("this channel is already open") // a replayed opening would reset what is claimable
	case held == nil:
		return errors.New("no such channel")
	case t == "voucher":
		want := held.claimable + solanaBatchPrice
		if err := checkSolanaVoucher(payload, channel, held.authorizer, want); err != nil {
			return err
		}
		held.claimable = want
		return nil
	case t == "refund":
		text, _ := payload.GetString("transaction")
		tx, err := solanago.TransactionFromBase64(text)
		if err != nil {
			return fmt.Errorf("solana-go cannot read the close: %w", err)
		}
		ix, named, err := channelIx(tx, 1)
		if err != nil || ix.Data[0] != 5 || !named.Equals(channel) {
			return errors.New("the close is not request_close of this channel")
		}
		if err := s.cosign(tx, held.payer); err != nil {
			return err
		}
		delete(s.channels, channel.String())
		return nil
	}
	return errors.New("this seller takes openings, vouchers and the close")
}

// open checks an opening: the transaction, its memo, its open instruction
// and the first voucher.
func (s *Batch) open(payload *jsonv.Object, c solanaConfig, channel solanago.PublicKey) error {
	deposit, _ := payload.GetObject("deposit")
	text, _ := deposit.GetString("transaction")
	amountText, _ := deposit.GetString("amount")
	tx, err := solanago.TransactionFromBase64(text)
	if err != nil {
		return fmt.Errorf("solana-go cannot read the opening: %w", err)
	}
	keys := tx.Message.AccountKeys
	memos := 0
	for _, ix := range tx.Message.Instructions {
		if int(ix.ProgramIDIndex) >= len(keys) {
			return errors.New("a program index outside the keys")
		}
		switch keys[ix.ProgramIDIndex].String() {
		case solana.MemoV3.String(), solana.MemoV4.String():
			memos++
			if string(ix.Data) != solana.Carrier(s.Hash()) {
				return errors.New("the memo does not carry the hash of these terms")
			}
		}
	}
	if memos != 1 {
		return fmt.Errorf("%d memos, want one carrying the hash of these terms", memos)
	}
	ix, named, err := channelIx(tx, 5)
	if err != nil || ix.Data[0] != 1 || len(ix.Data) != 67 || len(ix.Accounts) != 14 {
		return errors.New("the opening has no open instruction")
	}
	if !named.Equals(channel) {
		return errors.New("the open instruction's channel is not the address of the stated configuration")
	}
	deposited := binary.LittleEndian.Uint64(ix.Data[9:17])
	if strconv.FormatUint(deposited, 10) != amountText || deposited < solanaBatchPrice {
		return fmt.Errorf("the open instruction deposits %d, the payment states %q", deposited, amountText)
	}
	if err := checkSolanaVoucher(payload, channel, c.authorizer, solanaBatchPrice); err != nil {
		return err
	}
	if err := s.cosign(tx, c.payer); err != nil {
		return err
	}
	if s.channels == nil {
		s.channels = map[string]*solanaChannel{}
	}
	s.channels[channel.String()] = &solanaChannel{authorizer: c.authorizer, payer: c.payer, claimable: solanaBatchPrice}
	return nil
}

// demoBatchSolana opens an x402/batch-settlement/solana channel, pays a
// second request inside it with a voucher, and closes it, each checked by
// the seller with solana-go.
func demoBatchSolana(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	seller := &Batch{feePayer: FeePayer()}
	seller.SetATR(demo.ATR)
	node := DemoNode(341000000)
	rig, err := startSolanaRig(node, seller)
	if err != nil {
		return fail(err)
	}
	defer rig.srv.Close()
	srv, client, key, wallet, g, rpc := rig.srv, rig.client, rig.key, rig.wallet, rig.gate, rig.rpc
	const resource = "https://api.seller.example/v1/feed"
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
	refused := func() error {
		seller.mu.Lock()
		defer seller.mu.Unlock()
		return seller.lastErr
	}
	say("termsgate demo: an x402 batch-settlement seller (%s) on %s, TLS, loopback only", solana.BatchID, srv.Listener.Addr())
	say("payer and voucher authorizer: %s (the published seed 01×32; never hold value with it)", key.Account())
	say("")
	say("1. GET %s: 402, %d units a request, paid from a channel", resource, solanaBatchPrice)
	_, doc, err := get("")
	firstDoc := doc
	if err != nil || doc == nil {
		return fail("no readable 402:", err)
	}
	inputs, err := rpc.BatchInputs(ctx, Mint, key.Key().String())
	if err != nil {
		return fail(err)
	}
	inputs.Set("deposit", "100000")
	say("2. the buyer's chain reads from a Solana JSON-RPC node (the mint's program, getSlot, getLatestBlockhash): %s", jsonv.Marshal(inputs))
	say("   the gate fetches the terms, compares SHA-256 with H, and opens a channel whose opening memo carries H:")
	opened, err := g.Transact(ctx, doc, solana.BatchID, wallet, &gate.TransactOptions{Inputs: inputs})
	if err != nil {
		return fail("not opened:", err)
	}
	hold, err := g.OpenChannel(opened.Bytes, solana.BatchID, opened.Signed, nil)
	if err != nil {
		return fail(err)
	}
	say("   signer calls: %d, a batch: the open transaction (deposit 100000) and the first voucher (%d)", wallet.Calls(), solanaBatchPrice)
	say("   channel %s, H = %s in the opening's memo", hold.Channel, hold.H)
	if status, _, err := get(x402.EncodeHeader(opened.Signed)); err != nil || status != http.StatusOK {
		return fail("the seller refused the opening:", refused(), err)
	}
	say("   the seller read it with solana-go: payer signature, memo, the channel address derived from the configuration,")
	say("   the deposit and the voucher signature; co-signed as fee payer: 200")
	hold, _ = gate.RecordCharge(hold, strconv.Itoa(solanaBatchPrice))
	say("3. the next request: 402 again; Within signs a voucher for %d in the held channel, nothing fetched", 2*solanaBatchPrice)
	_, doc, _ = get("")
	before := wallet.Calls()
	next, err := g.Within(ctx, doc, hold, solana.BatchID, wallet, nil, nil)
	if err != nil {
		return fail("no voucher:", err)
	}
	if status, _, err := get(x402.EncodeHeader(next.Signed)); err != nil || status != http.StatusOK {
		return fail("the seller refused the voucher:", refused(), err)
	}
	hold, _ = gate.RecordCharge(next.Hold, strconv.Itoa(2*solanaBatchPrice))
	say("   signer calls: %d; the voucher's Ed25519 signature verified for the channel's authorizer: 200; charged %s of %s signed", wallet.Calls()-before, hold.Charged, hold.SignedMax)
	say("4. the seller's next 402 advertises other terms' hash")
	seller.SetATR(demo.Changed(demo.ATR))
	_, changed, _ := get("")
	before = wallet.Calls()
	_, err = g.Within(ctx, changed, hold, solana.BatchID, wallet, nil, nil)
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.HashMismatch {
		return fail("the changed terms were not declined:", err)
	}
	say("   declined %s (%s); signer calls for it: %d", d.Code, d.Detail, wallet.Calls()-before)
	say("5. the terms are back; the buyer closes the channel (refund {}): a request_close transaction, its blockhash from the node")
	seller.SetATR(demo.ATR)
	_, doc, _ = get("")
	bh, _, err := rpc.LatestBlockhash(ctx)
	if err != nil {
		return fail(err)
	}
	before = wallet.Calls()
	closed, err := g.Within(ctx, doc, hold, solana.BatchID, wallet, &gate.Refund{}, jsonv.Obj("recentBlockhash", bh))
	if err != nil {
		return fail("not closed:", err)
	}
	if status, _, err := get(x402.EncodeHeader(closed.Signed)); err != nil || status != http.StatusOK {
		return fail("the seller refused the close:", refused(), err)
	}
	say("   signer calls: %d; the seller verified the payer's signature and co-signed: 200", wallet.Calls()-before)
	if err := s.KeepPayment(opened.Bytes, x402.EncodeHeader(firstDoc), opened.Signed); err != nil {
		return err
	}
	s.Paid(demo.Amount(hold.Charged, 6, "USDC", Devnet) + " in two vouchers, the channel opened and closed")
	return nil
}
