package main

// termsgate inspect: what a payment grants, read from the payment itself.

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/algorand"
	"github.com/termsgate/termsgate/rails/all"
	"github.com/termsgate/termsgate/rails/aptos"
	"github.com/termsgate/termsgate/rails/cardano"
	"github.com/termsgate/termsgate/rails/casper"
	"github.com/termsgate/termsgate/rails/ccd"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/hedera"
	"github.com/termsgate/termsgate/rails/polkadot"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/stacks"
	"github.com/termsgate/termsgate/rails/starknet"
	"github.com/termsgate/termsgate/rails/stellar"
	"github.com/termsgate/termsgate/rails/sui"
	"github.com/termsgate/termsgate/rails/tempo"
	"github.com/termsgate/termsgate/rails/tron"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/rails/xrpl"
)

func init() {
	commands["inspect"] = command{"show what a signed payment grants (payer, payee, asset, amount, validity, where H sits)", runInspect}
}

const inspectUsage = `inspect [--pairing ID] [PAYMENT|-]

PAYMENT is a file (or standard input) holding one of:
  transact's, finish's or a channel command's output as printed ({…, signed, …});
  a PAYMENT-SIGNATURE header value (base64 of an x402 payment), or its JSON;
  an MPP credential: an Authorization header value ("Payment …"), its base64url, or its JSON;
  an EIP-3009 authorization as JSON {from, to, value, validAfter, validBefore, nonce};
  a signed Tempo transaction, 0x76… hex;
  a bare XRPL signed blob (hex, no 0x);
  a bare Stellar transaction envelope (base64 XDR);
  a bare Solana wire transaction (base64 or base58);
  a bare Hedera Transaction or TransactionList (base64);
  bare Starknet SNIP-12 typed data of an OutsideExecution (JSON);
  bare Casper CEP-3009 typed data, payload {authorization, publicKey,
  signature} or authorization (JSON, 33-byte tagged addresses);
  a bare signed Polkadot extrinsic (0x hex);
  a bare Concordium V1 sponsored transaction {version, signatures, header,
  payload} (the payment's signedTransaction; without signatures, what the
  wallet signs), or its signed binary form in hex (0x optional), bare or as
  a block item;
  an agentic checkout's: a presented {checkout_mandate, checkout_jwt}, an ACP
  {allowance}, a completed {checkout|booking|session: …} or an ACK payment
  request body (docs/checkout.md).
A bare transaction names no offer: what it grants is read from it, and
where H sits is said as far as the transaction alone can say.
Prints, as JSON, the same members for every payment (null where the payment
does not say): pairing, kind, network, payer, payee, asset, assetName,
amount, decimals, amountDecimal, payableFrom(Time), payableUntil(Time),
period, h, whereH, details. Times are Unix seconds with RFC 3339 beside.
Nothing is fetched and nothing is verified on chain: this reads the payment.`

func runInspect(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: termsgate %s\n\n", inspectUsage)
		fs.PrintDefaults()
	}
	var pairing string
	fs.Var(pairingFlag{&pairing}, "pairing", "read the payment as this pairing's only (default: every pairing in turn, then the bare forms)")
	if err := parseFlags(fs, args); err != nil {
		return exitUsage
	}
	data, name, err := readArg(fs, stdin)
	if err != nil {
		return usageError(stderr, "inspect", err)
	}
	in, err := inspect(bytes.TrimSpace(data), name, pairing)
	if err != nil {
		return usageError(stderr, "inspect", fmt.Errorf("%s: %w", name, err))
	}
	fmt.Fprintf(stdout, "%s\n", jsonv.Marshal(in.JSON()))
	return exitOK
}

