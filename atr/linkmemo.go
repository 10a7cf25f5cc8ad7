package atr

import (
	"net/url"
	"sync/atomic"
)

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

// The fetch turns the same link into the same request URL each time (the
// WHATWG parse again, after IsHTTPSLink's): the last one made is kept with
// its link, and a copy handed out for a link equal to it byte for byte.
type targetMemo struct {
	link string
	url  url.URL
}

var lastTarget atomic.Pointer[targetMemo]

// requestURL is buildRequestURL, from the memo when link is the last one.
func requestURL(link string) (*url.URL, bool) {
	if m := lastTarget.Load(); m != nil && m.link == link {
		u := m.url // a copy: the caller's request owns its URL
		return &u, true
	}
	u, ok := buildRequestURL(link)
	if ok {
		lastTarget.Store(&targetMemo{link: link, url: *u})
	}
	return u, ok
}
