package pay

// LastRequired exposes the PAYMENT-REQUIRED memo to the external tests:
// its header and document, or "" and nil.
func LastRequired() (string, any) {
	if m := lastRequired.Load(); m != nil {
		return m.header, m.doc
	}
	return "", nil
}
