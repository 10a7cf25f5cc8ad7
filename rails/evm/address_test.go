package evm_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

const (
	payTo        = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C" // EIP-55
	usdcBase     = "0x036CbD53842c5426634e7929541eC2318f3dCF7e" // EIP-55
	anvilAddress = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266" // EIP-55
)

// miscase flips the case of the first letter of a's hex digits that has
// one: the same address, with a checksum that no longer holds.
func miscase(a string) string {
	b := []byte(a)
	for i := 2; i < len(b); i++ {
		switch c := b[i]; {
		case 'a' <= c && c <= 'f':
			b[i] = c - 'a' + 'A'
			return string(b)
		case 'A' <= c && c <= 'F':
			b[i] = c - 'A' + 'a'
			return string(b)
		}
	}
	return a
}

// keyAs is the Anvil key whose Account names its address as written.
type keyAs struct {
	*signer.Local
	address string
	calls   atomic.Int64
}

func (k *keyAs) Account() string { return "eip155:84532:" + k.address }

func (k *keyAs) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	k.calls.Add(1)
	return k.Local.Sign(ctx, req)
}

var addressATR = []byte(`{"atrVersion":"1","terms":"addresses"}`)

// transactAgainst runs the gate on doc for pairing with a loopback seller
// of addressATR, and returns the error, the signer calls and the fetches.
func transactAgainst(t *testing.T, doc jsonv.Value, pairing, from string, inputs *jsonv.Object) (*gate.Transacted, int64, int64, error) {
	t.Helper()
	var fetches atomic.Int64
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fetches.Add(1)
		_, _ = w.Write(addressATR)
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	l, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	k := &keyAs{Local: l, address: from}
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}}
	var in jsonv.Value
	if inputs != nil {
		in = inputs
	}
	tx, err := g.Transact(context.Background(), doc, pairing, k, &gate.TransactOptions{Inputs: in})
	return tx, k.calls.Load(), fetches.Load(), err
}

