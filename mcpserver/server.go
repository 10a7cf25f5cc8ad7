// Package mcpserver offers the buyer gate to AI agents as MCP tools
// (docs/protocol.md, "The MCP server"), served with github.com/mark3labs/mcp-go over stdio
// or streamable HTTP.
//
// The tools are the gate's steps: atr_read (what an offer advertises; no
// fetch), atr_confirm (fetch the ATR, compare its hash, return the request to
// sign), atr_finish (join a signature made elsewhere and check the hash inside
// it), atr_check (re-check a held payment against kept bytes), and, with a
// signer configured, atr_transact (all of it, signing with the host's key)
// and atr_agree (the agreement payment for pairings whose payment proves
// nothing publicly), and the channel tools atr_channel_open,
// atr_channel_record_charge and, with a signer, atr_channel_within.
//
// The server keeps no state between calls. What must come back unchanged
// (chosen, holds, openings) carries an HMAC seal (seal.go). Arguments are closed contracts:
// an unknown argument is refused by name (contract.go, schema.go). Every
// message is checked for duplicate and case-variant member names before
// mcp-go decodes it (wire.go).
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/all"
)

// Config is what a server needs from its host. The zero Config is a server
// with no signer that fetches only from public addresses and seals with the
// process's random key.
type Config struct {
	// Signer pays with atr_transact and, unless AgreementSigner is set,
	// atr_agree. Nil: neither tool is offered, as upstream's binary.
	Signer rails.Signer
	// AgreementSigner pays agreement payments. Set alone, it offers atr_agree.
	AgreementSigner rails.Signer
	// Client sends the ATR fetch and the agreement requests. Nil: a client
	// that connects only to public addresses (atr.NewClient(false)).
	Client atr.Doer
	// SealKey is the 32-byte HMAC key of the seals. Servers given the same
	// key accept each other's values (instances behind a load balancer, a
	// restarted server). Nil: one random key per process.
	SealKey []byte
	// Pairings is the registry; nil means every pairing termsgate has.
	Pairings *rails.Registry
	// Now is the clock (tests inject the vectors' time); nil: wall clock.
	Now func() time.Time
	// Version is reported as serverInfo.version; "" means "dev".
	Version string
	// Policy is the spend policy asked before every signature the server's
	// wallets make (atr_transact, atr_agree, atr_channel_within). Required
	// with Signer or AgreementSigner: New refuses a wallet without limits.
	// The instructions and the atr_confirm and atr_transact results state
	// it.
	Policy *pay.Policy
	// InputsFor, when set, gives a pairing its buyer inputs for the offer
	// at hand when a call passes none (pay.Transport.InputsFor's shape): a
	// Soroban RPC gives the Stellar pairings theirs (inputs_for.go).
	InputsFor func(ctx context.Context, pairing string, doc jsonv.Value, account string) (*jsonv.Object, error)
	// ConfirmAbove, when set, puts every payment that moves more than it
	// (atomic units of the payment's asset) to the human with
	// elicitation/create before it is signed, when the client declared
	// elicitation (elicit.go). Agreement payments are put to the human
	// whenever it did. A client without elicitation is not asked.
	ConfirmAbove *big.Int
	// ConfirmAboveUSD is ConfirmAbove in US dollars, for the USD
	// stablecoins pay.LookupUSD knows; any other asset is put to the human.
	ConfirmAboveUSD *big.Rat
	// ElicitationTimeout bounds the wait for the human's answer; zero means
	// DefaultElicitationTimeout. No answer in time signs nothing.
	ElicitationTimeout time.Duration
}

// Server is the MCP server. Serve it with ServeStdio or HTTPHandler, which
// check every message before mcp-go reads it.
type Server struct {
	mcp             *server.MCPServer
	gate            *gate.Gate
	seal            *sealer
	signer          rails.Signer
	agreementSigner rails.Signer
	policy          *pay.Policy
	tools           []toolDef
	inputsProvider  func(ctx context.Context, pairing string, doc jsonv.Value, account string) (*jsonv.Object, error)
	confirmAbove    *big.Int
	confirmAboveUSD *big.Rat
	elicitTimeout   time.Duration
}

