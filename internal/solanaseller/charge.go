package solanaseller

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	solanago "github.com/gagliardetto/solana-go"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/terms"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/solana"
)

func init() {
	demo.Register(demo.Row{Pairing: solana.ChargeID, Aliases: []string{"mpp-solana"},
		About: "an MPP charge of 0.001 USDC on Solana devnet: the request's externalId is H's LCP string, signed as the transaction's one memo; verified with solana-go",
		Run:   func(ctx context.Context, s *demo.Session) error { return runCharge(ctx, s, false) }})
	demo.Register(demo.Row{Pairing: solana.ChargeUSDCID, Aliases: []string{"mpp-usdc-solana"},
		About: "the same charge by MPP's usdc method (its Solana profile): the externalId memo carries H",
		Run:   func(ctx context.Context, s *demo.Session) error { return runCharge(ctx, s, true) }})
}

// Charge is an MPP seller paid on Solana (mpp/charge/solana, or with USDC
// set mpp/charge/usdc/solana): its 402 is a charge challenge whose
// request's externalId is H's LCP string, its fee payer named. It accepts a
// credential only after checking, with solana-go, what its fee payer would
// before co-signing and sending: the wire decodes, the payer's signature
// verifies, the one LCP memo is the externalId it issued for the terms it
// serves, the one TransferChecked moves its price of the mint to its token
// account; then it co-signs and every signature verifies. The echoed
// challenge must be the one it issues, unexpired. It sends nothing.
type Charge struct {
	terms.MPPCharge
	USDC bool
	// Submit, when set, is given each co-signed transaction (its
	// signature and wire) and the seller's Payment-Receipt names as its
	// reference the transaction Submit returns: the settlement tests'
	// seller, which may name another.
	Submit   func(signature string, wire []byte) (named string)
	feePayer solanago.PrivateKey
	mu       sync.Mutex
	landed   string
	wire     []byte
}

// Landed is the signature of the last transaction the seller co-signed.
func (s *Charge) Landed() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.landed
}

// NewCharge returns a seller of body under terms atrBytes.
func NewCharge(atrBytes, body []byte, usdc bool) *Charge {
	s := &Charge{MPPCharge: terms.MPPCharge{Body: body, Now: time.Now}, USDC: usdc, feePayer: FeePayer()}
	s.SetATR(atrBytes)
	return s
}

const chargePrice = 1000

func (s *Charge) request() *jsonv.Object {
	details := jsonv.Obj("network", "devnet", "decimals", 6, "tokenProgram", solana.TokenProgram.String(),
		"feePayer", true, "feePayerKey", s.feePayer.PublicKey().String())
	if s.USDC {
		details = jsonv.Obj("type", "solana", "solana", details)
	}
	return jsonv.Obj("amount", fmt.Sprint(chargePrice), "currency", Mint, "recipient", PayTo, "methodDetails", details)
}

// Challenges is the 402's one challenge, placed for the terms.
func (s *Charge) Challenges() ([]jsonv.Value, error) {
	method, place := "solana", solana.PlaceChargeChallenge
	if s.USDC {
		method, place = "usdc", solana.PlaceUSDCChallenge
	}
	c := jsonv.Obj("realm", "api.seller.example", "method", method, "intent", "charge",
		"request", mpp.EncodeObject(s.request()), "expires", s.Expires())
	h := s.Hash()
	c, err := place(c, h)
	if err != nil {
		return nil, err
	}
	return mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
}

func (s *Charge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.Serve(w, r, func(credential string) error {
		err := s.accept(credential)
		if err == nil && s.Submit != nil {
			s.mu.Lock()
			sig, wire := s.landed, s.wire
			s.mu.Unlock()
			method := "solana"
			if s.USDC {
				method = "usdc"
			}
			w.Header().Set("Payment-Receipt", mpp.EncodeObject(jsonv.Obj("status", "success", "method", method,
				"timestamp", s.Now().UTC().Format(time.RFC3339), "reference", s.Submit(sig, wire))))
		}
		return err
	}, s.Challenges)
}