// inspect reads text in whichever form it is, every reader under
// rails.Guard: no input can crash the command. name is what the input is
// called in an error; pairing, when not "", is the one pairing to ask.
func inspect(text []byte, name, pairing string) (rails.Inspection, error) {
	s := string(text)
	guard := func(reader string, f func() (rails.Inspection, error)) (rails.Inspection, error) {
		return rails.Guard(reader, name, f)
	}
	if pairing != "" {
		v, err := inspectedPayment(text)
		if err != nil {
			return rails.Inspection{}, err
		}
		return inspectAs(v, name, pairing)
	}
	switch {
	case strings.HasPrefix(s, "0x76"):
		wire, ok := hexBytes(s)
		if !ok {
			return rails.Inspection{}, errors.New("0x76… is not whole hex bytes")
		}
		return guard("tempo.InspectTx", func() (rails.Inspection, error) { return tempo.InspectTx(wire) })
	case len(s) > 8 && strings.EqualFold(s[:8], "payment "), strings.HasPrefix(s, "{"):
		v, err := inspectedPayment(text)
		if err != nil {
			return rails.Inspection{}, err
		}
		return inspectJSON(v, name)
	}
	// A signed Polkadot extrinsic in 0x hex: a compact length, then 0x84
	// (signed, version 4); any other 0x text reads on as before.
	if strings.HasPrefix(s, "0x") && len(s) > 8 && strings.Contains(s[2:10], "84") {
		if in, err := guard("polkadot.InspectExtrinsic", func() (rails.Inspection, error) { return polkadot.InspectExtrinsic(s) }); err == nil {
			return in, nil
		}
	}
	// A bare Concordium transaction in binary, hex (0x optional), bare or
	// as a block item: routed only when the bytes parse whole as one (its
	// signature maps, the sponsor's bitmap, the payload its header sizes),
	// which no other chain's blob does; any other hex reads on as before.
	if isHexText(strings.TrimPrefix(s, "0x")) && ccd.IsBareBinary(s) {
		return guard("ccd.InspectBareBinary", func() (rails.Inspection, error) { return ccd.InspectBareBinary(s) })
	}
	if isHexText(s) {
		// A Tron transaction is protobuf whose first field is raw_data
		// (0x0a), which no XRPL blob starts with (its first field is a
		// type code, 0x12 for TransactionType); Tron writes lowercase hex.
		if strings.HasPrefix(s, "0a") {
			return guard("tron.InspectTx", func() (rails.Inspection, error) { return tron.InspectTx(s) })
		}
		// A Stacks transaction starts with its version (0x00 mainnet, 0x80
		// testnet) and chain id, then standard auth (0x04): no XRPL blob
		// starts with either version byte.
		if t := strings.TrimPrefix(s, "0x"); len(t) > 12 && (t[:2] == "00" || t[:2] == "80") && t[10:12] == "04" {
			return guard("stacks.InspectTransaction", func() (rails.Inspection, error) { return stacks.InspectTransaction(s) })
		}
		return guard("xrpl.InspectBlob", func() (rails.Inspection, error) { return xrpl.InspectBlob(s) })
	}
	// An Aptos payload transaction: x402's JSON form (an object of two
	// byte lists) or a BCS SignedTransaction, both read strictly.
	if b, ok := stellar.DecodeBase64(s); ok && len(b) > 0 {
		if in, err := guard("aptos.InspectTransaction", func() (rails.Inspection, error) { return aptos.InspectTransaction(s, "") }); err == nil {
			return in, nil
		}
	}
	if o, err := x402.DecodeHeader(s); err == nil {
		return inspectJSON(o, name)
	}
	// Binary in standard base64: an XDR envelope starts with its type, a
	// 32-bit big-endian number (a zero byte first); a Solana transaction
	// with its signature count, never zero.
	if b, ok := stellar.DecodeBase64(s); ok && len(b) > 0 && b[0] != '{' {
		// A Cardano transaction is a CBOR array of four (0x84), which as
		// msgpack would be a map of four: it is tried before Algorand's.
		if b[0] == 0x84 {
			if in, err := guard("cardano.InspectTransaction", func() (rails.Inspection, error) { return cardano.InspectTransaction(s, "") }); err == nil {
				return in, nil
			}
		}
		// An Algorand signed transaction is a msgpack map (0x8_); a
		// Solana transaction never starts so (it would count 128 or more
		// signatures).
		if b[0]&0xf0 == 0x80 {
			return guard("algorand.InspectSignedTxn", func() (rails.Inspection, error) { return algorand.InspectSignedTxn(s) })
		}
		// A Sui TransactionData starts with its version and kind, both 0,
		// then its input count; an XDR envelope's type is 0 0 0 and 2.
		if len(b) > 2 && b[0] == 0 && b[1] == 0 && b[2] != 0 {
			if in, err := guard("sui.InspectTransaction", func() (rails.Inspection, error) { return sui.InspectTransaction(s, "") }); err == nil {
				return in, nil
			}
		}
		if b[0] == 0 {
			return guard("stellar.InspectEnvelope", func() (rails.Inspection, error) { return stellar.InspectEnvelope(s) })
		}
		// A Hedera Transaction starts with its field 5 (0x2a), a
		// TransactionList with field 1 (0x0a); a Solana transaction with
		// as many signatures is tried after.
		if b[0] == 0x2a || b[0] == 0x0a {
			if in, err := guard("hedera.InspectTransaction", func() (rails.Inspection, error) { return hedera.InspectTransaction(s) }); err == nil {
				return in, nil
			}
		}
		return guard("solana.InspectWire", func() (rails.Inspection, error) { return solana.InspectWire(s) })
	}
	v, err := base64URLJSON(s)
	if err != nil && isBase58(s) {
		in, werr := guard("solana.InspectWire", func() (rails.Inspection, error) { return solana.InspectWire(s) })
		if werr == nil {
			return in, nil
		}
		return rails.Inspection{}, fmt.Errorf("neither an MPP credential (%v) nor a Solana transaction in base58 (%v)", err, werr)
	}
	if err != nil {
		return rails.Inspection{}, err
	}
	return inspectJSON(v, name)
}

