package mirror_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/termsgate/termsgate/rails/hedera"
	"github.com/termsgate/termsgate/rails/hedera/mirror"
)

// A loopback server answering as the Mirror Node does (its documented
// shapes): the inputs read the first node and a token's decimals; a
// transaction's entries are read strictly; a 404 is not found, other
// failures errors.
func TestMirrorClient(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/network/nodes":
			_, _ = w.Write([]byte(`{"nodes":[{"node_id":0,"node_account_id":"0.0.3","description":"hosted by Hedera"}],"links":{"next":null}}`))
		case "/api/v1/tokens/0.0.5449":
			_, _ = w.Write([]byte(`{"token_id":"0.0.5449","symbol":"USDC","decimals":"6","type":"FUNGIBLE_COMMON"}`))
		case "/api/v1/transactions/0.0.1235-1700000000-000000000":
			_, _ = w.Write([]byte(`{"transactions":[{"result":"SUCCESS","nonce":0,"scheduled":false,"memo_base64":"bGNw","consensus_timestamp":"1700000003.000000001","name":"CRYPTOTRANSFER"}]}`))
		case "/api/v1/transactions/0.0.9000-1700000000-000000000":
			_, _ = w.Write([]byte(`{"transactions":[{"result":"SUCCESS","nonce":1,"scheduled":false,"memo_base64":null,"consensus_timestamp":"1700000003.000000002","transfers":[{"account":"0.0.5001","amount":-100,"is_approval":false},{"account":"0.0.4001","amount":100}]}]}`))
		case "/api/v1/transactions/0.0.9000-1700000000-000000001":
			_, _ = w.Write([]byte(`{"transactions":[{"result":"SUCCESS","nonce":1,"scheduled":false,"memo_base64":null,"consensus_timestamp":"1700000003.000000002","transfers":[{"account":"0.0.5001","amount":-1.5}]}]}`))
		case "/api/v1/transactions/0.0.1235-1700000000-000000001":
			_, _ = w.Write([]byte(`{"transactions":[{"result":"SUCCESS","nonce":"0"}]}`))
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"_status":{"messages":[{"message":"Not found"}]}}`))
		}
	}))
	defer srv.Close()
	c := &mirror.Client{URL: srv.URL, HTTP: srv.Client(), Of: "hedera:testnet"}
	ctx := context.Background()
	in, err := c.Inputs(ctx, "0.0.5449", 1700000000)
	if err != nil || string(mustMarshal(in)) != `{"node":"0.0.3","maxFee":"100000000","validStart":{"seconds":"1700000000","nanos":0},"decimals":6}` {
		t.Fatalf("inputs %s (%v)", mustMarshal(in), err)
	}
	r := mirror.Reader{Client: c}
	entries, found, err := r.Transactions("0.0.1235-1700000000-000000000")
	if err != nil || !found || len(entries) != 1 || !reflect.DeepEqual(entries[0], hedera.Entry{Result: "SUCCESS", MemoBase64: "bGNw", Consensus: "1700000003.000000001"}) {
		t.Fatalf("entries %+v %v (%v)", entries, found, err)
	}
	// A child record's transfers, a debit negative; a fractional amount is
	// refused.
	entries, _, err = r.Transactions("0.0.9000-1700000000-000000000")
	if err != nil || len(entries) != 1 || !reflect.DeepEqual(entries[0].Transfers, []hedera.Transfer{
		{Account: hedera.Entity{Num: 5001}, Amount: -100}, {Account: hedera.Entity{Num: 4001}, Amount: 100}}) {
		t.Fatalf("transfers %+v (%v)", entries, err)
	}
	if _, _, err := r.Transactions("0.0.9000-1700000000-000000001"); err == nil {
		t.Fatal("a fractional amount read")
	}
	if _, found, err := r.Transactions("0.0.1235-1700000000-000000002"); found || err != nil {
		t.Fatalf("a 404: %v %v", found, err)
	}
	if _, _, err := r.Transactions("0.0.1235-1700000000-000000001"); err == nil {
		t.Fatal("an entry with a string nonce and no timestamp was read")
	}
	if _, err := c.Decimals(ctx, "0.0.9"); err == nil {
		t.Fatal("a missing token has decimals")
	}
}
