package pay

// Settlement the buyer checks: after the seller answers a payment, the
// transaction it settled in is read from the chain through the rail's
// reader, not taken from the seller's PAYMENT-RESPONSE or Payment-Receipt:
// landed, by the payer, to the payee, for the amount, carrying H where the
// pairing puts it. What does not hold is reported on Result.Verified and
// to the Journal (SettlementJournal), never silently accepted. See
// docs/paying-client.md, "Checking settlement".

import (
	"context"
	"log/slog"
	"math/big"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/stellar"
	"github.com/termsgate/termsgate/rails/tempo"
	"github.com/termsgate/termsgate/rails/xrpl"
)

// Verifier reads settlements, by network (CAIP-2). A payment on a network
// it has no reader for is reported unchecked.
type Verifier struct {
	XRPL    map[string]xrpl.Reader    // xrpl:0, xrpl:1…
	Stellar map[string]stellar.Reader // stellar:pubnet, stellar:testnet
	EVM     map[string]evm.Reader     // eip155:1, eip155:8453… (verify_evm.go)
	Solana  map[string]solana.Reader  // solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp… (verify_solana.go)
}

// The problems a Verification reports.
const (
	ProblemNoReader       = "no-reader"          // no reader for the payment's network or pairing: nothing was checked
	ProblemNotLanded      = "not-landed"         // the chain does not show it settled (Status says how)
	ProblemSellerNamed    = "seller-named"       // the seller's answer names another transaction than the payment
	ProblemPayer          = "payer"              // it was sent by another account
	ProblemPayee          = "payee"              // it paid another account
	ProblemAmount         = "amount"             // it moved another amount
	ProblemNoH            = "no-h"               // it does not carry H where the pairing puts it
	ProblemUnreadablePaid = "payment-unreadable" // the payment sent could not be read back
)

// Verification is what reading the chain showed of one payment.
type Verification struct {
	Network     string
	Transaction string        // the transaction read
	Settled     bool          // landed and every check held
	Status      *jsonv.Object // the rail's status ({state, ledgerIndex|ledger} or {state, why})
	Problems    []string      // what did not hold; empty when Settled
	// Moved is the amount the chain shows moved to the payee, where the
	// reader reads it from a transfer (EVM); nil otherwise. For an upto
	// payment it is what the seller settled, at most the amount signed.
	Moved *big.Int
}

// OK reports whether the settlement was read and every check held.
func (v *Verification) OK() bool { return v != nil && v.Settled && len(v.Problems) == 0 }

// SettlementJournal is a Journal that also keeps what the chain showed of
// each payment; the Transport calls Verified after reading it.
type SettlementJournal interface {
	Verified(ctx context.Context, id string, v *Verification) error
}

func (v *Verification) problem(p string) { v.Problems = append(v.Problems, p) }

// verify reads res's settlement; nil when there is no Verifier.
func (t *Transport) verify(ctx context.Context, id string, res *Result) {
	if t.Verify == nil || res == nil || !res.Accepted() {
		return
	}
	v := t.Verify.Check(res)
	res.Verified = v
	if !v.OK() {
		t.logger().LogAttrs(ctx, slog.LevelWarn, "pay: settlement does not hold", slog.String("url", res.URL),
			slog.String("transaction", v.Transaction), slog.String("problems", strings.Join(v.Problems, ",")))
	}
	if j, ok := t.Journal.(SettlementJournal); ok && id != "" {
		if err := j.Verified(context.WithoutCancel(ctx), id, v); err != nil {
			t.logger().WarnContext(ctx, "pay: journaling the settlement read", "id", id, "err", err)
		}
	}
}

