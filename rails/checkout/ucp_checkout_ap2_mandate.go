// ucp/checkout/ap2-mandate: H goes in the UCP checkout response as its one
// links[] entry {type: "legal_context", url: the ATR's link, title:
// "lcp:sha256:" + H} (a legal_context_agreement entry beside it names the
// agreement URL), before the merchant signs the checkout
// (ap2.merchant_authorization). The user's closed AP2 Checkout Mandate names
// the signed checkout JWT by checkout_hash, and H is read back from that
// JWT's legal_context link. The buyer's gate signs nothing (confirm-only):
// the mandate is the user's trusted surface's; the agreement payment made
// first is the proof.
package checkout

// UCPCheckoutMandate is ucp/checkout/ap2-mandate.
var UCPCheckoutMandate = UCP{Mandate: true}
