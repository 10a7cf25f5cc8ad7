package cardano

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/cbor"
)

// v2 is the vectors' V2: the wallet's transfer carrying H.
const v2 = "hKUAgYJYIBERERERERERERERERERERERERERERERERERERERERERAAGCglgdYA1qV36UQa2O2WY5MZBuTUPs6PgscSsdAjWv+wYaAB6EgIJYHWDLk1hSnfRynDJGoqAzy5ghq7/RbeSIgAWQSrxBGgB3BMACGgADDUADGggGI2AHWCCXVIKogQuSvI+hLs7ggmuTbvWE6K87Wr1FMLn0Dmn4+6EAgYJYIEiDry0WSRqJGOMZVboYBbiqQ4FQNUow4lsG4x/8PeFaWEAW8JbBC9TS4B4cOAHsJZL/AGlojnCjvUlTlUTCO6G0X8ZS+qqcTOh52TrOhB3zNrG1eyjiE0+hpc216GYrwGAK9dkBA6EAoRkCoqFjbXNngm1sY3A6c2hhMjU2OjB4eEBiYTc4MTZiZjhmMDFjZmVhNDE0MTQwZGU1ZGFlMjIyM2IwMDM2MWEzOTYxNzdhOWNiNDEwZmY2MWYyMDAxNWFk"

// FuzzDecodeTx: any bytes decode to a transaction whose parts read without
// a panic, its body's bytes a part of the input and its id theirs, or an error.
func FuzzDecodeTx(f *testing.F) {
	raw, _ := base64.StdEncoding.DecodeString(v2)
	f.Add(raw)
	f.Add([]byte{0x84, 0xa0, 0xa0, 0xf5, 0xf6})
	f.Add([]byte{0x84, 0xa1, 0x07, 0x40, 0xa0, 0xf4, 0xa0})
	f.Fuzz(func(t *testing.T, b []byte) {
		cost.Bound(t, len(b), func() {
			tx, err := DecodeTx(b)
			if err != nil {
				return
			}
			if !bytes.Contains(b, tx.Body.Raw) || tx.ID != bodyID(tx.Body.Raw) {
				t.Fatal("the id is not the body's bytes' hash")
			}
			if h, err := tx.CarriedH(); err == nil && !bytes.Contains(b, []byte(h.String()[2:])) {
				t.Fatal("H read from bytes that do not hold it")
			}
			_, _ = tx.Inputs()
			_, _ = tx.Outputs()
			_, _ = tx.Fee()
			_ = tx.VKeyWitnesses()
			_ = tx.AuxMatches()
		})
	})
}

// FuzzCarrier: any auxiliary data read for H without a panic; what reads
// is the marker and H's digits as AuxiliaryData writes them, found in the input.
func FuzzCarrier(f *testing.F) {
	raw, _ := base64.StdEncoding.DecodeString(v2)
	tx, _ := DecodeTx(raw)
	f.Add(tx.Aux.Raw)
	f.Add([]byte{0xa1, 0x19, 0x02, 0xa2, 0xa0})
	f.Fuzz(func(t *testing.T, b []byte) {
		cost.Bound(t, len(b), func() {
			aux, err := cbor.Decode(b)
			if err != nil {
				return
			}
			if h, err := Carrier(aux); err == nil && !bytes.Contains(b, []byte(Marker+"\x78\x40"+h.String()[2:])) {
				t.Fatal("H read without the marker line before it")
			}
		})
	})
}

// FuzzCardanoPayment: any payload transaction and nonce read through Bound,
// PaymentReference, Inspect and the bare reader without a panic, and
// Inspect's H is Bound's.
func FuzzCardanoPayment(f *testing.F) {
	f.Add(v2, "1111111111111111111111111111111111111111111111111111111111111111#0")
	f.Add("", "")
	f.Add("hA==", "x")
	option := jsonv.Obj("scheme", "exact", "network", "cardano:preprod", "amount", "2000000", "asset", Lovelace,
		"payTo", "addr_test1vqxk54m7j3q6mrkevcunryrwf4p7e68c93cjk8gzxkhlkpsffv7s0", "maxTimeoutSeconds", 60)
	f.Fuzz(func(t *testing.T, tx, nonce string) {
		cost.Bound(t, len(tx)+len(nonce), func() {
			p := jsonv.Obj("x402Version", 2, "accepted", option.Clone(), "payload", jsonv.Obj("transaction", tx, "nonce", nonce))
			h, err := Exact{}.Bound(p)
			_, _ = PaymentReference(p)
			in, ierr := Exact{}.Inspect(p)
			if (err == nil) != (ierr == nil) || err == nil && in.H != h {
				t.Fatalf("bound %s %v, inspect %s %v", h, err, in.H, ierr)
			}
			_, _ = InspectTransaction(tx, "cardano:preprod")
		})
	})
}

// FuzzSigningRequest: any request members read through Summarize without a
// panic; a request that reads names the H its auxiliary data carry.
func FuzzSigningRequest(f *testing.F) {
	aux := "0x" + hex.EncodeToString(AuxiliaryData([32]byte{1}))
	f.Add("cardano:preprod", "addr_test1vqxk54m7j3q6mrkevcunryrwf4p7e68c93cjk8gzxkhlkpsffv7s0", "2000000", aux, int64(60))
	f.Add("cardano:mainnet", "addr1", "0", "0x", int64(0))
	f.Fuzz(func(t *testing.T, network, addr, amount, auxHex string, secs int64) {
		cost.Bound(t, len(network)+len(addr)+len(amount)+len(auxHex), func() {
			req := jsonv.Obj("kind", KindTransaction, "network", network, "payer", addr, "payTo", addr, "asset", Lovelace,
				"amount", amount, "auxiliaryData", auxHex, "validitySeconds", jsonv.Number(secs))
			r, err := ReadRequest(req)
			if _, serr := (Exact{}).Summarize(req); (err == nil) != (serr == nil) {
				t.Fatalf("read %v, summarize %v", err, serr)
			}
			if err == nil && "0x"+hex.EncodeToString(AuxiliaryData(r.H)) != strings.ToLower(auxHex) {
				t.Fatal("the request's auxiliary data are not H's")
			}
		})
	})
}
