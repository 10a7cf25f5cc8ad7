package simchain_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"math/big"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/simchain"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/signer/evmrpc"
)

// mppTerms serves whichever record the test names at its hash's link.
type mppTerms map[string][]byte

func (m mppTerms) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, ok := m[r.URL.Path[1:]]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}

// challenge is an MPP evm charge of 10000 units of the token to the payee,
// answerable by authorization, placed with the hash of terms.
func challenge(t *testing.T, c *simchain.Chain, terms []byte) []jsonv.Value {
	t.Helper()
	request := jsonv.Obj("amount", "10000", "currency", c.Token.Hex(),
		"methodDetails", jsonv.Obj("chainId", simchain.ChainID, "credentialTypes", []jsonv.Value{"authorization"}),
		"recipient", payee.Hex())
	ch := jsonv.Obj("realm", "api.seller.example", "method", "evm", "intent", "charge",
		"request", mpp.EncodeObject(request), "expires", time.Now().Add(time.Minute).UTC().Format("2006-01-02T15:04:05Z"))
	h := atr.Sum(terms)
	doc, err := mpp.Place([]jsonv.Value{ch}, h, "https://atr.seller.example/"+h.String(), ch, "")
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestMPPAuthorizationSettlesOnChain: the same proofs for
// mpp/charge/evm/authorization, whose nonce is keccak256(id ‖ realm).
func TestMPPAuthorizationSettlesOnChain(t *testing.T) {
	ctx := context.Background()
	c := newChain(t)
	wallet := payer(t)
	terms := mppTerms{atr.Sum(termsA).String(): termsA, atr.Sum(termsB).String(): termsB, atr.Sum(termsC).String(): termsC}
	srv, err := loopback.Start(terms)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}}
	inputs := jsonv.Obj("tokenDomain", jsonv.Obj("name", "USDC", "version", "2"))
	credential := func(terms []byte) *jsonv.Object {
		t.Helper()
		res, err := g.Transact(ctx, challenge(t, c, terms), evm.MPPAuthorizationID, wallet, &gate.TransactOptions{Inputs: inputs})
		if err != nil {
			t.Fatal(err)
		}
		return res.Signed.(*jsonv.Object)
	}
	nonceOf := func(cred *jsonv.Object) [32]byte {
		ch := path(t, cred, "challenge")
		return mpp.ChallengeHash(mpp.String(ch, "id"), mpp.String(ch, "realm"))
	}

	h := atr.Sum(termsA)
	cred := credential(termsA)
	other := credential(termsB)
	nonce := nonceOf(cred)
	if n, _ := path(t, cred, "payload").GetString("nonce"); n != atr.Hash(nonce).String() {
		t.Fatalf("the credential's nonce %s is not keccak256(id ‖ realm)", n)
	}

	// B's signature over A's nonce is refused before A settles.
	forged := other.Clone()
	path(t, forged, "payload").Set("nonce", atr.Hash(nonce).String())
	refuses(t, c, func(gas uint64) (string, *evmrpc.Landed, error) { return c.SettleMPP(ctx, forged, gas) }, "invalid signature")

	before := balance(t, c, payee)
	tx, l, err := c.SettleMPP(ctx, cred, 0)
	if err != nil || l.Status != 1 {
		t.Fatalf("settle: %v", err)
	}
	if got := new(big.Int).Sub(balance(t, c, payee), before); got.Cmp(big.NewInt(10000)) != 0 {
		t.Fatalf("the payee's balance rose by %s", got)
	}
	if _, got := authorizationUsed(t, c, l); got != atr.Hash(nonce).String() {
		t.Fatalf("AuthorizationUsed nonce %s, want keccak256(id ‖ realm) %x", got, nonce)
	}
	if got, err := g.Check(termsA, evm.MPPAuthorizationID, cred); err != nil || got != h {
		t.Fatalf("gate.Check: %s, %v", got, err)
	}
	// The seller's recorded reference, with the settling transaction, reads
	// settled from the node.
	ref, err := (evm.MPPAuthorization{}).Reference(cred)
	if err != nil {
		t.Fatal(err)
	}
	ref.Set("transaction", tx)
	reader, err := c.Node.Reader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st := (evm.MPPAuthorization{}).Status(ref, reader); st.State != evm.StateSettled {
		t.Fatalf("Status: %s", jsonv.String(st.JSON()))
	}

	t.Run("replay reverts", func(t *testing.T) {
		refuses(t, c, func(gas uint64) (string, *evmrpc.Landed, error) { return c.SettleMPP(ctx, cred, gas) }, "authorization is used")
	})
	t.Run("other terms cannot settle as the first", func(t *testing.T) {
		if nonceOf(other) == nonce {
			t.Fatal("terms B's credential carries A's nonce")
		}
		hash, l, err := c.SettleMPP(ctx, other, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, got := authorizationUsed(t, c, l); got != atr.Hash(nonceOf(other)).String() {
			t.Fatalf("B's settlement used nonce %s", got)
		}
		asA := ref.Clone()
		asA.Set("transaction", hash)
		if st := (evm.MPPAuthorization{}).Status(asA, reader); st.State != evm.StateFailed {
			t.Fatalf("B's settlement read as A's: %s", jsonv.String(st.JSON()))
		}
	})
	t.Run("expired reverts", func(t *testing.T) {
		late := credential(termsC)
		if err := c.AdjustTime(2 * time.Minute); err != nil { // past the challenge's expiry, validBefore
			t.Fatal(err)
		}
		refuses(t, c, func(gas uint64) (string, *evmrpc.Landed, error) { return c.SettleMPP(ctx, late, gas) }, "authorization is expired")
	})
}
