// Package atr holds what the buyer gate needs about the seller's terms record
// (the ATR) and nothing about payments: the hash H over the record's exact
// bytes, the one https-link rule links and agreement URLs must pass, the
// bounded fetch of the record, and a dialer that refuses non-public addresses.
//
// The rules follow the upstream gate (docs/protocol.md: "Terms", "Fetching the ATR", "Links", "Public addresses") so
// that one link, one body and one hash mean the same thing here as there.
//
// Two details make the Go side match upstream where net/url and net/http
// would not: links are judged with a WHATWG URL parse (whatwg.go), and the
// request is sent to the URL that parse yields, so a link means the same
// resource to both.
package atr
