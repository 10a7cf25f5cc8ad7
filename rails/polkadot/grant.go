package polkadot

import (
	"encoding/hex"
	"errors"
	"math/big"
	"strconv"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// What a polkadot-call request grants (rails.Summarizer), and what a
// Polkadot payment shows (rails.Inspector).

var (
	_ rails.Summarizer = Exact{}
	_ rails.Inspector  = Exact{}
)

var errUnreadable = errors.New("polkadot: the signing request is not one this pairing builds")

// Request is a polkadot-call request as read.
type Request struct {
	Network   string
	Signer    [32]byte
	Call      *Call
	CallBytes []byte
	EraPeriod uint64
	H         atr.Hash
}

// ReadRequest reads a polkadot-call request: every member present and of
// its form, the call the profile's with an LCP remark, eraPeriod a power of
// two from 4 to 1024 blocks, tip "0".
func ReadRequest(req rails.Request) (Request, error) {
	if k, _ := req.GetString("kind"); k != KindCall {
		return Request{}, errUnreadable
	}
	var r Request
	var ok bool
	r.Network = mpp.String(req, "network")
	if !IsNetwork(r.Network) || mpp.String(req, "tip") != "0" {
		return Request{}, errUnreadable
	}
	if r.Signer, _, ok = DecodeSS58(mpp.String(req, "signer")); !ok {
		return Request{}, errUnreadable
	}
	if r.CallBytes, ok = lowerHex(mpp.String(req, "call"), MaxExtrinsic); !ok {
		return Request{}, errUnreadable
	}
	if r.Call, ok = DecodeCall(r.CallBytes); !ok {
		return Request{}, errUnreadable
	}
	if r.H, ok = RemarkH(r.Call.Remark); !ok {
		return Request{}, errUnreadable
	}
	pv, _ := req.Get("eraPeriod")
	p, ok := jsonv.AsSafeInt(pv)
	if !ok || p < 4 || p > 1024 || p&(p-1) != 0 {
		return Request{}, errUnreadable
	}
	r.EraPeriod = uint64(p)
	return r, nil
}

// Decimals of the assets a summary can state, by network and asset id:
// Tether's USDT (1984) and Circle's USDC (1337) on Polkadot Asset Hub,
// both 6 (https://developers.circle.com/stablecoins/usdc-contract-addresses,
// https://assethub-polkadot.subscan.io/assets).
var knownAssets = map[string]int{
	"polkadot:68d56f15f85d3136970ec16946040bc1/1337": 6,
	"polkadot:68d56f15f85d3136970ec16946040bc1/1984": 6,
}

// KnownDecimals is the decimals of asset on network, else -1.
func KnownDecimals(network string, asset uint32) int {
	if d, ok := knownAssets[network+"/"+strconv.FormatUint(uint64(asset), 10)]; ok {
		return d
	}
	return -1
}

func grantOf(network string, c *Call, signer [32]byte) rails.Grant {
	return rails.Grant{Network: network, Asset: strconv.FormatUint(uint64(c.AssetID), 10), Decimals: KnownDecimals(network, c.AssetID),
		Amount: new(big.Int).Set(c.Amount), Payer: Address(network, signer), Payee: Address(network, c.Dest)}
}

// Summarize: the call's amount of its asset (the pallet-assets id, in
// decimal) from the signer to the call's payee, on the request's network.
// An extrinsic's bound is its era, a block number and not a time: the
// request's validUntil, the buyer's estimate of when the era will have
// passed, is stated as PayableUntil; without it none is. The fee (in DOT,
// no tip) is the payer's own and not in the grant.
func (Exact) Summarize(req rails.Request) (rails.Grant, error) {
	r, err := ReadRequest(req)
	if err != nil {
		return rails.Grant{}, err
	}
	g := grantOf(r.Network, r.Call, r.Signer)
	if v, has := req.Get("validUntil"); has {
		n, ok := jsonv.AsSafeInt(v)
		if !ok || n <= 0 {
			return rails.Grant{}, errUnreadable
		}
		g.PayableUntil = time.Unix(n, 0).UTC()
	}
	return g, nil
}

// xtDetails are what an extrinsic shows of itself: its hash, signer,
// signature type, and its extra when it is the form this pairing writes.
func xtDetails(network string, xt []byte, s *Signed, callLen int) *jsonv.Object {
	h := ExtrinsicHash(xt)
	d := jsonv.Obj("extrinsicHash", "0x"+hex.EncodeToString(h[:]), "signer", "0x"+hex.EncodeToString(s.Signer[:]),
		"signatureType", []string{"ed25519", "sr25519", "ecdsa"}[s.SigType], "length", jsonv.Number(len(xt)))
	if network != "" {
		d.Set("signerAddress", Address(network, s.Signer))
	}
	x, ok := ExtraOf(xt, s, callLen)
	if !ok {
		d.Set("extra", nil)
		return d
	}
	era := jsonv.Value("immortal")
	if !x.Era.Immortal {
		era = jsonv.Obj("period", jsonv.Number(x.Era.Period), "phase", jsonv.Number(x.Era.Phase))
	}
	d.Set("extra", jsonv.Obj("era", era, "nonce", jsonv.Number(x.Nonce), "tip", strconv.FormatUint(x.Tip, 10),
		"feeAsset", "DOT", "metadataHash", x.MetadataHash))
	return d
}

// Inspect reads an x402/exact/polkadot/lcp-assets-remark payment as Bound
// does and states what its call grants: the call's amount of its asset
// from the extrinsic's signer to the call's payee. The era's end is a
// block, not a time, and the payment alone does not name the block it
// counts from, so no PayableUntil is stated. Nothing is verified: the
// details say whether the call pays the option.
func (Exact) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	c, err := Carry(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	d := xtDetails(c.Network, c.Extrinsic, c.Signed, len(c.CallBytes))
	d.Set("paysOption", Pays(c.Call, c.Accepted))
	return rails.Inspection{Pairing: ExactID, Kind: "payment", Grant: grantOf(c.Network, c.Call, c.Signed.Signer), H: c.H.String(),
		WhereH:  "payload.extrinsic: the remark of system.remark_with_event batched (utility.batch_all) with assets.transfer_keep_alive, as lcp:sha256:0x… (77 bytes)",
		Details: d}, nil
}

// InspectExtrinsic reads a bare signed v4 extrinsic in 0x hex and states
// what it moves when its call is the profile's (the extra of the form this
// pairing writes), and where H sits. Nothing is verified.
func InspectExtrinsic(s string) (rails.Inspection, error) {
	return rails.Guard("polkadot.InspectExtrinsic", "a Polkadot extrinsic of "+strconv.Itoa(len(s))+" characters", func() (rails.Inspection, error) {
		xt, ok := mpp.HexBytes(s, 1, MaxExtrinsic)
		if !ok {
			return rails.Inspection{}, errors.New("not a Polkadot extrinsic (0x hex of at most 4096 bytes)")
		}
		sg, err := SplitSigned(xt)
		if err != nil {
			return rails.Inspection{}, errors.New("not a signed v4 Polkadot extrinsic: " + err.Error())
		}
		in := rails.Inspection{Kind: "polkadot-extrinsic", Grant: rails.Grant{Decimals: -1},
			WhereH: "nowhere: the call is not the profile's batch of a transfer and an LCP remark"}
		_, next, ok := DecodeExtra(xt, sg.End)
		if ok {
			if call, isProfile := DecodeCall(xt[next:]); isProfile {
				in.Details = xtDetails("", xt, sg, len(xt)-next)
				in.Grant = rails.Grant{Asset: strconv.FormatUint(uint64(call.AssetID), 10), Decimals: -1, Amount: call.Amount,
					Payer: "0x" + hex.EncodeToString(sg.Signer[:]), Payee: "0x" + hex.EncodeToString(call.Dest[:])}
				if h, ok := RemarkH(call.Remark); ok {
					in.H, in.WhereH = h.String(), "the remark of system.remark_with_event, as lcp:sha256:0x… (an x402/exact/polkadot/lcp-assets-remark payment)"
				}
				return in, nil
			}
		}
		in.Details = xtDetails("", xt, sg, len(xt)-sg.End)
		in.Grant.Payer = "0x" + hex.EncodeToString(sg.Signer[:])
		return in, nil
	})
}
