package mpp

import (
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
)

// LCP replaces the challenge id MPP recommends (an HMAC the seller keeps)
// with one derived from H, so that the id every credential echoes names the
// ATR: base64url of H's 32 bytes, "." and the challenge's position in its
// list. A Tempo subscription's id is the bare base64url of H, since its
// witness already carries H and one list places at most one.

// ChallengeID is base64url(H) + "." + index, for index 0–31.
func ChallengeID(h atr.Hash, index int) (string, error) {
	if index < 0 || index >= MaxChallenges {
		return "", refuse(CodeChallengeMalformed)
	}
	return BareID(h) + "." + strconv.Itoa(index), nil
}

// BareID is base64url(H), a Tempo subscription challenge's id.
func BareID(h atr.Hash) string { return EncodeB64URL(h[:]) }

// HFromID reads H from an id ChallengeID or BareID wrote: 43 characters of
// strict base64url of 32 bytes, then optionally "." and a position
// ^(0|[1-9][0-9]?)$ below 32. Anything else is mpp/id-not-ours.
func HFromID(id string) (atr.Hash, error) {
	body, pos, dotted := strings.Cut(id, ".")
	if dotted && !isPosition(pos) {
		return atr.Hash{}, refuse(CodeIDNotOurs)
	}
	if len(body) != 43 {
		return atr.Hash{}, refuse(CodeIDNotOurs)
	}
	raw, ok := DecodeB64URL(body, 32)
	if !ok || len(raw) != 32 {
		return atr.Hash{}, refuse(CodeIDNotOurs)
	}
	return atr.Hash(raw), nil
}

func isPosition(s string) bool {
	switch {
	case s == "0":
		return true
	case len(s) == 1:
		return s[0] >= '1' && s[0] <= '9'
	case len(s) == 2:
		return s[0] >= '1' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9' && (s[0]-'0')*10+(s[1]-'0') < MaxChallenges
	}
	return false
}

// IsSubscription reports a Tempo subscription challenge, whose id is bare.
func IsSubscription(c *jsonv.Object) bool {
	intent, _ := c.GetString("intent")
	method, _ := c.GetString("method")
	return intent == "subscription" && method == "tempo"
}

// HOfChallenge reads H from a challenge's id in the form its intent and
// method take: bare for a Tempo subscription, with a position for every other
// challenge.
func HOfChallenge(c *jsonv.Object) (atr.Hash, error) {
	id, ok := c.GetString("id")
	if !ok || strings.Contains(id, ".") == IsSubscription(c) {
		return atr.Hash{}, refuse(CodeIDNotOurs)
	}
	return HFromID(id)
}

// ChallengeHash is keccak256(UTF-8(id) ‖ UTF-8(realm)), Solidity's
// abi.encodePacked(string, string): the EIP-3009 nonce of
// mpp/charge/evm/authorization.
func ChallengeHash(id, realm string) [32]byte {
	return [32]byte(crypto.Keccak256([]byte(id), []byte(realm)))
}

// mppTag is keccak256("mpp")[0..4], the attribution memo's first bytes.
var mppTag = [4]byte(crypto.Keccak256([]byte("mpp"))[:4])

// AttributionMemo is MPP's 32-byte attribution memo: the tag, version 0x01,
// keccak256(realm)[0..10], keccak256(clientID)[0..10] (ten zero bytes when
// hasClient is false) and keccak256(id)[0..7]. The last seven bytes are
// where H reaches a Tempo transfer: they commit to the id, which is H.
func AttributionMemo(realm, id string, clientID string, hasClient bool) [32]byte {
	var m [32]byte
	copy(m[0:4], mppTag[:])
	m[4] = 0x01
	copy(m[5:15], crypto.Keccak256([]byte(realm))[:10])
	if hasClient {
		copy(m[15:25], crypto.Keccak256([]byte(clientID))[:10])
	}
	copy(m[25:32], crypto.Keccak256([]byte(id))[:7])
	return m
}

// CheckAttribution checks a memo ("0x" and 64 hex digits, else
// mpp/attribution-malformed) against realm and id: bytes 0–14 and 25–31 must
// be the expected ones (else mpp/attribution-mismatch); the client id is not
// read.
func CheckAttribution(memo string, realm, id string) error {
	if !IsWord32(memo) {
		return refuse(CodeAttributionMalformed)
	}
	var b [32]byte
	if _, err := hex.Decode(b[:], []byte(memo[2:])); err != nil {
		return refuse(CodeAttributionMalformed)
	}
	return CheckAttributionBytes(b, realm, id)
}

// CheckAttributionBytes is CheckAttribution on the memo's 32 bytes.
func CheckAttributionBytes(memo [32]byte, realm, id string) error {
	want := AttributionMemo(realm, id, "", false)
	if [15]byte(memo[0:15]) != [15]byte(want[0:15]) || [7]byte(memo[25:32]) != [7]byte(want[25:32]) {
		return refuse(CodeAttributionMismatch)
	}
	return nil
}

// CheckChosen is the part every MPP build shares once it holds the chosen
// challenge: checked as placed (its codes), offering pairing
// (mpp/not-this-pairing), its id naming h (mpp/id-not-ours).
func CheckChosen(challenge *jsonv.Object, pairing string, h atr.Hash) (*Checked, error) {
	checked, err := CheckChallenge(challenge, true)
	if err != nil {
		return nil, err
	}
	if !checked.Offers(pairing) {
		return nil, refuse(CodeNotThisPairing)
	}
	if fromID, err := HOfChallenge(challenge); err != nil || !fromID.Equal(h) {
		return nil, refuse(CodeIDNotOurs)
	}
	return checked, nil
}
