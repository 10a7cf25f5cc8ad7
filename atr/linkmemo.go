package atr

import "sync/atomic"

// A payer pays the same seller again and again, and each payment checks the
// same link twice (reading the offer, then in the gate) with the WHATWG
// parse CheckLink runs: the last link found LinkOK is remembered, and only
// a string equal to it byte for byte is answered from the memo. The verdict
// is a function of the string alone, so the memo answers what the check
// would.
var linkOK atomic.Pointer[string]

func lastLinkOK(s string) bool {
	p := linkOK.Load()
	return p != nil && *p == s
}

func rememberLinkOK(s string) { linkOK.Store(&s) }
