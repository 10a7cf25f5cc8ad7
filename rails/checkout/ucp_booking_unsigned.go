// ucp/booking/unsigned: as ucp/checkout/unsigned for a booking (the offer
// names {booking: id}): H goes in the booking response's one links[] entry
// {type: "legal_context", url, title: "lcp:sha256:" + H} and nowhere signed
// (Bound refuses ucp/not-buyer-signed). The buyer's gate signs nothing
// (confirm-only); the agreement payment made first is the proof.
package checkout

// UCPBookingUnsigned is ucp/booking/unsigned.
var UCPBookingUnsigned = UCP{Booking: true}
