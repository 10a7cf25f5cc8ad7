package pay

import (
	"encoding/base64"
	"sync"
	"sync/atomic"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/x402"
)

// A payer pays the same resource again and again, and its seller sends the
// same PAYMENT-REQUIRED each time: the last header that decoded is
// remembered with its document, and only a header equal to it byte for byte
// is answered from the memo. The document is a function of the header's
// bytes alone, so the memo answers what the decoding would.
//
// The document is shared by the payments that hit: the pairings only read a
// seller's document (x402.Payment copies what it takes from it), so it is
// handed out only where nothing outside the gate's pairings sees it
// (offersOf is told so: Transport.InputsFor is given the document, and a
// caller's function might change it).
type requiredMemo struct {
	header string
	doc    *jsonv.Object
}

var lastRequired atomic.Pointer[requiredMemo]

// decodeRequired is x402.DecodeHeader, from the memo when shared.
func decodeRequired(header string, shared bool) (*jsonv.Object, error) {
	if !shared {
		return x402.DecodeHeader(header)
	}
	if m := lastRequired.Load(); m != nil && m.header == header {
		return m.doc, nil
	}
	doc, err := x402.DecodeHeader(header)
	if err == nil {
		lastRequired.Store(&requiredMemo{header: header, doc: doc})
	}
	return doc, err
}

// jsonBufs holds the buffers a payment's JSON is written into before its
// base64 goes into the header: only the header string is kept.
var jsonBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// encodeHeader is x402.EncodeHeader (standard padded base64 of the JSON)
// with one allocation, the header's: the JSON and its base64 are written
// one after the other into a reused buffer.
func encodeHeader(v jsonv.Value) string {
	bp := jsonBufs.Get().(*[]byte)
	raw := jsonv.AppendMarshal((*bp)[:0], v)
	both := base64.StdEncoding.AppendEncode(raw, raw) // written past raw, never over it
	header := string(both[len(raw):])
	if cap(both) <= 64<<10 { // a rare huge payment's buffer is not kept
		*bp = both[:0]
		jsonBufs.Put(bp)
	}
	return header
}