// inspectedPayment reads a payment given as JSON, as an Authorization value
// ("Payment …"), as base64url of JSON or as a PAYMENT-SIGNATURE value, and
// unwraps the step commands' outputs to the payment they carry.
func inspectedPayment(text []byte) (jsonv.Value, error) {
	s := string(text)
	var v jsonv.Value
	var err error
	switch {
	case len(s) > 8 && strings.EqualFold(s[:8], "payment "):
		v, err = base64URLJSON(strings.TrimSpace(s[8:]))
	case strings.HasPrefix(s, "{"):
		v, err = jsonv.Parse(text)
	default:
		if o, herr := x402.DecodeHeader(s); herr == nil {
			v = o
		} else {
			v, err = base64URLJSON(s)
		}
	}
	if err != nil {
		return nil, err
	}
	return unwrapPayment(v), nil
}

// unwrapPayment is the payment a step command's output carries: transact's
// and finish's {atrHash, atr, signed, landed?} (a push payment's landed
// receipt put back, as check does), a channel command's {signed, hold},
// check's input {atr, presented}. Anything else is returned as it is.
func unwrapPayment(v jsonv.Value) jsonv.Value {
	o, ok := jsonv.AsObject(v)
	if !ok || o.Has("x402Version") || o.Has("challenge") {
		return v
	}
	p, has := o.Get("signed")
	if !has {
		if p, has = o.Get("presented"); !has {
			return v
		}
	}
	if landed, ok := o.Get("landed"); ok {
		if po, isObj := jsonv.AsObject(p); isObj {
			po = po.Clone()
			po.Set("landed", landed)
			p = po
		}
	}
	return p
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

func base64URLJSON(s string) (jsonv.Value, error) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return nil, errors.New("not JSON, a PAYMENT-SIGNATURE value, an MPP credential, a 0x76 transaction, an XRPL blob (hex), a Stellar envelope (base64 XDR) or a Solana transaction (base64 or base58)")
	}
	v, err := jsonv.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("the base64url decodes to no JSON: %w", err)
	}
	return v, nil
}

