package solanaseller

import (
	"context"
	"crypto/ed25519"
	"encoding/binary"
	"encoding/hex"
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
	demo.Register(demo.Row{Pairing: solana.UptoID, Aliases: []string{"upto-solana"},
		About: "up to 0.01 USDC escrowed in a one-request channel whose opening memo carries H; the seller meters 0.004 and verifies with solana-go",
		Run:   runUpto})
}

// The upto demo's option: a maximum of 10000 units, 4000 charged.
const (
	uptoMaximum  = 10000
	uptoCharged  = 4000
	uptoAuthSeed = "0303030303030303030303030303030303030303030303030303030303030303"
	uptoDelay    = 3600
)

// Upto sells under x402/upto/solana and checks a payment as its
// facilitator would before co-signing and sending the opening: with
// solana-go it decodes the wire, verifies the payer's signature, finds the
// one memo carrying the hash of the terms it serves and the one open
// instruction escrowing its maximum for its payee, into the channel whose
// address the payload's values derive (seeds as the program's), then
// co-signs as fee payer and verifies every signature. It records what it
// would charge from the escrow; it sends nothing.
type Upto struct {
	terms.Record
	feePayer   solanago.PrivateKey
	authorizer solanago.PrivateKey
	body       []byte
	mu         sync.Mutex
	lastErr    error
	landed     string
}

// NewUpto returns a seller of body under terms atrBytes.
func NewUpto(atrBytes, body []byte) *Upto {
	s := &Upto{feePayer: FeePayer(), authorizer: seedKey(uptoAuthSeed), body: body}
	s.SetATR(atrBytes)
	return s
}

// seedKey is the key of a published seed (hex).
func seedKey(hexSeed string) solanago.PrivateKey {
	seed, _ := hex.DecodeString(hexSeed)
	return solanago.PrivateKey(ed25519.NewKeyFromSeed(seed))
}

func (s *Upto) required() (*jsonv.Object, error) {
	h := s.Hash()
	option := jsonv.Obj("scheme", "upto", "network", Devnet, "amount", strconv.Itoa(uptoMaximum), "asset", Mint, "payTo", PayTo,
		"maxTimeoutSeconds", 60, "extra", jsonv.Obj("feePayer", s.feePayer.PublicKey().String(),
			"receiverAuthorizer", s.authorizer.PublicKey().String(), "withdrawDelay", uptoDelay,
			"tokenProgram", solana.TokenProgram.String(), "paymentFlow", "escrow"))
	option, err := solana.PlaceUptoCarrier(option, h)
	if err != nil {
		return nil, err
	}
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://api.seller.example/v1/quote"), "accepts", []jsonv.Value{option})
	return x402.Advertise(doc, h, "https://atr.seller.example/"+h.String(), "")
}

func (s *Upto) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.Route(w, r, "atr.seller.example", "api.seller.example", func(w http.ResponseWriter, r *http.Request) {
		doc, err := s.required()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if header := r.Header.Get("PAYMENT-SIGNATURE"); header != "" {
			err := s.settle(header)
			s.mu.Lock()
			s.lastErr = err
			s.mu.Unlock()
			if err == nil {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(s.body)
				return
			}
		}
		w.Header().Set("PAYMENT-REQUIRED", x402.EncodeHeader(doc))
		w.WriteHeader(http.StatusPaymentRequired)
	})
}

