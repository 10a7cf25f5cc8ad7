package mcpserver

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
)

// Seals (docs/protocol.md, "The MCP server"). The server keeps nothing between calls: what
// a later call must trust (the chosen payment today; a channel's hold and
// opening with the channel tools) goes back to the agent with an HMAC-SHA-256
// mac, and comes back refused if anything in it changed. A label keeps one
// kind of sealed value from passing as another.

// label names one kind of sealed value.
type label string

const (
	labelChosen  label = "chosen"
	labelHold    label = "hold"
	labelOpening label = "opening"
)

// unverified is the decline for a value of label that fails its seal, with
// upstream's exact sentences.
func unverified(l label) *gate.Decline {
	switch l {
	case labelHold:
		return &gate.Decline{Code: gate.HoldUnverified, Detail: "The hold is not one this server process returned, unchanged. Pass back the latest hold exactly as returned."}
	case labelOpening:
		return &gate.Decline{Code: gate.OpeningUnverified, Detail: "The opening is not one this server process returned, unchanged. Pass the signed opening and its mac exactly as returned."}
	default:
		return &gate.Decline{Code: gate.ChosenUnverified, Detail: "The chosen payment is not one this server process returned, unchanged. Pass chosen exactly as atr_confirm returned it."}
	}
}

// SealKeySize is the length of a seal key: 32 bytes, HMAC-SHA-256's block
// strength.
const SealKeySize = 32

type sealer struct {
	key []byte
}

// processKey is the key of every server in this process that was given none:
// two servers in one process accept each other's values, a restarted process
// does not (as upstream).
var processKey = sync.OnceValues(func() ([]byte, error) {
	k := make([]byte, SealKeySize)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("mcpserver: no randomness for the seal key: %w", err)
	}
	return k, nil
})

// mac is "0x" and 64 lowercase hex of HMAC(key, label "\n" canonical JSON).
// Canonical JSON (members sorted at every depth) makes member order
// irrelevant and every other change fatal.
func (s *sealer) mac(l label, members *jsonv.Object) string {
	h := hmac.New(sha256.New, s.key)
	h.Write([]byte(l))
	h.Write([]byte{'\n'})
	h.Write(jsonv.Canonical(members))
	var out [2 + 2*sha256.Size]byte
	out[0], out[1] = '0', 'x'
	hex.Encode(out[2:], h.Sum(nil))
	return string(out[:])
}

// verify reports whether mac is the seal of members under l. A mac not in
// the one form seal writes fails without being compared.
func (s *sealer) verify(l label, members *jsonv.Object, mac string) bool {
	if len(mac) != 66 || !strings.HasPrefix(mac, "0x") || strings.Trim(mac[2:], "0123456789abcdef") != "" {
		return false
	}
	return hmac.Equal([]byte(mac), []byte(s.mac(l, members)))
}

// seal returns a copy of o with mac set over its other members.
func (s *sealer) seal(l label, o *jsonv.Object) *jsonv.Object {
	c := o.Clone()
	c.Delete("mac")
	c.Set("mac", s.mac(l, c))
	return c
}

// open checks a sealed value and returns it without its mac, or the label's
// decline. Anything that is not an object with a string mac fails.
func (s *sealer) open(l label, v jsonv.Value) (*jsonv.Object, *gate.Decline) {
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, unverified(l)
	}
	mac, ok := o.GetString("mac")
	if !ok {
		return nil, unverified(l)
	}
	members := o.Clone()
	members.Delete("mac")
	if !s.verify(l, members, mac) {
		return nil, unverified(l)
	}
	return members, nil
}

// SealKeyFromFile reads a seal key file: exactly 32 bytes, as made by
// "head -c 32 /dev/urandom > seal.key".
func SealKeyFromFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("seal key: %w", err)
	}
	if len(b) != SealKeySize {
		return nil, fmt.Errorf("seal key: %s holds %d bytes; it must hold exactly %d random bytes (head -c 32 /dev/urandom > %s)", path, len(b), SealKeySize, path)
	}
	return b, nil
}

// SealKeyFromHex reads a seal key given as 64 hex digits (an optional 0x
// prefix and surrounding white space allowed), as in an environment
// variable.
func SealKeyFromHex(s string) ([]byte, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "0x")
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != SealKeySize {
		return nil, errors.New("seal key: the value must be 64 hex digits (32 random bytes), e.g. from: openssl rand -hex 32")
	}
	return b, nil
}
