// Package solanaseller is the loopback sellers paid on Solana
// (x402/exact/solana, x402/batch-settlement/solana, mpp/session/solana,
// mpp/charge/solana, mpp/charge/usdc/solana, x402/upto/solana) and
// their demo rows. Each checks a payment with solana-go, an implementation
// independent of the gate's, as the facilitator and the cluster would before
// running it; none sends anything.
package solanaseller

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	solanago "github.com/gagliardetto/solana-go"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/terms"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/solana/solanarpc"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	demo.Register(demo.Row{Pairing: solana.ExactID, Aliases: []string{"solana"},
		About: "a v0 transaction whose one memo carries H, verified with solana-go and co-signed by the fee payer", Run: demoSolana})
}

// The Solana demo's chain values: the vectors' devnet USDC mint and payee,
// and a fee payer from the published seed 02×32.
const (
	Devnet    = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"
	Mint      = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"
	PayTo     = "2wKupLR9q6wXYppw8Gr2NvWxKBUqm4PPJKkQfoxHDBg4"
	FeeSeed   = "0202020202020202020202020202020202020202020202020202020202020202"
	Blockhash = "EZ3rST5dvHmbanh75jc4PuLfV96vp9fEYBVeNk4FfM1k"
)

// Exact sells under x402/exact/solana and checks a payment as its
// facilitator would before co-signing and sending it: with solana-go, an
// implementation independent of the gate's, it decodes the wire, verifies
// the payer's signature over the message, finds the one memo carrying the
// hash of the terms it serves and the TransferChecked of its price to its
// token account, then co-signs as fee payer and verifies every signature.
type Exact struct {
	terms.Record
	// Submit, when set, is given each co-signed transaction (its
	// signature, the fee payer's, and its wire) as a cluster would be, and
	// the paid answer then carries a PAYMENT-RESPONSE naming the
	// transaction Submit returns: the settlement tests' seller, which may
	// name another.
	Submit   func(signature string, wire []byte) (named string)
	feePayer solanago.PrivateKey
	body     []byte
	mu       sync.Mutex
	lastErr  error
	landed   string
	wire     []byte
	payer    string
}

// NewExact returns a seller of body under terms atrBytes, its fee payer the
// published seed 02×32 (FeePayer).
func NewExact(atrBytes, body []byte) *Exact {
	s := &Exact{feePayer: FeePayer(), body: body}
	s.SetATR(atrBytes)
	return s
}

// Landed is the signature of the last transaction the seller co-signed, ""
// before any.
func (s *Exact) Landed() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.landed
}

func (s *Exact) required() (*jsonv.Object, error) {
	h := s.Hash()
	option := jsonv.Obj("scheme", "exact", "network", Devnet, "amount", "1000", "asset", Mint, "payTo", PayTo,
		"maxTimeoutSeconds", 60, "extra", jsonv.Obj("feePayer", s.feePayer.PublicKey().String()))
	option, err := solana.PlaceCarrier(option, h)
	if err != nil {
		return nil, err
	}
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://api.seller.example/v1/report"), "accepts", []jsonv.Value{option})
	return x402.Advertise(doc, h, "https://atr.seller.example/"+h.String(), "")
}

func (s *Exact) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
				if s.Submit != nil {
					s.mu.Lock()
					sig, wire, payer := s.landed, s.wire, s.payer
					s.mu.Unlock()
					w.Header().Set("PAYMENT-RESPONSE", x402.EncodeHeader(jsonv.Obj("success", true,
						"transaction", s.Submit(sig, wire), "network", Devnet, "payer", payer)))
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(s.body)
				return
			}
		}
		w.Header().Set("PAYMENT-REQUIRED", x402.EncodeHeader(doc))
		w.WriteHeader(http.StatusPaymentRequired)
	})
}