// inspectAs asks the one pairing id.
func inspectAs(v jsonv.Value, name, id string) (rails.Inspection, error) {
	p, _ := all.Default().Lookup(id) // the flag checked the id
	in, ok := p.(rails.Inspector)
	if !ok {
		return rails.Inspection{}, fmt.Errorf("%s has no inspector", id)
	}
	out, err := rails.Guard(id+" Inspect", name, func() (rails.Inspection, error) { return in.Inspect(unwrapPayment(v)) })
	if err != nil {
		return rails.Inspection{}, fmt.Errorf("not a %s payment: %w", id, err)
	}
	return out, nil
}

// inspectJSON asks each pairing that inspects payments; the first that
// reads this one answers.
func inspectJSON(v jsonv.Value, name string) (rails.Inspection, error) {
	v = unwrapPayment(v)
	o, ok := jsonv.AsObject(v)
	if !ok {
		return rails.Inspection{}, errors.New("not a JSON object")
	}
	// Casper's bare forms before EIP-3009's: the same six members, with
	// 33-byte tagged addresses instead of 20-byte ones.
	if casper.IsBare(o) {
		return casper.InspectBare(o)
	}
	// A bare Concordium transaction: its header's sender is a Concordium
	// account address (base58check, version 1), which no other form holds.
	if ccd.IsBare(o) {
		return ccd.InspectBare(o)
	}
	if isAuthorization(o) {
		return authorizationInspection(o)
	}
	// Bare SNIP-12 typed data of a Starknet outside execution, as a wallet
	// is asked to sign it.
	if pt, _ := o.GetString("primaryType"); pt == "OutsideExecution" && o.Has("types") {
		return starknet.InspectTypedData(o)
	}
	var refusals []string
	for _, p := range all.Default().All() {
		in, ok := p.(rails.Inspector)
		if !ok {
			continue
		}
		out, err := rails.Guard(p.ID()+" Inspect", name, func() (rails.Inspection, error) { return in.Inspect(v) })
		if err == nil {
			return out, nil
		}
		var pe *rails.PanicError
		if errors.As(err, &pe) {
			return rails.Inspection{}, err
		}
		refusals = append(refusals, p.ID()+": "+err.Error())
	}
	return rails.Inspection{}, fmt.Errorf("no pairing reads it as a payment (%s)", strings.Join(refusals, "; "))
}

// authorizationInspection states a bare EIP-3009 authorization: it names
// no token or chain (the signature's domain does, and it is not here), so
// network and asset are null.
func authorizationInspection(o *jsonv.Object) (rails.Inspection, error) {
	str := func(k string) string { s, _ := o.GetString(k); return s }
	from, to, value, after, before, nonce := str("from"), str("to"), str("value"), str("validAfter"), str("validBefore"), str("nonce")
	if !evm.IsAddress(from) || !evm.IsAddress(to) || !evm.IsUint256Decimal(value) ||
		!evm.IsUint256Decimal(after) || !evm.IsUint256Decimal(before) || !rails.IsHex(nonce, 64) {
		return rails.Inspection{}, errors.New("an EIP-3009 authorization has addresses from and to, decimal value, validAfter and validBefore, and a 32-byte hex nonce")
	}
	amount, _ := new(big.Int).SetString(value, 10)
	return rails.Inspection{Kind: "eip3009-authorization",
		Grant: rails.Grant{Decimals: -1, Amount: amount, Payer: from, Payee: to,
			PayableFrom: evm.UnixTime(after), PayableUntil: evm.UnixTime(before)},
		WhereH:  "nonce: for x402/exact/eip155/eip3009 the nonce is H; for mpp/charge/evm/authorization it is keccak256(challenge id ‖ realm), and the id carries H",
		Details: jsonv.Obj("nonce", nonce, "network", "? (the authorization names no chain or token: its EIP-712 domain does)")}, nil
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
