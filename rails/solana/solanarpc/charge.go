package solanarpc

import (
	"context"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/solana"
)

// ChargeInputs are the buyer's chain reads for an MPP Solana charge in
// currency: the recent blockhash, and for a mint its decimals and token
// program (Inputs); a SOL charge needs only the blockhash.
func (c *Client) ChargeInputs(ctx context.Context, currency string) (*jsonv.Object, error) {
	if currency != "sol" {
		return c.Inputs(ctx, currency)
	}
	bh, _, err := c.LatestBlockhash(ctx)
	if err != nil {
		return nil, err
	}
	return jsonv.Obj("recentBlockhash", bh), nil
}

// chargeInputsFor is InputsFor for the MPP charges.
func (c *Client) chargeInputsFor(ctx context.Context, pairing string, doc jsonv.Value, account string) (*jsonv.Object, error) {
	currency, ok := solana.ChargeCurrency(pairing, doc, account)
	if !ok {
		return nil, nil
	}
	return c.ChargeInputs(ctx, currency)
}
