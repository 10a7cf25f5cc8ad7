package vectors_test

// mpp-session-hedera-solana-xrpl.json's hedera rows: SS1.hedera, the hedera
// rows of SS1refusals, HS1–HS5, plants.hedera, the hedera rows of
// agreedRefusals and the hedera buyer rows B2 and B6. HS4's receipts are
// served by a loopback JSON-RPC relay answering as the relay does, read
// through rails/hedera/relay.

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/hedera"
	"github.com/termsgate/termsgate/rails/hedera/relay"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/signer/evmrpc"
)

// hederaRelay is a loopback Hedera JSON-RPC relay on chain 296 answering
// eth_chainId, eth_getBlockByNumber (head 40845600 for every tag) and
// eth_getTransactionReceipt of the receipts it holds (by hash, in the
// vector form: status a number, blockNumber decimal), in the relay's hex
// form; calls counts requests.
func hederaRelay(t testing.TB, receipts map[string]*jsonv.Object, calls *atomic.Int64) evm.Reader {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			ID     json.RawMessage   `json:"id"`
			Method string            `json:"method"`
			Params []json.RawMessage `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var result jsonv.Value
		switch req.Method {
		case "eth_chainId":
			result = "0x128"
		case "eth_getBlockByNumber":
			result = jsonv.Obj("number", "0x"+strconv.FormatUint(40845600, 16))
		case "eth_getTransactionReceipt":
			var hash string
			_ = json.Unmarshal(req.Params[0], &hash)
			rc, ok := receipts[strings.ToLower(hash)]
			if !ok {
				result = nil
				break
			}
			status, _ := rc.Get("status")
			block, _ := rc.GetString("blockNumber")
			n, _ := strconv.ParseUint(block, 10, 64)
			lv, _ := rc.Get("logs")
			logs := []jsonv.Value{}
			for i, l := range lv.([]jsonv.Value) {
				o := jsonv.Clone(l).(*jsonv.Object)
				o.Set("transactionHash", strings.ToLower(hash))
				o.Set("blockNumber", "0x"+strconv.FormatUint(n, 16))
				o.Set("logIndex", "0x"+strconv.Itoa(i))
				logs = append(logs, o)
			}
			result = jsonv.Obj("transactionHash", strings.ToLower(hash), "status", "0x"+jsonv.String(status),
				"blockNumber", "0x"+strconv.FormatUint(n, 16), "logs", logs)
		default:
			result = nil
		}
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + jsonv.String(result) + `}`))
	}))
	t.Cleanup(srv.Close)
	node, err := evmrpc.Dial(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := relay.Reader(context.Background(), node)
	if err != nil {
		t.Fatal(err)
	}
	return rd
}

func TestMPPSessionHedera(t *testing.T) {
	f := load(t, "mpp-session-hedera-solana-xrpl.json")
	p := hedera.Session{}
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	placed := obj(t, f, "SS1", "hedera", "placed")
	hs3 := obj(t, f, "HS3")
	hs4 := obj(t, f, "HS4")
	// HS3's opening: SS1's placed challenge, the payload B6 holds, and
	// HS3's log as landed.
	b6 := row(t, get(t, f, "buyer", "rows"), "B6")
	for _, r := range get(t, f, "buyer", "rows").([]jsonv.Value) {
		if str(t, r, "name") == "B6" && str(t, r, "pairing") == hedera.SessionID {
			b6 = obj(t, r)
		}
	}
	presented := obj(t, b6, "input", "presented")
	withLogs := func(challenge *jsonv.Object, payload *jsonv.Object, logs []jsonv.Value) *jsonv.Object {
		return jsonv.Obj("challenge", challenge.Clone(), "payload", payload.Clone(),
			"landed", jsonv.Obj("transaction", mpp.String(payload, "txHash"), "blockNumber", "40000000", "logs", logs))
	}

	t.Run("SS1.hedera", func(t *testing.T) {
		c := obj(t, f, "SS1", "hedera", "challenge")
		pairings, err := mpp.PairingsOf(c)
		if err != nil || len(pairings) != 1 || pairings[0] != hedera.SessionID {
			t.Fatalf("pairings %v, %v", pairings, err)
		}
		doc, err := mpp.Place([]jsonv.Value{c}, H, str(t, fixed, "link"), c, "")
		if err != nil || jsonv.String(doc[0]) != jsonv.String(placed) {
			t.Fatalf("placed %v, %v", doc, err)
		}
		d, err := mpp.IssuedDigest(c)
		if err != nil || d.String() != str(t, f, "SS1", "hedera", "expectIssuedDigest") {
			t.Fatalf("issued digest %v, %v", d, err)
		}
	})
	t.Run("SS1refusals", func(t *testing.T) {
		for _, r := range get(t, f, "SS1refusals").([]jsonv.Value) {
			if m, _ := jsonv.AsObject(r); mpp.String(m, "method") != "hedera" {
				continue // another rail's row, in its own pairing's test
			}
			t.Run(str(t, r, "case"), func(t *testing.T) {
				c := obj(t, f, "SS1", "hedera", "challenge").Clone()
				c.Set("request", mpp.EncodeObject(obj(t, r, "request")))
				if no, _ := obj(t, r).Get("noExpires"); no == true {
					c.Delete("expires")
				}
				_, err := mpp.PairingsOf(c)
				wantRefusal(t, err, str(t, r, "expect"))
			})
		}
	})
	escrow, token, payee, payer := str(t, fixed, "escrow"), str(t, fixed, "token"), str(t, fixed, "payee"), str(t, fixed, "payer")
	const zero = "0x0000000000000000000000000000000000000000"
	t.Run("HS1", func(t *testing.T) {
		hs1 := obj(t, f, "HS1")
		if got := hedera.ChannelID(payer, payee, token, H, zero, escrow, 296).String(); got != str(t, hs1, "expectChannelId") {
			t.Fatalf("channel %s", got)
		}
		h2 := hedera.ChannelID(payer, payee, token, mustHash(t, str(t, fixed, "H2")), zero, escrow, 296).String()
		if !strings.HasPrefix(h2, str(t, hs1, "expectChannelIdH2Prefix")) || !strings.HasSuffix(h2, str(t, hs1, "expectChannelIdH2Suffix")) {
			t.Fatalf("channel of H2 %s", h2)
		}
	})
	t.Run("HS2", func(t *testing.T) {
		hs2 := obj(t, f, "HS2")
		// The opening built from SS1's placed challenge by the gate's
		// pairing, for the fixed payer and HS2's deposit.
		read, err := p.Read([]jsonv.Value{placed})
		if err != nil {
			t.Fatal(err)
		}
		c, err := p.Choose(read, "hedera:testnet:"+payer, jsonv.Obj("deposit", str(t, hs2, "deposit")), 1_790_000_000, "")
		if err != nil {
			t.Fatal(err)
		}
		u, err := p.Build(c, []byte("abc"), H)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := p.Request(u)
		calls, _ := req.Get("calls")
		list := calls.([]jsonv.Value)
		approve := unhex(t, strings.TrimPrefix(str(t, list[0], "data"), "0x"))
		open := unhex(t, strings.TrimPrefix(str(t, list[1], "data"), "0x"))
		n := func(k string) int { v, _ := jsonv.AsSafeInt(get(t, hs2, k)); return int(v) }
		if len(approve) != n("expectApproveLength") || !strings.HasPrefix(hex0x(approve), str(t, hs2, "expectApprovePrefix")) ||
			!strings.HasSuffix(hex0x(approve), str(t, hs2, "expectApproveSuffix")) || !strings.Contains(hex0x(approve), str(t, hs2, "expectApproveContains")) {
			t.Fatalf("approve %x", approve)
		}
		salt := get(t, hs2, "expectOpenSaltBytes").([]jsonv.Value)
		from, _ := jsonv.AsSafeInt(salt[0])
		to, _ := jsonv.AsSafeInt(salt[1])
		if len(open) != n("expectOpenLength") || hex0x(open[:4]) != str(t, hs2, "expectOpenSelector") || hex0x(open[from:to]) != H.String() {
			t.Fatalf("open %x", open)
		}
		if str(t, list[0], "to") != strings.ToLower(token) || str(t, list[1], "to") != strings.ToLower(escrow) {
			t.Fatalf("calls %s", jsonv.String(calls))
		}
		g, err := p.Summarize(req)
		if err != nil || g.Amount.String() != str(t, hs2, "deposit") || g.Network != "hedera:testnet" || g.Payee != strings.ToLower(payee) {
			t.Fatalf("summary %+v, %v", g, err)
		}
		// The zero voucher follows the sent opening.
		done, err := p.Complete(u, jsonv.Obj("hash", str(t, hs3, "txHash")), rails.Chosen{})
		if err != nil || done.Next == nil {
			t.Fatalf("next %v, %v", done, err)
		}
		td, _ := done.Next.GetObject("typedData")
		d, err := evm.TypedDataDigest(td)
		if err != nil || hex0x(d[:]) != str(t, hs2, "expectVoucherDigest") {
			t.Fatalf("voucher digest %x, %v", d, err)
		}
		// With the voucher signature, the credential is B6's payload.
		full, err := p.Complete(u, []jsonv.Value{jsonv.Obj("hash", str(t, hs3, "txHash")), "0x" + strings.Repeat("00", 65)}, rails.Chosen{})
		if err != nil || str(t, full.Signed, "payload", "channelId") != str(t, presented, "payload", "channelId") ||
			str(t, full.Signed, "payload", "txHash") != str(t, presented, "payload", "txHash") {
			t.Fatalf("credential %v, %v", full.Signed, err)
		}
	})
	t.Run("HS3", func(t *testing.T) {
		in := withLogs(placed, obj(t, presented, "payload"), []jsonv.Value{obj(t, hs3, "log")})
		h, err := p.Bound(in)
		if err != nil || h != str(t, hs3, "expectBound") {
			t.Fatalf("bound %q, %v", h, err)
		}
		ref, err := p.ChannelRef(in)
		want := obj(t, hs3, "expectRef")
		if err != nil || ref.Network != str(t, want, "network") || ref.Channel != str(t, want, "channel") {
			t.Fatalf("ref %v, %v", ref, err)
		}
		rec, err := p.Reference(in)
		if err != nil || str(t, rec, "transaction") != str(t, hs3, "txHash") || str(t, rec, "bindingLog", "value") != str(t, want, "channel") {
			t.Fatalf("reference %v, %v", rec, err)
		}
	})
	// HS4: the real testnet receipts through the loopback relay.
	hs4Challenge := func(t *testing.T) *jsonv.Object {
		hh, err := mpp.HFromID(str(t, hs4, "challengeId"))
		if err != nil {
			t.Fatal(err)
		}
		c := obj(t, f, "SS1", "hedera", "challenge").Clone()
		doc, err := mpp.Place([]jsonv.Value{c}, hh, "https://atr.seller.example/"+hh.String(), c, "")
		if err != nil {
			t.Fatal(err)
		}
		placed, _ := jsonv.AsObject(doc[0])
		if mpp.String(placed, "id") != str(t, hs4, "challengeId") {
			t.Fatalf("placed id %s", mpp.String(placed, "id"))
		}
		return placed
	}
	hs4Opening := func(t *testing.T, c *jsonv.Object) *jsonv.Object {
		return jsonv.Obj("challenge", c, "payload", jsonv.Obj("action", "open", "channelId", str(t, hs4, "channel"),
			"txHash", str(t, hs4, "openTx"), "cumulativeAmount", "0", "signature", "0x"+strings.Repeat("00", 65)))
	}
	receipts := map[string]*jsonv.Object{str(t, hs4, "openTx"): obj(t, hs4, "openReceipt"), str(t, hs4, "closeTx"): obj(t, hs4, "closeReceipt")}
	t.Run("HS4", func(t *testing.T) {
		var calls atomic.Int64
		rd := hederaRelay(t, receipts, &calls)
		c := hs4Challenge(t)
		fetched, err := hedera.FetchSessionPresented(hs4Opening(t, c), rd)
		if err != nil || str(t, fetched, "landed", "blockNumber") != str(t, hs4, "expectBlock") {
			t.Fatalf("fetched %v, %v", fetched, err)
		}
		logs, _ := obj(t, fetched, "landed").Get("logs")
		if n := len(logs.([]jsonv.Value)); n != 1 {
			t.Fatalf("%d escrow logs kept", n) // the token's Transfer is not the escrow's
		}
		h, err := p.Bound(fetched)
		if err != nil || h != str(t, hs4, "salt") || !strings.HasPrefix(h, str(t, hs4, "expectSaltPrefix")) || !strings.HasSuffix(h, str(t, hs4, "expectSaltSuffix")) {
			t.Fatalf("bound %q, %v", h, err)
		}
		ch := str(t, hs4, "channel")
		if !strings.HasPrefix(ch, str(t, hs4, "expectChannelPrefix")) || !strings.HasSuffix(ch, str(t, hs4, "expectChannelSuffix")) {
			t.Fatalf("channel %s", ch)
		}
		ref, err := p.Reference(fetched)
		if err != nil {
			t.Fatal(err)
		}
		if s := hedera.SessionStatus(ref, rd); s.State != evm.StateSettled || strconv.FormatUint(s.BlockNumber, 10) != str(t, hs4, "expectBlock") {
			t.Fatalf("open status %+v", s)
		}
		closeRef, err := hedera.CloseReference(c, ch)
		if err != nil || jsonv.String(closeRef) != jsonv.String(obj(t, hs4, "expectCloseRef")) {
			t.Fatalf("close ref %v, %v", closeRef, err)
		}
		closeRef.Set("transaction", str(t, hs4, "closeTx"))
		if s := hedera.SessionStatus(closeRef, rd); s.State != evm.StateSettled || s.BlockNumber != 40845559 {
			t.Fatalf("close status %+v", s)
		}
		// The opening's transaction is no close: its receipt has no
		// ChannelClosed.
		closeRef.Set("transaction", str(t, hs4, "openTx"))
		if s := hedera.SessionStatus(closeRef, rd); s.State != evm.StateFailed || s.Why != evm.WhyBindingLogNotFound {
			t.Fatalf("open read as close: %+v", s)
		}
		if calls.Load() == 0 {
			t.Fatal("the relay was not read")
		}
	})
	t.Run("HS5", func(t *testing.T) {
		hs5 := obj(t, f, "HS5")
		for _, k := range get(t, hs5, "kinds").([]jsonv.Value) {
			pair := k.([]jsonv.Value)
			payload := obj(t, presented, "payload").Clone()
			payload.Set("action", pair[0])
			got, err := p.ChannelKind(jsonv.Obj("challenge", placed.Clone(), "payload", payload))
			if err != nil || string(got) != pair[1] {
				t.Fatalf("%v: %q, %v", pair[0], got, err)
			}
		}
		payload := obj(t, presented, "payload").Clone()
		payload.Set("action", str(t, hs5, "badAction"))
		_, err := p.ChannelKind(jsonv.Obj("challenge", placed.Clone(), "payload", payload))
		wantRefusal(t, err, str(t, hs5, "expectBad"))
	})
	t.Run("plants.hedera", func(t *testing.T) {
		plant := obj(t, f, "plants", "hedera")
		// HS4's real receipt, presented against SS1's placed challenge (H):
		// the landed salt is another agreement's hash.
		lv, _ := obj(t, hs4, "openReceipt").Get("logs")
		in := withLogs(placed, jsonv.Obj("action", "open", "channelId", str(t, hs4, "channel"), "txHash", str(t, hs4, "openTx"),
			"cumulativeAmount", "0", "signature", "0x00"), lv.([]jsonv.Value))
		_, err := p.Bound(in)
		wantRefusal(t, err, str(t, plant, "expect"))
		// Only the other emitter's logs: no ChannelOpened from the escrow.
		var other []jsonv.Value
		for _, l := range lv.([]jsonv.Value) {
			if strings.EqualFold(str(t, l, "address"), str(t, plant, "otherEmitter")) {
				other = append(other, l)
			}
		}
		_, err = p.Bound(withLogs(hs4Challenge(t), obj(t, in, "payload"), other))
		wantRefusal(t, err, str(t, plant, "expectOtherEmitter"))
		// HS3's log emitted by the token instead of the escrow.
		moved := obj(t, hs3, "log").Clone()
		moved.Set("address", strings.ToLower(str(t, plant, "otherEmitter")))
		_, err = p.Bound(withLogs(placed, obj(t, presented, "payload"), []jsonv.Value{moved}))
		wantRefusal(t, err, str(t, plant, "expectOtherEmitter"))
	})
	t.Run("agreedRefusals", func(t *testing.T) {
		for _, r := range get(t, f, "agreedRefusals", "rows").([]jsonv.Value) {
			name := str(t, r, "case")
			if !strings.Contains(name, "hedera") {
				continue
			}
			t.Run(name, func(t *testing.T) {
				var err error
				switch {
				case strings.Contains(name, "not an address"):
					for _, k := range []string{"currency", "recipient", "escrowContract"} {
						rq, _ := mpp.DecodeObject(str(t, f, "SS1", "hedera", "challenge", "request"))
						if k == "escrowContract" {
							d, _ := rq.GetObject("methodDetails")
							d.Set(k, "0.0.1234")
						} else {
							rq.Set(k, "0.0.1234")
						}
						c := obj(t, f, "SS1", "hedera", "challenge").Clone()
						c.Set("request", mpp.EncodeObject(rq))
						_, err = mpp.PairingsOf(c)
						wantRefusal(t, err, str(t, r, "expect"))
					}
					return
				case strings.Contains(name, "before fetchPresented"):
					bare := presented.Clone()
					bare.Delete("landed")
					_, err = p.Bound(bare)
				case strings.Contains(name, "another hedera network"):
					var calls atomic.Int64
					rd := hederaRelay(t, receipts, &calls)
					before := calls.Load()
					_, err = hedera.FetchSessionPresented(presented, mainnet{rd})
					if calls.Load() != before { // refused before any receipt is read
						t.Fatalf("%d relay calls", calls.Load()-before)
					}
				default:
					t.Fatalf("no check for %q", name)
				}
				wantRefusal(t, err, str(t, r, "expect"))
			})
		}
	})
	reg := rails.NewRegistry(hedera.Session{})
	for _, r := range get(t, f, "buyer", "rows").([]jsonv.Value) {
		if str(t, r, "pairing") != hedera.SessionID {
			continue
		}
		r := obj(t, r)
		t.Run("buyer/"+str(t, r, "name"), func(t *testing.T) {
			switch str(t, r, "name") {
			case "B2":
				in := obj(t, r, "input")
				srv := newATRSeller(t)
				srv.serveBytes(unhex(t, str(t, in, "servesHex")))
				l, err := signer.FromHex(signer.AnvilKey, "hedera:testnet")
				if err != nil || l.Account() != str(t, in, "account") {
					t.Fatalf("account %v, %v", l, err)
				}
				sg := &countingSigner{inner: l}
				_, err = srv.gateFor(1_790_000_000, reg).Transact(context.Background(), get(t, in, "doc"), hedera.SessionID, sg,
					&gate.TransactOptions{Inputs: obj(t, in, "inputs")})
				wantDecline(t, err, gate.Code(str(t, r, "expect", "decline")), "")
				if sg.calls.Load() != 0 || srv.fetches.Load() != 1 {
					t.Fatalf("%d signer calls, %d fetches", sg.calls.Load(), srv.fetches.Load())
				}
			case "B6":
				checks := get(t, r, "input", "check").([]jsonv.Value)
				expects := get(t, r, "expect").([]jsonv.Value)
				g := &gate.Gate{Pairings: reg}
				h, err := g.Check(unhex(t, str(t, checks[0], "bytesHex")), hedera.SessionID, presented)
				if err != nil || h.String() != str(t, expects[0], "h") {
					t.Fatalf("check = %v, %v", h, err)
				}
				_, err = g.Check(unhex(t, str(t, checks[1], "bytesHex")), hedera.SessionID, presented)
				wantDecline(t, err, gate.Code(str(t, expects[1], "decline")), "")
			}
		})
	}
}

// mainnet is a reader that says it serves hedera:mainnet.
type mainnet struct{ evm.Reader }

func (mainnet) Network() string { return "hedera:mainnet" }

func hex0x(b []byte) string { return "0x" + hexOf(b) }
