package signer

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/xrpl"
)

func xrplOpening() *jsonv.Object {
	return jsonv.Obj("TransactionType", "PaymentChannelCreate", "Flags", 0, "Account", "r3sNTMefq5gsRumMYsNznnX6yzzxVH6dTC",
		"Amount", "1000000", "Destination", "rpjfAeE3DeeHPFnN2PgGFW5YxnZFAjrEyN", "SettleDelay", 3600,
		"PublicKey", "ED06895BEC3FDE4090F06D840770D888D49E3089B3757C4285E3851BC33964E0F9", "Fee", "12", "Sequence", 7, "LastLedgerSequence", 1000)
}

// The XRPL signer signs exactly what it is asked for its own account and
// channel key, and refuses anything else before signing.
func TestXRPLSignerRefusals(t *testing.T) {
	s, err := XRPLDev("xrpl:1")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, _ := xrpl.ParseAddress("r3sNTMefq5gsRumMYsNznnX6yzzxVH6dTC")
	d, _ := xrpl.ParseAddress("rpjfAeE3DeeHPFnN2PgGFW5YxnZFAjrEyN")
	ch := xrpl.ChannelID(a, d, 7)
	claim := func(channel [32]byte, drops uint64, dropsText string) *jsonv.Object {
		return jsonv.Obj("channelId", strings.ToUpper(hex.EncodeToString(channel[:])), "drops", dropsText,
			"bytes", "0x"+hex.EncodeToString(xrpl.ClaimBytes(channel, drops)))
	}
	open := func(tx *jsonv.Object, c *jsonv.Object) *jsonv.Object {
		return jsonv.Obj("kind", xrpl.KindSessionOpen, "txJson", tx, "claim", c)
	}
	ok, err := s.Sign(ctx, open(xrplOpening(), claim(ch, 100, "100")))
	if err != nil {
		t.Fatal(err)
	}
	o, _ := jsonv.AsObject(ok)
	sig, _ := o.GetString("claimSignature")
	raw, _ := hex.DecodeString(sig[2:])
	if !xrpl.Verify(s.key.PublicKey(), xrpl.ClaimBytes(ch, 100), raw) {
		t.Fatal("the claim signature does not verify")
	}
	otherKey := xrplOpening()
	otherKey.Set("PublicKey", "ED"+strings.Repeat("11", 32))
	var other [32]byte
	for name, req := range map[string]*jsonv.Object{
		"a claim for another channel":       open(xrplOpening(), claim(other, 100, "100")),
		"drops that are not the bytes'":     open(xrplOpening(), claim(ch, 100, "101")),
		"a channel key that is not its":     open(otherKey, claim(ch, 100, "100")),
		"an unknown kind":                   jsonv.Obj("kind", "eip712"),
		"a claim alone for other drops":     func() *jsonv.Object { c := claim(ch, 5, "6"); c.Set("kind", xrpl.KindClaim); return c }(),
		"a transaction already signed":      jsonv.Obj("kind", xrpl.KindTx, "txJson", func() *jsonv.Object { t := xrplOpening(); t.Set("TxnSignature", "00"); return t }()),
		"a field the encoder does not know": jsonv.Obj("kind", xrpl.KindTx, "txJson", func() *jsonv.Object { t := xrplOpening(); t.Set("Bogus", 1); return t }()),
		"a nested batch":                    jsonv.Obj("kind", rails.KindBatch, "requests", []jsonv.Value{jsonv.Obj("kind", rails.KindBatch)}),
	} {
		if a, err := s.Sign(ctx, req); err == nil {
			t.Errorf("%s: signed %v", name, a)
		}
	}
}
