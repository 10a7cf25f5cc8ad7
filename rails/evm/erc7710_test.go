package evm_test

import (
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/signer"
)

func erc7710Option() *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", "eip155:84532", "amount", "10000", "asset", usdcBaseSepolia,
		"payTo", vectorPayTo, "maxTimeoutSeconds", 60,
		"extra", jsonv.Obj("name", "USDC", "version", "2", "assetTransferMethod", "erc7710"))
}

// testIssuer issues leaves to the vectors' facilitator with one arbitrary
// caveat, as x402-exact-eip155-erc7710-salt.json's leaf has.
func testIssuer(rails.Request) (string, []evm.Caveat, error) {
	return anvilAccount2, []evm.Caveat{{Enforcer: "0x1111111111111111111111111111111111111111", Terms: []byte{0x12, 0x34}}}, nil
}

func TestPermissionContextRoundTrip(t *testing.T) {
	var salt [32]byte
	salt[31] = 7
	ds := []evm.Delegation{
		{Delegate: strings.ToLower(anvilAccount2), Delegator: strings.ToLower(anvilPayer), Salt: salt, Signature: []byte{1, 2, 3},
			Caveats: []evm.Caveat{{Enforcer: "0x1111111111111111111111111111111111111111", Terms: []byte{9}, Args: []byte{}}}},
		{Delegate: strings.ToLower(anvilPayer), Delegator: strings.ToLower(vectorPayTo), Signature: make([]byte, 65), Caveats: nil},
	}
	got, err := evm.DecodePermissionContext(evm.EncodePermissionContext(ds))
	if err != nil || len(got) != 2 || got[0].Salt != salt || got[0].Delegate != ds[0].Delegate || string(got[0].Caveats[0].Terms) != "\x09" ||
		len(got[1].Signature) != 65 || len(got[1].Caveats) != 0 {
		t.Fatalf("decoded %+v (%v)", got, err)
	}
	// Nine delegations are over the bound; a truncated context never reads.
	many := make([]evm.Delegation, 9)
	for i := range many {
		many[i] = ds[1]
	}
	if _, err := evm.DecodePermissionContext(evm.EncodePermissionContext(many)); err == nil {
		t.Fatal("nine delegations read")
	}
	full := evm.EncodePermissionContext(ds)
	for n := 32; n < len(full); n += 32 {
		if _, err := evm.DecodePermissionContext(full[:n]); err == nil {
			t.Fatalf("a context cut at %d bytes read", n)
		}
	}
}

// FuzzPermissionContext: the strict context reader on any bytes.
func FuzzPermissionContext(f *testing.F) {
	var salt [32]byte
	f.Add(evm.EncodePermissionContext([]evm.Delegation{{Delegate: anvilAccount2, Delegator: anvilPayer, Salt: salt,
		Caveats: []evm.Caveat{{Enforcer: anvilPayer, Terms: []byte{1}}}, Signature: make([]byte, 65)}}))
	f.Add(evm.EncodePermissionContext(nil))
	f.Fuzz(func(t *testing.T, raw []byte) {
		cost.Bound(t, len(raw), func() {
			ds, err := evm.DecodePermissionContext(raw)
			if err == nil {
				if _, err := evm.DecodePermissionContext(evm.EncodePermissionContext(ds)); err != nil {
					t.Fatalf("a decoded context does not read once written again: %v", err)
				}
			}
		})
	})
}

// FuzzERC7710Payment: both ERC-7710 read-backs on any JSON.
func FuzzERC7710Payment(f *testing.F) {
	h := atr.Sum([]byte("abc"))
	_, u, req := built(f, evm.ExactERC7710Salt{}, erc7710Option(), h)
	l, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	answer, err := l.WithDelegations(testIssuer).Sign(f.Context(), req)
	if err != nil {
		f.Fatal(err)
	}
	done, err := evm.ExactERC7710Salt{}.Complete(u, answer, rails.Chosen{Ref: rails.NewRef()})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(jsonv.Marshal(done.Signed))
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := jsonv.Parse(raw)
		if err != nil {
			return
		}
		cost.Bound(t, len(raw), func() {
			readBackAgrees(t, v, evm.ExactERC7710Salt{}, evm.ExactERC7710{})
			_ = evm.PairingOfERC7710(v)
		})
	})
}

// BenchmarkERC7710SaltBuildSignFinish is x402/exact/eip155/erc7710-salt
// with the ATR in hand: the request, the local key's leaf delegation
// (EIP-712 signed) in its permission context, then the gate's Finish
// (rebuild, the context decoded, its leaf salt read back).
func BenchmarkERC7710SaltBuildSignFinish(b *testing.B) {
	l, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	benchBuildSignFinishWith(b, evm.ExactERC7710Salt{}, erc7710Option(), l.WithDelegations(testIssuer))
}
