package signer

import (
	"context"
	"math/big"
	"testing"

	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/starknet"
	"github.com/termsgate/termsgate/rails/starknet/starknetrpc"
)

func starknetRequest(account string) *jsonv.Object {
	chain, _ := starknet.ChainID("starknet:SN_SEPOLIA")
	fp, _ := starknet.ParseFelt("0x5f2e02acd59f37f1e19da7ea1db6bf31d49e6e5ba66a7f1c2f0e2ba1be36f81")
	to, _ := starknet.ParseFelt("0x2dd1b492765c064eac4039e3841aa5f382773b598097a40073bd8b48170ab57")
	token, _ := starknet.ParseFelt("0x4718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d")
	oe := &starknet.OutsideExecution{Caller: fp, Nonce: starknet.Felt{42}, ExecuteAfter: starknet.Felt{1}, ExecuteBefore: starknet.Felt{1790000300},
		Calls: []starknet.Call{{To: token, Selector: starknet.SelectorTransfer, Calldata: []starknet.Felt{to, {10000}, {}}}}}
	return jsonv.Obj("kind", starknet.KindSNIP12, "network", "starknet:SN_SEPOLIA", "account", account, "typedData", starknet.TypedData(oe, chain))
}

// The wallet signs its own account's outside execution, with a signature
// that verifies over the SNIP-12 hash, and nothing else: another account,
// another call, a node whose account checks another key or has used the
// nonce.
func TestStarknetSignsOnlyItsOutsideExecution(t *testing.T) {
	node := &starknetrpc.Node{Net: "starknet:SN_SEPOLIA"}
	srv, err := loopback.Start(node, "starknet-node.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	rpc := &starknetrpc.Client{URL: "https://starknet-node.example", Net: "starknet:SN_SEPOLIA"}
	rpc.HTTP.HTTP = srv.Client()
	w, err := NewStarknet(StarknetDevKey, StarknetDevAccount, "starknet:SN_SEPOLIA", rpc)
	if err != nil {
		t.Fatal(err)
	}
	account, _ := starknet.ParseFelt(StarknetDevAccount)
	ctx := context.Background()
	req := starknetRequest(StarknetDevAccount)
	if _, err := w.Sign(ctx, req); err == nil {
		t.Fatal("signed for an account the node does not know")
	}
	other, _ := starknet.PublicKey(bigOne())
	node.Deploy(account, other)
	if _, err := w.Sign(ctx, req); err == nil {
		t.Fatal("signed for an account that checks another key")
	}
	node.Deploy(account, w.PublicKey())
	ans, err := w.Sign(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := starknet.ReadRequest(req)
	sig, _ := jsonv.AsArray(ans.(*jsonv.Object).Members()[0].Value)
	rs, _ := starknet.ParseFelt(sig[0].(string))
	ss, _ := starknet.ParseFelt(sig[1].(string))
	if len(sig) != 2 || !starknet.Verify(w.PublicKey(), r.Message.MessageHash(r.ChainID, r.Account), rs, ss) {
		t.Fatalf("signature %v does not verify", sig)
	}
	if _, err := w.Sign(ctx, starknetRequest("0x1234")); err == nil {
		t.Fatal("signed for another account")
	}
	bad := starknetRequest(StarknetDevAccount)
	td, _ := bad.GetObject("typedData")
	m, _ := td.GetObject("message")
	calls, _ := m.Get("Calls")
	c0, _ := jsonv.AsObject(calls.([]jsonv.Value)[0])
	c0.Set("Selector", starknet.Selector("approve").String())
	if _, err := w.Sign(ctx, bad); err == nil {
		t.Fatal("signed an approve")
	}
	bad = starknetRequest(StarknetDevAccount)
	bad.Set("network", "starknet:SN_MAIN")
	if _, err := w.Sign(ctx, bad); err == nil {
		t.Fatal("signed for another network")
	}
	// The nonce used: the wallet does not sign it again.
	var oe = *r.Message
	node.Mint(oe.Calls[0].To, account, big.NewInt(10000))
	rr, s2, _ := starknet.Sign(w.key, oe.MessageHash(r.ChainID, account))
	if _, err := node.ExecuteFromOutside(oe.Caller, account, &oe, []starknet.Felt{rr, s2}, 1000); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Sign(ctx, req); err == nil {
		t.Fatal("signed a used nonce")
	}
}

func bigOne() *big.Int { return big.NewInt(1) }
