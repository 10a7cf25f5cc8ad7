package permit2contracts_test

import (
	"bytes"
	"math/big"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/internal/permit2contracts"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/vectors"
)

// FuzzPaymentReaders: the readers of a presented payment (PaymentOf,
// EscrowPaymentOf) and of landed calldata (SettledOf, AuthorizedOf) on any
// input: no panic, within the fuzz bound; a payment that reads packs into
// calldata that reads back to the same permit, owner and payee. Seeded with
// the vectors' Permit2 and auth-capture payments (one on the v1.0 escrow)
// and their calldata.
func FuzzPaymentReaders(f *testing.F) {
	payments, err := vectors.Payments()
	if err != nil {
		f.Fatal(err)
	}
	for _, id := range []string{evm.ExactPermit2ID, evm.UptoPermit2ID, evm.AuthCapturePermit2ID} {
		p, ok := jsonv.AsObject(payments[id])
		if !ok {
			f.Fatalf("vectors.Payments has no %s payment", id)
		}
		f.Add([]byte(jsonv.String(p)))
		if id == evm.AuthCapturePermit2ID {
			v1 := p.Clone()
			accepted, _ := v1.GetObject("accepted")
			extra, _ := accepted.GetObject("extra")
			extra.Set("authCaptureEscrow", permit2contracts.Escrow.Address.Hex())
			payload, _ := v1.GetObject("payload")
			auth, _ := payload.GetObject("permit2Authorization")
			auth.Set("spender", permit2contracts.Permit2Collector.Address.Hex())
			f.Add([]byte(jsonv.String(v1)))
			e, err := permit2contracts.EscrowPaymentOf(v1)
			if err != nil {
				f.Fatalf("the v1.0 seed does not read: %v", err)
			}
			if data, err := e.Authorize(big.NewInt(1)); err == nil {
				f.Add(data)
			}
			continue
		}
		s, err := permit2contracts.PaymentOf(p)
		if err != nil {
			f.Fatalf("the %s seed does not read: %v", id, err)
		}
		if data, err := s.Settle(big.NewInt(1)); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		cost.Bound(t, len(raw), func() {
			for _, proxy := range []permit2contracts.Contract{permit2contracts.ExactProxy, permit2contracts.UptoProxy} {
				_, _ = permit2contracts.SettledOf(proxy.Address, raw)
			}
			_, _ = permit2contracts.AuthorizedOf(permit2contracts.Escrow.Address, raw)
			v, err := jsonv.Parse(raw)
			if err != nil {
				return
			}
			o, ok := jsonv.AsObject(v)
			if !ok {
				return
			}
			if p, err := permit2contracts.PaymentOf(o); err == nil {
				data, err := p.Settle(p.Permit.Permitted.Amount)
				if err != nil {
					t.Fatalf("a payment that reads does not pack: %v", err)
				}
				s, err := permit2contracts.SettledOf(p.Proxy().Address, data)
				if err != nil || s.Permit.Nonce.Cmp(p.Permit.Nonce) != 0 || s.Owner != p.Owner || s.To != p.To {
					t.Fatalf("packed and read back: %+v, %v; from %+v", s, err, p)
				}
			}
			if e, err := permit2contracts.EscrowPaymentOf(o); err == nil {
				data, err := e.Authorize(e.Info.MaxAmount)
				if err != nil {
					return // a maximum past uint120 or an expiry past uint48 does not pack; the escrow could not take it
				}
				a, err := permit2contracts.AuthorizedOf(permit2contracts.Escrow.Address, data)
				if err != nil || a.Info.Salt.Cmp(e.Info.Salt) != 0 || a.Info.Payer != e.Info.Payer || !bytes.Equal(data[:4], permit2contracts.Escrow.ABI.Methods["authorize"].ID) {
					t.Fatalf("packed and read back: %+v, %v", a, err)
				}
			}
		})
	})
}
