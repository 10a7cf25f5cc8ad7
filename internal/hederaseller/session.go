package hederaseller

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/terms"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/hedera"
	"github.com/termsgate/termsgate/rails/hedera/relay"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/signer/evmrpc"
)

func init() {
	demo.Register(demo.Row{Pairing: hedera.SessionID, Aliases: []string{"session-hedera"},
		About: "an escrow channel on Hedera's EVM opened with H as its salt (approve and open sent through a loopback JSON-RPC relay), two vouchers, the close",
		Run:   runSession})
}

// sessionPrice is the session's price per request, in the token's atomic
// units.
const sessionPrice = 25

// Session sells under mpp/session/hedera. An opening it reads as its escrow
// recorded it: the receipt of the reported transaction, fetched by the
// seller from the relay, must hold the escrow's one ChannelOpened naming the
// channel, whose salt is the hash of the terms it serves, to its payee in
// its token with a deposit of at least the price; the zero voucher must be
// the payer's EIP-712 signature (recovered with go-ethereum) under the
// escrow's domain. A voucher must be the payer's signature for what it
// accepted before plus the price, within the deposit; the close for what
// it accepted.
type Session struct {
	terms.Record
	reader  evm.Reader
	body    []byte
	expires string

	mu       sync.Mutex
	channel  string
	payer    common.Address
	deposit  *big.Int
	accepted int64
	closed   bool
	lastErr  error
}

// LastRejection is why the last credential was refused, if it was.
func (s *Session) LastRejection() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastErr
}

func (s *Session) challenge() (*jsonv.Object, error) {
	details := jsonv.Obj("chainId", 296, "escrowContract", EscrowContract)
	request := jsonv.Obj("amount", strconv.Itoa(sessionPrice), "currency", SessionToken, "methodDetails", details,
		"recipient", SessionPayee, "suggestedDeposit", "1000", "unitType", "request")
	c := jsonv.Obj("realm", "api.seller.example", "method", "hedera", "intent", "session",
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
		details.Set("channelId", channel) // resuming names the channel
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
		return s.open(cred)
	case "voucher", "close":
		return s.voucher(payload)
	}
	return errors.New("not a session action this seller takes")
}

// recoverVoucher is the address whose EIP-712 signature sig is over the
// voucher for cumulative on channel.
func recoverVoucher(channel string, cumulative *big.Int, sig string) (common.Address, error) {
	ch, err := atr.ParseHash(channel)
	if err != nil {
		return common.Address{}, err
	}
	digest, err := evm.TypedDataDigest(hedera.VoucherTypedData(296, EscrowContract, ch, cumulative))
	if err != nil {
		return common.Address{}, err
	}
	raw := common.FromHex(sig)
	if len(raw) != 65 || raw[64] < 27 {
		return common.Address{}, errors.New("the voucher signature is not 65 bytes with v 27 or 28")
	}
	raw = append([]byte(nil), raw...)
	raw[64] -= 27
	pub, err := crypto.SigToPub(digest[:], raw)
	if err != nil {
		return common.Address{}, err
	}
	return crypto.PubkeyToAddress(*pub), nil
}

func (s *Session) open(cred *jsonv.Object) error {
	fetched, err := hedera.FetchSessionPresented(cred, s.reader)
	if err != nil {
		return fmt.Errorf("the opening's receipt: %w", err)
	}
	h, err := hedera.Session{}.Bound(fetched)
	if err != nil {
		return err
	}
	if !atr.EqualText(h, s.Hash()) {
		return errors.New("the channel's salt is not the hash of these terms")
	}
	in, err := hedera.Session{}.Inspect(fetched)
	if err != nil {
		return err
	}
	g := in.Grant
	if !strings.EqualFold(g.Payee, SessionPayee) || !strings.EqualFold(g.Asset, SessionToken) || g.Amount.Cmp(big.NewInt(sessionPrice)) < 0 {
		return errors.New("the channel is not to this payee in this token with a deposit for one request")
	}
	payload, _ := cred.GetObject("payload")
	channel := mpp.String(payload, "channelId")
	signer, err := recoverVoucher(channel, new(big.Int), mpp.String(payload, "signature"))
	if err != nil || !strings.EqualFold(signer.Hex(), g.Payer) {
		return errors.New("the zero voucher is not the payer's signature")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.channel, s.payer, s.deposit, s.accepted, s.closed = strings.ToLower(channel), signer, g.Amount, 0, false
	return nil
}

func (s *Session) voucher(payload *jsonv.Object) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.channel == "" || s.closed || !strings.EqualFold(mpp.String(payload, "channelId"), s.channel) {
		return errors.New("no such open channel")
	}
	cumulative, err := strconv.ParseInt(mpp.String(payload, "cumulativeAmount"), 10, 64)
	if err != nil {
		return err
	}
	want := s.accepted + sessionPrice
	if mpp.String(payload, "action") == "close" {
		want = s.accepted
	}
	if cumulative != want || big.NewInt(cumulative).Cmp(s.deposit) > 0 {
		return fmt.Errorf("the voucher is for %d, want %d", cumulative, want)
	}
	signer, err := recoverVoucher(s.channel, big.NewInt(cumulative), mpp.String(payload, "signature"))
	if err != nil || signer != s.payer {
		return errors.New("the voucher is not the payer's signature")
	}
	s.accepted = cumulative
	s.closed = mpp.String(payload, "action") == "close"
	return nil
}