func (s *Upto) settle(header string) error {
	payment, err := x402.DecodeHeader(header)
	if err != nil {
		return err
	}
	payload, _ := payment.GetObject("payload")
	text, _ := payload.GetString("openTransaction")
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
	payer, err := solanago.PublicKeyFromBase58(mustGet(payload, "from"))
	if err != nil {
		return err
	}
	salt, err1 := strconv.ParseUint(mustGet(payload, "nonce"), 10, 64)
	slotV, _ := payload.Get("openSlot")
	slot, ok := jsonv.AsSafeInt(slotV)
	if err1 != nil || !ok || slot < 0 {
		return errors.New("the payload's nonce or openSlot does not read")
	}
	program := solanago.MustPublicKeyFromBase58(solana.ChannelProgram.String())
	mint := solanago.MustPublicKeyFromBase58(Mint)
	auth := s.authorizer.PublicKey()
	pda, _, err := solanago.FindProgramAddress([][]byte{[]byte("channel"), payer[:], s.feePayer.PublicKey().Bytes(), mint[:], auth[:],
		binary.LittleEndian.AppendUint64(nil, salt), binary.LittleEndian.AppendUint64(nil, uint64(slot))}, program)
	if err != nil || !named.Equals(pda) || mustGet(payload, "channelId") != pda.String() {
		return errors.New("the open instruction's channel is not the address the payload's values derive")
	}
	var recipient solanago.PublicKey
	copy(recipient[:], ix.Data[33:65])
	if deposit := binary.LittleEndian.Uint64(ix.Data[9:17]); deposit != uptoMaximum || recipient.String() != PayTo ||
		binary.LittleEndian.Uint32(ix.Data[17:21]) != uptoDelay {
		return errors.New("the open instruction is not this seller's maximum, payee and delay")
	}
	msg, err := tx.Message.MarshalBinary()
	if err != nil {
		return err
	}
	if len(tx.Signatures) != 2 || !keys[0].Equals(s.feePayer.PublicKey()) || !keys[1].Equals(payer) || !tx.Signatures[1].Verify(payer, msg) {
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
	s.mu.Lock()
	s.landed = sig.String()
	s.mu.Unlock()
	return nil
}

func mustGet(o *jsonv.Object, k string) string { s, _ := o.GetString(k); return s }

// runUpto pays the upto seller: its option from the 402, the buyer's
// channel inputs, the gate's checks and one signature over the opening,
// the seller's solana-go checks; then the lying link, declined unsigned.
func runUpto(ctx context.Context, s *demo.Session) error {
	seller := NewUpto(demo.ATR, []byte(`{"quote":"SOL/USD 212.40","as_of":"2026-12-01"}`))
	rig, err := startSolanaRig(DemoNode(341000000), seller)
	if err != nil {
		return demo.Fail(err)
	}
	defer rig.srv.Close()
	const resource = "https://api.seller.example/v1/quote"
	s.Say("termsgate demo (x402/upto/solana): a seller on %s (TLS, loopback only) sells %s", rig.srv.Listener.Addr(), resource)
	s.Say("payer: %s (the published seed 01×32; never hold value with it)", rig.key.Account())
	s.Say("")
	s.Say("1. GET %s", resource)
	resp, _, err := demo.Get(ctx, rig.client, resource, "", "")
	if err != nil {
		return err
	}
	doc, err := x402.DecodeHeader(resp.Header.Get("PAYMENT-REQUIRED"))
	if resp.StatusCode != http.StatusPaymentRequired || err != nil {
		return demo.Fail("no readable 402:", err)
	}
	s.Say("   402: up to %d atomic units of %s on %s, escrowed; extra.memo = %s", uptoMaximum, Mint, Devnet, solana.Carrier(seller.Hash()))
	inputs, err := rig.rpc.InputsFor(ctx, solana.UptoID, doc, rig.key.Account())
	if err != nil || inputs == nil {
		return demo.Fail("no chain reads:", err)
	}
	s.Say("2. the buyer's inputs from a Solana JSON-RPC node (getAccountInfo of the mint, getSlot, getLatestBlockhash) and a")
	s.Say("   fresh channel nonce: %s", jsonv.Marshal(inputs))
	s.Say("   the gate fetches the terms, compares SHA-256 with H, builds the opening with that memo, and signs")
	paid, err := rig.gate.Transact(ctx, doc, solana.UptoID, rig.wallet, &gate.TransactOptions{Inputs: inputs})
	if err != nil {
		return demo.Fail("not paid:", err)
	}
	in, _ := solana.Upto{}.Inspect(paid.Signed)
	s.Say("   signed (signer calls: %d); the opening escrows the maximum %s and its one memo carries H = %s", rig.wallet.Calls(), in.Grant.Amount, in.H)
	s.Say("3. the same GET with PAYMENT-SIGNATURE")
	resp, body, err := demo.Get(ctx, rig.client, resource, "PAYMENT-SIGNATURE", x402.EncodeHeader(paid.Signed))
	if err != nil {
		return err
	}
	seller.mu.Lock()
	rejected, landed := seller.lastErr, seller.landed
	seller.mu.Unlock()
	if resp.StatusCode != http.StatusOK {
		return demo.Fail("the seller refused the payment:", rejected)
	}
	s.Say("   the seller read the opening with solana-go, verified the payer's signature, the memo, the deposit, payee and")
	s.Say("   the channel address its seeds derive, co-signed as fee payer (transaction %s…) and answered %d: %s", landed[:16], resp.StatusCode, body)
	s.Say("   it meters %d of the %d escrowed; the rest returns to the payer when the facilitator settles", uptoCharged, uptoMaximum)
	if err := s.KeepPayment(paid.Bytes, x402.EncodeHeader(doc), paid.Signed); err != nil {
		return err
	}
	s.Paid(demo.Amount(strconv.Itoa(uptoMaximum), 6, "USDC", Devnet))
	s.Say("")
	s.Say("4. the link now serves other bytes while the 402 still advertises H")
	seller.Lie(demo.Changed(demo.ATR))
	before := rig.wallet.Calls()
	_, err = rig.gate.Transact(ctx, doc, solana.UptoID, rig.wallet, &gate.TransactOptions{Inputs: inputs})
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.HashMismatch {
		return demo.Fail("the changed terms were not declined:", err)
	}
	s.Say("   declined %s; signer calls for it: %d", d.Code, rig.wallet.Calls()-before)
	return nil
}
