package mpp

import "testing"

func TestStellarChargeCheck(t *testing.T) {
	const (
		c = "CADAMBQGAYDAMBQGAYDAMBQGAYDAMBQGAYDAMBQGAYDAMBQGAYDAMSST"
		g = "GDFJHLAXAUMHA4OWPOB4P7YO72AQR2HMIUYFOXLXE2DZGM633K7HZDQP"
		m = "MDFJHLAXAUMHA4OWPOB4P7YO72AQR2HMIUYFOXLXE2DZGM633K7HZOTYC27Y6AOP5LJQO"
	)
	for _, tc := range []struct {
		request string
		ok      bool
	}{
		{`{"amount":"0","currency":"` + c + `","recipient":"` + g + `","methodDetails":{"network":"stellar:testnet"}}`, true},
		{`{"amount":"007","currency":"` + c + `","recipient":"` + m + `","methodDetails":{"network":"stellar:pubnet","feePayer":false}}`, true},
		{`{"amount":"1","currency":"` + c + `","recipient":"` + g + `","methodDetails":{"network":"stellar:testnet","feePayer":"yes"}}`, false},
		{`{"amount":"1","currency":"` + c + `","recipient":"` + g + `"}`, false},
		{`{"amount":1,"currency":"` + c + `","recipient":"` + g + `","methodDetails":{"network":"stellar:testnet"}}`, false},
		{`{"amount":"1","currency":"` + g + `","recipient":"` + g + `","methodDetails":{"network":"stellar:testnet"}}`, false},
		{`{"amount":"1","currency":"` + c + `","recipient":"` + c + `","methodDetails":{"network":"stellar:testnet"}}`, false},
	} {
		pairings, err := PairingsOf(issued("stellar", "charge", tc.request))
		if tc.ok && (err != nil || len(pairings) != 1 || pairings[0] != PairingStellarCharge) {
			t.Errorf("%s: %v %v", tc.request, pairings, err)
		}
		if !tc.ok && code(err) != CodeStellarOptionMalformed {
			t.Errorf("%s: %v, want %s", tc.request, err, CodeStellarOptionMalformed)
		}
	}
}
