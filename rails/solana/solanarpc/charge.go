package solanarpc

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"strconv"

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

// UptoInputs are the buyer's inputs for an x402/upto/solana opening of
// mint: a fresh random channel nonce (the channel address's salt, so two
// openings never collide), the current slot as openSlot, the mint's token
// program and a recent blockhash.
func (c *Client) UptoInputs(ctx context.Context, mint string) (*jsonv.Object, error) {
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
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	return jsonv.Obj("nonce", strconv.FormatUint(binary.LittleEndian.Uint64(b[:]), 10), "openSlot", strconv.FormatUint(slot, 10),
		"tokenProgram", program, "recentBlockhash", bh), nil
}