// New builds the server for cfg.
func New(cfg Config) (*Server, error) {
	key := cfg.SealKey
	if key == nil {
		k, err := processKey()
		if err != nil {
			return nil, err
		}
		key = k
	} else if len(key) != SealKeySize {
		return nil, fmt.Errorf("mcpserver: the seal key has %d bytes; it must have %d", len(key), SealKeySize)
	}
	if (cfg.Signer != nil || cfg.AgreementSigner != nil) && cfg.Policy == nil {
		return nil, errors.New("mcpserver: a server with a wallet needs spend limits (Config.Policy)")
	}
	reg := cfg.Pairings
	if reg == nil {
		reg = all.Default()
	}
	s := &Server{
		gate: &gate.Gate{
			Pairings: reg,
			Fetcher:  &atr.Fetcher{Client: cfg.Client},
			Now:      cfg.Now,
		},
		seal:            &sealer{key: slices.Clone(key)},
		signer:          cfg.Signer,
		agreementSigner: cfg.AgreementSigner,
		policy:          cfg.Policy,
		inputsProvider:  cfg.InputsFor,
		elicitTimeout:   cfg.ElicitationTimeout,
	}
	if cfg.ConfirmAbove != nil {
		if cfg.ConfirmAbove.Sign() < 0 {
			return nil, errors.New("mcpserver: ConfirmAbove is negative")
		}
		s.confirmAbove = new(big.Int).Set(cfg.ConfirmAbove)
	}
	if cfg.ConfirmAboveUSD != nil {
		if cfg.ConfirmAboveUSD.Sign() < 0 {
			return nil, errors.New("mcpserver: ConfirmAboveUSD is negative")
		}
		s.confirmAboveUSD = new(big.Rat).Set(cfg.ConfirmAboveUSD)
	}
	if s.elicitTimeout <= 0 {
		s.elicitTimeout = DefaultElicitationTimeout
	}
	if cfg.Policy != nil {
		s.gate.Policy = cfg.Policy // never a typed nil in the interface
	}
	s.tools = s.toolSet()
	version := cfg.Version
	if version == "" {
		version = "dev"
	}
	order := make(map[string]int, len(s.tools))
	for i, t := range s.tools {
		order[t.name] = i
	}
	opts := []server.ServerOption{
		server.WithToolCapabilities(false),
		server.WithInstructions(instructions(s)),
		// mcp-go lists tools by name; list them in the order they are used.
		server.WithToolFilter(func(_ context.Context, tools []mcp.Tool) []mcp.Tool {
			slices.SortStableFunc(tools, func(a, b mcp.Tool) int { return order[a.Name] - order[b.Name] })
			return tools
		}),
	}
	if s.payer() != nil {
		// Only a server with a wallet asks the human anything.
		// Clients that declare elicitation (the official go-sdk among them)
		// answer elicitation/create on stdio whatever protocol version their
		// calls carry; over HTTP, calls of 2026-07-28 are asked in the multi
		// round-trip form instead (rounds.go; docs/mcp.md, "Approval by the
		// human").
		//lint:ignore SA1019 stdio keeps the server-initiated request for every version; see above
		opts = append(opts, server.WithElicitation(), server.WithLegacyServerInitiatedRequests())
	}
	s.mcp = server.NewMCPServer("termsgate", version, opts...)
	schemaOpts := schemaOptions{pairings: reg.IDs()}
	for _, t := range s.tools {
		s.mcp.AddTool(t.mcpTool(schemaOpts), s.handler(t))
	}
	return s, nil
}

// MCP is the underlying mcp-go server, for embedding in another transport.
// Such a transport must check each message with the same care as
// ServeStdio and HTTPHandler do.
func (s *Server) MCP() *server.MCPServer { return s.mcp }

// ToolNames lists the tools this configuration offers, in order.
func (s *Server) ToolNames() []string {
	names := make([]string, len(s.tools))
	for i, t := range s.tools {
		names[i] = t.name
	}
	return names
}

