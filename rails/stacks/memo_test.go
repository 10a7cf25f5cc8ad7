package stacks

import (
	"strconv"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/memo"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// TestAddressMemoAgrees: past the memos' bound every address reads and
// writes as the uncached codec does, a changed character is still refused
// (or read) as without the memo, and the memos never grow past the bound.
func TestAddressMemoAgrees(t *testing.T) {
	for i := range 3 * memoSize {
		var h [20]byte
		h[0], h[19] = byte(i), byte(i>>8)
		version := []byte{22, 26, 20, 21}[i%4]
		s := Address(version, h)
		if s != writeAddress(version, h) {
			t.Fatalf("%d: the memo wrote %s", i, s)
		}
		for range 2 { // a miss, then a hit
			v, got, ok := ParseAddress(s)
			if rv, rh, rok := readAddress(s); !ok || !rok || v != version || rv != version || got != h || rh != h {
				t.Fatalf("%d: %s read as %d %x %v", i, s, v, got, ok)
			}
		}
		for _, c := range "0AZ" {
			changed := s[:len(s)-1] + string(c)
			_, _, ok := ParseAddress(changed)
			if _, _, rok := readAddress(changed); ok != rok {
				t.Fatalf("%d: %s read %v through the memo, %v without", i, changed, ok, rok)
			}
		}
	}
	if read.Len() > memoSize || written.Len() > memoSize {
		t.Fatalf("memos hold %d and %d", read.Len(), written.Len())
	}
}

// chargeChoice is a placed usdc Stacks challenge for amount, chosen for
// the dev key's testnet account, and its H.
func chargeChoice(t *testing.T, amount string, broken bool) (jsonv.Value, atr.Hash) {
	t.Helper()
	h := atr.Sum([]byte("abc"))
	details := jsonv.Obj("network", "testnet", "chainId", "2147483648",
		"contractAddress", "ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM", "contractName", "usdcx", "assetName", "usdcx-token",
		"functionName", "transfer", "decimals", 6)
	request := jsonv.Obj("amount", amount, "currency", "ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM.usdcx::usdcx-token",
		"recipient", "ST3FBR2AGK5H9QBDH3EEN6DF8EK8JY7RX8NQXMNRQ", "methodDetails", jsonv.Obj("type", "stacks", "stacks", details))
	c := jsonv.Obj("realm", "api.seller.example", "method", "usdc", "intent", "charge", "request", mpp.EncodeObject(request),
		"expires", "2026-09-21T14:14:20Z")
	doc, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
	if err != nil {
		t.Fatal(err)
	}
	read, err := ChargeUSDC{}.Read(doc)
	if err != nil {
		t.Fatal(err)
	}
	choice, err := ChargeUSDC{}.Choose(read, "stacks:2147483648:ST1THWXQ8368SDN2MJGE4BMDKMCHZ2GSVTSQDA7QF", jsonv.Obj("nonce", "0", "fee", "1000"), 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if broken { // the request's contract no principal: placed and offered as before, refused by requestTransfer
		o, _ := jsonv.AsObject(choice)
		ch, _ := o.GetObject("challenge")
		details.Set("contractName", "usdcx token")
		ch.Set("request", mpp.EncodeObject(request))
	}
	return choice, h
}

// built is Build's request as JSON, or the refusal's code.
func built(choice jsonv.Value, h atr.Hash) string {
	u, err := ChargeUSDC{}.Build(choice, nil, h)
	if err != nil {
		if r, ok := err.(*rails.Refusal); ok {
			return r.Code
		}
		return err.Error()
	}
	req, _ := ChargeUSDC{}.Request(u)
	return jsonv.String(req)
}

// TestChosenMemoAgrees: Build through the memo of chosen challenges
// answers as Build from scratch does, on a miss and on a hit: another H
// for a kept challenge is still refused (mpp/id-not-ours), another amount
// builds another transfer, a challenge that fails a check is refused and
// not kept; past its bound the memo holds no more than memoSize.
func TestChosenMemoAgrees(t *testing.T) {
	fresh := func(choice jsonv.Value, h atr.Hash) string {
		chosenRead = memo.New[string, chosen](memoSize)
		return built(choice, h)
	}
	choice, h := chargeChoice(t, "1000000", false)
	other := atr.Sum([]byte("abd"))
	want, wantOther := fresh(choice, h), fresh(choice, other)
	if !strings.Contains(want, `"transaction":"0x`) || wantOther != mpp.CodeIDNotOurs {
		t.Fatalf("from scratch: %s, %s", want, wantOther)
	}
	_ = fresh(choice, h) // kept
	for range 2 {
		if got := built(choice, h); got != want {
			t.Fatalf("through the memo: %s, want %s", got, want)
		}
		if got := built(choice, other); got != wantOther {
			t.Fatalf("another H through the memo: %s", got)
		}
	}
	more, _ := chargeChoice(t, "2000000", false)
	if got, want2 := built(more, h), fresh(more, h); got == want || got != want2 {
		t.Fatalf("another amount: %s, from scratch %s", got, want2)
	}
	broken, _ := chargeChoice(t, "1000000", true)
	_ = fresh(choice, h) // one kept
	if got := built(broken, h); got != mpp.CodeRequestMalformed || chosenRead.Len() != 1 {
		t.Fatalf("a broken request: %s, %d kept", got, chosenRead.Len())
	}
	for i := range 3 * memoSize {
		c, _ := chargeChoice(t, strconv.Itoa(1000+i), false)
		if got := built(c, h); !strings.Contains(got, `"transaction":"0x`) {
			t.Fatalf("%d: %s", i, got)
		}
	}
	if chosenRead.Len() > memoSize {
		t.Fatalf("the memo holds %d", chosenRead.Len())
	}
}
