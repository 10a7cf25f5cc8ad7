package polkadotrpc_test

import (
	"context"
	"crypto/ed25519"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/rails/polkadot"
	"github.com/termsgate/termsgate/rails/polkadot/polkadotrpc"
)

const network = "polkadot:68d56f15f85d3136970ec16946040bc1"

func start(t *testing.T) (*polkadotrpc.Node, *polkadotrpc.Client) {
	t.Helper()
	node := polkadotrpc.NewNode(network, 500)
	srv, err := loopback.Start(node, "sidecar.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return node, &polkadotrpc.Client{URL: "https://sidecar.example", Net: network, HTTP: srv.Client()}
}

// signed is an extrinsic of the profile's call paying 10000 of asset 1337
// to dest, signed by key with the node's inputs, or with changes made.
func signed(t *testing.T, c *polkadotrpc.Client, key ed25519.PrivateKey, dest [32]byte, change func(*polkadot.Extra, *polkadot.Additional)) []byte {
	t.Helper()
	var id [32]byte
	copy(id[:], key.Public().(ed25519.PublicKey))
	in, err := c.Inputs(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	call := (&polkadot.Call{AssetID: 1337, Dest: dest, Amount: big.NewInt(10000), Remark: []byte("lcp:sha256:" + atr.Sum([]byte("abc")).String())}).Encode()
	x := polkadot.Extra{Era: polkadot.MortalEra(16, in.BlockNumber), Nonce: in.Nonce}
	a := polkadot.Additional{SpecVersion: in.SpecVersion, TxVersion: in.TxVersion, Genesis: in.Genesis, EraBlock: in.BlockHash}
	if change != nil {
		change(&x, &a)
	}
	return polkadot.EncodeSigned(id, polkadot.SigEd25519, ed25519.Sign(key, polkadot.SigningPayload(call, &x, &a)), &x, call)
}

// The client reads the loopback Sidecar's answers, and the chain lands a
// valid extrinsic at index 1 of a new block with the profile's events,
// which the status reads settled.
func TestClientAgainstNode(t *testing.T) {
	node, c := start(t)
	ctx := context.Background()
	key := ed25519.NewKeyFromSeed(make([]byte, 32))
	var id, dest [32]byte
	copy(id[:], key.Public().(ed25519.PublicKey))
	dest[0] = 9
	node.SetNonce(id, 3)
	node.Fund(1337, id, big.NewInt(50_000))
	in, err := c.Inputs(ctx, id)
	if err != nil || in.Nonce != 3 || in.BlockNumber != 500 || !polkadot.GenesisOf(network, in.Genesis) || in.SpecVersion != node.SpecVersion {
		t.Fatalf("inputs %+v, %v", in, err)
	}
	xt := signed(t, c, key, dest, nil)
	h, err := c.Submit(ctx, xt)
	want := polkadot.ExtrinsicHash(xt)
	if err != nil || !strings.EqualFold(h[2:], strings.TrimPrefix(hexOf(want[:]), "0x")) {
		t.Fatalf("submit %s, %v", h, err)
	}
	if fin, err := c.FinalizedHeight(ctx); err != nil || fin != 501 {
		t.Fatalf("finalized %d, %v", fin, err)
	}
	tp := node.Landed(h)
	block, index, ok := polkadot.ParseTimepoint(tp)
	if !ok || index != 1 {
		t.Fatalf("timepoint %q", tp)
	}
	raws, err := c.RawExtrinsics(ctx, block)
	if err != nil || len(raws) != 2 || raws[1] != hexOf(xt) {
		t.Fatalf("raw %v, %v", raws, err)
	}
	l, err := c.Extrinsic(ctx, "501", 1)
	if err != nil || l == nil || !l.Success || l.Hash != h || len(l.Events) != 4 {
		t.Fatalf("extrinsic %+v, %v", l, err)
	}
	ref := polkadot.Reference{Network: network, ExtrinsicHash: h, AssetID: 1337}
	if st := polkadot.PaymentStatus(ctx, ref, atr.Sum([]byte("abc")), tp, c); st.State != "settled" || st.Finality != "finalized" {
		t.Fatalf("status %+v", st)
	}
	if got, err := polkadot.Recover(ctx, network, tp, c); err != nil || got != atr.Sum([]byte("abc")) {
		t.Fatalf("recover %s, %v", got, err)
	}
	if got, err := polkadot.Locate(ctx, ref, c, 500, 510); err != nil || got != tp {
		t.Fatalf("locate %q, %v", got, err)
	}
	if node.Balance(1337, dest).Int64() != 10000 || node.Balance(1337, id).Int64() != 40_000 {
		t.Fatal("balances")
	}
	// Not there: an index past the block's end, a block of no hash, a height above the head.
	if l, err := c.Extrinsic(ctx, "501", 2); l != nil || err != nil {
		t.Fatalf("past the end: %+v, %v", l, err)
	}
	if l, err := c.Extrinsic(ctx, "0x"+strings.Repeat("ab", 32), 0); l != nil || err != nil {
		t.Fatalf("unknown block: %+v, %v", l, err)
	}
	if raws, err := c.RawExtrinsics(ctx, "900"); raws != nil || err != nil {
		t.Fatalf("above the head: %v, %v", raws, err)
	}
	if _, err := c.Extrinsic(ctx, "01", 0); err == nil {
		t.Fatal("a height with a leading zero was asked")
	}
}

// The chain refuses what the runtime would: the nonce spent, a signature
// over another genesis hash, an era that has ended, a batch the payer
// cannot fund (landed as failed, nothing moved).
func TestNodeRefuses(t *testing.T) {
	node, c := start(t)
	ctx := context.Background()
	key := ed25519.NewKeyFromSeed(make([]byte, 32))
	var id, dest [32]byte
	copy(id[:], key.Public().(ed25519.PublicKey))
	node.Fund(1337, id, big.NewInt(10_000))
	first := signed(t, c, key, dest, nil)
	if _, err := c.Submit(ctx, first); err != nil {
		t.Fatal(err)
	}
	for name, xt := range map[string][]byte{
		"outdated":      first,
		"bad signature": signed(t, c, key, dest, func(_ *polkadot.Extra, a *polkadot.Additional) { a.Genesis[31] ^= 1 }),
		"future nonce":  signed(t, c, key, dest, func(x *polkadot.Extra, _ *polkadot.Additional) { x.Nonce += 5 }),
		"ended era":     signed(t, c, key, dest, func(x *polkadot.Extra, _ *polkadot.Additional) { x.Era = polkadot.MortalEra(4, 480) }),
		"immortal":      signed(t, c, key, dest, func(x *polkadot.Extra, _ *polkadot.Additional) { x.Era = polkadot.Era{Immortal: true} }),
	} {
		if _, err := c.Submit(ctx, xt); !isStatus(err, 400) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if node.Head() != 501 {
		t.Fatalf("a refused extrinsic landed: head %d", node.Head())
	}
	broke := signed(t, c, key, dest, nil) // the balance is spent
	h, err := c.Submit(ctx, broke)
	if err != nil {
		t.Fatal(err)
	}
	ref := polkadot.Reference{Network: network, ExtrinsicHash: h, AssetID: 1337}
	if st := polkadot.PaymentStatus(ctx, ref, atr.Sum([]byte("abc")), node.Landed(h), c); st.State != "failed" || st.Why != "dispatch-failed" {
		t.Fatalf("status %+v", st)
	}
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := []byte("0x")
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

func isStatus(err error, status int) bool {
	e, ok := err.(*polkadotrpc.Error)
	return ok && e.Status == status
}

// A second payment signed before the first lands: the node's
// system_accountNextIndex counts the first, waiting in the pool, so the
// second takes the next nonce and both land; Sidecar's balance-info reads
// the stored nonce, and the extrinsic built on it is refused by the pool.
func TestNextIndexCountsThePool(t *testing.T) {
	node, sidecarOnly := start(t)
	node.Hold = true
	c := *sidecarOnly
	c.RPC = "https://sidecar.example" // the stand-in answers the node's JSON-RPC at its root
	ctx := context.Background()
	key := ed25519.NewKeyFromSeed(make([]byte, 32))
	var id, dest [32]byte
	copy(id[:], key.Public().(ed25519.PublicKey))
	node.SetNonce(id, 3)
	node.Fund(1337, id, big.NewInt(50_000))
	if _, err := c.Submit(ctx, signed(t, &c, key, dest, nil)); err != nil {
		t.Fatal(err)
	}
	if node.Pool() != 1 || node.Head() != 500 {
		t.Fatalf("pool %d, head %d", node.Pool(), node.Head())
	}
	calls := node.Calls.Load()
	in, err := c.Inputs(ctx, id)
	if err != nil || in.Nonce != 4 || node.Calls.Load()-calls != 2 { // the material, then the node's next index
		t.Fatalf("inputs %+v, %v, %d calls", in, err, node.Calls.Load()-calls)
	}
	stale := signed(t, sidecarOnly, key, dest, nil)
	if x, _, _ := polkadot.DecodeExtra(stale, mustSplit(t, stale).End); x.Nonce != 3 {
		t.Fatalf("balance-info's nonce %d, not the stored 3", x.Nonce)
	}
	if _, err := c.Submit(ctx, stale); !isStatus(err, 400) {
		t.Fatalf("the pool took a second extrinsic of nonce 3: %v", err)
	}
	if _, err := c.Submit(ctx, signed(t, &c, key, dest, nil)); err != nil {
		t.Fatal(err)
	}
	if causes := node.Seal(); len(causes) != 0 || node.Head() != 502 || node.Balance(1337, dest).Int64() != 20_000 {
		t.Fatalf("sealed: %v, head %d, paid %s", causes, node.Head(), node.Balance(1337, dest))
	}
	if n, err := c.NextIndex(ctx, id); err != nil || n != 5 {
		t.Fatalf("after the pool landed: %d, %v", n, err)
	}
}

// The node's JSON-RPC errors and answers of other shapes are errors.
func TestNextIndexRefuses(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	if _, err := c.NextIndex(ctx, [32]byte{1}); err == nil {
		t.Fatal("no node named, yet an index")
	}
	for name, body := range map[string]string{
		"error":    `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params"},"id":1}`,
		"string":   `{"jsonrpc":"2.0","result":"4","id":1}`,
		"negative": `{"jsonrpc":"2.0","result":-1,"id":1}`,
		"past u32": `{"jsonrpc":"2.0","result":4294967296,"id":1}`,
		"array":    `[]`,
	} {
		srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }), "node.example")
		if err != nil {
			t.Fatal(err)
		}
		rc := &polkadotrpc.Client{URL: "https://sidecar.example", RPC: "https://node.example", Net: network, HTTP: srv.Client()}
		if n, err := rc.NextIndex(ctx, [32]byte{1}); err == nil {
			t.Errorf("%s: read %d", name, n)
		}
		srv.Close()
	}
}

func mustSplit(t *testing.T, xt []byte) *polkadot.Signed {
	t.Helper()
	s, err := polkadot.SplitSigned(xt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
