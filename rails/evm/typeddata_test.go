package evm

import (
	"fmt"
	"github.com/termsgate/termsgate/internal/evmref"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
)

// The direct hasher must agree with go-ethereum's apitypes on every shape a
// pairing hands out, and refuse what apitypes refuses.
func TestTypedDataHashesAgreeWithApitypes(t *testing.T) {
	auth := jsonv.Obj("from", "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "to", "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
		"value", "10000", "validAfter", "0", "validBefore", "1790000060",
		"nonce", "0x8b1e122580ae3f6a8c3d36a24294e1260a87bde70f597279b973e39310072938")
	cases := map[string]*jsonv.Object{
		"TransferWithAuthorization": TransferWithAuthorization("USDC", "2", 84532, "0x036CbD53842c5426634e7929541eC2318f3dCF7e", auth),
		"nested, arrays, signed ints, bytes, bool": jsonv.Obj(
			"domain", jsonv.Obj("name", "Mail", "chainId", 1, "verifyingContract", "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"),
			"types", jsonv.Obj(
				"EIP712Domain", []jsonv.Value{
					jsonv.Obj("name", "name", "type", "string"), jsonv.Obj("name", "chainId", "type", "uint256"),
					jsonv.Obj("name", "verifyingContract", "type", "address"),
				},
				"Person", []jsonv.Value{jsonv.Obj("name", "name", "type", "string"), jsonv.Obj("name", "wallets", "type", "address[]")},
				"Mail", []jsonv.Value{
					jsonv.Obj("name", "from", "type", "Person"), jsonv.Obj("name", "to", "type", "Person[]"),
					jsonv.Obj("name", "contents", "type", "string"), jsonv.Obj("name", "delta", "type", "int96"),
					jsonv.Obj("name", "blob", "type", "bytes"), jsonv.Obj("name", "ok", "type", "bool"),
					jsonv.Obj("name", "tag", "type", "bytes4"), jsonv.Obj("name", "n", "type", "uint40"),
				},
			),
			"primaryType", "Mail",
			"message", jsonv.Obj(
				"from", jsonv.Obj("name", "Cow", "wallets", []jsonv.Value{"0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"}),
				"to", []jsonv.Value{jsonv.Obj("name", "Bob", "wallets", []jsonv.Value{})},
				"contents", "Hello, Bob!", "delta", "-12345", "blob", "0xdeadbeef", "ok", true, "tag", "0x01020304", "n", 1099511627775,
			),
		),
	}
	for name, td := range cases {
		got, err := TypedDataHashes(td)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := apitypesHashes(td)
		if err != nil {
			t.Fatalf("%s: apitypes: %v", name, err)
		}
		if got != want {
			t.Fatalf("%s: direct %x, apitypes %x", name, got, want)
		}
		// Without EIP712Domain in types the domain type is derived from the
		// domain's members, in the standard's order: the same digest.
		bare := td.Clone()
		types, _ := bare.GetObject("types")
		types.Delete("EIP712Domain")
		if again, err := TypedDataHashes(bare); err != nil || again != got {
			t.Fatalf("%s: derived domain type gives %x (%v)", name, again, err)
		}
	}
}

func TestTypedDataRefusesWhatDoesNotFit(t *testing.T) {
	auth := func(k string, v jsonv.Value) *jsonv.Object {
		a := jsonv.Obj("from", "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "to", "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
			"value", "1", "validAfter", "0", "validBefore", "1", "nonce", "0x8b1e122580ae3f6a8c3d36a24294e1260a87bde70f597279b973e39310072938")
		a.Set(k, v)
		return TransferWithAuthorization("USDC", "2", 1, "0x036CbD53842c5426634e7929541eC2318f3dCF7e", a)
	}
	for name, td := range map[string]*jsonv.Object{
		"value over uint256": auth("value", "115792089237316195423570985008687907853269984665640564039457584007913129639936"),
		"negative uint":      auth("value", "-1"),
		"short nonce":        auth("nonce", "0x1234"),
		"bad address":        auth("to", "0x1234"),
		"extra member":       auth("extra", "x"),
		"fractional number":  auth("value", jsonv.Number(1.5)),
	} {
		if _, err := TypedDataHashes(td); err == nil {
			t.Errorf("%s: hashed", name)
		}
	}
}

// apitypesHashes is go-ethereum's apitypes' reading of td (internal/evmref).
func apitypesHashes(td *jsonv.Object) (TypedDataParts, error) {
	var p TypedDataParts
	var err error
	p.DomainSeparator, p.StructHash, p.Digest, err = evmref.Hashes(td)
	return p, err
}

