package solanaseller

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	solanago "github.com/gagliardetto/solana-go"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/terms"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/solana/solanarpc"
)

func init() {
	demo.Register(demo.Row{Pairing: solana.SessionID, Aliases: []string{"session-solana"},
		About: "a channel opened with H in its salt, two vouchers, the close; verified with solana-go", Run: demoSessionSolana})
}

// The session demo's price per request, in atomic units of the mint.
const sessionPrice = 25

var channelProgram = solanago.MustPublicKeyFromBase58(solana.ChannelProgram.String())

// Session sells under mpp/session/solana and checks each credential
// as the chain and its channel program would, with solana-go (an
// implementation independent of the gate's): the opening's payer signature
// over the message, its one open instruction whose salt is H's first 8
// bytes of the terms it serves, its deposit, payee and mint, the channel
// address derived from those seeds, the blockhash and slot it issued; then
// it co-signs as fee payer and verifies every signature. A voucher must be
// the open's voucher signer's Ed25519 signature over 56 01 ‖ channel ‖
// cumulative ‖ 0, for what it accepted before plus the price.
type Session struct {
	terms.Record
	feePayer solanago.PrivateKey
	node     *solanarpc.Node
	body     []byte
	expires  string

	mu       sync.Mutex
	channel  string
	signer   solanago.PublicKey
	deposit  uint64
	accepted uint64
	closed   bool
	lastErr  error
}

// challenge is the seller's 402: the session challenge placed for its
// terms, naming the open channel once there is one.
func (s *Session) challenge() (*jsonv.Object, error) {
	details := jsonv.Obj("channelProgram", solana.ChannelProgram.String(), "decimals", 6, "feePayer", true,
		"feePayerKey", s.feePayer.PublicKey().String(), "gracePeriodSeconds", 900, "network", "devnet",
		"recentBlockhash", s.node.Blockhash, "recentSlot", strconv.FormatUint(s.node.Slot, 10))
	request := jsonv.Obj("amount", strconv.Itoa(sessionPrice), "currency", Mint, "methodDetails", details, "recipient", PayTo)
	c := jsonv.Obj("realm", "api.seller.example", "method", "solana", "intent", "session",
		"request", mpp.EncodeObject(request), "expires", s.expires)
	h := s.Hash()
	doc, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
	if err != nil {
		return nil, err
	}
	placed, _ := jsonv.AsObject(doc[0])
	s.mu.Lock()
	channel := s.channel
	s.mu.Unlock()
	if channel != "" {
		// Resuming names the channel; the id and opaque still carry H.
		details.Set("channelId", channel)
		details.Delete("recentBlockhash")
		details.Delete("recentSlot")
		placed.Set("request", mpp.EncodeObject(request))
	}
	return placed, nil
}

func (s *Session) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.Route(w, r, "atr.seller.example", "api.seller.example", func(w http.ResponseWriter, r *http.Request) {
		if auth := r.Header.Get("Authorization"); auth != "" {
			err := s.accept(auth)
			s.mu.Lock()
			s.lastErr = err
			s.mu.Unlock()
			if err == nil {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(s.body)
				return
			}
		}
		c, err := s.challenge()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Add("WWW-Authenticate", mpp.ChallengeHeader(c))
		w.WriteHeader(http.StatusPaymentRequired)
	})
}

func (s *Session) accept(auth string) error {
	cred, err := mpp.ParseHeader(auth)
	if err != nil {
		return err
	}
	payload, _ := cred.GetObject("payload")
	switch mpp.String(payload, "action") {
	case "open":
		return s.open(payload)
	case "voucher", "close":
		return s.voucher(payload)
	}
	return errors.New("not a session action this seller takes")
}

// u64 reads 8 little-endian bytes at b[at:].
func u64(b []byte, at int) uint64 { return binary.LittleEndian.Uint64(b[at : at+8]) }

