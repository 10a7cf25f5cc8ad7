package x402

import (
	"crypto/sha256"
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// CodeLegalContextConflict refuses an advertisement over a document that
// already advertises other terms.
const CodeLegalContextConflict = "x402/legal-context-conflict"

// legalContextSchema is the fixed JSON Schema that accompanies the
// legalContext info (docs/protocol.md, "x402"), member order as published.
func legalContextSchema() *jsonv.Object {
	return jsonv.Obj(
		"$schema", "https://json-schema.org/draft/2020-12/schema",
		"type", "object",
		"properties", jsonv.Obj(
			"type", jsonv.Obj("const", "sha256"),
			"value", jsonv.Obj("type", "string", "pattern", "^0x[0-9a-f]{64}$"),
			"legalContextUrl", jsonv.Obj("type", "string", "pattern", "^https://"),
		),
		"required", []jsonv.Value{"type", "value", "legalContextUrl"},
	)
}

// Advertise is the seller's side of the read: it returns a copy of doc with
// extensions.legalContext advertising h at link (and the agreement URL when
// not empty). termsgate uses it for its demo seller and its tests; a document
// that already advertises different terms is refused.
func Advertise(doc *jsonv.Object, h atr.Hash, link, agreement string) (*jsonv.Object, error) {
	if _, err := checkedLink(link); err != nil {
		return nil, err
	}
	info := jsonv.Obj("type", "sha256", "value", h.String(), "legalContextUrl", link)
	if agreement != "" {
		if _, err := checkedLink(agreement); err != nil {
			return nil, err
		}
		info.Set("legalContextAgreementUrl", agreement)
	}
	out := doc.Clone()
	ext, ok := out.GetObject("extensions")
	if !ok {
		ext = jsonv.Obj()
		out.Set("extensions", ext)
	}
	if old, ok := ext.GetObject("legalContext"); ok {
		if oldInfo, _ := old.Get("info"); !jsonv.Equal(oldInfo, info) {
			return nil, rails.Refuse(CodeLegalContextConflict)
		}
		return out, nil
	}
	ext.Set("legalContext", jsonv.Obj("info", info, "schema", legalContextSchema()))
	return out, nil
}

// IssuedDigest is SHA-256 of the RFC 8785 canonical JSON of v: how LCP names
// an option or a request commitment independently of member order.
func IssuedDigest(v jsonv.Value) atr.Hash {
	return atr.Hash(sha256.Sum256(jsonv.Canonical(v)))
}

// RequestCommitment is what a record commits to of the buyer's own HTTP
// request: {method, path, query, bodyDigest}, the body as SHA-256 of its
// exact bytes.
func RequestCommitment(method, target string, body []byte) *jsonv.Object {
	path, query, _ := strings.Cut(target, "?")
	return jsonv.Obj("method", method, "path", path, "query", query, "bodyDigest", atr.Sum(body).String())
}
