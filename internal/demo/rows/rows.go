// Package rows links every demo row into the binary that imports it
// (cmd/termsgate): one import line per package that registers rows, beside
// its rail's test seller. Adding a pairing's demo adds its row there and, for
// a new seller package, one line here.
package rows

import (
	_ "github.com/termsgate/termsgate/internal/agreementseller"   // x402/batch-settlement/cloudflare, x402/exact/eip155/erc7710
	_ "github.com/termsgate/termsgate/internal/algorandseller"    // x402/exact/algorand
	_ "github.com/termsgate/termsgate/internal/aptosseller"       // x402/exact/aptos (docs/aptos.md)
	_ "github.com/termsgate/termsgate/internal/cardanoseller"     // x402/exact/cardano
	_ "github.com/termsgate/termsgate/internal/cardseller"        // card/visa-tap, card/mastercard-vi/*, card/seller-reference, mpp/charge/card (docs/cards.md)
	_ "github.com/termsgate/termsgate/internal/casperseller"      // x402/exact/casper
	_ "github.com/termsgate/termsgate/internal/ccdseller"         // x402/exact/ccd (docs/ccd.md)
	_ "github.com/termsgate/termsgate/internal/checkoutseller"    // ap2, ucp, acp and ack checkouts (docs/checkout.md)
	_ "github.com/termsgate/termsgate/internal/hederaseller"      // x402/exact/hedera, mpp/charge/hedera, x402/exact/hedera/transfer-executor
	_ "github.com/termsgate/termsgate/internal/lightningseller"   // x402/exact/lnbtc (docs/lightning.md)
	_ "github.com/termsgate/termsgate/internal/mppevmseller"      // the MPP EVM charges, usdc and mpp/session/evm (docs/mpp-evm.md)
	_ "github.com/termsgate/termsgate/internal/mppseller"         // mpp/charge/tempo/memo, mpp/charge/evm/authorization
	_ "github.com/termsgate/termsgate/internal/nearintentsseller" // mpp/charge/nearintents (docs/nearintents.md)
	_ "github.com/termsgate/termsgate/internal/nearseller"        // x402/exact/near
	_ "github.com/termsgate/termsgate/internal/permit2seller"     // x402 Permit2 exact and upto, auth-capture, erc7710-salt
	_ "github.com/termsgate/termsgate/internal/polkadotseller"    // x402/exact/polkadot/lcp-assets-remark (docs/polkadot.md)
	_ "github.com/termsgate/termsgate/internal/solanaseller"      // x402/exact/solana, x402/batch-settlement/solana, mpp/session/solana, mpp/charge/solana, mpp/charge/usdc/solana, x402/upto/solana
	_ "github.com/termsgate/termsgate/internal/stacksseller"      // mpp/charge/usdc/stacks
	_ "github.com/termsgate/termsgate/internal/starknetseller"    // x402/exact/starknet (docs/starknet.md)
	_ "github.com/termsgate/termsgate/internal/stellarseller"     // x402/exact/stellar, mpp/charge/stellar
	_ "github.com/termsgate/termsgate/internal/stripeseller"      // mpp/charge/stripe, mpp/subscription/stripe (docs/stripe.md)
	_ "github.com/termsgate/termsgate/internal/suiseller"         // x402/exact/sui
	_ "github.com/termsgate/termsgate/internal/tronseller"        // x402/exact/tron/lcp-trc20-memo
	_ "github.com/termsgate/termsgate/internal/tvmseller"         // x402/exact/tvm
	_ "github.com/termsgate/termsgate/internal/x402seller"        // x402/exact/eip155/eip3009, x402/batch-settlement/eip155
	_ "github.com/termsgate/termsgate/internal/xrplseller"        // x402/exact/xrpl, mpp/charge/xrpl
)