func (s *Session) open(payload *jsonv.Object) error {
	tx, err := solanago.TransactionFromBase64(mpp.String(payload, "transaction"))
	if err != nil {
		return fmt.Errorf("solana-go cannot read the opening: %w", err)
	}
	msg, err := tx.Message.MarshalBinary()
	if err != nil {
		return err
	}
	keys := tx.Message.AccountKeys
	if len(keys) < 2 || !keys[0].Equals(s.feePayer.PublicKey()) {
		return errors.New("not a transaction for this fee payer")
	}
	if tx.Message.RecentBlockhash.String() != s.node.Blockhash {
		return errors.New("not the blockhash this seller issued")
	}
	var opens []solanago.CompiledInstruction
	for _, ix := range tx.Message.Instructions {
		if keys[ix.ProgramIDIndex].Equals(channelProgram) && len(ix.Data) >= 33 && ix.Data[0] == 1 {
			opens = append(opens, ix)
		}
	}
	if len(opens) != 1 || len(opens[0].Accounts) < 14 {
		return fmt.Errorf("%d open instructions, want one", len(opens))
	}
	ix := opens[0]
	account := func(i int) solanago.PublicKey { return keys[ix.Accounts[i]] }
	payer, payee, mint, voucherSigner, channel := account(0), account(2), account(3), account(4), account(5)
	h := s.Hash()
	salt, deposit, slot := u64(ix.Data, 1), u64(ix.Data, 9), u64(ix.Data, 21)
	switch {
	case !bytes.Equal(ix.Data[1:9], h[:8]):
		return errors.New("the salt is not the hash of these terms")
	case payee.String() != PayTo || mint.String() != Mint:
		return errors.New("the channel is not to this payee in this mint")
	case !account(1).Equals(s.feePayer.PublicKey()):
		return errors.New("the rent payer is not this seller's fee payer")
	case deposit < sessionPrice || slot != s.node.Slot:
		return errors.New("the deposit or the open slot is not what was asked")
	}
	pda, _, err := solanago.FindProgramAddress([][]byte{[]byte("channel"), payer[:], payee[:], mint[:], voucherSigner[:],
		binary.LittleEndian.AppendUint64(nil, salt), binary.LittleEndian.AppendUint64(nil, slot)}, channelProgram)
	if err != nil || !pda.Equals(channel) || mpp.String(payload, "channelId") != channel.String() {
		return errors.New("the channel is not the address its seeds derive")
	}
	signed := false
	for i := 0; i < int(tx.Message.Header.NumRequiredSignatures) && i < len(tx.Signatures); i++ {
		if keys[i].Equals(payer) {
			signed = tx.Signatures[i].Verify(payer, msg)
		}
	}
	if !signed {
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
	defer s.mu.Unlock()
	s.channel, s.signer, s.deposit, s.accepted = channel.String(), voucherSigner, deposit, 0
	return nil
}

func (s *Session) voucher(payload *jsonv.Object) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.channel == "" || s.closed || mpp.String(payload, "channelId") != s.channel {
		return errors.New("no such open channel")
	}
	v, _ := payload.GetObject("voucher")
	data, _ := v.GetObject("voucher")
	cumulative, err := strconv.ParseUint(mpp.String(data, "cumulativeAmount"), 10, 64)
	if err != nil || mpp.String(data, "channelId") != s.channel || mpp.String(v, "signer") != s.signer.String() {
		return errors.New("the voucher is not for this channel and signer")
	}
	want := s.accepted + sessionPrice
	if mpp.String(payload, "action") == "close" {
		want = s.accepted
	}
	if cumulative != want || cumulative > s.deposit {
		return fmt.Errorf("the voucher is for %d, want %d", cumulative, want)
	}
	sig, err := solanago.SignatureFromBase58(mpp.String(v, "signature"))
	if err != nil {
		return err
	}
	ch := solanago.MustPublicKeyFromBase58(s.channel)
	msg := append([]byte{0x56, 0x01}, ch[:]...)
	msg = binary.LittleEndian.AppendUint64(msg, cumulative)
	msg = binary.LittleEndian.AppendUint64(msg, 0)
	if !sig.Verify(s.signer, msg) {
		return errors.New("the voucher's signature does not verify")
	}
	s.accepted = cumulative
	s.closed = mpp.String(payload, "action") == "close"
	return nil
}

