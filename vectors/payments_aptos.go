package vectors

import (
	"crypto/ed25519"
	"strconv"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/aptos"
)

// aptosPayment is an x402/exact/aptos payment of x402-exact-aptos.json:
// fixture F's RawTransaction in x402's payload form under the file's option,
// echoing V3's legal context. The file holds no signature (its tests sign
// with a key made at each run), so this one is made by the published seed
// 0a×32, which is not the fixture sender's key: Inspect reports the
// signature as not the sender's.
func aptosPayment(r *reader) jsonv.Value {
	f := r.file("x402-exact-aptos.json")
	F, _ := jsonv.AsObject(r.get(f, "fixed", "fixtureF"))
	if r.err != nil || F == nil {
		return nil
	}
	s := func(k string) string { v, _ := F.GetString(k); return v }
	u := func(k string) uint64 { n, _ := strconv.ParseUint(s(k), 10, 64); return n }
	a := func(k string) aptos.Address { x, _ := aptos.ParseAddress(s(k)); return x }
	chain, _ := F.Get("chainId")
	c, _ := jsonv.AsSafeInt(chain)
	raw := aptos.TransferTransaction(a("sender"), u("sequenceNumber"),
		aptos.Transfer{Metadata: a("metadata"), Recipient: a("recipient"), Amount: u("amount")},
		u("maxGasAmount"), u("gasUnitPrice"), u("expiresAt"), uint8(c)).Encode()
	seed := [32]byte{}
	for i := range seed {
		seed[i] = 0x0a
	}
	key := ed25519.NewKeyFromSeed(seed[:])
	auth := aptos.Ed25519Authenticator(key.Public().(ed25519.PublicKey), ed25519.Sign(key, aptos.SigningMessage(raw, nil)))
	return jsonv.Obj("x402Version", 2, "resource", r.get(f, "fixed", "resource"), "accepted", r.get(f, "fixed", "O"),
		"payload", jsonv.Obj("transaction", aptos.X402Payload(raw, auth)),
		"extensions", jsonv.Obj("legalContext", jsonv.Obj("info", r.get(f, "V3", "echoedInfo"))))
}
