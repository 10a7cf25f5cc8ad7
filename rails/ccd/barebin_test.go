package ccd

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// serialized is w as AccountTransactionV1.serialize writes it: the
// sender's signatures, the sponsor's (a zero byte for none), the header,
// the payload.
func serialized(w *Wire, sponsor map[[2]uint8][]byte) []byte {
	b := appendSignatures(nil, w.Signatures)
	if len(sponsor) == 0 {
		b = append(b, 0)
	} else {
		b = appendSignatures(b, sponsor)
	}
	return append(append(b, w.Tx.Header()...), w.Tx.Payload...)
}

// vectorBinary is D3's signed transaction k in JSON and its binary form.
func vectorBinary(t testing.TB, k string) (*jsonv.Object, []byte) {
	tx, _ := jsonv.AsObject(at(t, load(t), "D3", k, "payment", "payload", "signedTransaction"))
	w, err := ReadWire(tx)
	if err != nil {
		t.Fatal(err)
	}
	return tx, serialized(w, nil)
}

// D3's two signed transactions in binary, bare and as a block item, 0x or
// not, read as InspectBare reads their JSON: the same inspection, member
// for member; the bytes' SHA-256 is the transaction hash Wire.Hash names;
// a sponsor's signatures, when present, are counted.
func TestInspectBareBinary(t *testing.T) {
	for _, k := range []string{"ccd", "plt"} {
		tx, bin := vectorBinary(t, k)
		want, err := InspectBare(tx)
		if err != nil {
			t.Fatal(err)
		}
		w, _, err := ReadBinary(bin)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if !bytes.Equal(w.Serialize(nil), bin) {
			t.Fatalf("%s: Serialize wrote %x", k, w.Serialize(nil))
		}
		if w.Hash(nil) != sha256.Sum256(bin) {
			t.Fatalf("%s: the hash of the bytes is not the transaction's", k)
		}
		for _, text := range []string{hex.EncodeToString(bin), "0x" + hex.EncodeToString(bin), "03" + hex.EncodeToString(bin),
			strings.ToUpper(hex.EncodeToString(bin))} {
			if !IsBareBinary(text) {
				t.Fatalf("%s: %.20s… not binary", k, text)
			}
			in, err := InspectBareBinary(text)
			if err != nil {
				t.Fatalf("%s: %.20s…: %v", k, text, err)
			}
			if a, b := jsonv.Marshal(in.JSON()), jsonv.Marshal(want.JSON()); !bytes.Equal(a, b) {
				t.Fatalf("%s: binary %s\nJSON %s", k, a, b)
			}
		}
		sponsor := map[[2]uint8][]byte{{0, 0}: bytes.Repeat([]byte{7}, 64)}
		in, err := InspectBareBinary(hex.EncodeToString(serialized(w, sponsor)))
		if n, _ := in.Details.Get("sponsorSignatures"); err != nil || n != jsonv.Number(1) || in.H != want.H {
			t.Fatalf("%s with the sponsor's signature: %v, %v", k, n, err)
		}
	}
}