func (s *Exact) settle(header string) error {
	payment, err := x402.DecodeHeader(header)
	if err != nil {
		return err
	}
	payload, _ := payment.GetObject("payload")
	text, _ := payload.GetString("transaction")
	tx, err := solanago.TransactionFromBase64(text)
	if err != nil {
		return fmt.Errorf("solana-go cannot read the transaction: %w", err)
	}
	msg, err := tx.Message.MarshalBinary()
	if err != nil {
		return err
	}
	keys := tx.Message.AccountKeys
	if len(tx.Signatures) != 2 || len(keys) < 2 || !keys[0].Equals(s.feePayer.PublicKey()) {
		return errors.New("not a transaction for this fee payer")
	}
	if !tx.Signatures[1].Verify(keys[1], msg) {
		return errors.New("the payer's signature does not verify")
	}
	carrier := solana.Carrier(s.Hash())
	memos, transfers := 0, 0
	for _, ix := range tx.Message.Instructions {
		program := keys[ix.ProgramIDIndex]
		switch program.String() {
		case solana.MemoV3.String(), solana.MemoV4.String():
			memos++
			if string(ix.Data) != carrier {
				return errors.New("the memo does not carry the hash of these terms")
			}
		case solana.TokenProgram.String():
			transfers++
			dest, _, _ := solanago.FindAssociatedTokenAddress(solanago.MustPublicKeyFromBase58(PayTo), solanago.MustPublicKeyFromBase58(Mint))
			if len(ix.Data) != 10 || ix.Data[0] != 12 || binary.LittleEndian.Uint64(ix.Data[1:9]) != 1000 ||
				len(ix.Accounts) != 4 || !keys[ix.Accounts[2]].Equals(dest) || keys[ix.Accounts[1]].String() != Mint {
				return errors.New("the transfer is not the price to the payee's token account")
			}
		}
	}
	if memos != 1 || transfers != 1 {
		return fmt.Errorf("%d memos and %d transfers, want one each", memos, transfers)
	}
	// Co-sign as fee payer, then every signature must verify: what the
	// cluster checks before it runs the transaction.
	sig, err := s.feePayer.Sign(msg)
	if err != nil {
		return err
	}
	tx.Signatures[0] = sig
	if err := tx.VerifySignatures(); err != nil {
		return err
	}
	wire, err := tx.MarshalBinary()
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.landed, s.wire, s.payer = sig.String(), wire, keys[1].String()
	s.mu.Unlock()
	return nil
}

// solanaRig is what the three Solana demos share: one loopback TLS server
// on which the seller answers and a Solana JSON-RPC node stands in at
// localhost, the payer's development key counted, a gate that fetches over
// that server, and an RPC client for the buyer's chain reads.
type solanaRig struct {
	srv    *loopback.Server
	client *http.Client
	key    *signer.Solana
	wallet *demo.Counting
	gate   *gate.Gate
	rpc    *solanarpc.Client
}

// DemoNode is the loopback node at slot, with the demo's blockhash
// and mint.
func DemoNode(slot uint64) *solanarpc.Node {
	return &solanarpc.Node{Slot: slot, Blockhash: Blockhash, LastValid: 320000150,
		Mints: map[string]solanarpc.NodeMint{Mint: {Owner: solana.TokenProgram.String(), Decimals: 6}}}
}

// FeePayer is the seller's fee payer, from its published seed.
func FeePayer() solanago.PrivateKey {
	seed, _ := hex.DecodeString(FeeSeed)
	return solanago.PrivateKey(ed25519.NewKeyFromSeed(seed))
}

func startSolanaRig(node *solanarpc.Node, seller http.Handler) (*solanaRig, error) {
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Host, "localhost") {
			node.ServeHTTP(w, r)
			return
		}
		seller.ServeHTTP(w, r)
	}))
	if err != nil {
		return nil, fmt.Errorf("cannot start the local seller: %w", err)
	}
	key, err := signer.SolanaFromSeedHex(signer.SolanaDevSeed, Devnet)
	if err != nil {
		srv.Close()
		return nil, err
	}
	client := srv.Client()
	return &solanaRig{srv: srv, client: client, key: key, wallet: demo.Count(key),
		gate: &gate.Gate{Fetcher: &atr.Fetcher{Client: client}},
		rpc:  &solanarpc.Client{URL: "https://localhost/", HTTP: client}}, nil
}

