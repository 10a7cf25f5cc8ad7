package starknetrpc_test

import "github.com/termsgate/termsgate/jsonv"

func parse(s string) (jsonv.Value, error) { return jsonv.Parse([]byte(s)) }
