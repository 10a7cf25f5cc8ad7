// ucp/booking/ap2-mandate: as ucp/checkout/ap2-mandate for a booking (the
// offer names {booking: id}): H goes in the booking response's one links[]
// entry {type: "legal_context", url, title: "lcp:sha256:" + H}, the merchant
// signs the booking (ap2.merchant_authorization), and the user's closed AP2
// Checkout Mandate names that signed booking JWT by checkout_hash; H is read
// back from its legal_context link. The buyer's gate signs nothing
// (confirm-only); the agreement payment made first is the proof.
package checkout

// UCPBookingMandate is ucp/booking/ap2-mandate.
var UCPBookingMandate = UCP{Booking: true, Mandate: true}
