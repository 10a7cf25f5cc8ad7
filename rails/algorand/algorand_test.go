package algorand_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/algorand"
	"github.com/termsgate/termsgate/vectors"
)

// The vector payment's transfer, on its own, inspects as a bare signed
// transaction with H in its note; the fee payer's entry with none.
func TestInspectSignedTxn(t *testing.T) {
	payments, err := vectors.Payments()
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := payments[algorand.ExactID].(*jsonv.Object).GetObject("payload")
	gv, _ := payload.Get("paymentGroup")
	group := gv.([]jsonv.Value)
	in, err := algorand.InspectSignedTxn(group[1].(string))
	if err != nil {
		t.Fatal(err)
	}
	o := in.JSON()
	if s, _ := o.GetString("h"); s != "0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Fatalf("inspect %s", jsonv.String(o))
	}
	if in.Grant.Payer != "RKEOHXLUBHYZL7KS3MWTZOS5OLFGOCN7DWKBEG7TOSEADNAPN5OOTUNSLE" || in.Grant.Amount.String() != "10000" ||
		in.Grant.Decimals != 6 || in.Grant.Network != algorand.TestNet || !strings.HasPrefix(in.WhereH, "txn.note") {
		t.Fatalf("grant %+v, where %s", in.Grant, in.WhereH)
	}
	fee, err := algorand.InspectSignedTxn(group[0].(string))
	if err != nil || fee.H != "" || fee.Grant.Asset != "ALGO" || fee.Grant.Amount.Sign() != 0 {
		t.Fatalf("fee payer's entry: %+v, %v", fee, err)
	}
	for _, bad := range []string{"", "gA==", base64.StdEncoding.EncodeToString([]byte{0x81, 0xa3, 't', 'x', 'n', 0x80}), "not base64"} {
		if _, err := algorand.InspectSignedTxn(bad); err == nil {
			t.Fatalf("%q inspected", bad)
		}
	}
}

// The codec's shortest forms: each value has one spelling, and a longer
// one is refused.
func TestCanonicalMsgpack(t *testing.T) {
	for _, c := range []struct {
		hex string
		ok  bool
	}{
		{"7f", true}, {"cc7f", false}, {"cc80", true}, {"cd00ff", false}, {"cd0100", true},
		{"ce0000ffff", false}, {"cf00000000ffffffff", false}, {"cf0000000100000000", true},
		{"a3616263", true}, {"d903616263", false}, {"c403616263", true}, {"c50003616263", false},
		{"82a16101a16202", true}, {"82a16201a16102", false}, {"82a16101a16102", false}, {"81a16100", false},
		{"8101a0", false}, {"c0", false}, {"ff", false}, {"ca00000000", false}, {"d40100", false},
		{"dc000101", false}, {"91c3", true},
	} {
		b := mustHex(t, c.hex)
		v, err := algorand.Decode(b)
		if (err == nil) != c.ok {
			t.Fatalf("%s: %v", c.hex, err)
		}
		if err == nil && string(algorand.Encode(v)) != string(b) {
			t.Fatalf("%s re-encodes to %x", c.hex, algorand.Encode(v))
		}
	}
}

func mustHex(t testing.TB, s string) []byte {
	b := make([]byte, len(s)/2)
	for i := range b {
		var v byte
		for _, c := range s[2*i : 2*i+2] {
			v <<= 4
			switch {
			case c >= '0' && c <= '9':
				v |= byte(c - '0')
			default:
				v |= byte(c-'a') + 10
			}
		}
		b[i] = v
	}
	return b
}

// The direct encoder writes what the generic one writes from Value, for
// both types with every field set and with none.
func TestTxnBytesAreValueEncoding(t *testing.T) {
	full := func(typ string) *algorand.Txn {
		var k [32]byte
		for i := range k {
			k[i] = byte(i + 1)
		}
		return &algorand.Txn{Type: typ, Sender: k, Fee: 1000, FirstValid: 1 << 40, LastValid: 1<<40 + 1000, GenesisID: "testnet-v1.0",
			GenesisHash: k, Note: []byte("n"), Group: k, Lease: k, RekeyTo: k, Receiver: k, Amount: 300, CloseTo: k,
			AssetID: 10458941, AssetAmount: 70000, AssetReceiver: k, AssetCloseTo: k, AssetSender: k}
	}
	for _, txn := range []*algorand.Txn{full("pay"), full("axfer"), {Type: "pay"}, {Type: "axfer"}} {
		if got, want := txn.Bytes(), algorand.Encode(txn.Value()); string(got) != string(want) {
			t.Fatalf("%s:\n%x\nwant\n%x", txn.Type, got, want)
		}
		if got, want := algorand.EncodeSigned(txn, make([]byte, 64)), algorand.Encode(algorand.Map(algorand.Entry{Key: "sig", Value: algorand.Bin(make([]byte, 64))}, algorand.Entry{Key: "txn", Value: txn.Value()})); string(got) != string(want) {
			t.Fatalf("signed %s differs", txn.Type)
		}
		if got, want := algorand.EncodeSigned(txn, nil), algorand.Encode(algorand.Map(algorand.Entry{Key: "txn", Value: txn.Value()})); string(got) != string(want) {
			t.Fatalf("unsigned %s differs", txn.Type)
		}
	}
}
