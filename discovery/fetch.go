package discovery

import (
	"context"
	"errors"
	"net/url"
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
)

// Result is a fetched document with what a reader needs to cite it.
type Result struct {
	URL      string    // what was fetched
	Document *Document // the known members
	Ignored  []string  // dotted paths of members not known, in order
	Bytes    []byte    // exactly as served
}

// DocumentURL is the URL Fetch requests for link: link itself when it has
// a path, else the seller's well-known path on that origin.
func DocumentURL(link string) string {
	u, err := url.Parse(link)
	if err != nil || u.Scheme != "https" || u.User != nil || strings.ContainsAny(link, "?#") || u.Path != "" && u.Path != "/" {
		return link // fetched, or refused, as given
	}
	return strings.TrimSuffix(link, "/") + WellKnownPath
}

// Fetch gets and reads a seller's discovery document under the ATR's fetch
// rules (atr.Fetcher: https only, no redirect, identity coding, one
// deadline, bounded read), then Parse's. link is an origin
// (https://seller.example) or the document's own URL. Every failure is a
// *gate.Decline: discovery/unfetchable with atr's sentence, or a code of
// Parse.
func Fetch(ctx context.Context, f *atr.Fetcher, link string) (*Result, error) {
	target := DocumentURL(link)
	if atr.CheckLink(target) != atr.LinkOK {
		return nil, refuse(CodeUnfetchable, "The discovery link is not an https link the gate would fetch.")
	}
	if f == nil {
		f = &atr.Fetcher{}
	}
	b, err := f.Fetch(ctx, target)
	if err != nil {
		var fe *atr.FetchError
		if errors.As(err, &fe) && fe.Code == atr.CodeTooLarge {
			return nil, &gate.Decline{Code: CodeTooLarge, Detail: "The discovery document is larger than 65536 bytes.", Err: err}
		}
		// atr's sentences about the link (status, redirect, coding) read
		// right here too; its generic one names the ATR.
		detail := "The discovery document could not be fetched from the link."
		if fe != nil && fe.Detail != atr.DetailUnfetchable {
			detail = fe.Detail
		}
		return nil, &gate.Decline{Code: CodeUnfetchable, Detail: detail, Err: err}
	}
	d, ignored, err := Parse(b)
	if err != nil {
		return nil, err
	}
	return &Result{URL: target, Document: d, Ignored: ignored, Bytes: b}, nil
}
