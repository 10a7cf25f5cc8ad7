package main

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"

	"github.com/termsgate/termsgate/atr"
)

// explainCause prints what lies beneath a decline or failure (the resolver's
// or TLS error, a refused address, the status, the deadline, the signer's
// error) and, where one flag or step would change the outcome, a hint. The
// decline's code and detail stay exactly as the vectors pin them; this is
// the part meant for the person at the terminal.
func explainCause(stderr io.Writer, err error) {
	cause := errors.Unwrap(err)
	if cause == nil {
		return
	}
	fmt.Fprintf(stderr, "termsgate: because: %v\n", cause)
	if h := hintFor(cause); h != "" {
		fmt.Fprintf(stderr, "termsgate: hint: %s\n", h)
	}
}

// hintFor names the flag or step that addresses a cause, or "".
func hintFor(err error) string {
	var np *atr.NotPublicError
	var ua x509.UnknownAuthorityError
	var hn x509.HostnameError
	switch {
	case errors.As(err, &np):
		return np.Host + " is not a public address; --allow-private allows it for local development"
	case errors.As(err, &ua):
		return "the seller's certificate is not signed by an authority this system trusts; --ca-file FILE trusts a local seller's certificate (termsgate seller writes one)"
	case errors.As(err, &hn):
		return "the seller's certificate is for another host name"
	case errors.Is(err, context.DeadlineExceeded):
		return "the seller did not answer in time; it may be slow or unreachable from here"
	}
	return ""
}
