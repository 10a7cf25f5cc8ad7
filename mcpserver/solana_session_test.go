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
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/vectors"
)

// solanaSessionChallenge is the vectors' Solana session challenge (SS1)
// for the session ATR, naming channel when it is not "".
func solanaSessionChallenge(t *testing.T, channel string) *jsonv.Object {
	t.Helper()
	f, err := vectors.Load("mpp-session-hedera-solana-xrpl.json")
	if err != nil {
		t.Fatal(err)
	}
	s1, _ := f.GetObject("SS1")
	sol, _ := s1.GetObject("solana")
	c, _ := sol.GetObject("challenge")
	c = c.Clone()
	c.Set("expires", sessionExpires)
	h := atr.Sum(sessionATR)
	doc, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
	if err != nil {
		t.Fatal(err)
	}
	placed, _ := jsonv.AsObject(doc[0])
	if channel != "" {
		req, _ := mpp.DecodeObject(mpp.String(placed, "request"))
		d, _ := req.GetObject("methodDetails")
		d.Set("channelId", channel)
		placed.Set("request", mpp.EncodeObject(req))
	}
	return placed
}

// TestSolanaSessionChannelTools: mpp/session/solana over the MCP tools with
// the published Solana seed: the opening paid with atr_transact (the
// deposit judged in full), held, a voucher signed inside the channel, its
// charge recorded, the close.
func TestSolanaSessionChannelTools(t *testing.T) {
	f := loadFixture(t)
	s := newSeller(t, sessionATR)
	const network = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"
	sg, err := signer.SolanaFromSeedHex(signer.SolanaDevSeed, network)
	if err != nil {
		t.Fatal(err)
	}
	mint := "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"
	policy, err := pay.NewPolicy(pay.PolicyConfig{Now: func() time.Time { return f.now }, Limits: []pay.Limit{
		{Network: network, Asset: mint, MaxAmount: big.NewInt(10_000_000)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connectHTTP(t, newServer(t, f, s, mcpserver.Config{Signer: sg, Policy: policy}), nil)
	listTools(t, cs)
	doc := []jsonv.Value{solanaSessionChallenge(t, "")}
	inputs := jsonv.Obj("validUntil", f.now.Unix()+90)
	transacted := wantOK(t, call(t, cs, "atr_transact", jsonv.Obj("pairing", solana.SessionID, "document", doc, "inputs", inputs)))
	opened := wantOK(t, call(t, cs, "atr_channel_open", jsonv.Obj("pairing", solana.SessionID, "atr", b64(sessionATR),
		"signed", valueAt(t, transacted, "signed"), "mac", strAt(t, transacted, "mac"))))
	hold := objAt(t, opened, "hold")
	channel := strAt(t, hold, "channel")
	if strAt(t, hold, "network") != network || strAt(t, hold, "signedMax") != "0" {
		t.Fatalf("hold %s", jsonv.Marshal(hold))
	}
	within := []jsonv.Value{solanaSessionChallenge(t, channel)}
	r := wantOK(t, call(t, cs, "atr_channel_within", jsonv.Obj("pairing", solana.SessionID, "hold", hold, "document", within)))
	if strAt(t, r, "signed", "payload", "voucher", "voucher", "cumulativeAmount") != "25" || strAt(t, r, "signed", "payload", "channelId") != channel {
		t.Fatalf("voucher %s", jsonv.Marshal(r))
	}
	charged := wantOK(t, call(t, cs, "atr_channel_record_charge", jsonv.Obj("hold", objAt(t, r, "hold"), "charged", "25")))
	closed := wantOK(t, call(t, cs, "atr_channel_within", jsonv.Obj("pairing", solana.SessionID, "hold", objAt(t, charged, "hold"),
		"document", within, "refund", jsonv.Obj())))
	if strAt(t, closed, "signed", "payload", "action") != "close" || strAt(t, closed, "signed", "payload", "voucher", "voucher", "cumulativeAmount") != "25" {
		t.Fatalf("close %s", jsonv.Marshal(closed))
	}
}
