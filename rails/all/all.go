// Package all is the default registry: every pairing termsgate implements.
// Adding a pairing is one line here.
package all

import (
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/algorand"
	"github.com/termsgate/termsgate/rails/aptos"
	"github.com/termsgate/termsgate/rails/card"
	"github.com/termsgate/termsgate/rails/cardano"
	"github.com/termsgate/termsgate/rails/casper"
	"github.com/termsgate/termsgate/rails/ccd"
	"github.com/termsgate/termsgate/rails/checkout"
	"github.com/termsgate/termsgate/rails/cloudflare"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/hedera"
	"github.com/termsgate/termsgate/rails/lightning"
	"github.com/termsgate/termsgate/rails/near"
	"github.com/termsgate/termsgate/rails/polkadot"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/stacks"
	"github.com/termsgate/termsgate/rails/starknet"
	"github.com/termsgate/termsgate/rails/stellar"
	"github.com/termsgate/termsgate/rails/stripe"
	"github.com/termsgate/termsgate/rails/sui"
	"github.com/termsgate/termsgate/rails/tempo"
	"github.com/termsgate/termsgate/rails/tron"
	"github.com/termsgate/termsgate/rails/tvm"
	"github.com/termsgate/termsgate/rails/xrpl"
)

// Default returns a new registry of every pairing, in the order the agreement
// exchange tries them on an option.
func Default() *rails.Registry {
	return rails.NewRegistry(
		evm.ExactEIP3009{},
		evm.ExactPermit2{},
		evm.UptoPermit2{},
		evm.AuthCaptureEIP3009{},
		evm.AuthCapturePermit2{},
		evm.ExactERC7710Salt{},
		evm.ExactERC7710{},
		evm.MPPAuthorization{},
		evm.MPPUSDC{},
		evm.MPPPermit2{},
		evm.MPPTransaction{},
		evm.MPPHash{},
		evm.MPPSession{},
		evm.MPPGateway{},
		evm.Batch{},
		cloudflare.Batch{},
		solana.Exact{},
		solana.Batch{},
		solana.Session{},
		solana.Charge{},
		solana.ChargeUSDC{},
		solana.Upto{},
		hedera.Exact{},
		hedera.Charge{},
		hedera.Executor{},
		hedera.Session{},
		tempo.Memo{},
		tempo.Push{},
		tempo.Session{},
		tempo.Subscription{},
		xrpl.Exact{},
		xrpl.Charge{},
		xrpl.Session{},
		stellar.Exact{},
		stellar.Charge{},
		lightning.Exact{},
		algorand.Exact{},
		lightning.InvoiceNamed{},
		lightning.Charge{},
		tron.Exact{},
		lightning.Session{},
		sui.Exact{},
		aptos.Exact{},
		near.Exact{},
		polkadot.Exact{},
		tvm.Exact{},
		checkout.AP2{},
		checkout.UCPCheckoutMandate,
		checkout.UCPCheckoutUnsigned,
		checkout.UCPBookingMandate,
		checkout.UCPBookingUnsigned,
		checkout.ACPDelegated{},
		checkout.ACPUndelegated{},
		checkout.ACK{},
		stripe.Charge{},
		stripe.Subscription{},
		card.VisaTAP{},
		card.VIImmediate{},
		card.VIAutonomous{},
		card.SellerReference{},
		card.MPPCharge{},
		cardano.Exact{},
		stacks.ChargeUSDC{},
		near.NearIntents{},
		casper.Exact{},
		ccd.Exact{},
		starknet.Exact{},
	)
}
