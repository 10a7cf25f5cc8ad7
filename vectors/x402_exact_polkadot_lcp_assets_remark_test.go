package vectors_test

// x402-exact-polkadot-lcp-assets-remark.json: fixed, V1–V4 (status,
// recover and locate on the file's reader fixtures), plant, options and
// the buyer rows B2 and B6. V2's call is rebuilt by the pairing byte for
// byte; B2's control pays through the gate with the Polkadot development
// key against a loopback Sidecar.

import (
	"context"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/polkadot"
	"github.com/termsgate/termsgate/rails/polkadot/polkadotrpc"
	"github.com/termsgate/termsgate/signer"
)

// pdReader answers from V4's fixtures: the extrinsic at its block and
// index, the canonical block at its height, the raw extrinsics, the
// finalized height; reads counts its calls.
type pdReader struct {
	network          string
	at               *polkadot.Landed // extrinsicAt, with a row's change applied
	index            int
	canonical        string // the canonical block's hash at at.Height
	canonicalHash    string // the extrinsic hash the canonical block holds at index; "" for at's
	canonicalMissing bool
	missing          bool
	finalized        uint64
	err              bool
	raw              []string
	reads            int
}

func (r *pdReader) Network() string { return r.network }

func (r *pdReader) Extrinsic(_ context.Context, block string, index int) (*polkadot.Landed, error) {
	r.reads++
	if r.err {
		return nil, errors.New("Sidecar did not answer")
	}
	if index != r.index {
		return nil, nil
	}
	if strings.HasPrefix(block, "0x") {
		if r.missing || !strings.EqualFold(block, r.at.BlockHash) {
			return nil, nil
		}
		l := *r.at
		return &l, nil
	}
	if block != strconv.FormatUint(r.at.Height, 10) || r.canonicalMissing {
		return nil, nil
	}
	l := *r.at
	l.BlockHash = r.canonical
	if r.canonicalHash != "" {
		l.Hash = r.canonicalHash
	}
	return &l, nil
}

func (r *pdReader) RawExtrinsics(_ context.Context, block string) ([]string, error) {
	r.reads++
	if r.err {
		return nil, errors.New("Sidecar did not answer")
	}
	if strings.EqualFold(block, r.at.BlockHash) || block == strconv.FormatUint(r.at.Height, 10) {
		return r.raw, nil
	}
	if n, err := strconv.ParseUint(block, 10, 64); err == nil && n <= r.at.Height+1 {
		return []string{"0x0c040000"}, nil // another block, without the payment
	}
	return nil, nil
}

func (r *pdReader) FinalizedHeight(context.Context) (uint64, error) {
	r.reads++
	if r.err {
		return 0, errors.New("Sidecar did not answer")
	}
	return r.finalized, nil
}

