package ledger_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/pgtest"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/ledger"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
	"github.com/termsgate/termsgate/signer"
)

// TestChannelStore: a channel is kept once, read back, and moved only from
// the cumulative it has.
func TestChannelStore(t *testing.T) {
	stores(t, func(t *testing.T, open func(t *testing.T) ledger.Store) {
		ctx := context.Background()
		s := open(t)
		defer s.Close()
		cs := s.(ledger.ChannelStore)
		k := ledger.ChannelKey{Pairing: "mpp/session/tempo", Network: "eip155:42431", Channel: "0xc1"}
		if _, _, err := cs.Channel(ctx, k); !errors.Is(err, ledger.ErrNotFound) {
			t.Fatalf("an unkept channel: %v", err)
		}
		if err := cs.MoveChannel(ctx, k, big.NewInt(0), big.NewInt(1)); !errors.Is(err, ledger.ErrNotFound) {
			t.Fatalf("moving an unkept channel: %v", err)
		}
		hold, n, err := cs.PutChannel(ctx, k, []byte(`{"first":true}`), big.NewInt(5))
		if err != nil || string(hold) != `{"first":true}` || n.Int64() != 5 {
			t.Fatalf("put: %s %v %v", hold, n, err)
		}
		if hold, n, err = cs.PutChannel(ctx, k, []byte(`{"second":true}`), big.NewInt(9)); err != nil || string(hold) != `{"first":true}` || n.Int64() != 5 {
			t.Fatalf("a second put replaced the first: %s %v %v", hold, n, err)
		}
		if err := cs.MoveChannel(ctx, k, big.NewInt(4), big.NewInt(6)); !errors.Is(err, ledger.ErrChannelMoved) {
			t.Fatalf("moved from a cumulative it does not have: %v", err)
		}
		if err := cs.MoveChannel(ctx, k, big.NewInt(5), big.NewInt(105)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := cs.PutChannel(ctx, k, []byte(`not json`), big.NewInt(0)); err == nil {
			t.Fatal("a hold that is no JSON was kept")
		}
		s.Close()
		s = open(t) // durable
		defer s.Close()
		if hold, n, err = s.(ledger.ChannelStore).Channel(ctx, k); err != nil || string(hold) != `{"first":true}` || n.Int64() != 105 {
			t.Fatalf("after reopening: %s %v %v", hold, n, err)
		}
	})
}

// The fleet's channel: mpp/session/tempo with the vectors' development key,
// H = SHA-256("abc"), opened from a choice made here as Confirm makes it;
// nothing is fetched.
const (
	sessionRealm = "api.seller.example"
	sessionExp   = "2026-09-21T14:14:20Z"
	sessionReq   = `{"amount":"100","currency":"0x20c0000000000000000000000000000000000000","methodDetails":{"chainId":42431,"escrowContract":"0x4D50500000000000000000000000000000000000","sessionProtocol":"v2"},"recipient":"0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00"}`
	tempoNetwork = "eip155:42431"
)

var channelATR = []byte("abc")

func channelGate() *gate.Gate {
	return &gate.Gate{Now: func() time.Time { return time.Unix(1790000000, 0) }} // before the challenges expire
}

func tempoKey(t testing.TB) *signer.Local {
	l, err := signer.FromHex(signer.AnvilKey, tempoNetwork)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// openChannel opens the session through the gate (both signing steps) and
// returns its hold.
func openChannel(t testing.TB) *gate.Hold {
	t.Helper()
	g := channelGate()
	c := jsonv.Obj("realm", sessionRealm, "method", "tempo", "intent", "session",
		"request", mpp.EncodeB64URL([]byte(sessionReq)), "expires", sessionExp)
	h := atr.Sum(channelATR)
	placed, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
	if err != nil {
		t.Fatal(err)
	}
	p := tempo.Session{}
	read, err := p.Read(placed)
	if err != nil {
		t.Fatal(err)
	}
	key := tempoKey(t)
	choice, err := p.Choose(read, key.Account(), jsonv.Obj("deposit", "10000000"), 1790000000, "ref")
	if err != nil {
		t.Fatal(err)
	}
	chosen := rails.Chosen{Pairing: tempo.SessionID, Choice: choice, Ref: "ref"}
	u, _ := p.Build(choice, channelATR, h)
	funding, _ := p.Request(u)
	ctx := context.Background()
	tx, err := key.Sign(ctx, funding)
	if err != nil {
		t.Fatal(err)
	}
	next, err := g.Finish(channelATR, tempo.SessionID, chosen, tx)
	if err != nil || next.Next == nil {
		t.Fatalf("step 1: %v", err)
	}
	sig, err := key.Sign(ctx, next.Next)
	if err != nil {
		t.Fatal(err)
	}
	done, err := g.Finish(channelATR, tempo.SessionID, chosen, []jsonv.Value{tx, sig})
	if err != nil {
		t.Fatal(err)
	}
	hold, err := g.OpenChannel(channelATR, tempo.SessionID, done.Signed, nil)
	if err != nil {
		t.Fatal(err)
	}
	return hold
}

// sellerCharge is the challenge the seller issues for each further request
// in the channel: 100 more.
func sellerCharge() []jsonv.Value {
	return []jsonv.Value{jsonv.Obj("id", "seller-7", "realm", sessionRealm, "method", "tempo", "intent", "session",
		"request", mpp.EncodeB64URL([]byte(sessionReq)), "expires", sessionExp)}
}

// channelChildEnv makes TestSharedChannelChild a child of
// TestSharedChannelFleet.
const channelChildEnv = "TERMSGATE_LEDGER_CHANNEL_CHILD"

// The fleet: processes × payers × vouchers of 100, against a budget of
// exactly their sum.
const (
	fleetProcesses = 4
	fleetPayers    = 2
	fleetVouchers  = 10
	fleetCharge    = 100
	fleetTotal     = fleetProcesses * fleetPayers * fleetVouchers * fleetCharge
)

type channelResult struct {
	Cumulatives []string // of every voucher this process signed
	Signatures  int
	Errors      []string
}

// TestSharedChannelChild is the body of TestSharedChannelFleet's processes:
// fleetPayers goroutines signing fleetVouchers vouchers each in the channel
// the store STATE keeps under PAIRING, NETWORK, CHANNEL, through a
// pay.Policy whose budget is in the same store; run directly it does
// nothing.
func TestSharedChannelChild(t *testing.T) {
	if os.Getenv(channelChildEnv) == "" {
		return
	}
	ctx := context.Background()
	var s ledger.Store
	var err error
	if state := os.Getenv("STATE"); strings.HasPrefix(state, "postgres") {
		s, err = ledger.Open(ctx, state)
	} else {
		// Eight payers in four processes take turns at the file: under the
		// race detector on a loaded machine one can wait past the default
		// 5 s, which is a refusal to sign, not what this test is about.
		s, err = ledger.OpenFile(state, &ledger.FileOptions{LockTimeout: time.Minute})
	}
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	policy, err := pay.NewPolicy(pay.PolicyConfig{
		Limits: []pay.Limit{{Network: tempoNetwork, MaxAmount: big.NewInt(fleetCharge), Budget: big.NewInt(fleetTotal)}},
		Budget: ledger.Budget(s),
	})
	if err != nil {
		t.Fatal(err)
	}
	g := channelGate()
	g.Policy = policy
	// Each race a payer loses is a voucher another one built, so as many
	// attempts as the fleet has vouchers can never run out.
	ch := &ledger.SharedChannel{Store: s.(ledger.ChannelStore), Attempts: fleetTotal / fleetCharge,
		Key: ledger.ChannelKey{Pairing: os.Getenv("PAIRING"), Network: os.Getenv("NETWORK"), Channel: os.Getenv("CHANNEL")}}
	key := &countingSigner{Signer: tempoKey(t)}
	var mu sync.Mutex
	var r channelResult
	var wg sync.WaitGroup
	for range fleetPayers {
		wg.Go(func() {
			for range fleetVouchers {
				res, err := ch.Within(ctx, g, sellerCharge(), key, nil)
				mu.Lock()
				if err != nil {
					r.Errors = append(r.Errors, err.Error())
				} else {
					payload, _ := res.Signed.(*jsonv.Object).GetObject("payload")
					cum := mpp.String(payload, "cumulativeAmount")
					if res.Hold.SignedMax != cum || mpp.String(payload, "channelId") != ch.Key.Channel {
						r.Errors = append(r.Errors, fmt.Sprintf("voucher %s with hold %+v", jsonv.Marshal(res.Signed), res.Hold))
					}
					r.Cumulatives = append(r.Cumulatives, cum)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	r.Signatures = int(key.calls.Load())
	out, _ := json.Marshal(r)
	fmt.Printf("RESULT %s\n", out)
}

// TestSharedChannelFleet: fleetProcesses processes (this test binary run
// again), each with fleetPayers payers, sign vouchers in one channel kept
// in one store, on the file store and on PostgreSQL. Every voucher's
// cumulative is distinct, together they are exactly 100, 200, … up to the
// sum of the charges, the store's cumulative and the budget spent are that
// sum, and each process called its signer once per voucher it got.
func TestSharedChannelFleet(t *testing.T) {
	t.Run("file", func(t *testing.T) {
		fleet(t, filepath.Join(t.TempDir(), "state.db"))
	})
	t.Run("postgres", func(t *testing.T) {
		fleet(t, pgtest.Start(t).NewDatabase(t))
	})
}

func fleet(t *testing.T, state string) {
	ctx := context.Background()
	s, err := ledger.Open(ctx, state) // migrated before the children start
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	hold := openChannel(t)
	ch, err := ledger.ShareChannel(ctx, s.(ledger.ChannelStore), hold)
	if err != nil {
		t.Fatal(err)
	}
	results := make([]channelResult, fleetProcesses)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestSharedChannelChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), channelChildEnv+"=1", "STATE="+state,
				"PAIRING="+ch.Key.Pairing, "NETWORK="+ch.Key.Network, "CHANNEL="+ch.Key.Channel)
			out, err := cmd.CombinedOutput()
			_, line, ok := strings.Cut(string(out), "RESULT ")
			line, _, _ = strings.Cut(line, "\n")
			if err != nil || !ok || json.Unmarshal([]byte(line), &results[i]) != nil {
				t.Errorf("process %d: %v\n%s", i, err, out)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	var all []int
	for i, r := range results {
		for _, e := range r.Errors {
			t.Errorf("process %d: %s", i, e)
		}
		if r.Signatures != len(r.Cumulatives) {
			t.Errorf("process %d: %d signer calls for %d vouchers", i, r.Signatures, len(r.Cumulatives))
		}
		for _, c := range r.Cumulatives {
			n, err := strconv.Atoi(c)
			if err != nil {
				t.Fatalf("cumulative %q", c)
			}
			all = append(all, n)
		}
	}
	slices.Sort(all)
	want := make([]int, fleetTotal/fleetCharge)
	for i := range want {
		want[i] = (i + 1) * fleetCharge
	}
	if !slices.Equal(all, want) {
		t.Fatalf("the vouchers' cumulatives %v, want each of %d…%d once", all, fleetCharge, fleetTotal)
	}
	if _, cum, err := ch.Hold(ctx); err != nil || cum.Int64() != fleetTotal {
		t.Fatalf("the channel's cumulative %v (%v), want %d", cum, err, fleetTotal)
	}
	spent, err := s.Spent(ctx, ledger.Key{Network: tempoNetwork, Asset: "0x20c0000000000000000000000000000000000000"})
	if err != nil || spent.Int64() != fleetTotal {
		t.Fatalf("budget spent %v (%v), want %d", spent, err, fleetTotal)
	}
	t.Logf("%d vouchers by %d processes, cumulatives %d…%d each once", len(all), fleetProcesses, all[0], all[len(all)-1])
}
