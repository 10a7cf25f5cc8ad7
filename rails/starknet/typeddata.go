package starknet

// The typed data as x402's Starknet scheme prints it (SNIP-12 revision 1's
// JSON: types, primaryType, domain, message), written from an
// OutsideExecution and read back strictly for a signer, the spend policy
// and a seller.

import (
	"errors"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
)

func field(name, typ string) *jsonv.Object { return jsonv.Obj("name", name, "type", typ) }

// typesJSON is the types member, the same for every payment.
func typesJSON() *jsonv.Object {
	return jsonv.Obj(
		"StarknetDomain", []jsonv.Value{field("name", "shortstring"), field("version", "shortstring"),
			field("chainId", "shortstring"), field("revision", "shortstring")},
		"OutsideExecution", []jsonv.Value{field("Caller", "ContractAddress"), field("Nonce", "felt"),
			field("Execute After", "u128"), field("Execute Before", "u128"), field("Calls", "Call*")},
		"Call", []jsonv.Value{field("To", "ContractAddress"), field("Selector", "selector"), field("Calldata", "felt*")})
}

var typesCanonical = string(jsonv.Canonical(typesJSON()))

// TypedData writes o on the chain chainID.
func TypedData(o *OutsideExecution, chainID Felt) *jsonv.Object {
	calls := make([]jsonv.Value, len(o.Calls))
	for i, c := range o.Calls {
		data := make([]jsonv.Value, len(c.Calldata))
		for j, d := range c.Calldata {
			data[j] = d.String()
		}
		calls[i] = jsonv.Obj("To", c.To.String(), "Selector", c.Selector.String(), "Calldata", data)
	}
	return jsonv.Obj("types", typesJSON(), "primaryType", "OutsideExecution",
		"domain", jsonv.Obj("name", "Account.execute_from_outside", "version", 2, "chainId", chainID.String(), "revision", 1),
		"message", jsonv.Obj("Caller", o.Caller.String(), "Nonce", o.Nonce.String(),
			"Execute After", o.ExecuteAfter.Big().String(), "Execute Before", o.ExecuteBefore.Big().String(), "Calls", calls))
}

var errTypedData = errors.New("starknet: typed data is not SNIP-9 v2's OutsideExecution of one transfer")

// ReadTypedData reads typed data a signer may sign: the types exactly
// SNIP-9 v2's, the domain of network, the message's five members and
// nothing else, Execute After and Execute Before decimal u128s (below
// 2^53 here), and one call of transfer with three felts of calldata whose
// amount halves are u128s.
func ReadTypedData(v jsonv.Value, network string) (*OutsideExecution, Transfer, error) {
	td, ok := jsonv.AsObject(v)
	if !ok || td.Len() != 4 || len(jsonv.Marshal(td)) > MaxTypedDataChars {
		return nil, Transfer{}, errTypedData
	}
	types, _ := td.Get("types")
	if string(jsonv.Canonical(types)) != typesCanonical {
		return nil, Transfer{}, errTypedData
	}
	m, err := checkDomain(td, network)
	if err != nil {
		return nil, Transfer{}, errTypedData
	}
	if d, _ := td.GetObject("domain"); d.Len() != 4 || m.Len() != 5 {
		return nil, Transfer{}, errTypedData
	}
	caller, ok1 := ParseFelt(mpp.String(m, "Caller"))
	nonce, ok2 := ParseFelt(mpp.String(m, "Nonce"))
	after, ok3 := decimalU64(m, "Execute After")
	before, ok4 := decimalU64(m, "Execute Before")
	call, tr, ok5 := ReadCall(m)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || after > 1<<53 || before > 1<<53 || after >= before {
		return nil, Transfer{}, errTypedData
	}
	cv, _ := m.Get("Calls")
	calls, _ := jsonv.AsArray(cv)
	if c, _ := jsonv.AsObject(calls[0]); c.Len() != 3 || call.Selector != SelectorTransfer {
		return nil, Transfer{}, errTypedData
	}
	return &OutsideExecution{Caller: caller, Nonce: nonce, ExecuteAfter: Felt{after}, ExecuteBefore: Felt{before}, Calls: []Call{call}}, tr, nil
}