// Check reads the settlement of one answered payment.
func (vf *Verifier) Check(res *Result) *Verification {
	v := &Verification{Network: res.Summary.Network}
	switch {
	case strings.HasPrefix(res.Pairing, "x402/exact/xrpl"), res.Pairing == xrpl.ChargeID:
		r := vf.XRPL[v.Network]
		if r == nil {
			v.problem(ProblemNoReader)
			return v
		}
		vf.checkXRPL(res, r, v)
	case res.Pairing == stellar.ExactID, res.Pairing == stellar.ChargeID:
		r := vf.Stellar[v.Network]
		if r == nil {
			v.problem(ProblemNoReader)
			return v
		}
		vf.checkStellar(res, r, v)
	case res.Pairing == evm.ExactEIP3009ID, res.Pairing == evm.ExactPermit2ID, res.Pairing == evm.UptoPermit2ID,
		res.Pairing == evm.MPPAuthorizationID, res.Pairing == evm.MPPUSDCID,
		res.Pairing == evm.AuthCaptureEIP3009ID, res.Pairing == evm.AuthCapturePermit2ID,
		res.Pairing == evm.ExactERC7710SaltID, res.Pairing == evm.ExactERC7710ID,
		res.Pairing == evm.MPPTransactionID, res.Pairing == evm.MPPHashID, res.Pairing == evm.MPPPermit2ID,
		res.Pairing == tempo.PushID, res.Pairing == tempo.MemoID:
		r := vf.EVM[v.Network]
		if r == nil {
			v.problem(ProblemNoReader)
			return v
		}
		switch res.Pairing {
		case evm.ExactEIP3009ID:
			vf.checkEIP3009(res, r, v)
		case evm.ExactPermit2ID:
			vf.checkPermit2(res, evm.ExactPermit2{}, false, r, v)
		case evm.MPPAuthorizationID:
			vf.checkMPPAuthorization(res, evm.MPPAuthorization{}, r, v)
		case evm.MPPUSDCID:
			vf.checkMPPAuthorization(res, evm.MPPUSDC{}, r, v)
		case evm.AuthCaptureEIP3009ID:
			vf.checkAuthCapture(res, evm.AuthCaptureEIP3009{}.Settlement, r, v)
		case evm.AuthCapturePermit2ID:
			vf.checkAuthCapture(res, evm.AuthCapturePermit2{}.Settlement, r, v)
		case evm.ExactERC7710SaltID, evm.ExactERC7710ID:
			vf.checkERC7710(res, res.Pairing == evm.ExactERC7710SaltID, r, v)
		case evm.MPPTransactionID, evm.MPPHashID:
			vf.checkMPPCall(res, r, v)
		case evm.MPPPermit2ID:
			vf.checkMPPPermit2(res, r, v)
		case tempo.PushID, tempo.MemoID:
			vf.checkTempoCharge(res, r, v)
		default:
			vf.checkPermit2(res, evm.UptoPermit2{}, true, r, v)
		}
	case res.Pairing == solana.ExactID, res.Pairing == solana.ChargeID, res.Pairing == solana.ChargeUSDCID:
		r := vf.Solana[v.Network]
		if r == nil {
			v.problem(ProblemNoReader)
			return v
		}
		vf.checkSolana(res, r, v)
	default:
		if !notRead(res, v) {
			v.problem(ProblemNoReader)
		}
	}
	return v
}

// sellerNamed is the transaction the seller's answer names, "" when none.
func sellerNamed(res *Result) string {
	if res.Settlement == nil {
		return ""
	}
	return res.Settlement.Transaction
}