// demoSessionSolana opens an mpp/session/solana channel whose salt carries
// H, pays two more requests with vouchers inside it, and closes it.
func demoSessionSolana(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	node := DemoNode(352114093)
	seller := &Session{feePayer: FeePayer(), node: node,
		body: []byte(`{"completion":"SOL/USD 212.40","as_of":"2026-12-01"}`), expires: time.Now().Add(10 * time.Minute).UTC().Format(time.RFC3339)}
	seller.SetATR(demo.ATR)
	rig, err := startSolanaRig(node, seller)
	if err != nil {
		return fail(err)
	}
	defer rig.srv.Close()
	srv, client, key, payer, g, rpc := rig.srv, rig.client, rig.key, rig.wallet, rig.gate, rig.rpc

	const resource = "https://api.seller.example/v1/complete"
	get := func(auth string) (*http.Response, []byte, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, resource, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		return resp, body, nil
	}
	challenge := func() ([]jsonv.Value, error) {
		resp, _, err := get("")
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusPaymentRequired {
			return nil, fmt.Errorf("status %d, want 402", resp.StatusCode)
		}
		return mpp.ChallengesFromHeader(resp.Header)
	}
	present := func(signed jsonv.Value) ([]byte, error) {
		cred, _ := jsonv.AsObject(signed)
		_, value := mpp.Header(cred)
		resp, body, err := get(value)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			seller.mu.Lock()
			defer seller.mu.Unlock()
			return nil, fmt.Errorf("the seller refused it (%d): %v", resp.StatusCode, seller.lastErr)
		}
		return bytes.TrimSpace(body), nil
	}

	say("termsgate demo: an mpp/session/solana seller on %s (TLS, loopback only), %d atomic units a request", srv.Listener.Addr(), sessionPrice)
	say("payer: %s (the published seed 01×32; never hold value with it)", key.Account())
	say("")
	say("1. GET %s", resource)
	openDoc, err := challenge()
	if err != nil {
		return fail(err)
	}
	doc := openDoc
	offer, err := g.Read(doc, solana.SessionID)
	if err != nil {
		return fail(err)
	}
	say("   402 with a Payment challenge for %s; advertised H = %s", solana.SessionID, offer.H)
	inputs, err := rpc.SessionInputsFor(ctx, solana.SessionID, doc, key.Account())
	if err != nil {
		return fail(err)
	}
	say("2. the mint's token program from a Solana JSON-RPC node (getAccountInfo): %s", jsonv.Marshal(inputs))
	say("   the gate fetches the terms, compares SHA-256 with H, builds the open with salt = H's first 8 bytes, and signs")
	opened, err := g.Transact(ctx, doc, solana.SessionID, payer, &gate.TransactOptions{Inputs: inputs})
	if err != nil {
		return fail("not opened:", err)
	}
	in, _ := solana.Session{}.Inspect(opened.Signed)
	say("   signed (signer calls: %d): channel %s, deposit %s", payer.Calls(), mpp.String(in.Details, "channel"), mpp.String(in.JSON(), "amount"))
	body, err := present(opened.Signed)
	if err != nil {
		return fail(err)
	}
	say("3. the seller read the opening with solana-go: the payer's signature, the salt against its terms' hash, the")
	say("   deposit, payee, mint and the channel address its seeds derive; co-signed as fee payer; answered: %s", body)
	hold, err := g.OpenChannel(opened.Bytes, solana.SessionID, opened.Signed, nil)
	if err != nil {
		return fail(err)
	}
	say("   held: the terms, the opening and channel %s; this first request is served on the deposit", hold.Channel)
	say("")
	for i := 0; i < 2; i++ {
		doc, err := challenge()
		if err != nil {
			return fail(err)
		}
		r, err := g.Within(ctx, doc, hold, solana.SessionID, payer, nil, nil)
		if err != nil {
			return fail("no voucher:", err)
		}
		v := demo.Path(r.Signed.(*jsonv.Object), "payload", "voucher", "voucher", "cumulativeAmount")
		say("%d. a challenge naming the channel: a voucher for a cumulative %s, signed without fetching the terms again", 4+i, v)
		if body, err = present(r.Signed); err != nil {
			return fail(err)
		}
		say("   the seller verified its Ed25519 signature over 56 01 ‖ channel ‖ cumulative ‖ 0 and answered: %s", body)
		if hold, err = gate.RecordCharge(r.Hold, r.Hold.SignedMax); err != nil {
			return fail(err)
		}
	}
	doc, err = challenge()
	if err != nil {
		return fail(err)
	}
	closed, err := g.Within(ctx, doc, hold, solana.SessionID, payer, &gate.Refund{}, nil)
	if err != nil {
		return fail("no close:", err)
	}
	if _, err := present(closed.Signed); err != nil {
		return fail(err)
	}
	say("6. closed at the recorded charge %s; the seller accepted the close", hold.Charged)
	if err := s.KeepPayment(opened.Bytes, mpp.ChallengeHeader(openDoc[0].(*jsonv.Object)), opened.Signed); err != nil {
		return err
	}
	s.Paid(demo.Amount(hold.Charged, 6, "USDC", Devnet) + " in two vouchers, the channel opened and closed")
	say("")
	say("7. the link now serves other bytes while the challenge still advertises H")
	seller.Lie(demo.Changed(demo.ATR))
	before := payer.Calls()
	_, err = g.Transact(ctx, openDoc, solana.SessionID, payer, &gate.TransactOptions{Inputs: inputs})
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.HashMismatch {
		return fail("the changed terms were not declined:", err)
	}
	say("   declined %s; signer calls for it: %d", d.Code, payer.Calls()-before)
	return nil
}