// Every way the bytes are not the SDK's is refused with the code that says
// why and a BareError naming the part.
func TestInspectBareBinaryRefuses(t *testing.T) {
	_, ccdBin := vectorBinary(t, "ccd")
	_, pltBin := vectorBinary(t, "plt")
	sigEnd := 1 + 2 + 3 + 64 // one credential, one key
	header := sigEnd + 1     // after the sponsor's zero byte
	payload := header + headerBytes
	edit := func(b []byte, f func(b []byte) []byte) []byte { return f(bytes.Clone(b)) }
	for name, tc := range map[string]struct {
		b    []byte
		code string
		what string
	}{
		"empty":                    {nil, CodeTransactionMalformed, "sender's signatures"},
		"no signatures":            {edit(ccdBin, func(b []byte) []byte { return append([]byte{0}, b[sigEnd:]...) }), CodeTransactionMalformed, "sender's signatures"},
		"a short signature":        {edit(ccdBin, func(b []byte) []byte { b[5] = 63; return b }), CodeTransactionMalformed, "sender's signatures"},
		"no key":                   {edit(ccdBin, func(b []byte) []byte { b[2] = 0; return b }), CodeTransactionMalformed, "sender's signatures"},
		"keys not ascending":       {edit(ccdBin, func(b []byte) []byte { b[2] = 2; return append(b[:sigEnd], append(b[3:sigEnd], b[sigEnd:]...)...) }), CodeTransactionMalformed, "sender's signatures"},
		"a bad sponsor map":        {edit(ccdBin, func(b []byte) []byte { b[sigEnd] = 1; return b }), CodeTransactionMalformed, "sponsor's signatures"},
		"no sponsor in the bitmap": {edit(ccdBin, func(b []byte) []byte { b[header+1] = 0; return b }), CodeTransactionMalformed, "bitmap"},
		"another bit":              {edit(ccdBin, func(b []byte) []byte { b[header] = 0x80; return b }), CodeTransactionMalformed, "bitmap"},
		"a short header":           {ccdBin[:header+40], CodeTransactionMalformed, "the header"},
		"a byte after":             {append(bytes.Clone(ccdBin), 0), CodeTransactionMalformed, "payload size"},
		"a byte short":             {ccdBin[:len(ccdBin)-1], CodeTransactionMalformed, "payload size"},
		"an expiry past 2^53":      {edit(ccdBin, func(b []byte) []byte { b[header+2+32+8+8+4] = 0x01; return b }), CodeTransactionMalformed, "2^53"},
		"too little energy": {edit(ccdBin, func(b []byte) []byte {
			binary.BigEndian.PutUint64(b[header+2+32+8:], 100)
			return b
		}), CodeTransactionMalformed, "energy"},
		"a plain transfer":  {edit(ccdBin, func(b []byte) []byte { b[payload] = 3; return b }), CodePayloadKind, "payload"},
		"the memo's length": {edit(ccdBin, func(b []byte) []byte { b[payload+34]++; return b }), CodeTransactionMalformed, "payload"},
		"a memo over 256": {edit(ccdBin, func(b []byte) []byte {
			binary.BigEndian.PutUint16(b[payload+33:], 300)
			return b
		}), CodeTooLarge, "payload"},
		"not the memo of H": {edit(ccdBin, func(b []byte) []byte {
			i := bytes.Index(b, []byte("0xba"))
			b[i+2] = 'B'
			return b
		}), CodeMemoNotLCP, "memo"},
		"a token id of a space": {edit(pltBin, func(b []byte) []byte { b[payload+2] = ' '; return b }), CodeTransactionMalformed, "payload"},
		"operations' length":    {edit(pltBin, func(b []byte) []byte { b[payload+2+int(b[payload+1])+3]++; return b }), CodeTransactionMalformed, "payload"},
		"too large":             {make([]byte, MaxTransaction+1), CodeTooLarge, "longer"},
	} {
		_, _, err := ReadBinary(tc.b)
		if tc.code == CodeMemoNotLCP {
			_, err = InspectBareBinary(hex.EncodeToString(tc.b))
		}
		var r *rails.Refusal
		var be *BareError
		if !errors.As(err, &r) || r.Code != tc.code || !errors.As(err, &be) || !strings.Contains(be.Error(), tc.what) {
			t.Errorf("%s: %v, want %s naming %q", name, err, tc.code, tc.what)
		}
		// a transaction whose memo is not H's is still routed here, to be
		// refused as this one
		if IsBareBinary(hex.EncodeToString(tc.b)) != (tc.code == CodeMemoNotLCP) {
			t.Errorf("%s: IsBareBinary %v", name, !(tc.code == CodeMemoNotLCP))
		}
	}
	for _, text := range []string{"", "0x", "0", "zz", hex.EncodeToString(ccdBin) + "0", "1200002280000000"} {
		if _, err := InspectBareBinary(text); err == nil || IsBareBinary(text) {
			t.Errorf("%q read", text)
		}
	}
}

// FuzzCCDBareBinary: any text through IsBareBinary and InspectBareBinary
// ends in an inspection or a refusal, never a panic, within
// internal/cost's bound; bytes that read are the transaction written
// back exactly (the reading is canonical), and written as the JSON form
// they read as InspectBare reads that. Seeded with D3's two transactions,
// bare and as block items.
func FuzzCCDBareBinary(f *testing.F) {
	for _, k := range []string{"ccd", "plt"} {
		_, bin := vectorBinary(f, k)
		f.Add(hex.EncodeToString(bin))
		f.Add("03" + hex.EncodeToString(bin))
	}
	f.Fuzz(func(t *testing.T, text string) {
		cost.Bound(t, len(text), func() {
			is := IsBareBinary(text)
			in, err := InspectBareBinary(text)
			b, ok := bareHex(text)
			if !ok {
				if is || err == nil {
					t.Fatalf("%q read", text)
				}
				return
			}
			w, sponsor, rerr := readBinaryForm(b)
			if is != (rerr == nil) {
				t.Fatalf("IsBareBinary %v, read %v", is, rerr)
			}
			if rerr != nil {
				return
			}
			if again := serialized(w, sponsor); !bytes.Equal(again, b) && !bytes.Equal(append([]byte{blockItemV1}, again...), b) {
				t.Fatalf("%x written back as %x", b, again)
			}
			if err != nil {
				return
			}
			sig := w.Signatures[[2]uint8{0, 0}]
			if sig == nil || len(w.Signatures) != 1 || len(sponsor) > 0 {
				return
			}
			form, err := WireForm(&w.Tx, sig)
			if err != nil {
				t.Fatalf("read but not written: %v", err)
			}
			want, err := InspectBare(form)
			if err != nil || !bytes.Equal(jsonv.Marshal(want.JSON()), jsonv.Marshal(in.JSON())) {
				t.Fatalf("binary %s, JSON %s (%v)", jsonv.Marshal(in.JSON()), jsonv.Marshal(want.JSON()), err)
			}
		})
	})
}
