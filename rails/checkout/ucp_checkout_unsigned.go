// ucp/checkout/unsigned: H goes in the UCP checkout response as its one
// links[] entry {type: "legal_context", url: the ATR's link, title:
// "lcp:sha256:" + H} (a legal_context_agreement entry beside it names the
// agreement URL), and nowhere else: UCP without the AP2 Mandates extension
// has no buyer signature, so nothing signed carries H (Bound refuses
// ucp/not-buyer-signed). The buyer's gate signs nothing (confirm-only); the
// agreement payment made first is the proof.
package checkout

// UCPCheckoutUnsigned is ucp/checkout/unsigned.
var UCPCheckoutUnsigned = UCP{}
