package starknetrpc_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/rails/starknet"
	"github.com/termsgate/termsgate/rails/starknet/starknetrpc"
)

const network = "starknet:SN_SEPOLIA"

func f(s string) starknet.Felt {
	v, ok := starknet.ParseFelt(s)
	if !ok {
		panic(s)
	}
	return v
}

// A client against the loopback node: the account's key and nonce, an
// outside execution the node runs only with the right caller, time,
// nonce and signature, and its receipt and trace read back settled.
func TestClientAgainstNode(t *testing.T) {
	node := &starknetrpc.Node{Net: network, Block: 900}
	srv, err := loopback.Start(node, "starknet-node.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	c := &starknetrpc.Client{URL: "https://starknet-node.example", Net: network}
	c.HTTP.HTTP = srv.Client()
	ctx := context.Background()

	priv := big.NewInt(0x1234567)
	pub, _ := starknet.PublicKey(priv)
	account, feePayer := f("0x3f16efeb2ae57f7d8befb03af08a3a370562dde15149c3506ac2038ffa9be24"), f("0x5f2e02acd59f37f1e19da7ea1db6bf31d49e6e5ba66a7f1c2f0e2ba1be36f81")
	token, payTo := f("0x512feac6339ff7889822cb5aa2a86c848e9d392bb0e3e237c008674feed8343"), f("0x2dd1b492765c064eac4039e3841aa5f382773b598097a40073bd8b48170ab57")
	node.Deploy(account, pub)
	node.Mint(token, account, big.NewInt(50_000))

	if got, err := c.PublicKey(ctx, account); err != nil || got != pub {
		t.Fatalf("public key %s, %v", got, err)
	}
	nonce := f("0x27816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
	if free, err := c.NonceAvailable(ctx, account, nonce); err != nil || !free {
		t.Fatalf("nonce free %v, %v", free, err)
	}
	if _, err := c.PublicKey(ctx, payTo); err == nil {
		t.Fatal("a key of no account")
	}
	oe := &starknet.OutsideExecution{Caller: feePayer, Nonce: nonce, ExecuteAfter: starknet.Felt{1}, ExecuteBefore: starknet.Felt{2000},
		Calls: []starknet.Call{{To: token, Selector: starknet.SelectorTransfer, Calldata: []starknet.Felt{payTo, {10000}, {}}}}}
	chain, _ := starknet.ChainID(network)
	r, s, err := starknet.Sign(priv, oe.MessageHash(chain, account))
	if err != nil {
		t.Fatal(err)
	}
	sig := []starknet.Felt{r, s}
	for name, try := range map[string]func() error{
		"another caller": func() error { _, err := node.ExecuteFromOutside(payTo, account, oe, sig, 1000); return err },
		"too late":       func() error { _, err := node.ExecuteFromOutside(feePayer, account, oe, sig, 2000); return err },
		"signature of another message": func() error {
			_, err := node.ExecuteFromOutside(feePayer, account, oe, []starknet.Felt{s, r}, 1000)
			return err
		},
	} {
		if try() == nil {
			t.Fatalf("%s: executed", name)
		}
	}
	tx, err := node.ExecuteFromOutside(feePayer, account, oe, sig, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := node.ExecuteFromOutside(feePayer, account, oe, sig, 1000); err == nil {
		t.Fatal("the nonce ran twice")
	}
	if free, _ := c.NonceAvailable(ctx, account, nonce); free {
		t.Fatal("the used nonce reads free")
	}
	if node.Balance(token, payTo).Int64() != 10000 || node.Balance(token, account).Int64() != 40000 {
		t.Fatal("balances")
	}
	rc, err := c.Receipt(ctx, tx)
	if err != nil || rc == nil || rc.Finality != "ACCEPTED_ON_L2" || rc.BlockNumber == nil || *rc.BlockNumber != 900 || len(rc.Events) != 1 {
		t.Fatalf("receipt %+v, %v", rc, err)
	}
	tr, err := c.Trace(ctx, tx)
	if err != nil || tr == nil || len(tr.Calls) != 1 || tr.Calls[0].Calldata[1] != nonce {
		t.Fatalf("trace %+v, %v", tr, err)
	}
	if rc, err := c.Receipt(ctx, starknet.Felt{7}); rc != nil || err != nil {
		t.Fatalf("unknown transaction: %+v, %v", rc, err)
	}
	id := starknet.IDDigest(account, payTo, big.NewInt(10000))
	ref := starknet.Reference{Network: network, Transaction: &tx, From: account, Asset: token, Nonce: nonce, IDDigest: id, SettleBy: 2000}
	if st := starknet.PaymentStatus(ctx, ref, c); st.State != "settled" || st.BlockNumber != 900 {
		t.Fatalf("status %+v", st)
	}
	ref.Nonce = starknet.Felt{9}
	if st := starknet.PaymentStatus(ctx, ref, c); st.State != "failed" || st.Why != "not-this-instrument" {
		t.Fatalf("another nonce: %+v", st)
	}
	srv.Close()
	if st := starknet.PaymentStatus(ctx, starknet.Reference{Network: network, Transaction: &tx}, c); st.State != "pending" || st.Why != "unreadable" {
		t.Fatalf("node gone: %+v", st)
	}
}

// Answers that do not read are errors, not panics or zero values.
func TestReadReceiptRefuses(t *testing.T) {
	for _, body := range []string{`null`, `{}`, `{"finality_status":"ACCEPTED_ON_L2","execution_status":"SUCCEEDED","block_number":-1,"events":[]}`,
		`{"finality_status":"ACCEPTED_ON_L2","execution_status":"SUCCEEDED","block_number":1,"events":[{"from_address":"0xg","keys":[],"data":[]}]}`} {
		v, _ := parse(body)
		if _, err := starknetrpc.ReadReceipt(v); err == nil {
			t.Errorf("%s: read", body)
		}
	}
}