func (s *Charge) accept(header string) error {
	cred, err := mpp.ParseHeader(header)
	if err != nil {
		return err
	}
	issued, err := s.Challenges()
	if err != nil {
		return err
	}
	echoed, mine, err := terms.EchoesIssued(cred, issued)
	if err != nil {
		return err
	}
	if exp, _ := mpp.UnixOf(mpp.String(echoed, "expires")); exp <= s.Now().Unix() {
		return errors.New("the challenge has expired")
	}
	payload, _ := cred.GetObject("payload")
	if typ, _ := payload.GetString("type"); typ != "transaction" {
		return fmt.Errorf("a %q credential; this seller takes transactions", typ)
	}
	text, _ := payload.GetString("transaction")
	tx, err := solanago.TransactionFromBase64(text)
	if err != nil {
		return fmt.Errorf("solana-go cannot read the transaction: %w", err)
	}
	request, _ := mpp.DecodeObject(mpp.String(mine, "request"))
	sig, err := verifyCharge(tx, s.feePayer, mpp.String(request, "externalId"), solana.Carrier(s.Hash()))
	if err != nil {
		return err
	}
	wire, err := tx.MarshalBinary()
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.landed, s.wire = sig.String(), wire
	s.mu.Unlock()
	return nil
}

// verifyCharge checks tx as the fee payer would before co-signing: the
// payer's signature over the message, exactly one memo of the issued
// externalId (which must be the carrier of the terms served; other memos
// are labels), exactly one TransferChecked of the price to the payee's
// token account; then co-signs and verifies every signature.
func verifyCharge(tx *solanago.Transaction, feePayer solanago.PrivateKey, externalID, carrier string) (solanago.Signature, error) {
	msg, err := tx.Message.MarshalBinary()
	if err != nil {
		return solanago.Signature{}, err
	}
	keys := tx.Message.AccountKeys
	if len(tx.Signatures) != 2 || len(keys) < 2 || !keys[0].Equals(feePayer.PublicKey()) {
		return solanago.Signature{}, errors.New("not a transaction for this fee payer")
	}
	if !tx.Signatures[1].Verify(keys[1], msg) {
		return solanago.Signature{}, errors.New("the payer's signature does not verify")
	}
	if externalID != carrier {
		return solanago.Signature{}, errors.New("the issued externalId is not the carrier of these terms")
	}
	dest, _, err := solanago.FindAssociatedTokenAddress(solanago.MustPublicKeyFromBase58(PayTo), solanago.MustPublicKeyFromBase58(Mint))
	if err != nil {
		return solanago.Signature{}, err
	}
	carriers, transfers := 0, 0
	for _, ix := range tx.Message.Instructions {
		switch keys[ix.ProgramIDIndex].String() {
		case solana.MemoV3.String(), solana.MemoV4.String():
			if string(ix.Data) == carrier {
				carriers++
			}
		case solana.TokenProgram.String():
			transfers++
			if len(ix.Data) != 10 || ix.Data[0] != 12 || binary.LittleEndian.Uint64(ix.Data[1:9]) != chargePrice ||
				len(ix.Accounts) != 4 || !keys[ix.Accounts[2]].Equals(dest) || keys[ix.Accounts[1]].String() != Mint {
				return solanago.Signature{}, errors.New("the transfer is not the price to the payee's token account")
			}
		}
	}
	if carriers != 1 || transfers != 1 {
		return solanago.Signature{}, fmt.Errorf("%d memos carrying the terms and %d transfers, want one each", carriers, transfers)
	}
	sig, err := feePayer.Sign(msg)
	if err != nil {
		return solanago.Signature{}, err
	}
	tx.Signatures[0] = sig
	if err := tx.VerifySignatures(); err != nil {
		return solanago.Signature{}, err
	}
	return sig, nil
}

