package vectors_test

// The Stellar settlement reads' rows run against a loopback Soroban RPC
// (sorobanrpc.Node) answering getTransaction, getEvents and getLatestLedger
// in the documented shapes, read through sorobanrpc's client; each row
// counts the node's calls.

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/stellar"
	"github.com/termsgate/termsgate/rails/stellar/sorobanrpc"
)

// sorobanNode starts a loopback Soroban RPC for network; broken makes every
// call a JSON-RPC error, as an RPC that is down behind its proxy answers.
func sorobanNode(t *testing.T, network string, broken bool) (*sorobanrpc.Node, sorobanrpc.Reader) {
	t.Helper()
	node := &sorobanrpc.Node{Latest: 1100, Oldest: 1}
	var h http.Handler = node
	if broken {
		h = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			node.Calls.Add(1)
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal error"}}`))
		})
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return node, sorobanrpc.Reader{Client: &sorobanrpc.Client{URL: srv.URL, HTTP: srv.Client()}, Of: network}
}

func wantStellarStatus(t *testing.T, got stellar.Status, want jsonv.Value) {
	t.Helper()
	if g, w := jsonv.String(got.JSON()), jsonv.String(want); g != w {
		t.Fatalf("status %s, want %s", g, w)
	}
}

func wantSorobanCalls(t *testing.T, node *sorobanrpc.Node, lo, hi int64) {
	t.Helper()
	if c := node.Calls.Load(); c < lo || c > hi {
		t.Fatalf("%d RPC calls, want %d…%d", c, lo, hi)
	}
}