func x402Doc(t *testing.T, scheme, payTo, asset string, extra *jsonv.Object) *jsonv.Object {
	t.Helper()
	h := atr.Sum(addressATR)
	doc := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{jsonv.Obj("scheme", scheme, "network", "eip155:84532",
		"amount", "1000", "asset", asset, "payTo", payTo, "maxTimeoutSeconds", 60, "extra", extra)})
	doc, err := x402.Advertise(doc, h, "https://atr.seller.example/"+h.String(), "")
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func mppDoc(t *testing.T, request *jsonv.Object) []jsonv.Value {
	t.Helper()
	h := atr.Sum(addressATR)
	c := jsonv.Obj("realm", "api.seller.example", "method", "evm", "intent", "charge",
		"request", mpp.EncodeObject(request), "expires", "2099-09-21T14:14:20Z")
	d, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Every EVM pairing refuses an address whose mixed case is no EIP-55
// checksum, naming the field, before the terms are fetched or the signer
// asked; the same address all lowercase or all uppercase is paid.
func TestEVMPairingsRefuseBadChecksums(t *testing.T) {
	eip3009Extra := func() *jsonv.Object { return jsonv.Obj("name", "USDC", "version", "2") }
	batchExtra := func(receiver string) *jsonv.Object {
		return jsonv.Obj("receiverAuthorizer", receiver, "withdrawDelay", 900, "name", "USDC", "version", "2")
	}
	mppRequest := func(recipient, currency, permit2 string) *jsonv.Object {
		return jsonv.Obj("amount", "1000", "currency", currency, "recipient", recipient,
			"methodDetails", jsonv.Obj("chainId", 84532, "credentialTypes", []jsonv.Value{"authorization"}, "permit2Address", permit2))
	}
	receiver := "0x90F79bf6EB2c4f870365E785982E1f101E93b906"
	permit2 := "0x000000000022D473030F116dDEE9F6B43aC78BA3"
	batchInputs := func(authorizer string) *jsonv.Object {
		return jsonv.Obj("payerAuthorizer", authorizer, "deposit", "10000")
	}
	domain := jsonv.Obj("tokenDomain", jsonv.Obj("name", "USDC", "version", "2"))

	cases := []struct {
		name, pairing, from string
		doc                 func(t *testing.T) jsonv.Value
		inputs              *jsonv.Object
		field               string // "" when it pays
	}{
		{"exact payTo", evm.ExactEIP3009ID, anvilAddress, func(t *testing.T) jsonv.Value {
			return x402Doc(t, "exact", miscase(payTo), usdcBase, eip3009Extra())
		}, nil, "payTo"},
		{"exact asset", evm.ExactEIP3009ID, anvilAddress, func(t *testing.T) jsonv.Value {
			return x402Doc(t, "exact", payTo, miscase(usdcBase), eip3009Extra())
		}, nil, "asset"},
		{"exact from", evm.ExactEIP3009ID, miscase(anvilAddress), func(t *testing.T) jsonv.Value {
			return x402Doc(t, "exact", payTo, usdcBase, eip3009Extra())
		}, nil, "from"},
		{"exact lowercase", evm.ExactEIP3009ID, strings.ToLower(anvilAddress), func(t *testing.T) jsonv.Value {
			return x402Doc(t, "exact", strings.ToLower(payTo), strings.ToLower(usdcBase), eip3009Extra())
		}, nil, ""},
		{"exact uppercase", evm.ExactEIP3009ID, anvilAddress, func(t *testing.T) jsonv.Value {
			return x402Doc(t, "exact", "0x"+strings.ToUpper(payTo[2:]), "0x"+strings.ToUpper(usdcBase[2:]), eip3009Extra())
		}, nil, ""},
		{"batch payTo", evm.BatchID, anvilAddress, func(t *testing.T) jsonv.Value {
			return x402Doc(t, "batch-settlement", miscase(payTo), usdcBase, batchExtra(receiver))
		}, batchInputs(anvilAddress), "payTo"},
		{"batch receiverAuthorizer", evm.BatchID, anvilAddress, func(t *testing.T) jsonv.Value {
			return x402Doc(t, "batch-settlement", payTo, usdcBase, batchExtra(miscase(receiver)))
		}, batchInputs(anvilAddress), "extra.receiverAuthorizer"},
		{"batch payerAuthorizer", evm.BatchID, anvilAddress, func(t *testing.T) jsonv.Value {
			return x402Doc(t, "batch-settlement", payTo, usdcBase, batchExtra(receiver))
		}, batchInputs(miscase(anvilAddress)), "payerAuthorizer"},
		{"batch pays", evm.BatchID, anvilAddress, func(t *testing.T) jsonv.Value {
			return x402Doc(t, "batch-settlement", payTo, usdcBase, batchExtra(receiver))
		}, batchInputs(anvilAddress), ""},
		{"mpp recipient", evm.MPPAuthorizationID, anvilAddress, func(t *testing.T) jsonv.Value {
			return mppDoc(t, mppRequest(miscase(payTo), usdcBase, permit2))
		}, domain, "request.recipient"},
		{"mpp currency", evm.MPPAuthorizationID, anvilAddress, func(t *testing.T) jsonv.Value {
			return mppDoc(t, mppRequest(payTo, miscase(usdcBase), permit2))
		}, domain, "request.currency"},
		{"mpp methodDetails", evm.MPPAuthorizationID, anvilAddress, func(t *testing.T) jsonv.Value {
			return mppDoc(t, mppRequest(payTo, usdcBase, miscase(permit2)))
		}, domain, "request.methodDetails.permit2Address"},
		{"mpp from", evm.MPPAuthorizationID, miscase(anvilAddress), func(t *testing.T) jsonv.Value {
			return mppDoc(t, mppRequest(payTo, usdcBase, permit2))
		}, domain, "from"},
		{"mpp pays", evm.MPPAuthorizationID, anvilAddress, func(t *testing.T) jsonv.Value {
			return mppDoc(t, mppRequest(strings.ToLower(payTo), usdcBase, permit2))
		}, domain, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tx, calls, fetches, err := transactAgainst(t, tc.doc(t), tc.pairing, tc.from, tc.inputs)
			if tc.field == "" {
				if err != nil || tx == nil || calls != 1 {
					t.Fatalf("not paid: %v (%d signer calls)", err, calls)
				}
				return
			}
			var d *gate.Decline
			want := evm.CodeAddressChecksum + ": " + tc.field
			if !errors.As(err, &d) || d.Code != gate.NoPayableOption || d.Detail != want {
				t.Fatalf("got %v, want no-payable-option %s", err, want)
			}
			if calls != 0 || fetches != 0 {
				t.Fatalf("%d signer calls, %d fetches before the refusal", calls, fetches)
			}
		})
	}
}

// The Tempo pairings check the account's address and the session's
// authorizedSigner input; the challenge's addresses stay as the Tempo
// vectors write them (rails/tempo/charge.go, checkAddresses).
func TestTempoChecksAccountAddresses(t *testing.T) {
	const network = "eip155:42431"
	request := jsonv.Obj("amount", "100", "currency", "0x20c0000000000000000000000000000000000000", "recipient", payTo,
		"methodDetails", jsonv.Obj("chainId", 42431, "escrowContract", "0x9d136eEa063eDE5418A6BC7bEafF009bBb6CFa70"))
	c := jsonv.Obj("realm", "api.seller.example", "method", "tempo", "intent", "session",
		"request", mpp.EncodeObject(request), "expires", "2099-09-21T14:14:20Z")
	h := atr.Sum(addressATR)
	doc, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
	if err != nil {
		t.Fatal(err)
	}
	p := tempo.Session{}
	read, err := p.Read(doc)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		account string
		inputs  *jsonv.Object
		want    string
	}{
		"from":             {network + ":" + miscase(anvilAddress), jsonv.Obj("deposit", "1000"), evm.CodeAddressChecksum + ": from"},
		"authorizedSigner": {network + ":" + anvilAddress, jsonv.Obj("deposit", "1000", "authorizedSigner", miscase(payTo)), evm.CodeAddressChecksum + ": authorizedSigner"},
		"lowercase":        {network + ":" + strings.ToLower(anvilAddress), jsonv.Obj("deposit", "1000", "authorizedSigner", strings.ToLower(payTo)), ""},
	} {
		if _, err := p.Choose(read, tc.account, tc.inputs, 1, ""); code(err) != tc.want {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}
