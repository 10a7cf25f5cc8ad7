package terms

import (
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
)

// MPPCharge is what the loopback MPP charge sellers share: the published
// terms, the body sold, one challenge expiry fixed at first issue, the last
// refusal, and the check that a credential echoes the challenge issued.
// Each seller adds its challenge and its rail's verification.
type MPPCharge struct {
	Record
	Body []byte
	Now  func() time.Time

	mu      sync.Mutex
	lastErr error
	expires string
}

// Expires is the challenge's expiry: five minutes after it was first
// issued, then the same for every 402, so that a credential answers the
// challenge the seller would issue again.
func (c *MPPCharge) Expires() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.expires == "" {
		c.expires = c.Now().Add(5 * time.Minute).UTC().Format("2006-01-02T15:04:05Z")
	}
	return c.expires
}

// LastRejection is why the last credential was refused, if one was.
func (c *MPPCharge) LastRejection() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastErr
}

// Serve routes r: the terms at the ATR host, the resource (402 with
// challenges, or the body for a credential accept takes) at the API host.
func (c *MPPCharge) Serve(w http.ResponseWriter, r *http.Request, accept func(credential string) error, challenges func() ([]jsonv.Value, error)) {
	c.Route(w, r, "atr.seller.example", "api.seller.example", func(w http.ResponseWriter, r *http.Request) {
		ServeMPP(w, r, &c.mu, &c.lastErr, accept, challenges, c.Body)
	})
}

// EchoesIssued checks that cred's challenge is issued[0] member for member
// and returns both.
func EchoesIssued(cred *jsonv.Object, issued []jsonv.Value) (echoed, mine *jsonv.Object, err error) {
	mine, _ = jsonv.AsObject(issued[0])
	echoed, _ = cred.GetObject("challenge")
	for _, k := range []string{"id", "realm", "method", "intent", "request", "expires"} {
		if mpp.String(echoed, k) != mpp.String(mine, k) {
			return nil, nil, fmt.Errorf("the echoed challenge's %s is not the one this seller issued", k)
		}
	}
	return echoed, mine, nil
}
