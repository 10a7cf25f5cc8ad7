package main

// termsgate inspect: what a payment grants, read from the payment itself.

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/all"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/stellar"
	"github.com/termsgate/termsgate/rails/tempo"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/rails/xrpl"
)

func init() {
	commands["inspect"] = command{"show what a signed payment grants (payer, payee, asset, amount, validity, where H sits)", runInspect}
}

const inspectUsage = `inspect [PAYMENT|-]

PAYMENT is a file (or standard input) holding one of:
  a PAYMENT-SIGNATURE header value (base64 of an x402 payment), or its JSON;
  an MPP credential: an Authorization header value ("Payment …"), its base64url, or its JSON;
  an EIP-3009 authorization as JSON {from, to, value, validAfter, validBefore, nonce};
  a signed Tempo transaction, 0x76… hex;
  a bare XRPL signed blob (hex, no 0x);
  a bare Stellar transaction envelope (base64 XDR);
  a bare Solana wire transaction (base64 or base58).
A bare transaction names no offer: what it grants is read from it, and
where H sits is said as far as the transaction alone can say.
Prints, as JSON, what it grants and where the hash of the terms (H) sits in it.
Nothing is fetched and nothing is verified on chain: this reads the payment.`

func runInspect(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f := newStepsFlags("inspect", inspectUsage, stderr)
	if err := parseFlags(f.fs, args); err != nil {
		return exitUsage
	}
	data, name, err := readArg(f.fs, stdin)
	if err != nil {
		return usageError(stderr, "inspect", err)
	}
	out, err := inspect(bytes.TrimSpace(data))
	if err != nil {
		return usageError(stderr, "inspect", fmt.Errorf("%s: %w", name, err))
	}
	fmt.Fprintf(stdout, "%s\n", jsonv.Marshal(out))
	return exitOK
}

func inspect(text []byte) (*jsonv.Object, error) {
	s := string(text)
	switch {
	case strings.HasPrefix(s, "0x76"):
		wire, ok := hexBytes(s)
		if !ok {
			return nil, errors.New("0x76… is not whole hex bytes")
		}
		return tempo.InspectTx(wire)
	case len(s) > 8 && strings.EqualFold(s[:8], "payment "):
		return inspectBase64URL(strings.TrimSpace(s[8:]))
	case strings.HasPrefix(s, "{"):
		v, err := jsonv.Parse(text)
		if err != nil {
			return nil, err
		}
		return inspectJSON(v)
	}
	if isHexText(s) {
		return xrpl.InspectBlob(s)
	}
	if o, err := x402.DecodeHeader(s); err == nil {
		return inspectJSON(o)
	}
	// Binary in standard base64: an XDR envelope starts with its type, a
	// 32-bit big-endian number (a zero byte first); a Solana transaction
	// with its signature count, never zero.
	if b, ok := stellar.DecodeBase64(s); ok && len(b) > 0 && b[0] != '{' {
		if b[0] == 0 {
			return stellar.InspectEnvelope(s)
		}
		return solana.InspectWire(s)
	}
	out, err := inspectBase64URL(s)
	if err != nil && isBase58(s) {
		o, werr := solana.InspectWire(s)
		if werr == nil {
			return o, nil
		}
		return nil, fmt.Errorf("neither an MPP credential (%v) nor a Solana transaction in base58 (%v)", err, werr)
	}
	return out, err
}

// isHexText is hex digits only, without 0x: an XRPL blob's spelling.
func isHexText(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// isBase58 is Bitcoin's base58 alphabet only: a Solana transaction as
// explorers write it.
func isBase58(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '1' && c <= '9' || c >= 'A' && c <= 'Z' && c != 'I' && c != 'O' || c >= 'a' && c <= 'z' && c != 'l') {
			return false
		}
	}
	return s != ""
}

func inspectBase64URL(s string) (*jsonv.Object, error) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return nil, errors.New("not JSON, a PAYMENT-SIGNATURE value, an MPP credential, a 0x76 transaction, an XRPL blob (hex), a Stellar envelope (base64 XDR) or a Solana transaction (base64 or base58)")
	}
	v, err := jsonv.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("the base64url decodes to no JSON: %w", err)
	}
	return inspectJSON(v)
}

// inspectJSON asks each pairing that inspects payments; the first that
// reads this one answers.
func inspectJSON(v jsonv.Value) (*jsonv.Object, error) {
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, errors.New("not a JSON object")
	}
	if isAuthorization(o) {
		out := jsonv.Obj("kind", "eip3009-authorization")
		names := map[string]string{"from": "payer", "to": "payee", "value": "amount"}
		for _, k := range []string{"from", "to", "value", "validAfter", "validBefore", "nonce"} {
			s, _ := o.GetString(k)
			name := k
			if n, ok := names[k]; ok {
				name = n
			}
			out.Set(name, s)
		}
		out.Set("whereH", "nonce: for x402/exact/eip155/eip3009 the nonce is H; for mpp/charge/evm/authorization it is keccak256(challenge id ‖ realm), and the id carries H")
		return out, nil
	}
	var refusals []string
	for _, p := range all.Default().All() {
		if in, ok := p.(interface {
			Inspect(jsonv.Value) (rails.Inspection, error)
		}); ok {
			// A pairing already on the rails.Inspection contract
			// (docs/adding-a-pairing.md, "inspect").
			got, err := in.Inspect(v)
			if err == nil {
				return got.JSON(), nil
			}
			refusals = append(refusals, p.ID()+": "+err.Error())
			continue
		}
		in, ok := p.(rails.Inspector)
		if !ok {
			continue
		}
		out, err := in.Inspect(v)
		if err == nil {
			return out, nil
		}
		refusals = append(refusals, p.ID()+": "+err.Error())
	}
	return nil, fmt.Errorf("no pairing reads it as a payment (%s)", strings.Join(refusals, "; "))
}

func isAuthorization(o *jsonv.Object) bool {
	if o.Len() != 6 {
		return false
	}
	for _, k := range []string{"from", "to", "value", "validAfter", "validBefore", "nonce"} {
		if _, ok := o.GetString(k); !ok {
			return false
		}
	}
	return true
}

func hexBytes(s string) ([]byte, bool) {
	b, err := hex.DecodeString(s[2:])
	return b, err == nil
}
