package vectors_test

// mpp-challenge.json: MV1–MV4, MV9, MV10, MV14, S1, agreedRefusals and the
// network rows.

import (
	"crypto/sha256"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
)

func TestMPPChallenge(t *testing.T) {
	f := load(t, "mpp-challenge.json")
	fx := loadMPPFixture(t)
	cE := fx.challenge("evm", "charge", fx.RE)
	cT := fx.challenge("tempo", "charge", fx.RT)

	t.Run("MV1", func(t *testing.T) {
		v := obj(t, f, "MV1")
		id, err := mpp.ChallengeID(fx.H, 0)
		if err != nil || id != str(t, v, "expectId") {
			t.Fatalf("id %q (%v)", id, err)
		}
		if h, err := mpp.HFromID(id); err != nil || h != fx.H {
			t.Fatalf("H of the id %v (%v)", h, err)
		}
		for _, bad := range get(t, v, "notOurs").([]jsonv.Value) {
			_, err := mpp.HFromID(bad.(string))
			wantRefusal(t, err, str(t, v, "expectNotOurs", "code"))
		}
	})

	t.Run("MV2", func(t *testing.T) {
		id := str(t, f, "MV1", "expectId")
		h := mpp.ChallengeHash(id, fx.realm)
		if got := "0x" + hexOf(h[:]); got != str(t, f, "MV2", "expect") {
			t.Fatalf("challenge hash %s", got)
		}
	})

	t.Run("MV3", func(t *testing.T) {
		v := obj(t, f, "MV3")
		for name, c := range map[string]*jsonv.Object{"C_E": cE, "C_T": cT} {
			p := fx.placed(t, c)
			if got := mpp.String(p, "id"); got != str(t, v, "expectId") {
				t.Fatalf("%s id %s", name, got)
			}
			if got := mpp.String(p, "opaque"); got != str(t, v, "expectOpaque") {
				t.Fatalf("%s opaque %s", name, got)
			}
			// The placed challenge keeps the issued members, in order, then id and opaque.
			if got := strings.Join(p.Keys(), ","); got != "realm,method,intent,request,expires,id,opaque" {
				t.Fatalf("%s members %s", name, got)
			}
			read, err := mpp.Read([]jsonv.Value{p})
			if err != nil {
				t.Fatal(err)
			}
			if read.H != fx.H.String() || read.Link != fx.link || read.Agreement != "" || len(read.Options) != 1 {
				t.Fatalf("%s read %+v", name, read)
			}
		}
	})

	t.Run("MV4", func(t *testing.T) {
		v := obj(t, f, "MV4")
		digest := func(c *jsonv.Object) string {
			d, err := mpp.IssuedDigest(c)
			if err != nil {
				t.Fatal(err)
			}
			return d.String()
		}
		if got := digest(cE); got != str(t, v, "expectE") {
			t.Fatalf("C_E %s", got)
		}
		if got := digest(fx.placed(t, cE)); got != str(t, v, "expectE") {
			t.Fatalf("C_E's echo %s", got)
		}
		withHeader := cE.Clone()
		withHeader.Set("header", str(t, v, "header"))
		if got := digest(withHeader); got != str(t, v, "expectEWithHeader") {
			t.Fatalf("C_E with header %s", got)
		}
		if got := digest(cT); got != str(t, v, "expectT") {
			t.Fatalf("C_T %s", got)
		}
		if got := digest(fx.placed(t, cT)); got != str(t, v, "expectT") {
			t.Fatalf("C_T's echo %s", got)
		}
	})

	t.Run("MV9", func(t *testing.T) {
		v := obj(t, f, "MV9")
		values := get(t, v, "fieldValues").([]jsonv.Value)
		var asStrings []string
		for _, x := range values {
			asStrings = append(asStrings, x.(string))
		}
		want := jsonv.String(get(t, v, "expectIds"))
		for name, in := range map[string][]string{"two values": asStrings, "joined": {strings.Join(asStrings, ", ")}} {
			cs, err := mpp.ParseChallenges(in)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var ids []jsonv.Value
			for _, c := range cs {
				o, _ := jsonv.AsObject(c)
				ids = append(ids, mpp.String(o, "id"))
			}
			if got := jsonv.String(ids); got != want {
				t.Fatalf("%s: ids %s", name, got)
			}
		}
	})

	t.Run("MV10", func(t *testing.T) {
		for _, r := range get(t, f, "MV10", "rows").([]jsonv.Value) {
			code := str(t, r, "code")
			t.Run(code, func(t *testing.T) {
				status, typ := mpp.Problem(code)
				want, _ := jsonv.AsSafeInt(get(t, r, "expect", "status"))
				if int64(status) != want || typ != str(t, r, "expect", "type") {
					t.Fatalf("%d %s", status, typ)
				}
			})
		}
	})

	t.Run("MV14", func(t *testing.T) {
		v := obj(t, f, "MV14")
		doc, err := mpp.Place([]jsonv.Value{cE}, fx.H, fx.link, cE, fx.agreementURL)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := jsonv.AsObject(doc[0])
		opaque := mpp.String(p, "opaque")
		n, _ := jsonv.AsSafeInt(get(t, v, "expectOpaqueLength"))
		if int64(len(opaque)) != n {
			t.Fatalf("opaque length %d", len(opaque))
		}
		sum := sha256.Sum256([]byte(opaque))
		if got := "0x" + hexOf(sum[:]); got != str(t, v, "expectOpaqueSha256") {
			t.Fatalf("opaque sha256 %s", got)
		}
		d, err := mpp.IssuedDigest(p)
		if err != nil || d.String() != str(t, v, "expectIssuedDigest") {
			t.Fatalf("issued digest %v (%v)", d, err)
		}
		read, err := mpp.Read(doc)
		if err != nil || read.Agreement != fx.agreementURL || read.Link != fx.link || read.H != fx.H.String() {
			t.Fatalf("read %+v (%v)", read, err)
		}
	})

	t.Run("S1", func(t *testing.T) {
		v := obj(t, f, "S1")
		if got := mpp.BareID(fx.H); got != str(t, v, "expectBareId") {
			t.Fatalf("bare id %s", got)
		}
		sub := fx.challenge("tempo", "subscription", str(t, load(t, "mpp-subscription-tempo.json"), "fixed", "request"))
		p := fx.placed(t, sub)
		if mpp.String(p, "id") != str(t, v, "expectBareId") {
			t.Fatalf("placed subscription id %s", mpp.String(p, "id"))
		}
		if h, err := mpp.HOfChallenge(p); err != nil || h != fx.H {
			t.Fatalf("H of the bare id %v (%v)", h, err)
		}
		// A subscription id with a position, or another id without one, is not ours.
		dotted := p.Clone()
		dotted.Set("id", str(t, v, "expectBareId")+".0")
		_, err := mpp.HOfChallenge(dotted)
		wantRefusal(t, err, mpp.CodeIDNotOurs)
		bare := fx.placed(t, cT)
		bare.Set("id", str(t, v, "expectBareId"))
		_, err = mpp.HOfChallenge(bare)
		wantRefusal(t, err, mpp.CodeIDNotOurs)
		// One list places at most one subscription.
		other := sub.Clone()
		other.Set("realm", "api.other.example")
		_, err = mpp.Place([]jsonv.Value{sub, other}, fx.H, fx.link, sub, "")
		wantRefusal(t, err, mpp.CodeWitnessTaken)
	})

	t.Run("agreedRefusals", func(t *testing.T) {
		inputs := obj(t, f, "agreedRefusals", "inputs")
		for i, r := range get(t, f, "agreedRefusals", "rows").([]jsonv.Value) {
			expect := str(t, r, "expect")
			t.Run(str(t, r, "case"), func(t *testing.T) {
				mppAgreedRefusal(t, i, expect, fx, cE, cT, inputs)
			})
		}
	})

	t.Run("network", func(t *testing.T) {
		// Every row's method is read: for the rails termsgate builds no
		// pairing for yet, only the network member of methodDetails.
		for _, r := range get(t, f, "network", "rows").([]jsonv.Value) {
			t.Run(str(t, r, "case"), func(t *testing.T) {
				n, err := mpp.Network(fx.challenge(str(t, r, "method"), str(t, r, "intent"), str(t, r, "request")))
				if want, ok := get(t, r, "expect").(string); ok {
					if err != nil || n != want {
						t.Fatalf("network %q (%v)", n, err)
					}
					return
				}
				wantRefusal(t, err, str(t, r, "expect", "code"))
			})
		}
	})
}