// stellarStatusRows runs x402-exact-stellar.json's V5 (status and locate
// rows), plant, events and V3v2's expectStatus.
func stellarStatusRows(t *testing.T, f *jsonv.Object) {
	v5 := obj(t, f, "V5")
	ref := obj(t, v5, "ref")
	network, txid := str(t, ref, "network"), str(t, ref, "transaction")
	t.Run("V5", func(t *testing.T) {
		for _, rv := range get(t, v5, "rows").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			status := str(t, r, "status")
			t.Run(status, func(t *testing.T) {
				node, reader := sorobanNode(t, network, status == "reader-error")
				switch status {
				case stellar.TxSuccess:
					l, _ := jsonv.AsSafeInt(get(t, r, "ledger"))
					node.Hold(txid, sorobanrpc.NodeTx{Status: status, Envelope: str(t, r, "envelope"), Ledger: uint32(l)})
				case stellar.TxFailed:
					node.Hold(txid, sorobanrpc.NodeTx{Status: status, Envelope: str(t, f, "V3", "envelope"), Ledger: 990})
				}
				wantStellarStatus(t, stellar.TransferStatus(ref, reader), get(t, r, "expect"))
				wantSorobanCalls(t, node, 1, 1)
			})
		}
		// The search when no transaction is named, from ref.fromLedger (900)
		// to its expiration (1000), over V1's muxed id.
		toID, _ := strconv.ParseUint(str(t, ref, "toId"), 10, 64)
		from := str(t, f, "fixed", "payer")
		candidate := func(node *sorobanrpc.Node, hash string) {
			topic, value := sorobanrpc.TransferEvent(from, str(t, ref, "toBase"), &toID, 10000000)
			node.Events = append(node.Events, sorobanrpc.NodeEvent{Contract: str(t, ref, "asset"), TxHash: hash, Ledger: 990, Topic: topic, Value: value})
		}
		locate := func(t *testing.T, node *sorobanrpc.Node, reader sorobanrpc.Reader, want jsonv.Value) {
			t.Helper()
			found, complete := stellar.Locate(ref, reader)
			if get(t, want, "complete") != complete || found != "" {
				t.Fatalf("found %q, complete %v; want %s", found, complete, jsonv.String(want))
			}
		}
		other := strings.Repeat("b", 64)
		t.Run("locateEventsDisabled", func(t *testing.T) {
			node, reader := sorobanNode(t, network, false)
			node.EventsDisabled = true
			locate(t, node, reader, get(t, v5, "locateEventsDisabled", "expect"))
			wantSorobanCalls(t, node, 1, 1)
		})
		t.Run("locateOldestAboveFrom", func(t *testing.T) {
			node, reader := sorobanNode(t, network, false)
			node.Oldest = 950
			candidate(node, other)
			locate(t, node, reader, get(t, v5, "locateOldestAboveFrom", "expect"))
			wantSorobanCalls(t, node, 1, 1)
		})
		t.Run("locateCandidateNotReadable", func(t *testing.T) {
			node, reader := sorobanNode(t, network, false)
			candidate(node, other) // getTransaction: NOT_FOUND
			locate(t, node, reader, get(t, v5, "locateCandidateNotReadable", "expect"))
			wantSorobanCalls(t, node, 2, 2)
		})
		t.Run("locateCandidateNotThisInstrument", func(t *testing.T) {
			node, reader := sorobanNode(t, network, false)
			candidate(node, other)
			node.Hold(other, sorobanrpc.NodeTx{Status: stellar.TxSuccess, Envelope: str(t, f, "plant", "envelope"), Ledger: 990})
			locate(t, node, reader, get(t, v5, "locateCandidateNotThisInstrument", "expect"))
			wantSorobanCalls(t, node, 2, 2)
		})
		t.Run("locate/found", func(t *testing.T) {
			// The control: the candidate is V3's envelope, the search finds it.
			node, reader := sorobanNode(t, network, false)
			candidate(node, other)
			candidate(node, txid)
			node.Hold(other, sorobanrpc.NodeTx{Status: stellar.TxSuccess, Envelope: str(t, f, "plant", "envelope"), Ledger: 990})
			node.Hold(txid, sorobanrpc.NodeTx{Status: stellar.TxSuccess, Envelope: str(t, f, "V3", "envelope"), Ledger: 991})
			if found, complete := stellar.Locate(ref, reader); found != txid || !complete {
				t.Fatalf("found %q, complete %v", found, complete)
			}
			wantSorobanCalls(t, node, 3, 3)
		})
	})
	t.Run("plant", func(t *testing.T) {
		node, reader := sorobanNode(t, network, false)
		node.Hold(txid, sorobanrpc.NodeTx{Status: stellar.TxSuccess, Envelope: str(t, f, "plant", "envelope"), Ledger: 990})
		wantStellarStatus(t, stellar.TransferStatus(ref, reader), get(t, f, "plant", "expect"))
		wantSorobanCalls(t, node, 1, 1)
	})
	t.Run("V3v2/expectStatus", func(t *testing.T) {
		v := obj(t, f, "V3v2")
		r := obj(t, v, "expectReference").Clone()
		r.Set("transaction", txid)
		node, reader := sorobanNode(t, network, false)
		l, _ := jsonv.AsSafeInt(get(t, v, "expectStatus", "ledger"))
		node.Hold(txid, sorobanrpc.NodeTx{Status: stellar.TxSuccess, Envelope: str(t, v, "envelope"), Ledger: uint32(l)})
		wantStellarStatus(t, stellar.TransferStatus(r, reader), get(t, v, "expectStatus"))
		wantSorobanCalls(t, node, 1, 1)
	})
	t.Run("events", func(t *testing.T) {
		ev := obj(t, f, "events")
		topics, err := stellar.TransferEventTopics(str(t, ev, "filterFor", "toBase"))
		if err != nil || jsonv.String(toValues(topics)) != jsonv.String(get(t, ev, "filterFor", "expect")) {
			t.Fatalf("filter %v (%v)", topics, err)
		}
		for i, rv := range get(t, ev, "rows").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				var topic []string
				for _, s := range get(t, r, "topic").([]jsonv.Value) {
					topic = append(topic, s.(string))
				}
				e, err := stellar.TransferEventOf(topic, str(t, r, "value"))
				want := get(t, r, "expect")
				if code, ok := want.(string); ok {
					wantRefusal(t, err, code)
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				var id jsonv.Value
				if e.ToMuxedID != nil {
					id = strconv.FormatUint(*e.ToMuxedID, 10)
				}
				if got := jsonv.Obj("toBase", e.ToBase, "toMuxedId", id); jsonv.String(got) != jsonv.String(want) {
					t.Fatalf("event %s, want %s", jsonv.String(got), jsonv.String(want))
				}
				// The same event served by getEvents, read through the client.
				node, reader := sorobanNode(t, network, false)
				node.Events = []sorobanrpc.NodeEvent{{Contract: str(t, ref, "asset"), TxHash: txid, Ledger: 990, Topic: topic, Value: str(t, r, "value")}}
				page, err := reader.Transfers(stellar.Transfers{Asset: str(t, ref, "asset"), ToBase: e.ToBase, FromLedger: 900, ToLedger: 1000})
				if err != nil || len(page.Events) != 1 || page.Events[0].TxHash != txid || page.Events[0].ToBase != e.ToBase {
					t.Fatalf("page %+v (%v)", page, err)
				}
				wantSorobanCalls(t, node, 1, 1)
			})
		}
	})
}

