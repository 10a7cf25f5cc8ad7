package signer_test

import (
	"context"
	"math/big"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/polkadot"
	"github.com/termsgate/termsgate/rails/polkadot/polkadotrpc"
	"github.com/termsgate/termsgate/signer"
)

// The Polkadot wallet signs only a polkadot-call request it can read, of
// its network and its own account, and asks its node nothing before it
// has read the request; what it signs the chain accepts.
func TestPolkadotSigns(t *testing.T) {
	const network = "polkadot:68d56f15f85d3136970ec16946040bc1"
	node := polkadotrpc.NewNode(network, 1000)
	srv, err := loopback.Start(node, "sidecar.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	rpc := &polkadotrpc.Client{URL: "https://sidecar.example", Net: network, HTTP: srv.Client()}
	w, err := signer.PolkadotFromSeed(signer.PolkadotDevSeed, network, rpc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := signer.PolkadotFromSeed(signer.PolkadotDevSeed, "polkadot:91b171bb158e2d3848fa23a9f1c25182", rpc); err == nil {
		t.Fatal("a wallet on the relay chain")
	}
	call := "0x2802083209e51400d43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d419c000735016c63703a7368613235363a307862613738313662663866303163666561343134313430646535646165323232336230303336316133393631373761396362343130666636316632303031356164"
	req := jsonv.Obj("kind", polkadot.KindCall, "network", network, "signer", w.Address(), "call", call, "eraPeriod", 16, "tip", "0")
	for name, change := range map[string][2]jsonv.Value{
		"another kind":    {"kind", "sui-transaction"},
		"another signer":  {"signer", "15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5"},
		"another network": {"network", "polkadot:67f9723393ef76214df0118c34bbbd3d"},
		"a tip":           {"tip", "1"},
		"a cut call":      {"call", call[:len(call)-2]},
	} {
		r := req.Clone()
		r.Set(change[0].(string), change[1])
		if _, err := w.Sign(context.Background(), r); err == nil {
			t.Errorf("%s: signed", name)
		}
	}
	if node.Calls.Load() != 0 {
		t.Fatalf("%d node calls for requests it refused", node.Calls.Load())
	}
	a, err := w.Sign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := jsonv.AsObject(a)
	xt, _ := answer.GetString("extrinsic")
	if !strings.HasSuffix(xt, call[2:]) {
		t.Fatal("the extrinsic does not end with the call")
	}
	ans, err := polkadot.ReadAnswer(a)
	if err != nil {
		t.Fatal(err)
	}
	node.Fund(1337, w.AccountID(), big.NewInt(20000))
	if _, err := rpc.Submit(context.Background(), ans.Extrinsic); err != nil {
		t.Fatalf("the chain refused the wallet's extrinsic: %v", err)
	}
}

// Two payments signed before the first lands: with the node named, the
// wallet's nonce is system_accountNextIndex, so the second follows the
// first in the pool and both land.
func TestPolkadotPaysTwiceBeforeABlock(t *testing.T) {
	const network = "polkadot:68d56f15f85d3136970ec16946040bc1"
	node := polkadotrpc.NewNode(network, 1000)
	node.Hold = true
	srv, err := loopback.Start(node, "sidecar.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	rpc := &polkadotrpc.Client{URL: "https://sidecar.example", RPC: "https://sidecar.example", Net: network, HTTP: srv.Client()}
	w, err := signer.PolkadotFromSeed(signer.PolkadotDevSeed, network, rpc)
	if err != nil {
		t.Fatal(err)
	}
	node.Fund(1337, w.AccountID(), big.NewInt(20000))
	call := "0x2802083209e51400d43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d419c000735016c63703a7368613235363a307862613738313662663866303163666561343134313430646535646165323232336230303336316133393631373761396362343130666636316632303031356164"
	req := jsonv.Obj("kind", polkadot.KindCall, "network", network, "signer", w.Address(), "call", call, "eraPeriod", 16, "tip", "0")
	for i := range 2 {
		a, err := w.Sign(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		ans, err := polkadot.ReadAnswer(a)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rpc.Submit(context.Background(), ans.Extrinsic); err != nil {
			t.Fatalf("payment %d: %v", i, err)
		}
	}
	if causes := node.Seal(); len(causes) != 0 || node.Head() != 1002 || node.Balance(1337, w.AccountID()).Sign() != 0 {
		t.Fatalf("sealed: %v, head %d", causes, node.Head())
	}
}