// payer is who pays agreement payments.
func (s *Server) payer() rails.Signer {
	if s.agreementSigner != nil {
		return s.agreementSigner
	}
	return s.signer
}

// toolDef is one tool: its contract types, its hints and what it runs.
type toolDef struct {
	name, title, desc string
	ann               mcp.ToolAnnotation
	in, out           reflect.Type
	run               func(ctx context.Context, args *jsonv.Object) (*jsonv.Object, error)
}

// define ties a tool to its argument type A and result type O.
func define[A, O any](name, title, desc string, ann mcp.ToolAnnotation, run func(context.Context, *A) (*jsonv.Object, error)) toolDef {
	return toolDef{
		name: name, title: title, desc: desc, ann: ann,
		in: reflect.TypeFor[A](), out: reflect.TypeFor[O](),
		run: func(ctx context.Context, args *jsonv.Object) (*jsonv.Object, error) {
			var a A
			if err := decodeArgs(name, args, &a); err != nil {
				return nil, err
			}
			return run(ctx, &a)
		},
	}
}

func (t toolDef) mcpTool(opts schemaOptions) mcp.Tool {
	ann := t.ann
	ann.Title = t.title
	return mcp.Tool{
		Name:            t.name,
		Title:           t.title,
		Description:     t.desc,
		RawInputSchema:  jsonv.Marshal(schemaFor(t.in, opts)),
		RawOutputSchema: jsonv.Marshal(outputSchema(t.out, opts)),
		Annotations:     ann,
	}
}

// handler runs one call: arguments parsed strictly (jsonv, not encoding/json,
// so numbers and member order stay as sent), progress wired when asked for,
// the result put in the envelope. Nothing a caller sends can panic out of it.
func (s *Server) handler(t toolDef) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		defer func() {
			if recover() != nil {
				res, err = refused(t.name+": the call failed inside termsgate. Treat it as declined; if it could have signed, check before paying again."), nil
			}
		}()
		args, aerr := parseArguments(t.name, callArguments(ctx, req.Params.RawArguments))
		if aerr != nil {
			return refused(aerr.msg), nil
		}
		ctx = s.withProgress(ctx, req)
		if s.payer() == nil || s.elicitMode(ctx) != elicitRounds {
			return outcome(t.run(ctx, args)), nil
		}
		r := &rounds{responses: req.Params.InputResponses, state: req.Params.RequestState}
		out, err := t.run(context.WithValue(ctx, roundsKey{}, r), args)
		if r.pending != nil {
			// The round asked the human and signed nothing after asking
			// (approval.approve): its result is the question.
			return r.pending, nil
		}
		return outcome(out, err), nil
	}
}

func parseArguments(tool string, raw []byte) (*jsonv.Object, *argError) {
	if len(raw) == 0 {
		return &jsonv.Object{}, nil
	}
	v, err := jsonv.ParseDepth(raw, jsonv.MaxDepth+1)
	if err != nil {
		return nil, argErrorf("%s: the arguments are not readable JSON (%v). Nothing was done.", tool, err)
	}
	if v == nil {
		return &jsonv.Object{}, nil
	}
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, argErrorf("%s: the arguments must be a JSON object. Nothing was done.", tool)
	}
	return o, nil
}

type stepKey struct{}

// withProgress wires the gate's step reports (and the server's own) to
// notifications/progress when the request carries a progressToken.
func (s *Server) withProgress(ctx context.Context, req mcp.CallToolRequest) context.Context {
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
		return ctx
	}
	token := req.Params.Meta.ProgressToken
	var mu sync.Mutex
	n := 0
	report := gate.ProgressFunc(func(step string) {
		mu.Lock()
		defer mu.Unlock()
		n++
		// Best effort: a client that went away or never initialised gets none.
		_ = s.mcp.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
			"progressToken": token, "progress": n, "message": step,
		})
	})
	ctx = gate.WithProgress(ctx, report)
	return context.WithValue(ctx, stepKey{}, report)
}

// step reports a step of the server's own.
func step(ctx context.Context, msg string) {
	if f, ok := ctx.Value(stepKey{}).(gate.ProgressFunc); ok {
		f(msg)
	}
}