// pdLanded reads a fixture's extrinsic: {at: {height, hash}, hash,
// success, events: [{pallet, method, data}]}.
func pdLanded(t testing.TB, o *jsonv.Object) *polkadot.Landed {
	t.Helper()
	h, err := strconv.ParseUint(str(t, o, "at", "height"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	sv, _ := o.Get("success")
	l := &polkadot.Landed{Height: h, BlockHash: str(t, o, "at", "hash"), Hash: str(t, o, "hash"), Success: sv == true}
	for _, e := range get(t, o, "events").([]jsonv.Value) {
		eo := e.(*jsonv.Object)
		l.Events = append(l.Events, polkadot.Event{Pallet: str(t, eo, "pallet"), Method: str(t, eo, "method"), Data: get(t, eo, "data").([]jsonv.Value)})
	}
	return l
}

// pdChanged is extrinsicAt with a row's change (success, events) applied.
func pdChanged(t testing.TB, v4 *jsonv.Object, change jsonv.Value) *polkadot.Landed {
	at := obj(t, v4, "extrinsicAt").Clone()
	if c, ok := jsonv.AsObject(change); ok {
		for _, m := range c.Members() {
			at.Set(m.Key, jsonv.Clone(m.Value))
		}
	}
	return pdLanded(t, at)
}

func pdStatusIs(st polkadot.Status, want *jsonv.Object) bool {
	height := ""
	if st.Height != 0 {
		height = strconv.FormatUint(st.Height, 10)
	}
	g := func(k string) string { s, _ := want.GetString(k); return s }
	return st.State == g("state") && st.Why == g("why") && st.Finality == g("finality") && height == g("height") && st.Transaction == g("transaction")
}

func TestX402ExactPolkadotLCPAssetsRemark(t *testing.T) {
	f := load(t, "x402-exact-polkadot-lcp-assets-remark.json")
	p := polkadot.Exact{}
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	b6 := obj(t, row(t, get(t, f, "buyer", "rows"), "B6"), "input", "presented")
	with := func(xt, call string) *jsonv.Object {
		pay := b6.Clone()
		pay.Set("payload", jsonv.Obj("extrinsic", xt, "call", call))
		return pay
	}
	hashHex := func(b []byte) string { h := polkadot.ExtrinsicHash(b); return "0x" + hex.EncodeToString(h[:]) }

	t.Run("fixed", func(t *testing.T) {
		o := obj(t, fixed, "O")
		if code := polkadot.CheckOption(o); code != "" {
			t.Fatalf("O refused: %s", code)
		}
		dest, prefix, ok := polkadot.DecodeSS58(str(t, o, "payTo"))
		if !ok || "0x"+hex.EncodeToString(dest[:]) != str(t, fixed, "alice") || polkadot.EncodeSS58(dest, prefix) != str(t, o, "payTo") {
			t.Fatalf("payTo reads as %x (prefix %d)", dest, prefix)
		}
		if str(t, fixed, "link") != "https://atr.seller.example/"+H.String() {
			t.Fatal("link")
		}
	})
	t.Run("V1", func(t *testing.T) {
		v1 := obj(t, f, "V1")
		xt := unhex(t, strings.TrimPrefix(str(t, v1, "extrinsic"), "0x"))
		if hashHex(xt) != str(t, v1, "expectHash") {
			t.Fatalf("hash %s", hashHex(xt))
		}
		s, err := polkadot.SplitSigned(xt)
		if err != nil || "0x"+hex.EncodeToString(s.Signer[:]) != str(t, v1, "expectSigner") {
			t.Fatalf("signer %v, %v", s, err)
		}
		n, _ := jsonv.AsSafeInt(get(t, v1, "callBytes"))
		call := xt[len(xt)-int(n):]
		_, err = p.Bound(with(str(t, v1, "extrinsic"), "0x"+hex.EncodeToString(call)))
		if !isRefusal(err, str(t, v1, "expectBound")) {
			t.Fatalf("bound: %v", err)
		}
	})
	t.Run("V2", func(t *testing.T) {
		v2 := obj(t, f, "V2")
		read, err := p.Read(tronDoc(t, f, get(t, fixed, "O")))
		if err != nil {
			t.Fatal(err)
		}
		o := obj(t, fixed, "O")
		choice, err := p.Choose(read, str(t, o, "network")+":"+str(t, o, "payTo"), nil, 0, "ref")
		if err != nil {
			t.Fatal(err)
		}
		u, err := p.Build(choice, nil, H)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := p.Request(u)
		n, _ := jsonv.AsSafeInt(get(t, v2, "expectCallLength"))
		if call := str(t, req, "call"); call != str(t, v2, "expectCall") || len(call) != 2+2*int(n) {
			t.Fatalf("call %s", call)
		}
		dest, _, ok := polkadot.DecodeSS58(str(t, o, "payTo"))
		if !ok || "0x"+hex.EncodeToString(dest[:]) != str(t, v2, "expectDest") {
			t.Fatalf("dest %x", dest)
		}
	})
	v3 := obj(t, f, "V3")
	t.Run("V3", func(t *testing.T) {
		xt := unhex(t, strings.TrimPrefix(str(t, v3, "extrinsic"), "0x"))
		n, _ := jsonv.AsSafeInt(get(t, v3, "expectLength"))
		if len(xt) != int(n) || hashHex(xt) != str(t, v3, "expectHash") {
			t.Fatalf("%d bytes, hash %s", len(xt), hashHex(xt))
		}
		if h, err := p.Bound(b6); err != nil || h != str(t, v3, "expectBound") {
			t.Fatalf("bound %s, %v", h, err)
		}
		if str(t, b6, "payload", "extrinsic") != str(t, v3, "extrinsic") {
			t.Fatal("B6 holds another extrinsic than V3")
		}
		ref, err := polkadot.PaymentReference(b6)
		w := obj(t, v3, "expectReference")
		if err != nil || ref.Network != str(t, w, "network") || ref.ExtrinsicHash != str(t, w, "extrinsicHash") || jsonv.Number(ref.AssetID) != get(t, w, "assetId") {
			t.Fatalf("reference %+v, %v", ref, err)
		}
		for _, rv := range get(t, v3, "refusals").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				if _, err := p.Bound(with(str(t, r, "extrinsic"), str(t, r, "call"))); !isRefusal(err, str(t, r, "expect")) {
					t.Fatalf("bound: %v, want %s", err, str(t, r, "expect"))
				}
			})
		}
	})
	v4 := obj(t, f, "V4")
	rv4 := obj(t, v4, "reference")
	aid, _ := jsonv.AsSafeInt(get(t, rv4, "assetId"))
	ref := polkadot.Reference{Network: str(t, rv4, "network"), ExtrinsicHash: str(t, rv4, "extrinsicHash"), AssetID: uint32(aid)}
	index, _ := jsonv.AsSafeInt(get(t, v4, "index"))
	var raw []string
	for _, x := range get(t, v4, "raw").([]jsonv.Value) {
		raw = append(raw, x.(string))
	}
	readerFor := func(t *testing.T, r *jsonv.Object) *pdReader {
		rd := &pdReader{network: str(t, v4, "readerNetwork"), index: int(index), raw: raw, err: r.Has("readerError"),
			canonicalMissing: r.Has("canonicalMissing"), missing: r.Has("missing")}
		ch, _ := r.Get("change")
		rd.at = pdChanged(t, v4, ch)
		rd.canonical = rd.at.BlockHash
		if r.Has("finalized") {
			rd.finalized, _ = strconv.ParseUint(str(t, r, "finalized"), 10, 64)
			rd.canonical = str(t, r, "canonical")
		}
		if r.Has("canonicalExtrinsicHash") {
			rd.canonicalHash = str(t, r, "canonicalExtrinsicHash")
		}
		return rd
	}
	timepoint := polkadot.Timepoint(str(t, v4, "block"), int(index))
	t.Run("V4", func(t *testing.T) {
		if polkadot.RemarkHash(H) != str(t, v4, "expectRemarkHash") {
			t.Fatalf("remark hash %s", polkadot.RemarkHash(H))
		}
		for _, sv := range get(t, v4, "status").([]jsonv.Value) {
			r := sv.(*jsonv.Object)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				rd := readerFor(t, r)
				rf := ref
				if r.Has("refHash") {
					rf.ExtrinsicHash = str(t, r, "refHash")
				}
				tx := timepoint
				if r.Has("transaction") {
					tx = str(t, r, "transaction")
				}
				st := polkadot.PaymentStatus(context.Background(), rf, H, tx, rd)
				if !pdStatusIs(st, obj(t, r, "expect")) || rd.reads > 3 {
					t.Fatalf("status %+v (%d reads), want %s", st, rd.reads, jsonv.String(get(t, r, "expect")))
				}
			})
		}
		t.Run("recover", func(t *testing.T) {
			rd := readerFor(t, jsonv.Obj())
			h, err := polkadot.Recover(context.Background(), ref.Network, timepoint, rd)
			if err != nil || h.String() != str(t, v4, "recover", "expect") || rd.reads != 2 {
				t.Fatalf("recover %s, %v (%d reads)", h, err, rd.reads)
			}
		})
		for _, lv := range get(t, v4, "locate").([]jsonv.Value) {
			r := lv.(*jsonv.Object)
			t.Run("locate/"+str(t, r, "from")+"-"+str(t, r, "to"), func(t *testing.T) {
				from, _ := strconv.ParseUint(str(t, r, "from"), 10, 64)
				to, _ := strconv.ParseUint(str(t, r, "to"), 10, 64)
				rd := readerFor(t, jsonv.Obj())
				got, err := polkadot.Locate(context.Background(), ref, rd, from, to)
				want := str(t, r, "expect")
				if strings.HasPrefix(want, "0x") {
					if err != nil || got != want {
						t.Fatalf("locate %q, %v", got, err)
					}
				} else if !isRefusal(err, want) || rd.reads != 0 {
					t.Fatalf("locate: %v, want %s", err, want)
				}
			})
		}
	})
	t.Run("plant", func(t *testing.T) {
		pl := obj(t, f, "plant")
		rd := readerFor(t, jsonv.Obj("finalized", "100", "canonical", str(t, v4, "block"), "change", get(t, pl, "change")))
		if st := polkadot.PaymentStatus(context.Background(), ref, H, timepoint, rd); !pdStatusIs(st, obj(t, pl, "expect")) {
			t.Fatalf("status %+v", st)
		}
	})
	t.Run("options", func(t *testing.T) {
		for _, ov := range get(t, f, "options").([]jsonv.Value) {
			r := ov.(*jsonv.Object)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				if code := polkadot.CheckOption(obj(t, r, "option")); code != str(t, r, "expect") {
					t.Fatalf("CheckOption = %q", code)
				}
				if _, err := p.Read(tronDoc(t, f, get(t, r, "option"))); err == nil {
					t.Fatal("a document of only this option reads")
				}
			})
		}
	})
	t.Run("B2", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B2")
		in := obj(t, r, "input")
		network := str(t, fixed, "O", "network")
		s := newATRSeller(t)
		s.serveBytes(unhex(t, str(t, in, "servesHex")))
		node := polkadotrpc.NewNode(network, 100)
		srv, err := loopback.Start(node, "sidecar.polkadot.example")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.Close)
		rpc := &polkadotrpc.Client{URL: "https://sidecar.polkadot.example", Net: network, HTTP: srv.Client()}
		key, err := signer.PolkadotFromSeed(signer.PolkadotDevSeed, network, rpc)
		if err != nil {
			t.Fatal(err)
		}
		// The row's account is V3's signer, whose key is not published:
		// the plant declines before any signer or node is asked.
		sg := &countingSigner{inner: &accountAs{Signer: key, account: str(t, in, "account")}}
		now, _ := jsonv.AsSafeInt(get(t, in, "now"))
		g := s.gateFor(now, rails.NewRegistry(p))
		_, err = g.Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), sg, nil)
		wantDecline(t, err, gate.Code(str(t, r, "expect", "decline")), "")
		if sg.calls.Load() != 0 || s.fetches.Load() != 1 || node.Calls.Load() != 0 {
			t.Fatalf("%d signer calls, %d fetches, %d node calls", sg.calls.Load(), s.fetches.Load(), node.Calls.Load())
		}
		// The control: the terms it advertises, paid once by the
		// development key, the extrinsic built, signed, checked and bound.
		s.serveBytes([]byte("abc"))
		dev := &countingSigner{inner: key}
		res, err := g.Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), dev, nil)
		if err != nil || dev.calls.Load() != 1 {
			t.Fatalf("control: %v (%d calls)", err, dev.calls.Load())
		}
		if h, err := p.Bound(res.Signed); err != nil || h != H.String() {
			t.Fatalf("control bound %s, %v", h, err)
		}
		if got := str(t, res.Signed, "payload", "call"); got != str(t, f, "V2", "expectCall") {
			t.Fatalf("control call %s", got)
		}
	})
	t.Run("B6", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B6")
		checks := get(t, r, "input", "check").([]jsonv.Value)
		expects := get(t, r, "expect").([]jsonv.Value)
		g := &gate.Gate{Pairings: rails.NewRegistry(p)}
		h, err := g.Check(unhex(t, str(t, checks[0], "bytesHex")), str(t, r, "pairing"), b6)
		if err != nil || h.String() != str(t, expects[0], "h") {
			t.Fatalf("check = %v, %v", h, err)
		}
		_, err = g.Check(unhex(t, str(t, checks[1], "bytesHex")), str(t, r, "pairing"), b6)
		wantDecline(t, err, gate.Code(str(t, expects[1], "decline")), "")
	})
}
