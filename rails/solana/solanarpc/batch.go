package solanarpc

import (
	"context"
	"strconv"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/solana"
)

// Slot is getSlot at commitment finalized: the slot a new
// batch-settlement channel names as its opening slot (a seed of the
// channel's address). The answer must be a safe integer.
func (c *Client) Slot(ctx context.Context) (uint64, error) {
	const method = "getSlot"
	v, err := c.call(ctx, method, jsonv.Obj("commitment", "finalized"))
	if err != nil {
		return 0, err
	}
	slot, ok := jsonv.AsSafeInt(v)
	if !ok || slot < 0 {
		return 0, &Error{Method: method, Detail: "the answer is not a slot"}
	}
	return uint64(slot), nil
}

// BatchInputs are x402/batch-settlement/solana's buyer inputs read now:
// the mint's token program, the current slot as openSlot and a recent
// blockhash, with payerAuthorizer, the key that will sign vouchers. The
// deposit is the buyer's own choice (or the option's extra.minDeposit),
// never a node's.
func (c *Client) BatchInputs(ctx context.Context, mint, payerAuthorizer string) (*jsonv.Object, error) {
	if _, ok := solana.ParseKey(payerAuthorizer); !ok {
		return nil, &Error{Method: "getSlot", Detail: "the payer authorizer is not a key"}
	}
	_, program, err := c.Mint(ctx, mint)
	if err != nil {
		return nil, err
	}
	slot, err := c.Slot(ctx)
	if err != nil {
		return nil, err
	}
	bh, _, err := c.LatestBlockhash(ctx)
	if err != nil {
		return nil, err
	}
	return jsonv.Obj("payerAuthorizer", payerAuthorizer, "openSlot", strconv.FormatUint(slot, 10),
		"tokenProgram", program, "recentBlockhash", bh), nil
}
