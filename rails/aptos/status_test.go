package aptos_test

import (
	"context"
	"encoding/hex"
	"errors"
	"strconv"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/aptos"
	"github.com/termsgate/termsgate/vectors"
)

type fixtureReader struct {
	byHash, bySeq *jsonv.Object
	usecs         uint64
	fail          bool
}

func (fixtureReader) Network() string { return "aptos:1" }

func (r fixtureReader) ByHash(context.Context, [32]byte) (*jsonv.Object, error) {
	if r.fail {
		return nil, errors.New("reader error")
	}
	return r.byHash, nil
}

func (r fixtureReader) BySequence(context.Context, aptos.Address, uint64) (*jsonv.Object, error) {
	if r.fail {
		return nil, errors.New("reader error")
	}
	return r.bySeq, nil
}

func (r fixtureReader) LedgerUsecs(context.Context) (uint64, error) { return r.usecs, nil }

func refOf(t *testing.T, o *jsonv.Object) aptos.Reference {
	t.Helper()
	s := func(k string) string { v, _ := o.GetString(k); return v }
	sender, ok := aptos.ParseAddress(s("sender"))
	seq, err1 := strconv.ParseUint(s("sequenceNumber"), 10, 64)
	exp, err2 := strconv.ParseUint(s("expiresAt"), 10, 64)
	d, err3 := hex.DecodeString(s("idDigest")[2:])
	if !ok || err1 != nil || err2 != nil || err3 != nil || len(d) != 32 {
		t.Fatalf("ref %s", jsonv.String(o))
	}
	ref := aptos.Reference{Network: s("network"), Sender: sender, Sequence: seq, ExpiresAt: exp, IDDigest: [32]byte(d)}
	if tx := s("transaction"); tx != "" {
		h, err := hex.DecodeString(tx[2:])
		if err != nil || len(h) != 32 {
			t.Fatalf("transaction %s", tx)
		}
		hh := [32]byte(h)
		ref.Transaction = &hh
	}
	return ref
}

// x402-exact-aptos.json's V1 (the committed answer's instrument and id
// digest) and every V4 status row and the plant, over fixture readers.
func TestStatusRows(t *testing.T) {
	f, err := vectors.Load("x402-exact-aptos.json")
	if err != nil {
		t.Fatal(err)
	}
	get := func(o *jsonv.Object, k string) jsonv.Value { v, _ := o.Get(k); return v }
	fixed, _ := f.GetObject("fixed")
	committed, _ := fixed.GetObject("committed")
	normal, _, _, ok := aptos.Committed(committed)
	v1, _ := f.GetObject("V1")
	if d := aptos.IDDigest(normal); !ok || string(jsonv.Canonical(normal)) != get(v1, "expectCanonical") ||
		"0x"+hex.EncodeToString(d[:]) != get(v1, "expectIdDigest") {
		t.Fatalf("V1: %s", jsonv.Canonical(normal))
	}
	v4, _ := f.GetObject("V4")
	rows, _ := jsonv.AsArray(get(v4, "status"))
	plant, _ := f.GetObject("plant")
	for _, rv := range append(rows, plant) {
		r, _ := jsonv.AsObject(rv)
		name, _ := r.GetString("case")
		t.Run(name, func(t *testing.T) {
			ref, _ := r.GetObject("ref")
			us, _ := strconv.ParseUint(get(r, "ledgerUsecs").(string), 10, 64)
			rd := fixtureReader{usecs: us, fail: get(r, "readerError") == true}
			rd.byHash, _ = jsonv.AsObject(get(r, "byHash"))
			rd.bySeq, _ = jsonv.AsObject(get(r, "bySequence"))
			st := aptos.PaymentStatus(context.Background(), refOf(t, ref), rd)
			got := jsonv.Obj("state", st.State)
			if st.Why != "" {
				got.Set("why", st.Why)
			}
			if st.State == "settled" {
				got.Set("version", st.Version)
				got.Set("transaction", st.Hash)
			}
			want, _ := r.GetObject("expect")
			if string(jsonv.Canonical(got)) != string(jsonv.Canonical(want)) {
				t.Fatalf("status %s, want %s", jsonv.String(got), jsonv.String(want))
			}
		})
	}
}
