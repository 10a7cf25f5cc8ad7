package lightning

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"sort"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// Refusal codes of the request binding (docs/lightning.md, "The request
// binding").
const (
	CodeRequestBinding  = "ln/request-binding"  // the option's profile or its parameters do not read
	CodeRequestMismatch = "ln/request-mismatch" // the buyer's own request does not hash to the option's requestHash
	CodeRequestMissing  = "x402/input-missing"  // the buyer gave no request to hash
)

// Profiles of x402's lnbtc request binding.
const (
	ProfileHTTP = "http:1"
	ProfileMCP  = "mcp:1"
)

const domainPrefix = "x402:exact:lnbtc:bolt11:"

// RequestHash is the request hash x402's lnbtc scheme puts in an invoice's
// description hash: SHA-256 of the JCS form of the binding object the
// profile builds from the buyer's own request (docs/lightning.md, "The
// request binding"). For http:1, request is {method, url, body?,
// headers?} (body the content's UTF-8 text, headers an object of names to
// values); for mcp:1, {server, name, arguments?, meta?}. params is the
// option's extra.requestBindingParams.
func RequestHash(profile string, params *jsonv.Object, request *jsonv.Object) ([32]byte, error) {
	var binding *jsonv.Object
	var err error
	switch profile {
	case ProfileHTTP:
		b, err := httpBinding(params, request)
		if err != nil {
			return [32]byte{}, err
		}
		return sha256.Sum256(httpCanonical(b)), nil
	case ProfileMCP:
		binding, err = mcpBinding(params, request)
	default:
		err = rails.Refuse(CodeRequestBinding)
	}
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256(jsonv.Canonical(binding)), nil
}

