package pay

// Settlement the buyer checks on Solana, for x402/exact/solana and the MPP
// charges (mpp/charge/solana, mpp/charge/usdc/solana). x402: the payer
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
// carries H and which reads settled. The search reaches back
// SolanaSearchSlots from the node's finalized slot when the reader tells it
// (solanaSlotter): the payment's recent blockhash is valid for 150 blocks
// (about a minute) and the check runs as soon as the seller answers, so a
// transaction that landed at all landed inside that window. A search from
// slot 0 would be complete only on a node that kept every block since
// genesis, so on any pruning node it could never say "not landed".
//
// The MPP charges are read the same way, from the transaction the
// Payment-Receipt's reference names (the seller's fee payer co-signs and
// sends), or, when the payer is its own fee payer, the payer's signature in
// the credential. Two differences follow the pairings' files: H is the one
// memo carrying an LCP string (other memos are split labels,
// solana.LCPMemo), and a SOL charge is one System transfer (the charge's
// Summarize).

import (
	"encoding/hex"
	"strconv"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/solana"
)

// SolanaSearchSlots is how many slots before the node's finalized slot the
// search for an unnamed x402/exact/solana transaction reaches: 4,500 slots
// (half an hour at 400 ms a slot), thirty times the life of the payment's
// blockhash, so that slow answers and skipped slots still fall inside.
const SolanaSearchSlots = 4500

// solanaSlotter is a reader that tells the node's current slot
// (solanarpc.Reader: getSlot at finalized).
type solanaSlotter interface {
	Slot() (uint64, error)
}

// checkSolana reads an x402/exact/solana settlement.
func (vf *Verifier) checkSolana(res *Result, r solana.Reader, v *Verification) {
	ref, err := solanaReference(res)
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
	// A payer that is its own fee payer signed first: its signature names
	// the transaction, whatever the seller says.
	if own, ok := ref.GetString("transaction"); ok && own != "" {
		if named != "" && named != own {
			v.problem(ProblemSellerNamed)
		}
		named = own
	}
	if named == "" {
		loc, ok := r.(solana.Locator)
		if !ok {
			v.Status = jsonv.Obj("state", solana.StatePending, "why", WhyNotNamed)
			v.problem(ProblemNoTransaction)
			return
		}
		search := ref.Clone()
		search.Set("feePayer", res.Summary.Payer)
		// A reader that cannot tell the slot searches from the node's
		// first block, still bounded by Locate's pages.
		from := uint64(0)
		if sl, ok := r.(solanaSlotter); ok {
			now, err := sl.Slot()
			if err != nil {
				v.Status = jsonv.Obj("state", solana.StatePending, "why", solana.WhyUnreadable)
				v.problem(ProblemNotLanded)
				return
			}
			if now > SolanaSearchSlots {
				from = now - SolanaSearchSlots
			}
		}
		search.Set("fromSlot", strconv.FormatUint(from, 10))
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
	memo, summarize := solana.MemoCarrier, solana.Exact{}.Summarize
	if res.Pairing != solana.ExactID {
		memo, summarize = solana.LCPMemo, solana.Charge{}.Summarize
	}
	if _, h, err := memo(tx); err != nil || h != res.H.String() {
		out = append(out, ProblemNoH)
	}
	g, err := summarize(jsonv.Obj("kind", "solana-message", "network", res.Summary.Network,
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

// solanaReference is the paid transaction's reference, read by the
// pairing's own Reference.
func solanaReference(res *Result) (*jsonv.Object, error) {
	switch res.Pairing {
	case solana.ChargeID:
		return solana.Charge{}.Reference(res.Signed)
	case solana.ChargeUSDCID:
		return solana.ChargeUSDC{}.Reference(res.Signed)
	}
	return solana.Exact{}.Reference(res.Signed)
}