// demoSolana pays an x402/exact/solana seller: the memo of the transaction
// the payer signs carries H, and the seller verifies it with solana-go.
func demoSolana(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	seller := &Exact{feePayer: FeePayer(), body: []byte(`{"report":"SOL/USD 212.40","as_of":"2026-12-01"}`)}
	seller.SetATR(demo.ATR)
	// The buyer's reads of the chain come from a Solana JSON-RPC node (a
	// loopback stand-in answering in the documented shapes).
	node := DemoNode(341000000)
	rig, err := startSolanaRig(node, seller)
	if err != nil {
		return fail(err)
	}
	defer rig.srv.Close()
	srv, client, key, payer, g, rpc := rig.srv, rig.client, rig.key, rig.wallet, rig.gate, rig.rpc
	inputs, err := rpc.Inputs(ctx, Mint)
	if err != nil {
		return fail(err)
	}

	const resource = "https://api.seller.example/v1/report"
	say("termsgate demo: an x402/exact/solana seller on %s (TLS, loopback only)", srv.Listener.Addr())
	say("payer: %s (the published seed 01×32; never hold value with it)", key.Account())
	say("")
	get := func(header string) (*http.Response, []byte, error) {
		req, _ := http.NewRequest(http.MethodGet, resource, nil)
		if header != "" {
			req.Header.Set("PAYMENT-SIGNATURE", header)
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		return resp, body, nil
	}
	say("1. GET %s", resource)
	resp, _, err := get("")
	if err != nil {
		return fail(err)
	}
	doc, err := x402.DecodeHeader(resp.Header.Get("PAYMENT-REQUIRED"))
	if resp.StatusCode != http.StatusPaymentRequired || err != nil {
		return fail("no readable 402:", err)
	}
	say("   402: 1000 atomic units of %s on %s; extra.memo = %s", Mint, Devnet, solana.Carrier(seller.Hash()))
	say("2. the buyer's chain reads from a Solana JSON-RPC node (getAccountInfo of the mint, getLatestBlockhash): %s", jsonv.Marshal(inputs))
	say("   the gate fetches the terms, compares SHA-256 with H, builds the v0 message with that memo, and signs")
	paid, err := g.Transact(ctx, doc, solana.ExactID, payer, &gate.TransactOptions{Inputs: inputs})
	if err != nil {
		return fail("not paid:", err)
	}
	in, _ := solana.Exact{}.Inspect(paid.Signed)
	hAt := in.H
	say("   signed (signer calls: %d); the transaction's one memo carries H = %s", payer.Calls(), hAt)
	say("3. the same GET with PAYMENT-SIGNATURE")
	resp, body, err := get(x402.EncodeHeader(paid.Signed))
	if err != nil {
		return fail(err)
	}
	seller.mu.Lock()
	rejected, landed := seller.lastErr, seller.landed
	seller.mu.Unlock()
	if resp.StatusCode != http.StatusOK {
		return fail("the seller refused the payment:", rejected)
	}
	say("   the seller read the wire with solana-go, verified the payer's signature, the memo, the amount and the")
	say("   payee's token account, co-signed as fee payer (transaction %s…) and answered %d: %s", landed[:16], resp.StatusCode, bytes.TrimSpace(body))
	if err := s.KeepPayment(paid.Bytes, x402.EncodeHeader(doc), paid.Signed); err != nil {
		return err
	}
	s.Paid(demo.Amount("1000", 6, "USDC", Devnet))
	say("")
	say("4. the link now serves other bytes while the 402 still advertises H")
	seller.Lie(demo.Changed(demo.ATR))
	before := payer.Calls()
	_, err = g.Transact(ctx, doc, solana.ExactID, payer, &gate.TransactOptions{Inputs: inputs})
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.HashMismatch {
		return fail("the changed terms were not declined:", err)
	}
	say("   declined %s; signer calls for it: %d", d.Code, payer.Calls()-before)
	return nil
}
