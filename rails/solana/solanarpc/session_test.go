package solanarpc_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/solana/solanarpc"
	"github.com/termsgate/termsgate/vectors"
)

const payer = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1:AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9"

// sessionDoc is the vectors' Solana session challenge (SS1), its
// methodDetails extended by extra, placed for H of abc.
func sessionDoc(t *testing.T, extra *jsonv.Object) []jsonv.Value {
	t.Helper()
	f, err := vectors.Load("mpp-session-hedera-solana-xrpl.json")
	if err != nil {
		t.Fatal(err)
	}
	s1, _ := f.GetObject("SS1")
	sol, _ := s1.GetObject("solana")
	c, _ := sol.GetObject("challenge")
	c = c.Clone()
	req, _ := mpp.DecodeObject(mpp.String(c, "request"))
	d, _ := req.GetObject("methodDetails")
	for _, m := range extra.Members() {
		d.Set(m.Key, m.Value)
	}
	c.Set("request", mpp.EncodeB64URL(jsonv.Marshal(req)))
	h := atr.Sum([]byte("abc"))
	doc, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func mustMember(o *jsonv.Object, k string) jsonv.Value {
	v, _ := o.Get(k)
	return v
}

// The session's input is the mint's token program, read with
// getAccountInfo, unless the challenge names it.
func TestSessionInputsFromANode(t *testing.T) {
	node := &solanarpc.Node{Slot: 341000000, Blockhash: blockhash, LastValid: 320000150,
		Mints: map[string]solanarpc.NodeMint{mint: {Owner: solana.Token2022Program.String(), Decimals: 6}}}
	srv := httptest.NewServer(node)
	defer srv.Close()
	c := &solanarpc.Client{URL: srv.URL, HTTP: srv.Client()}
	ctx := context.Background()
	in, err := c.SessionInputsFor(ctx, solana.SessionID, sessionDoc(t, &jsonv.Object{}), payer)
	if err != nil || node.Calls.Load() != 1 {
		t.Fatalf("inputs %v, %v, %d calls", in, err, node.Calls.Load())
	}
	until, _ := jsonv.AsSafeInt(mustMember(in, "validUntil"))
	if d := until - time.Now().Unix(); d < solana.BlockhashPayableSeconds-5 || d > solana.BlockhashPayableSeconds || mustMember(in, "tokenProgram") != solana.Token2022Program.String() {
		t.Fatalf("inputs %s", jsonv.String(in))
	}
	// A challenge that names its token program needs no read.
	in, err = c.SessionInputsFor(ctx, solana.SessionID, sessionDoc(t, jsonv.Obj("tokenProgram", token)), payer)
	if err != nil || in.Has("tokenProgram") || !in.Has("validUntil") || node.Calls.Load() != 1 {
		t.Fatalf("named program: %v, %v", in, err)
	}
	// Another pairing, another network, a document that is not one: none.
	for _, c2 := range []struct {
		pairing, account string
		doc              jsonv.Value
	}{
		{solana.ExactID, payer, sessionDoc(t, &jsonv.Object{})},
		{solana.SessionID, strings.Replace(payer, "EtWTRABZaYq6iMfeYKouRu166VU2xqa1", "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", 1), sessionDoc(t, &jsonv.Object{})},
		{solana.SessionID, payer, jsonv.Obj("x402Version", 2)},
	} {
		if in, err := c.SessionInputsFor(ctx, c2.pairing, c2.doc, c2.account); in != nil || err != nil {
			t.Fatalf("%s %s: %v, %v", c2.pairing, c2.account, in, err)
		}
	}
	// A mint the node does not know is an error naming the call.
	delete(node.Mints, mint)
	if _, err := c.SessionInputsFor(ctx, solana.SessionID, sessionDoc(t, &jsonv.Object{}), payer); err == nil || !strings.Contains(err.Error(), "getAccountInfo") {
		t.Fatalf("unknown mint: %v", err)
	}
	// A hostile answer is an error, never an input.
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","result":{"context":{"slot":1},"value":{"owner":"` + token + `","data":["AAAA","base64"]}},"id":1}`))
	}))
	defer bad.Close()
	hc := &solanarpc.Client{URL: bad.URL, HTTP: bad.Client()}
	if in, err := hc.SessionInputsFor(ctx, solana.SessionID, sessionDoc(t, &jsonv.Object{}), payer); err == nil {
		t.Fatalf("a mint of 3 bytes gave %v", in)
	}
}