// mppAgreedRefusal builds the inputs each agreedRefusals row describes and
// checks each gives the row's code.
func mppAgreedRefusal(t *testing.T, i int, expect string, fx mppFixture, cE, cT *jsonv.Object, inputs *jsonv.Object) {
	t.Helper()
	pairingsOf := func(c *jsonv.Object) error { _, err := mpp.PairingsOf(c); return err }
	withRequest := func(c *jsonv.Object, requestJSON string) *jsonv.Object {
		o := c.Clone()
		o.Set("request", mpp.EncodeB64URL([]byte(requestJSON)))
		return o
	}
	edit := func(requestJSON string, path []string, v jsonv.Value) string {
		o, err := jsonv.Parse([]byte(requestJSON))
		if err != nil {
			t.Fatal(err)
		}
		at, _ := jsonv.AsObject(o)
		for _, k := range path[:len(path)-1] {
			at, _ = at.GetObject(k)
		}
		if v == nil {
			at.Delete(path[len(path)-1])
		} else {
			at.Set(path[len(path)-1], v)
		}
		return jsonv.String(o)
	}
	all := func(errs ...error) {
		t.Helper()
		for _, err := range errs {
			wantRefusal(t, err, expect)
		}
	}
	switch i {
	case 0: // EVM charge request fields
		all(
			pairingsOf(withRequest(cE, str(t, inputs, "requestMalformed"))),
			pairingsOf(withRequest(cE, edit(fx.RE, []string{"methodDetails", "chainId"}, jsonv.Number(0)))),
			pairingsOf(withRequest(cE, edit(fx.RE, []string{"methodDetails", "chainId"}, nil))),
			pairingsOf(withRequest(cE, edit(fx.RE, []string{"recipient"}, "0x12"))),
			pairingsOf(withRequest(cE, edit(fx.RE, []string{"amount"}, "1.5"))),
			pairingsOf(withRequest(cE, edit(fx.RE, []string{"amount"}, "115792089237316195423570985008687907853269984665640564039457584007913129639936"))),
			pairingsOf(withRequest(cE, edit(fx.RE, []string{"externalId"}, jsonv.Number(7)))),
		)
	case 1:
		all(pairingsOf(withRequest(cT, str(t, inputs, "modesMalformed"))),
			pairingsOf(withRequest(cT, edit(fx.RT, []string{"methodDetails", "supportedModes"}, "pull"))))
	case 2:
		c := cE.Clone()
		c.Set("opaque", mpp.EncodeB64URL([]byte(str(t, inputs, "opaqueNotFlat"))))
		all(pairingsOf(c))
	case 3:
		c := cE.Clone()
		c.Set("method", "telegraph")
		all(pairingsOf(c))
	case 4: // a repeated credential type counts once
		p, err := mpp.PairingsOf(withRequest(cE, str(t, inputs, "duplicateTypes")))
		if err != nil || strings.Join(p, ",") != mpp.PairingEVMPermit2 {
			t.Fatalf("pairings %v (%v)", p, err)
		}
	case 5: // two calls carrying this challenge's memo
		placed := fx.placed(t, cT)
		memo := mpp.AttributionMemo(fx.realm, mpp.String(placed, "id"), "", false)
		data, err := tempo.MemoCalldata("0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00", big.NewInt(1000000), "0x"+hexOf(memo[:]))
		if err != nil {
			t.Fatal(err)
		}
		pathUSD := tempo.PathUSD
		tx := tempo.Tx{ChainID: big.NewInt(42431), GasLimit: 100000, ValidBefore: 1790000060, FeeToken: &pathUSD,
			Calls: []tempo.Call{{To: &pathUSD, Input: data}, {To: &pathUSD, Input: data}}, Signature: make([]byte, 65)}
		wire, err := tx.Encode()
		if err != nil {
			t.Fatal(err)
		}
		cred := mpp.Credential(placed, "did:pkh:eip155:42431:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
			jsonv.Obj("type", "transaction", "signature", "0x"+hexOf(wire)))
		_, err = tempo.Memo{}.Bound(cred)
		all(err)
	case 6: // EVM session chainId
		req := `{"currency":"0x20c0000000000000000000000000000000000000","methodDetails":{"escrowContract":"0x9d136eEa063eDE5418A6BC7bEafF009bBb6CFa70"},"recipient":"0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00"}`
		c := fx.challenge("evm", "session", req)
		all(pairingsOf(c), pairingsOf(withRequest(c, edit(req, []string{"methodDetails", "chainId"}, jsonv.Number(-3)))),
			pairingsOf(withRequest(c, edit(req, []string{"methodDetails", "chainId"}, jsonv.Number(1.5)))))
	case 7: // subscription fields
		req := str(t, load(t, "mpp-subscription-tempo.json"), "fixed", "request")
		c := fx.challenge("tempo", "subscription", req)
		all(pairingsOf(withRequest(c, edit(req, []string{"subscriptionExpires"}, "2026-12-20"))),
			pairingsOf(withRequest(c, edit(req, []string{"subscriptionExpires"}, "2026-02-30T00:00:00Z"))),
			pairingsOf(withRequest(c, edit(req, []string{"periodUnit"}, "month"))),
			pairingsOf(withRequest(c, edit(req, []string{"periodCount"}, "030"))),
			pairingsOf(withRequest(c, edit(req, []string{"periodCount"}, jsonv.Number(30)))))
	case 8: // a position outside 0–31 (H is a typed 32-byte hash in Go: it cannot be malformed)
		_, err1 := mpp.ChallengeID(fx.H, 32)
		_, err2 := mpp.ChallengeID(fx.H, -1)
		all(err1, err2)
	case 9: // build inputs
		placedE, placedT := fx.placed(t, cE), fx.placed(t, cT)
		payer := "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
		td := jsonv.Obj("name", "USDC", "version", "2")
		build := func(p rails.Pairing, choice *jsonv.Object) error { _, err := p.Build(choice, nil, fx.H); return err }
		all(
			build(evm.MPPAuthorization{}, jsonv.Obj("challenge", placedE, "from", "0x1234", "now", 1, "tokenDomain", td)),
			build(evm.MPPAuthorization{}, jsonv.Obj("challenge", placedE, "from", payer, "now", 1)),
			build(evm.MPPAuthorization{}, jsonv.Obj("challenge", placedE, "from", payer, "now", 1, "tokenDomain", jsonv.Obj("name", "USDC"))),
			build(tempo.Memo{}, jsonv.Obj("challenge", placedT, "from", payer, "now", 1, "clientId", jsonv.Number(7))),
			build(tempo.Memo{}, jsonv.Obj("challenge", "not an object", "from", payer, "now", 1)),
		)
	case 10: // complete: signature sizes, a hash not 32 bytes, a transaction over 64 KiB
		placedE, placedT := fx.placed(t, cE), fx.placed(t, cT)
		payer := "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
		complete := func(p rails.Pairing, choice *jsonv.Object, answer jsonv.Value) error {
			u, err := p.Build(choice, nil, fx.H)
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Complete(u, answer, rails.Chosen{})
			return err
		}
		authChoice := jsonv.Obj("challenge", placedE, "from", payer, "now", 1, "tokenDomain", jsonv.Obj("name", "USDC", "version", "2"))
		pushDoc := withRequest(cT, edit(fx.RT, []string{"methodDetails", "supportedModes"}, nil))
		pushChoice := jsonv.Obj("challenge", fx.placed(t, pushDoc), "from", payer, "now", 1)
		memoChoice := jsonv.Obj("challenge", placedT, "from", payer, "now", 1)
		all(
			complete(evm.MPPAuthorization{}, authChoice, "0x"+strings.Repeat("ab", 64)),
			complete(evm.MPPAuthorization{}, authChoice, "0x"+strings.Repeat("ab", 8193)),
			complete(evm.MPPAuthorization{}, authChoice, jsonv.Number(1)),
			complete(tempo.Push{}, pushChoice, jsonv.Obj("hash", "0x"+strings.Repeat("11", 31))),
			complete(tempo.Push{}, pushChoice, "0x"+strings.Repeat("11", 32)),
			complete(tempo.Memo{}, memoChoice, "0x"+strings.Repeat("76", 65537)),
			complete(tempo.Memo{}, memoChoice, "0x"),
		)
	case 11: // the credential's budget and shape
		b6 := get(t, row(t, get(t, load(t, "mpp-charge-evm-authorization.json"), "buyer", "rows"), "B6"), "input", "presented")
		big := jsonv.Clone(b6).(*jsonv.Object)
		obj(t, big, "payload").Set("padding", strings.Repeat("x", 65536))
		deep := jsonv.Clone(b6).(*jsonv.Object)
		var nest jsonv.Value = "leaf"
		for range 16 {
			nest = []jsonv.Value{nest}
		}
		obj(t, deep, "payload").Set("deep", nest)
		noPayload := jsonv.Clone(b6).(*jsonv.Object)
		noPayload.Delete("payload")
		noChallenge := jsonv.Clone(b6).(*jsonv.Object)
		noChallenge.Delete("challenge")
		p := evm.MPPAuthorization{}
		bound := func(v jsonv.Value) error { _, err := p.Bound(v); return err }
		all(bound(big), bound(deep), bound(noPayload), bound(noChallenge), bound("a string"))
		// The control: the same credential within the bounds reads.
		if _, err := p.Bound(b6); err != nil {
			t.Fatalf("the unchanged credential: %v", err)
		}
	case 12:
		b6 := get(t, row(t, get(t, load(t, "mpp-charge-evm-authorization.json"), "buyer", "rows"), "B6"), "input", "presented")
		other := jsonv.Clone(b6).(*jsonv.Object)
		obj(t, other, "payload").Set("type", "permit2")
		_, err := evm.MPPAuthorization{}.Bound(other)
		all(err)
	case 13:
		many := strings.Repeat(`Payment id="a", realm="r", method="evm", intent="charge", request="e30", `, 33)
		_, err1 := mpp.ParseChallenges([]string{`Payment id="` + strings.Repeat("a", 8192) + `"`})
		_, err2 := mpp.ParseChallenges([]string{str(t, inputs, "headerBroken")})
		_, err3 := mpp.ParseChallenges([]string{many})
		_, err4 := mpp.ParseChallenges([]string{`Payment realm="r" id="a"`})
		all(err1, err2, err3, err4)
	case 14:
		_, err1 := mpp.ParseChallenges([]string{str(t, inputs, "headerDuplicate")})
		_, err2 := mpp.ParseChallenges([]string{str(t, inputs, "headerEmptyId")})
		_, err3 := mpp.ParseChallenges([]string{`Payment id="a", realm="r", method="evm", intent="charge"`})
		all(err1, err2, err3)
	case 15: // the Tempo helpers' malformed inputs
		memo := "0x" + strings.Repeat("11", 32)
		_, err1 := tempo.MemoCalldata("0x12", big.NewInt(1), memo)
		_, err2 := tempo.MemoCalldata("0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00", big.NewInt(-1), memo)
		_, err3 := tempo.MemoCalldata("0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00", big.NewInt(1), "0x1234")
		_, err4 := tempo.ChannelIDV2(tempo.Descriptor{Payer: "0x12"}, "0x4D50500000000000000000000000000000000000", 42431)
		_, err5 := tempo.ExpiringNonceHash([]byte{0x76, 0xc0}, common.Address{}.Bytes())
		for _, err := range []error{err1, err2, err3, err5} {
			wantRefusal(t, err, tempo.CodeTxMalformed)
		}
		wantRefusal(t, err4, tempo.CodeDescriptorMismatch)
	case 16: // two challenges whose links or agreement URLs differ
		a := fx.placed(t, cE)
		doc, _ := mpp.Place([]jsonv.Value{cE, cT}, fx.H, fx.link+"/other", cT, "")
		_, err1 := mpp.Read([]jsonv.Value{a, doc[1]})
		d1, _ := mpp.Place([]jsonv.Value{cE, cT}, fx.H, fx.link, cE, fx.agreementURL)
		d2, _ := mpp.Place([]jsonv.Value{cE, cT}, fx.H, fx.link, cT, fx.agreementURL+"/other")
		_, err2 := mpp.Read([]jsonv.Value{d1[0], d2[1]})
		all(err1, err2)
	case 17, 18: // the agreement URL split
		bad := map[int][]string{
			17: {"http://pay.seller.example/agreement", "ftp://pay.seller.example/x", "urn:x"},
			18: {"", "https://", "https://user@pay.seller.example/", "https://pay.seller.example/" + strings.Repeat("a", 2048)},
		}[i]
		for _, a := range bad {
			all(readWithOpaque(t, fx, cE, mpp.KeyLegalContextAgreement, a))
		}
	case 19, 20: // the link split, in place and in read
		bad := map[int][]string{
			19: {"http://atr.seller.example/x", "ftp://atr.seller.example/x"},
			20: {"", "https://", "https://atr.seller.example/\\x", "https://atr.seller.example/" + strings.Repeat("a", 2048)},
		}[i]
		for _, l := range bad {
			_, err := mpp.Place([]jsonv.Value{cE}, fx.H, l, cE, "")
			all(err, readWithOpaque(t, fx, cE, mpp.KeyLegalContextURL, l))
		}
		if i == 20 { // a legalContextUrl that is absent
			all(readWithOpaque(t, fx, cE, mpp.KeyLegalContextURL, nil))
		}
	case 21: // resuming a session from a challenge that is no session challenge
		named := func(c *jsonv.Object) error { _, _, err := tempo.Session{}.NamedChannel(fx.placed(t, c)); return err }
		all(named(cE), named(cT))
	default:
		t.Fatalf("no inputs for agreedRefusals row %d", i)
	}
}

// readWithOpaque reads a placed C_E whose opaque member k is v (removed for
// nil).
func readWithOpaque(t *testing.T, fx mppFixture, c *jsonv.Object, k string, v jsonv.Value) error {
	t.Helper()
	p := fx.placed(t, c)
	m, ok := mpp.DecodeStringMap(mpp.String(p, "opaque"))
	if !ok {
		t.Fatal("placed opaque does not decode")
	}
	if v == nil {
		m.Delete(k)
	} else {
		m.Set(k, v)
	}
	p.Set("opaque", mpp.EncodeObject(m))
	_, err := mpp.Read([]jsonv.Value{p})
	return err
}