// runCharge pays the MPP Solana charge seller: the challenge from its 402,
// the buyer's chain reads from a loopback JSON-RPC node, the gate's checks
// and one signature, the credential the seller verifies with solana-go;
// then the lying link, declined unsigned.
func runCharge(ctx context.Context, s *demo.Session, usdc bool) error {
	seller := NewCharge(demo.ATR, []byte(`{"report":"SOL/USD 212.40","as_of":"2026-12-01"}`), usdc)
	rig, err := startSolanaRig(DemoNode(341000000), seller)
	if err != nil {
		return demo.Fail(err)
	}
	defer rig.srv.Close()
	pairing := solana.ChargeID
	if usdc {
		pairing = solana.ChargeUSDCID
	}
	const resource = "https://api.seller.example/v1/report"
	s.Say("termsgate demo (%s): a seller on %s (TLS, loopback only) sells %s", pairing, rig.srv.Listener.Addr(), resource)
	s.Say("payer: %s (the published seed 01×32; never hold value with it)", rig.key.Account())
	s.Say("")
	s.Say("1. GET %s", resource)
	resp, doc, offer, err := demo.MPPOffer(ctx, rig.client, rig.gate, resource, pairing)
	if err != nil {
		return err
	}
	c, _ := jsonv.AsObject(doc[0])
	request, _ := mpp.DecodeObject(mpp.String(c, "request"))
	s.Say("   %d with a WWW-Authenticate: Payment challenge (method %s) advertising H = %s", resp.StatusCode, mpp.String(c, "method"), offer.H)
	s.Say("   request.externalId = %s", mpp.String(request, "externalId"))
	inputs, err := rig.rpc.InputsFor(ctx, pairing, doc, rig.key.Account())
	if err != nil || inputs == nil {
		return demo.Fail("no chain reads:", err)
	}
	s.Say("2. the buyer's chain reads from a Solana JSON-RPC node (getAccountInfo of the mint, getLatestBlockhash): %s", jsonv.Marshal(inputs))
	s.Say("   the gate fetches the terms, compares SHA-256 with H, builds the v0 message with the externalId memo, and signs")
	res, err := rig.gate.Transact(ctx, doc, pairing, rig.wallet, &gate.TransactOptions{Inputs: inputs})
	if err != nil {
		return demo.Fail("not paid:", err)
	}
	cred, _ := jsonv.AsObject(res.Signed)
	s.Say("   signed (signer calls: %d); the transaction's one LCP memo carries H = %s", rig.wallet.Calls(), res.H)
	name, value := mpp.Header(cred)
	s.Say("3. GET again with %s: Payment … (%d bytes)", name, len(value))
	paid, body, err := demo.Get(ctx, rig.client, resource, name, value)
	if err != nil {
		return err
	}
	if paid.StatusCode != http.StatusOK {
		return fmt.Errorf("the seller refused the credential (%d): %v", paid.StatusCode, seller.LastRejection())
	}
	s.Say("   the seller read the wire with solana-go, verified the payer's signature, the memo, the amount and the")
	s.Say("   payee's token account, co-signed as fee payer (transaction %s…) and answered %d: %s", seller.Landed()[:16], paid.StatusCode, body)
	if err := s.KeepPayment(res.Bytes, resp.Header.Get("WWW-Authenticate"), cred); err != nil {
		return err
	}
	s.Paid(demo.Amount(fmt.Sprint(chargePrice), 6, "USDC", Devnet))
	s.Say("")
	s.Say("4. the link now serves other bytes while the challenge still advertises H")
	seller.Lie(demo.Changed(demo.ATR))
	before := rig.wallet.Calls()
	_, err = rig.gate.Transact(ctx, doc, pairing, rig.wallet, &gate.TransactOptions{Inputs: inputs})
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.HashMismatch {
		return fmt.Errorf("the changed terms were not declined: %v", err)
	}
	s.Say("   declined %s; signer calls for it: %d", d.Code, rig.wallet.Calls()-before)
	return nil
}