// stellarEventMalformed is agreedRefusals "event-malformed": events whose
// topics or data are no SEP-41 transfer, or over 1024 characters.
func stellarEventMalformed(t *testing.T, f *jsonv.Object) error {
	ev := get(t, f, "events", "rows").([]jsonv.Value)
	good := ev[0].(*jsonv.Object)
	var topic []string
	for _, s := range get(t, good, "topic").([]jsonv.Value) {
		topic = append(topic, s.(string))
	}
	value := str(t, good, "value")
	if _, err := stellar.TransferEventOf(topic, value); err != nil {
		t.Fatalf("the control event: %v", err)
	}
	symbol, _ := sorobanrpc.TransferEvent(str(t, f, "fixed", "payer"), str(t, f, "fixed", "payer"), nil, 1)
	for name, c := range map[string]struct {
		topic []string
		value string
	}{
		"two topics":         {topic[:2], value},
		"five topics":        {append(append([]string{}, topic...), topic[1]), value},
		"to not an addres":   {[]string{topic[0], topic[1], topic[0]}, value},
		"data a symbol":      {topic, topic[0]},
		"data an address":    {topic, topic[1]},
		"not base64":         {topic, "AAAA*"},
		"trailing bytes":     {topic, value[:len(value)-4] + "AAAAAA=="},
		"value over 1024":    {topic, strings.Repeat("A", 1028)},
		"topic over 1024":    {[]string{topic[0], topic[1], strings.Repeat("A", 1028)}, value},
		"first not transfer": {[]string{symbol[1], topic[1], topic[2]}, value},
	} {
		if _, err := stellar.TransferEventOf(c.topic, c.value); !isRefusal(err, stellar.CodeEventMalformed) {
			t.Errorf("%s: %v", name, err)
		}
	}
	_, err := stellar.TransferEventOf(topic[:2], value)
	return err
}

// stellarFetchPresented is one of mpp-charge-stellar.json's agreedRefusals
// "fetchPresented …" rows: a pushed credential naming a transaction, read
// from a failing RPC, or from one that holds none (or holds it without its
// envelope); the control fetches the envelope and binds it.
func stellarFetchPresented(t *testing.T, failing bool, placed *jsonv.Object, envelope, wantH string) error {
	hash := strings.Repeat("c", 64)
	cred := jsonv.Obj("challenge", placed.Clone(), "payload", jsonv.Obj("type", "hash", "hash", hash))
	node, reader := sorobanNode(t, "stellar:testnet", failing)
	_, err := stellar.Charge{}.FetchPresented(cred, reader)
	wantSorobanCalls(t, node, 1, 1)
	if failing {
		return err
	}
	code := err
	// An RPC that answers the transaction without envelopeXdr: not found as well.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"status":"SUCCESS","ledger":990,"latestLedger":1000,"oldestLedger":1}}`))
	}))
	t.Cleanup(srv.Close)
	r2 := sorobanrpc.Reader{Client: &sorobanrpc.Client{URL: srv.URL, HTTP: srv.Client()}, Of: "stellar:testnet"}
	if _, err := (stellar.Charge{}).FetchPresented(cred, r2); !isRefusal(err, stellar.CodeNotFound) {
		t.Fatalf("no envelope: %v", err)
	}
	node.Hold(hash, sorobanrpc.NodeTx{Status: stellar.TxSuccess, Envelope: envelope, Ledger: 990})
	got, err := stellar.Charge{}.FetchPresented(cred, reader)
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := jsonv.AsObject(got); str(t, o, "payload", "transaction") != envelope {
		t.Fatalf("fetched %s", jsonv.String(got))
	}
	if h, err := (stellar.Charge{}).Bound(got); err != nil || h != wantH {
		t.Fatalf("bound %s (%v)", h, err)
	}
	return code
}
