package pay

// Settlement the buyer checks on Solana, for x402/exact/solana: the payer
// signs a transaction whose fee payer is the seller's facilitator, which
// co-signs and sends it, so its signature (the fee payer's) is known only
// from the seller's PAYMENT-RESPONSE. That transaction is read with
// getTransaction (finalized, then confirmed) and must be the very message
// the payer signed (its SHA-256), have run without error (meta.err null),
// move value (rails/solana's TransferStatus), and, read from the landed
// message itself: its one Memo carries "lcp:sha256:" + H, and its one
// TransferChecked moves the amount of the asset from the payer to the
// payee's token account.
//
// When the seller names no transaction and the reader can list signatures
// (solana.Locator), the payer's own signatures are searched, newest first
// and bounded as rails/solana's Locate bounds them, for one whose memo
// carries H and which reads settled.

import (
	"encoding/hex"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/solana"
)

// checkSolana reads an x402/exact/solana settlement.
func (vf *Verifier) checkSolana(res *Result, r solana.Reader, v *Verification) {
	ref, err := solana.Exact{}.Reference(res.Signed)
	if err != nil {
		v.problem(ProblemUnreadablePaid)
		return
	}
	var landedProblems []string
	check := func(tx *solana.Tx, _ *solana.Landed) string {
		landedProblems = solanaProblems(res, tx)
		return ""
	}

	named := sellerNamed(res)
	if named == "" {
		loc, ok := r.(solana.Locator)
		if !ok {
			v.Status = jsonv.Obj("state", solana.StatePending, "why", WhyNotNamed)
			v.problem(ProblemNoTransaction)
			return
		}
		search := ref.Clone()
		search.Set("feePayer", res.Summary.Payer)
		search.Set("fromSlot", "0")
		found := solana.Locate(search, loc, res.H, func(ref *jsonv.Object, r solana.Reader) solana.Status {
			return solana.TransferStatus(ref, r)
		})
		if found.Found == "" {
			why := solana.WhyNotFound
			if !found.Complete {
				why = solana.WhyUnreadable
			}
			v.Status = jsonv.Obj("state", solana.StatePending, "why", why)
			v.problem(ProblemNotLanded)
			return
		}
		named = found.Found
	} else if res.Settlement.Network != "" && res.Settlement.Network != v.Network {
		v.problem(ProblemSellerNamed)
	}
	v.Transaction = named
	ref.Set("transaction", named)
	st := solana.SettledBy(ref, r, check)
	v.Status = st.JSON()
	if st.State != solana.StateSettled {
		if st.Why == solana.WhyNotThisInstrument {
			v.problem(ProblemSellerNamed)
		}
		v.problem(ProblemNotLanded)
		return
	}
	for _, p := range landedProblems {
		v.problemOnce(p)
	}
	v.Settled = len(v.Problems) == 0
}

// solanaProblems reads the landed message: its memo must carry H, its
// transfer the payment's payer, payee, asset and amount.
func solanaProblems(res *Result, tx *solana.Tx) []string {
	var out []string
	if _, h, err := solana.MemoCarrier(tx); err != nil || h != res.H.String() {
		out = append(out, ProblemNoH)
	}
	g, err := solana.Exact{}.Summarize(jsonv.Obj("kind", "solana-message", "network", res.Summary.Network,
		"message", "0x"+hex.EncodeToString(tx.Message)))
	if err != nil {
		return append(out, ProblemUnreadablePaid)
	}
	if g.Payer != res.Summary.Payer {
		out = append(out, ProblemPayer)
	}
	if g.Payee != res.Summary.Payee {
		out = append(out, ProblemPayee)
	}
	if g.Asset != res.Summary.Asset || res.Summary.Amount == nil || g.Amount.Cmp(res.Summary.Amount) != 0 {
		out = append(out, ProblemAmount)
	}
	return out
}
