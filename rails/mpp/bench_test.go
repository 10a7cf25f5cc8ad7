package mpp

import (
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
)

// BenchmarkMPPChallengeParse is what a buyer does with a 402's
// WWW-Authenticate: parse two placed challenges (the vectors' C_E and C_T,
// as two field values) and read H, the link and the kept challenges.
func BenchmarkMPPChallengeParse(b *testing.B) {
	h := atr.Sum([]byte("abc"))
	reqE := `{"amount":"10000","currency":"0x036CbD53842c5426634e7929541eC2318f3dCF7e","methodDetails":{"chainId":84532,"credentialTypes":["permit2","authorization"],"permit2Address":"0x000000000022D473030F116dDEE9F6B43aC78BA3"},"recipient":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C"}`
	cE, cT := issued("evm", "charge", reqE), issued("tempo", "charge", reqT)
	doc, err := Place([]jsonv.Value{cE, cT}, h, link, cE, "")
	if err == nil {
		doc, err = Place(doc, h, link, cT, "")
	}
	if err != nil {
		b.Fatal(err)
	}
	var values []string
	for _, c := range doc {
		o, _ := jsonv.AsObject(c)
		values = append(values, ChallengeHeader(o))
	}
	b.ReportAllocs()
	for b.Loop() {
		cs, err := ParseChallenges(values)
		if err != nil {
			b.Fatal(err)
		}
		if r, err := Read(cs); err != nil || len(r.Options) != 2 {
			b.Fatal(err)
		}
	}
}
