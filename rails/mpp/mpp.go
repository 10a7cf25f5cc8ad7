// Package mpp reads and answers MPP's Payment challenges for the pairings built
// on them (docs/protocol.md, "MPP"): the WWW-Authenticate field with its
// challenges, the opaque map in which an LCP seller advertises H and the ATR
// link, the challenge id derived from H, the challenge hash and the
// attribution memo the rails sign, the choice of a challenge for an account,
// the credential (Authorization: Payment …) and the shared first steps of
// reading H back out of one.
//
// The gate's MPP "document" is the array of challenge objects ParseChallenges
// returns; each challenge is a *jsonv.Object of strings, members in the order
// the header gave them, so that a credential echoes it exactly.
//
// Nothing here knows a rail: the pairings live in rails/evm and rails/tempo
// and use this package's pieces.
package mpp

import (
	"github.com/termsgate/termsgate/rails"
)

// Refusal codes of the MPP pieces, exactly as the reference names them.
const (
	CodeHeaderMalformed       = "mpp/header-malformed"
	CodeChallengeMalformed    = "mpp/challenge-malformed"
	CodeNotThisPairing        = "mpp/not-this-pairing"
	CodeExpiresRequired       = "mpp/expires-required"
	CodeRequestMalformed      = "mpp/request-malformed"
	CodeOpaqueMalformed       = "mpp/opaque-malformed"
	CodeCarrierTaken          = "mpp/carrier-taken"
	CodeIDNotOurs             = "mpp/id-not-ours"
	CodeLegalContextConflict  = "mpp/legal-context-conflict"
	CodeLinkNotHTTPS          = "mpp/link-not-https"
	CodeLegalContextMalformed = "mpp/legal-context-malformed"
	CodeNoLegalContext        = "mpp/no-legal-context"
	CodeWitnessTaken          = "mpp/witness-taken"
	CodeNoPayableOption       = "mpp/no-payable-option"
	CodeInputMissing          = "mpp/input-missing"
	CodeInputMalformed        = "mpp/input-malformed"
	CodeChoiceMalformed       = "mpp/choice-malformed"
	CodeCredentialMalformed   = "mpp/credential-malformed"
	CodeCredentialType        = "mpp/credential-type"
	CodeOpaqueNotThisHash     = "mpp/opaque-not-this-hash"
	CodeAttributionMalformed  = "mpp/attribution-malformed"
	CodeAttributionMismatch   = "mpp/attribution-mismatch"
	CodeNetworkUnnamed        = "mpp/network-unnamed"

	// The method checks' codes (methods.go).
	CodeCredentialTypes    = "mpp/credential-types"
	CodeSplitsMalformed    = "mpp/splits-malformed"
	CodeModesPullOnly      = "mpp/modes-pull-only"
	CodeChannelNamed       = "mpp/channel-named"
	CodeSessionProtocol    = "mpp/session-protocol"
	CodeChainIDRequired    = "mpp/chain-id-required"
	CodeEscrowMalformed    = "mpp/escrow-malformed"
	CodeAccessKeyMalformed = "mpp/access-key-malformed"
)

// Bounds of docs/protocol.md, "MPP".
const (
	MaxFieldValue      = 8192   // characters of one WWW-Authenticate field value
	MaxChallenges      = 32     // Payment challenges in a document
	MaxDecoded         = 8192   // decoded bytes of request or opaque
	MaxJSONDepth       = 16     // nesting of request/opaque (top object = 1) and of a credential
	MaxCredentialUnits = 65_536 // the credential's size budget (credentialWithin)
)

// The opaque keys an LCP seller writes.
const (
	KeyLegalContext          = "legalContext"
	KeyLegalContextURL       = "legalContextUrl"
	KeyLegalContextAgreement = "legalContextAgreementUrl"
)

var lcpKeys = []string{KeyLegalContext, KeyLegalContextURL, KeyLegalContextAgreement}

// IsAddress reports 0x and 40 hex digits; no checksum is checked, and
// addresses are echoed as written.
func IsAddress(s string) bool { return rails.IsHex(s, 40) }

// IsWord32 reports 0x and 64 hex digits in either case (a hash, a memo).
func IsWord32(s string) bool { return rails.IsHex(s, 64) }

func refuse(code string) error { return rails.Refuse(code) }
