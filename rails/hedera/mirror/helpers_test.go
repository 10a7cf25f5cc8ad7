package mirror_test

import "github.com/termsgate/termsgate/jsonv"

func mustMarshal(v jsonv.Value) []byte {
	if v == nil {
		return nil
	}
	return jsonv.Marshal(v)
}