// checkXRPL reads the XRPL Payment the signed blob is: its hash is computed
// from the blob, so the seller cannot point at another. Landed
// (xrpl.ChargeRead), then Account the payer, Destination the payee,
// delivered_amount the amount (XRP drops; issued amounts as signed), and
// InvoiceID the pairing's form of H.
func (vf *Verifier) checkXRPL(res *Result, r xrpl.Reader, v *Verification) {
	payload, _ := jsonv.AsObject(res.Signed)
	payload, _ = payload.GetObject("payload")
	blob, _ := payload.Get("signedTxBlob")
	want := xrpl.X402InvoiceID(res.H)
	if res.Pairing == xrpl.ChargeID {
		blob, _ = payload.Get("blob")
		want = xrpl.MPPInvoiceID(res.H)
	}
	tx, err := xrpl.DecodePresented(blob)
	if err != nil {
		v.problem(ProblemUnreadablePaid)
		return
	}
	v.Transaction = tx.Hash
	if named := sellerNamed(res); named != "" && !strings.EqualFold(named, tx.Hash) {
		v.problem(ProblemSellerNamed)
	}
	ref := jsonv.Obj("network", v.Network, "transaction", tx.Hash, "expect", want, "fromLedger", 0)
	if lls, ok := tx.Fields.JSON().Get("LastLedgerSequence"); ok {
		ref.Set("lastLedgerSequence", lls)
	}
	st, l := xrpl.ChargeRead(ref, r)
	v.Status = st.JSON()
	if st.State != xrpl.StateSettled || l == nil {
		// A landed transaction that is not this payment (another
		// InvoiceID) is the carrier's failure.
		if st.Why == xrpl.WhyNotThisInstrument {
			v.problem(ProblemNoH)
		}
		v.problem(ProblemNotLanded)
		return
	}
	if a, _ := l.TxJSON.GetString("Account"); a != res.Summary.Payer {
		v.problem(ProblemPayer)
	}
	if d, _ := l.TxJSON.GetString("Destination"); d != res.Summary.Payee {
		v.problem(ProblemPayee)
	}
	signed, _ := tx.Fields.JSON().Get("Amount")
	if l.Delivered == nil || !jsonv.Equal(l.Delivered, signed) || (res.Summary.Amount != nil && isDrops(signed) && signed != res.Summary.Amount.String()) {
		v.problem(ProblemAmount)
	}
	v.Settled = len(v.Problems) == 0
}

func isDrops(a jsonv.Value) bool { _, ok := a.(string); return ok }

// checkStellar reads the transaction the seller names (the sponsor
// submits it, so only the seller knows its hash), or searches for it when
// none is named. xrpl-like checks are in the reference: a settled status
// means the landed envelope carries the payer's very authorization entry
// (its preimage digest) and the muxed id of H, and that entry signs the
// asset, payee and amount of the payment.
func (vf *Verifier) checkStellar(res *Result, r stellar.Reader, v *Verification) {
	payload, _ := jsonv.AsObject(res.Signed)
	payload, _ = payload.GetObject("payload")
	env, _ := payload.GetString("transaction")
	t, err := stellar.ReadSignedTransfer(env, v.Network)
	if err != nil || t.ToMux == nil {
		v.problem(ProblemUnreadablePaid)
		return
	}
	ref, err := stellar.Reference(t, v.Network)
	if err != nil {
		v.problem(ProblemUnreadablePaid)
		return
	}
	if t.ToMux.ID != stellar.MuxedID(res.H) {
		v.problem(ProblemNoH)
	}
	if t.From != res.Summary.Payer {
		v.problem(ProblemPayer)
	}
	if t.ToMux.Base() != res.Summary.Payee && t.To != res.Summary.Payee {
		v.problem(ProblemPayee)
	}
	if res.Summary.Amount == nil || t.Amount.Cmp(res.Summary.Amount) != 0 {
		v.problem(ProblemAmount)
	}
	named := strings.ToLower(sellerNamed(res))
	if named == "" {
		found, complete := stellar.Locate(ref, r)
		if found == "" {
			why := "not-found"
			if !complete {
				why = "unreadable"
			}
			v.Status = jsonv.Obj("state", stellar.StatePending, "why", why)
			v.problem(ProblemNotLanded)
			return
		}
		named = found
	}
	v.Transaction = named
	ref.Set("transaction", named)
	st := stellar.TransferStatus(ref, r)
	v.Status = st.JSON()
	if st.State != stellar.StateSettled {
		if st.Why == stellar.WhyNotThisInstrument {
			v.problem(ProblemSellerNamed)
		}
		v.problem(ProblemNotLanded)
		return
	}
	v.Settled = len(v.Problems) == 0
}