func hexSum(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// valueHash is SHA-256 of 0x01 ‖ value for a present value, of 0x00 for
// an absent one, so that absent and empty differ.
func valueHash(v []byte, present bool) string {
	if !present {
		return hexSum([]byte{0})
	}
	return hexSum(append([]byte{1}, v...))
}

// names reads a parameter list: strings, each passing ok, in ascending
// byte order without repeats.
func names(v jsonv.Value, ok func(string) bool) ([]string, bool) {
	list, isList := jsonv.AsArray(v)
	if !isList || len(list) > 64 {
		return nil, false
	}
	out := make([]string, len(list))
	for i, e := range list {
		s, isStr := jsonv.AsString(e)
		if !isStr || !ok(s) || i > 0 && s <= out[i-1] {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

func isToken(s string) bool {
	if s == "" || len(s) > 256 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// httpBinding is http:1's {domain, method, url, bodyHash, headers}.
func httpBinding(params, request *jsonv.Object) (*jsonv.Object, error) {
	bad := rails.Refuse(CodeRequestBinding)
	if params == nil || params.Len() != 1 {
		return nil, bad
	}
	hv, _ := params.Get("headers")
	bound, ok := names(hv, func(s string) bool { return isToken(s) && s != "payment-signature" })
	if !ok {
		return nil, bad
	}
	if request == nil {
		return nil, rails.Refuse(CodeRequestMissing)
	}
	method, _ := request.GetString("method")
	target, _ := request.GetString("url")
	if !isToken(strings.ToLower(method)) || !absoluteURL(target) {
		return nil, rails.Refuse(CodeRequestMissing)
	}
	var body []byte
	if b, has := request.Get("body"); has {
		s, ok := jsonv.AsString(b)
		if !ok {
			return nil, rails.Refuse(CodeRequestMissing)
		}
		body = []byte(s)
	}
	given, _ := request.GetObject("headers")
	if h, has := request.Get("headers"); has && given == nil && h != nil {
		return nil, rails.Refuse(CodeRequestMissing)
	}
	headers := make([]jsonv.Value, len(bound))
	for i, name := range bound {
		var value string
		present := false
		for _, m := range given.Members() {
			if strings.EqualFold(m.Key, name) {
				s, ok := jsonv.AsString(m.Value)
				if !ok || present {
					return nil, rails.Refuse(CodeRequestMissing) // one value per header, as text
				}
				value, present = strings.TrimSpace(s), true
			}
		}
		headers[i] = jsonv.Obj("name", name, "valueHash", valueHash([]byte(value), present))
	}
	return jsonv.Obj("domain", domainPrefix+ProfileHTTP, "method", method, "url", target,
		"bodyHash", hexSum(body), "headers", headers), nil
}

// httpCanonical writes http:1's binding in JCS form by hand: its member
// names are fixed, so their order is too (bodyHash, domain, headers,
// method, url; name, valueHash), and JCS writes strings as JavaScript's
// JSON.stringify does, which jsonv.AppendString follows. It is what
// jsonv.Canonical writes, without sorting members on every payment.
func httpCanonical(b *jsonv.Object) []byte {
	str := func(k string) string { s, _ := b.GetString(k); return s }
	out := make([]byte, 0, 256)
	out = append(out, `{"bodyHash":`...)
	out = jsonv.AppendString(out, str("bodyHash"))
	out = append(out, `,"domain":`...)
	out = jsonv.AppendString(out, str("domain"))
	out = append(out, `,"headers":[`...)
	hv, _ := b.Get("headers")
	list, _ := jsonv.AsArray(hv)
	for i, h := range list {
		o, _ := jsonv.AsObject(h)
		if i > 0 {
			out = append(out, ',')
		}
		n, _ := o.GetString("name")
		v, _ := o.GetString("valueHash")
		out = append(out, `{"name":`...)
		out = jsonv.AppendString(out, n)
		out = append(out, `,"valueHash":`...)
		out = jsonv.AppendString(out, v)
		out = append(out, '}')
	}
	out = append(out, `],"method":`...)
	out = jsonv.AppendString(out, str("method"))
	out = append(out, `,"url":`...)
	out = jsonv.AppendString(out, str("url"))
	return append(out, '}')
}

// absoluteURL: http or https, ASCII, a host, no user information, no
// fragment.
func absoluteURL(s string) bool {
	if s == "" || len(s) > 8192 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil &&
		!strings.Contains(s, "#") && strings.HasPrefix(s, u.Scheme+"://")
}

// mcpBinding is mcp:1's {domain, server, method, name, arguments, metadata}.
func mcpBinding(params, request *jsonv.Object) (*jsonv.Object, error) {
	bad := rails.Refuse(CodeRequestBinding)
	if params == nil || params.Len() != 2 {
		return nil, bad
	}
	server, _ := params.GetString("server")
	mv, _ := params.Get("metadata")
	meta, ok := names(mv, func(s string) bool { return s != "" && s != "x402/payment" && s != "progressToken" })
	if !ok || !absoluteURI(server) {
		return nil, bad
	}
	// JCS orders names by UTF-16 code units; names() checked byte order,
	// which agrees for the ASCII names MCP metadata uses.
	if !sort.StringsAreSorted(meta) {
		return nil, bad
	}
	if request == nil {
		return nil, rails.Refuse(CodeRequestMissing)
	}
	if s, _ := request.GetString("server"); s != server {
		return nil, rails.Refuse(CodeRequestMismatch) // the buyer's own server, not the one the challenge names
	}
	name, _ := request.GetString("name")
	if name == "" {
		return nil, rails.Refuse(CodeRequestMissing)
	}
	args := jsonv.Value(jsonv.Obj())
	if a, has := request.Get("arguments"); has {
		if _, ok := jsonv.AsObject(a); !ok {
			return nil, rails.Refuse(CodeRequestMissing)
		}
		args = a
	}
	var given *jsonv.Object
	if m, has := request.Get("meta"); has {
		if given, ok = jsonv.AsObject(m); !ok {
			return nil, rails.Refuse(CodeRequestMissing)
		}
	}
	metadata := make([]jsonv.Value, len(meta))
	for i, n := range meta {
		v, present := given.Get(n)
		var b []byte
		if present {
			b = jsonv.Canonical(v)
		}
		metadata[i] = jsonv.Obj("name", n, "valueHash", valueHash(b, present))
	}
	return jsonv.Obj("domain", domainPrefix+ProfileMCP, "server", server, "method", "tools/call", "name", name,
		"arguments", args, "metadata", metadata), nil
}

func absoluteURI(s string) bool {
	if s == "" || len(s) > 8192 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && u.User == nil && !strings.Contains(s, "#")
}
