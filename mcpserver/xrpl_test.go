package mcpserver_test

import (
	"math/big"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/mcpserver"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/xrpl"
	"github.com/termsgate/termsgate/signer"
)

func xrplSessionChallenge(channel, amount, id string) *jsonv.Object {
	req := `{"amount":"` + amount + `","channelId":"` + channel + `","methodDetails":{"network":"testnet"},"recipient":"rpjfAeE3DeeHPFnN2PgGFW5YxnZFAjrEyN"}`
	c := jsonv.Obj("realm", "api.seller.example", "method", "xrpl", "intent", "session",
		"request", mpp.EncodeB64URL([]byte(req)), "expires", sessionExpires)
	if id != "" {
		c.Set("id", id)
	}
	return c
}

// TestXRPLChannelTools: mpp/session/xrpl over the MCP tools with the
// published XRPL key: the opening paid with atr_transact (XS2's inputs),
// held, a charge recorded, a claim signed inside the channel, the close.
func TestXRPLChannelTools(t *testing.T) {
	f := loadFixture(t)
	s := newSeller(t, sessionATR)
	sg, err := signer.XRPLDev("xrpl:1")
	if err != nil {
		t.Fatal(err)
	}
	policy, err := pay.NewPolicy(pay.PolicyConfig{Now: func() time.Time { return f.now }, Limits: []pay.Limit{
		{Network: "xrpl:1", Asset: "XRP", MaxAmount: big.NewInt(1_000_000)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connectHTTP(t, newServer(t, f, s, mcpserver.Config{Signer: sg, Policy: policy}), nil)
	listTools(t, cs)
	c := xrplSessionChallenge("", "100", "")
	h := atr.Sum(sessionATR)
	doc, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
	if err != nil {
		t.Fatal(err)
	}
	// validUntil: the last ledger's estimated close, within the policy's
	// ten minutes.
	inputs := jsonv.Obj("deposit", "1000000", "validUntil", f.now.Unix()+210, "xrpl", jsonv.Obj("publicKey", "0xED06895BEC3FDE4090F06D840770D888D49E3089B3757C4285E3851BC33964E0F9",
		"settleDelay", 3600, "fee", "12", "sequence", 7, "lastLedgerSequence", 1000))
	transacted := wantOK(t, call(t, cs, "atr_transact", jsonv.Obj("pairing", xrpl.SessionID, "document", doc, "inputs", inputs)))
	opened := wantOK(t, call(t, cs, "atr_channel_open", jsonv.Obj("pairing", xrpl.SessionID, "atr", b64(sessionATR),
		"signed", valueAt(t, transacted, "signed"), "mac", strAt(t, transacted, "mac"))))
	hold := objAt(t, opened, "hold")
	channel := strAt(t, hold, "channel")
	if channel != "7FEED84DE7A40383F2CE4FCFC272CDB1816F255374F9110A75C6133CF776F167" || strAt(t, hold, "signedMax") != "100" {
		t.Fatalf("hold %s", jsonv.Marshal(hold))
	}
	charged := wantOK(t, call(t, cs, "atr_channel_record_charge", jsonv.Obj("hold", hold, "charged", "100")))
	within := []jsonv.Value{xrplSessionChallenge(channel, "25", "in-channel")}
	r := wantOK(t, call(t, cs, "atr_channel_within", jsonv.Obj("pairing", xrpl.SessionID, "hold", objAt(t, charged, "hold"), "document", within)))
	if strAt(t, r, "signed", "payload", "amount") != "125" || strAt(t, r, "signed", "payload", "channelId") != channel {
		t.Fatalf("claim %s", jsonv.Marshal(r))
	}
	closed := wantOK(t, call(t, cs, "atr_channel_within", jsonv.Obj("pairing", xrpl.SessionID, "hold", objAt(t, r, "hold"),
		"document", within, "refund", jsonv.Obj())))
	if strAt(t, closed, "signed", "payload", "action") != "close" || strAt(t, closed, "signed", "payload", "amount") != "100" {
		t.Fatalf("close %s", jsonv.Marshal(closed))
	}
}