// runSession opens an mpp/session/hedera channel whose salt is H through a
// loopback relay, pays two more requests with vouchers inside it, and
// closes it; then the lying link, declined unsigned.
func runSession(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	chain, url, stop := StartRelay()
	defer stop()
	node, err := evmrpc.Dial(url)
	if err != nil {
		return fail(err)
	}
	defer node.Close()
	node.Poll = 5 * time.Millisecond
	rd, err := relay.Reader(ctx, node)
	if err != nil {
		return fail(err)
	}
	seller := &Session{reader: rd, body: []byte(`{"completion":"HBAR/USD 0.2712","as_of":"2026-12-01"}`),
		expires: time.Now().Add(10 * time.Minute).UTC().Format(time.RFC3339)}
	seller.SetATR(demo.ATR)
	srv, err := loopback.Start(seller)
	if err != nil {
		return fail("cannot start the local seller:", err)
	}
	defer srv.Close()
	client := srv.Client()
	key, err := signer.FromHex(signer.AnvilKey, "hedera:testnet")
	if err != nil {
		return fail(err)
	}
	payer := demo.Count(signer.NewEVM(key, node))
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}} // the shipped registry

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

	say("termsgate demo: an mpp/session/hedera seller on %s (TLS, loopback only), %d atomic units a request", srv.Listener.Addr(), sessionPrice)
	say("payer: %s (the published Anvil development key; never hold value with it)", key.Account())
	say("relay: a loopback Hedera JSON-RPC relay (chain 296) at %s, executing the token and the escrow", url)
	say("")
	say("1. GET %s", resource)
	openDoc, err := challenge()
	if err != nil {
		return fail(err)
	}
	offer, err := g.Read(openDoc, hedera.SessionID)
	if err != nil {
		return fail(err)
	}
	say("   402 with a Payment challenge for %s; advertised H = %s", hedera.SessionID, offer.H)
	say("2. the gate fetches the terms, compares SHA-256 with H, and asks the payer's key to send approve(escrow, 1000)")
	say("   and open(payee, token, 1000, salt = H, no signer) through the relay, then to sign the zero voucher")
	opened, err := g.Transact(ctx, openDoc, hedera.SessionID, payer, &gate.TransactOptions{Inputs: jsonv.Obj("deposit", "1000")})
	if err != nil {
		return fail("not opened:", err)
	}
	tx := mpp.String(demo.Path(opened.Signed, "payload").(*jsonv.Object), "txHash")
	say("   sent and signed (signer calls: %d): the open in %s, landed in block %s", payer.Calls(), tx,
		mpp.String(opened.Landed.(*jsonv.Object), "blockNumber"))
	body, err := present(opened.Signed)
	if err != nil {
		return fail(err)
	}
	say("3. the seller read the receipt from the relay itself: the escrow's ChannelOpened naming the channel, its salt")
	say("   the hash of its terms, its payee, token and deposit; the payer's zero voucher (go-ethereum); answered: %s", body)
	hold, err := g.OpenChannel(opened.Bytes, hedera.SessionID, opened.Signed, opened.Landed)
	if err != nil {
		return fail(err)
	}
	say("   held: the terms, the opening and channel %s", hold.Channel)
	say("")
	for i := 0; i < 2; i++ {
		doc, err := challenge()
		if err != nil {
			return fail(err)
		}
		r, err := g.Within(ctx, doc, hold, hedera.SessionID, payer, nil, nil)
		if err != nil {
			return fail("no voucher:", err)
		}
		v := mpp.String(demo.Path(r.Signed, "payload").(*jsonv.Object), "cumulativeAmount")
		say("%d. a challenge naming the channel: a voucher for a cumulative %s, signed without fetching the terms again", 4+i, v)
		if body, err = present(r.Signed); err != nil {
			return fail(err)
		}
		say("   the seller recovered the payer from its EIP-712 signature under the escrow's domain and answered: %s", body)
		if hold, err = gate.RecordCharge(r.Hold, r.Hold.SignedMax); err != nil {
			return fail(err)
		}
	}
	doc, err := challenge()
	if err != nil {
		return fail(err)
	}
	closed, err := g.Within(ctx, doc, hold, hedera.SessionID, payer, &gate.Refund{}, nil)
	if err != nil {
		return fail("no close:", err)
	}
	if _, err := present(closed.Signed); err != nil {
		return fail(err)
	}
	ch, _ := chain.ChannelOf(hold.Channel)
	say("6. closed at the recorded charge %s; the seller accepted the close (the escrow holds the deposit of %s)", hold.Charged, ch.Deposit)
	landed, _ := jsonv.AsObject(opened.Landed)
	kept := jsonv.Clone(opened.Signed).(*jsonv.Object)
	kept.Set("landed", landed.Clone())
	if err := s.KeepPayment(opened.Bytes, mpp.ChallengeHeader(openDoc[0].(*jsonv.Object)), kept); err != nil {
		return err
	}
	s.Paid(hold.Charged + " atomic units of " + SessionToken + " on hedera:testnet in two vouchers, the channel opened and closed")
	say("")
	say("7. the link now serves other bytes while the challenge still advertises H")
	seller.Lie(demo.Changed(demo.ATR))
	before := payer.Calls()
	_, err = g.Transact(ctx, openDoc, hedera.SessionID, payer, &gate.TransactOptions{Inputs: jsonv.Obj("deposit", "1000")})
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.HashMismatch {
		return fail("the changed terms were not declined:", err)
	}
	say("   declined %s; signer calls for it: %d", d.Code, payer.Calls()-before)
	return nil
}
