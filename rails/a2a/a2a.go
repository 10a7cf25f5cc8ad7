// Package a2a is the Legal Context Protocol's extension for A2A (agent to
// agent) tasks (docs/a2a.md): the seller delivers the ATR's hash H and the
// link to its copy in a Task's metadata, keyed by the extension's URI.
//
// Where H goes: Task.metadata[URI].value, beside legalContextUrl. A2A signs
// nothing per transaction, so this is a carrier only and no pairing: the
// payment's own pairing binds H (CodeNoSignedPlace is the answer wherever
// an A2A pairing is asked for). Readers are strict and bounded, and never
// read any other metadata key.
package a2a

import (
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// URIs are the extension's URIs, in order of preference; the first is the
// one written when the client activated none.
var URIs = []string{"https://integraledger.com/lcp/a2a/legal-context/v1"}

// Refusal codes.
const (
	CodeNoSignedPlace         = "a2a/no-signed-place"
	CodeNoLegalContext        = "a2a/no-legal-context"
	CodeLegalContextMalformed = "a2a/legal-context-malformed"
	CodeLinkNotHTTPS          = "a2a/link-not-https"
	CodeLegalContextConflict  = "a2a/legal-context-conflict"
	CodeTooLarge              = "a2a/too-large"
)

// Bounds: an A2A-Extensions value of at most 8 KiB and 64 elements; the
// metadata value's JSON at most 4 KiB; the link at most 2048 characters.
const (
	MaxHeader     = 8192
	MaxElements   = 64
	MaxValueBytes = 4096
	MaxLink       = 2048
)

const description = "Delivers the ATR hash and the link to the seller's copy in task metadata, keyed by this URI. " +
	"Delivery only: A2A signs nothing per transaction."

// AgentExtension is the Agent Card's capabilities.extensions entries: one
// per listed URI.
func AgentExtension(required bool) []jsonv.Value {
	out := make([]jsonv.Value, 0, len(URIs))
	for _, u := range URIs {
		out = append(out, jsonv.Obj("uri", u, "description", description, "required", required))
	}
	return out
}

// activated is the first listed URI an A2A-Extensions value names: the
// value split on commas, each element trimmed of spaces and tabs, compared
// case-sensitively; "" when none, or when the value is over its bounds.
func activated(value string, present bool) string {
	if !present || len(value) > MaxHeader {
		return ""
	}
	elements := strings.Split(value, ",")
	if len(elements) > MaxElements {
		return ""
	}
	named := map[string]bool{}
	for _, e := range elements {
		named[strings.Trim(e, " \t")] = true
	}
	for _, u := range URIs {
		if named[u] {
			return u
		}
	}
	return ""
}

// Requested reports whether a request's A2A-Extensions value (present
// false when the header is absent) activates the extension.
func Requested(value string, present bool) bool { return activated(value, present) != "" }

// valueOf is the metadata value for h and link.
func valueOf(h atr.Hash, link string) *jsonv.Object {
	return jsonv.Obj("type", "sha256", "value", h.String(), "legalContextUrl", link)
}

// Place returns a copy of task whose metadata carries {type, value,
// legalContextUrl} under the URI the A2A-Extensions value activated (or the
// first listed URI); other metadata is kept. A task or metadata that is no
// object, or a hash that is none, is a2a/legal-context-malformed; a link of
// another scheme a2a/link-not-https; a value over 4 KiB a2a/too-large; a
// listed URI already holding another value a2a/legal-context-conflict.
func Place(task jsonv.Value, h string, link string, extensions string, present bool) (*jsonv.Object, error) {
	t, ok := jsonv.AsObject(task)
	if !ok {
		return nil, rails.Refuse(CodeLegalContextMalformed)
	}
	md, hasMD := t.Get("metadata")
	metadata, isObj := jsonv.AsObject(md)
	if hasMD && !isObj {
		return nil, rails.Refuse(CodeLegalContextMalformed)
	}
	hash, err := atr.ParseHash(h)
	if err != nil || !rails.IsHex(h, 64) {
		return nil, rails.Refuse(CodeLegalContextMalformed)
	}
	switch atr.CheckLink(link) {
	case atr.LinkOK:
	case atr.LinkOtherScheme:
		return nil, rails.Refuse(CodeLinkNotHTTPS)
	default:
		return nil, rails.Refuse(CodeLegalContextMalformed)
	}
	if atr.UTF16Len(link) > MaxLink {
		return nil, rails.Refuse(CodeLegalContextMalformed)
	}
	value := valueOf(hash, link)
	if len(jsonv.Marshal(value)) > MaxValueBytes {
		return nil, rails.Refuse(CodeTooLarge)
	}
	for _, u := range URIs {
		if had, has := metadata.Get(u); has && string(jsonv.Canonical(had)) != string(jsonv.Canonical(value)) {
			return nil, rails.Refuse(CodeLegalContextConflict)
		}
	}
	key := activated(extensions, present)
	if key == "" {
		key = URIs[0]
	}
	out := t.Clone()
	m := &jsonv.Object{}
	if metadata != nil {
		m = metadata.Clone()
	}
	m.Set(key, value)
	out.Set("metadata", m)
	return out, nil
}

// Read is the hash and the link a task's metadata carries under a listed
// URI; no other key is read, and values under two listed URIs must agree
// (a2a/legal-context-conflict). None is a2a/no-legal-context; a value over
// 4 KiB a2a/too-large; one whose type is not sha256, whose value is no
// hash, or whose link is not a link a2a/legal-context-malformed, and an
// otherwise good value with a link of another scheme a2a/link-not-https.
func Read(task jsonv.Value) (h, link string, err error) {
	t, _ := jsonv.AsObject(task)
	md, _ := t.Get("metadata")
	metadata, _ := jsonv.AsObject(md)
	found := false
	for _, u := range URIs {
		v, has := metadata.Get(u)
		if !has {
			continue
		}
		if len(jsonv.Marshal(v)) > MaxValueBytes {
			return "", "", rails.Refuse(CodeTooLarge)
		}
		o, ok := jsonv.AsObject(v)
		typ, _ := o.GetString("type")
		hv, _ := o.GetString("value")
		url, hasURL := o.GetString("legalContextUrl")
		hash, herr := atr.ParseHash(hv)
		if !ok || typ != "sha256" || herr != nil || !rails.IsHex(hv, 64) || !hasURL {
			return "", "", rails.Refuse(CodeLegalContextMalformed)
		}
		switch atr.CheckLink(url) {
		case atr.LinkOK:
		case atr.LinkOtherScheme:
			return "", "", rails.Refuse(CodeLinkNotHTTPS)
		default:
			return "", "", rails.Refuse(CodeLegalContextMalformed)
		}
		if atr.UTF16Len(url) > MaxLink {
			return "", "", rails.Refuse(CodeLegalContextMalformed)
		}
		if found && (h != hash.String() || link != url) {
			return "", "", rails.Refuse(CodeLegalContextConflict)
		}
		h, link, found = hash.String(), url, true
	}
	if !found {
		return "", "", rails.Refuse(CodeNoLegalContext)
	}
	return h, link, nil
}
