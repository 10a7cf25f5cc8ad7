package pay

import (
	"context"
	"log/slog"

	"github.com/termsgate/termsgate/jsonv"
)

// offerInputs is the inputs function for one offer: Transport.InputsFor's
// answer for the offer when it gives one, asked at most once per pairing,
// else Transport.Inputs. A failing InputsFor is logged and leaves the
// pairing without inputs, which its choice refuses (input-missing): nothing
// is signed on inputs that could not be had.
func (t *Transport) offerInputs(ctx context.Context, doc jsonv.Value, account string) func(string) *jsonv.Object {
	if t.InputsFor == nil {
		return t.inputsFor
	}
	asked := map[string]*jsonv.Object{}
	return func(pairing string) *jsonv.Object {
		if in, ok := asked[pairing]; ok {
			return in
		}
		in, err := t.InputsFor(ctx, pairing, doc, account)
		if err != nil {
			t.logger().LogAttrs(ctx, slog.LevelWarn, "buyer inputs unavailable", slog.String("pairing", pairing), slog.String("error", err.Error()))
			in = nil
		}
		if in == nil {
			in = t.inputsFor(pairing)
		}
		asked[pairing] = in
		return in
	}
}

// inputsFor is the offer's inputs for pairing, or the transport's.
func (o offer) inputsFor(t *Transport, pairing string) *jsonv.Object {
	if o.inputs != nil {
		return o.inputs(pairing)
	}
	return t.inputsFor(pairing)
}