// The channel id is remembered for the last configuration and chain asked
// for: asked in turn, and from several goroutines, for configurations that
// differ in one member each (a case-variant address included) and for two
// chains, every answer is go-ethereum's apitypes digest of that
// configuration's typed data.
func TestChannelIDAgreesWithApitypesAcrossInputs(t *testing.T) {
	base := ChannelConfig{
		Payer: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", PayerAuthorizer: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
		Receiver: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", ReceiverAuthorizer: "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
		Token: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", WithdrawDelay: 900,
	}
	base.Salt[0] = 0xab
	configs := []ChannelConfig{base}
	for i := 0; i < 7; i++ {
		c := base
		switch i {
		case 0:
			c.Salt[31] = 1
		case 1:
			c.WithdrawDelay++
		case 2:
			c.Payer = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
		case 3:
			c.PayerAuthorizer = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65"
		case 4:
			c.Receiver = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc"
		case 5:
			c.Token = "0x0000000000000000000000000000000000000001"
		case 6:
			c.Payer = "0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266" // the same address, another spelling
		}
		configs = append(configs, c)
	}
	want := map[int][32]byte{}
	chains := []int64{84532, 8453}
	for i, c := range configs {
		for j, chain := range chains {
			td := jsonv.Obj(
				"domain", jsonv.Obj("name", batchDomainName, "version", batchDomainVersion, "chainId", chain, "verifyingContract", BatchSettlement),
				"types", jsonv.Obj(
					"EIP712Domain", eip712DomainType(),
					"ChannelConfig", []jsonv.Value{
						field("payer", "address"), field("payerAuthorizer", "address"), field("receiver", "address"),
						field("receiverAuthorizer", "address"), field("token", "address"), field("withdrawDelay", "uint40"), field("salt", "bytes32"),
					},
				),
				"primaryType", "ChannelConfig",
				"message", c.JSON(),
			)
			p, err := apitypesHashes(td)
			if err != nil {
				t.Fatal(err)
			}
			want[2*i+j] = p.Digest
		}
	}
	if want[0] != want[2*6+2] {
		t.Fatal("a case-variant payer changed the reference digest")
	}
	done := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func(g int) {
			for round := 0; round < 50; round++ {
				for k := range want {
					k := (k + g + round) % len(want)
					if got := configs[k/2].ChannelID(chains[k%2]); got != want[k] {
						done <- fmt.Errorf("config %d on %d: %x, want %x", k/2, chains[k%2], got, want[k])
						return
					}
				}
			}
			done <- nil
		}(g)
	}
	for g := 0; g < 4; g++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// The type sets remembered by typesOf: a hit is the same set, and types that
// differ in any name, field type or field order (or whose names would run
// together without the key's length prefixes) never share one.
func TestTypeSetsKeepEachTypesApart(t *testing.T) {
	domain := []jsonv.Value{jsonv.Obj("name", "name", "type", "string")}
	typed := func(types *jsonv.Object) *jsonv.Object {
		return jsonv.Obj("domain", jsonv.Obj("name", "x"), "types", types, "primaryType", "M", "message", jsonv.Obj("ab", "1", "c", "2"))
	}
	base := jsonv.Obj("EIP712Domain", domain, "M", []jsonv.Value{jsonv.Obj("name", "ab", "type", "uint256"), jsonv.Obj("name", "c", "type", "uint256")})
	variants := []*jsonv.Object{
		base,
		jsonv.Obj("EIP712Domain", domain, "M", []jsonv.Value{jsonv.Obj("name", "ab", "type", "uint128"), jsonv.Obj("name", "c", "type", "uint256")}),
		jsonv.Obj("EIP712Domain", domain, "M", []jsonv.Value{jsonv.Obj("name", "c", "type", "uint256"), jsonv.Obj("name", "ab", "type", "uint256")}),
		jsonv.Obj("EIP712Domain", domain, "M", []jsonv.Value{jsonv.Obj("name", "ab", "type", "uint256"), jsonv.Obj("name", "c", "type", "uint8")}),
	}
	seen := map[[32]byte]int{}
	for round := range 3 { // the second and third rounds are cache hits
		for i, types := range variants {
			td := typed(types.Clone())
			got, err := TypedDataHashes(td)
			if err != nil {
				t.Fatalf("variant %d: %v", i, err)
			}
			want, err := apitypesHashes(td)
			if err != nil || got != want {
				t.Fatalf("round %d variant %d: %x, apitypes %x (%v)", round, i, got, want, err)
			}
			if j, ok := seen[got.Digest]; ok && j != i {
				t.Fatalf("variants %d and %d hash alike", i, j)
			}
			seen[got.Digest] = i
		}
	}
	// Names that run together: ("ab","c") and ("a","bc") as field names.
	k1, _ := typesKey(nil, jsonv.Obj("M", []jsonv.Value{jsonv.Obj("name", "ab", "type", "c")}))
	k2, _ := typesKey(nil, jsonv.Obj("M", []jsonv.Value{jsonv.Obj("name", "a", "type", "bc")}))
	if string(k1) == string(k2) {
		t.Fatal("two types share a key")
	}
	// A field with a member besides name and type is not keyed (readTypes
	// reads it each time).
	if _, ok := typesKey(nil, jsonv.Obj("M", []jsonv.Value{jsonv.Obj("name", "a", "type", "uint8", "x", 1)})); ok {
		t.Fatal("a field with a third member was keyed")
	}
}
