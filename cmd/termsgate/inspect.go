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
	"github.com/termsgate/termsgate/rails/tempo"
	"github.com/termsgate/termsgate/rails/x402"
)

func init() {
	commands["inspect"] = command{"show what a signed payment grants (payer, payee, asset, amount, validity, where H sits)", runInspect}
}

const inspectUsage = `inspect [PAYMENT|-]

PAYMENT is a file (or standard input) holding one of:
  a PAYMENT-SIGNATURE header value (base64 of an x402 payment), or its JSON;
  an MPP credential: an Authorization header value ("Payment …"), its base64url, or its JSON;
  an EIP-3009 authorization as JSON {from, to, value, validAfter, validBefore, nonce};
  a signed Tempo transaction, 0x76… hex.
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
	if o, err := x402.DecodeHeader(s); err == nil {
		return inspectJSON(o)
	}
	return inspectBase64URL(s)
}

func inspectBase64URL(s string) (*jsonv.Object, error) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return nil, errors.New("not JSON, a PAYMENT-SIGNATURE value, an MPP credential or a 0x76 transaction")
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
