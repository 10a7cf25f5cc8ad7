package mcpserver

import (
	"context"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// inputsFor is a call's buyer inputs: the caller's when it gives some,
// else Config.InputsFor's for the offer. A provider that fails declines the
// call no-payable-option, <ns>/input-missing, with its error as the cause:
// nothing is fetched or signed without the inputs.
func (s *Server) inputsFor(ctx context.Context, pairing string, doc jsonv.Value, account string, given *jsonv.Object) (jsonv.Value, error) {
	if given != nil || s.inputsProvider == nil {
		return inputs(given), nil
	}
	in, err := s.inputsProvider(ctx, pairing, doc, account)
	if err != nil {
		return nil, &gate.Decline{Code: gate.NoPayableOption, Detail: rails.Namespace(pairing) + "/input-missing", Err: err}
	}
	if in == nil {
		return inputs(given), nil
	}
	return in, nil
}
