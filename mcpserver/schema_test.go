package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/mcpserver"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
)

var update = flag.Bool("update", false, "rewrite testdata/schemas.json from the contract types")

const golden = "testdata/schemas.json"

// schemaSession is a server offering every tool, with a fixed registry so
// that the pairing enum does not move when a pairing is added elsewhere.
func schemaSession(t *testing.T) (*gosdk.ClientSession, *countingSigner, *seller) {
	t.Helper()
	f := loadFixture(t)
	s := newSeller(t, f.A)
	sg := newSigner(t, f)
	cs := connectHTTP(t, newServer(t, f, s, mcpserver.Config{Signer: sg, Pairings: rails.NewRegistry(evm.ExactEIP3009{})}), nil)
	return cs, sg, s
}

// TestSchemasGolden: the published tool contracts (schemas, descriptions,
// annotations) are exactly testdata/schemas.json. Changing a contract type
// without regenerating the file (go test -run TestSchemasGolden -update)
// fails here, so the contract an agent sees never drifts unreviewed.
func TestSchemasGolden(t *testing.T) {
	// The wire form, as a client receives it (member order kept).
	f := loadFixture(t)
	raw := rawStdio(t, newServer(t, f, nil, mcpserver.Config{Signer: newSigner(t, f), Pairings: rails.NewRegistry(evm.ExactEIP3009{})}))
	raw.send(`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`)
	var got bytes.Buffer
	if err := json.Indent(&got, jsonv.Marshal(valueAt(t, raw.recv(), "result", "tools")), "", "  "); err != nil {
		t.Fatal(err)
	}
	got.WriteByte('\n')
	if *update {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestSchemasGolden -update ./mcpserver/)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("the published tools differ from %s; if the change is meant, run go test -run TestSchemasGolden -update ./mcpserver/ and review the diff.\ngot:\n%s", golden, got.Bytes())
	}
}

// sample is a value of the JSON type a property schema asks for.
func sample(prop map[string]any) jsonv.Value {
	if enum, ok := prop["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	switch prop["type"] {
	case "string":
		if prop["contentEncoding"] == "base64" {
			return "/w=="
		}
		return "x"
	case "boolean":
		return true
	case "array":
		return []jsonv.Value{}
	default: // object, or any JSON
		return jsonv.Obj()
	}
}

func isRefusal(r result, tool string) bool {
	return r.isError && r.value == nil && strings.HasPrefix(r.text, tool+":")
}

// TestSchemaMatchesDecoder drives every tool from its published input
// schema alone: all properties with values of the published types are
// accepted; leaving out a required one, adding one, or sending a wrong type
// is refused by name. The decoder and the schema come from the same types,
// and this checks it from the client's side.
func TestSchemaMatchesDecoder(t *testing.T) {
	cs, sg, s := schemaSession(t)
	for _, tool := range listTools(t, cs) {
		schema := tool.InputSchema.(map[string]any)
		props := schema["properties"].(map[string]any)
		if schema["additionalProperties"] != false {
			t.Fatalf("%s: the input schema is not closed", tool.Name)
		}
		full := jsonv.Obj()
		for name, p := range props {
			full.Set(name, sample(p.(map[string]any)))
		}
		// header is the alternative to document: one of the two is given.
		if full.Has("document") {
			full.Delete("header")
		}
		if r := callUnchecked(t, cs, tool.Name, full); isRefusal(r, tool.Name) {
			t.Fatalf("%s: all published properties refused: %s", tool.Name, r.text)
		}
		required, _ := schema["required"].([]any)
		for _, name := range required {
			less := full.Clone()
			less.Delete(name.(string))
			if r := callUnchecked(t, cs, tool.Name, less); !isRefusal(r, tool.Name) || !strings.Contains(r.text, `missing argument "`+name.(string)+`"`) {
				t.Fatalf("%s without %s: %s", tool.Name, name, r.text)
			}
		}
		more := full.Clone()
		more.Set("maxAmount", "1")
		if r := callUnchecked(t, cs, tool.Name, more); !isRefusal(r, tool.Name) || !strings.Contains(r.text, `unknown argument "maxAmount"`) {
			t.Fatalf("%s with maxAmount: %s", tool.Name, r.text)
		}
		for name, p := range props {
			if len(p.(map[string]any)) == 1 { // any JSON: nothing is of the wrong type
				continue
			}
			wrong := full.Clone()
			wrong.Set(name, jsonv.Number(12))
			if r := callUnchecked(t, cs, tool.Name, wrong); !isRefusal(r, tool.Name) || !strings.Contains(r.text, `"`+name+`" must be`) {
				t.Fatalf("%s with %s a number: %s", tool.Name, name, r.text)
			}
		}
	}
	if sg.calls.Load() != 0 || s.fetches.Load() != 0 {
		t.Fatalf("samples reached the network or the signer: %d fetches, %d signer calls", s.fetches.Load(), sg.calls.Load())
	}
}

// TestOutputSchemasClosed: the published output schemas refuse a member the
// contract types lack, so validating every result (helpers_test.go) catches
// a result form that grew one.
func TestOutputSchemasClosed(t *testing.T) {
	cs, _, _ := schemaSession(t)
	listTools(t, cs)
	schemasMu.Lock()
	rs := outputSchemas["atr_check"]
	schemasMu.Unlock()
	hash := hashOf([]byte("x"))
	if err := rs.Validate(map[string]any{"atrHash": hash}); err != nil {
		t.Fatalf("a good result refused: %v", err)
	}
	for _, bad := range []map[string]any{{"atrHash": hash, "extra": 1}, {}, {"atrHash": strings.ToUpper(hash)}} {
		if err := rs.Validate(bad); err == nil {
			t.Fatalf("%v accepted", bad)
		}
	}
}

// TestArgumentsRefused: closed contracts from the agent's side. An unknown
// argument (a cap the agent thinks it set) is refused by name before
// anything is fetched or signed.
func TestArgumentsRefused(t *testing.T) {
	f := loadFixture(t)
	s := newSeller(t, f.A)
	sg := newSigner(t, f)
	cs := connectWithSigner(t, f, s, sg)
	cases := []struct {
		tool string
		args *jsonv.Object
		want string
	}{
		{"atr_transact", jsonv.Obj("pairing", pairing, "document", f.D, "maxAmount", "5000"), `atr_transact: unknown argument "maxAmount"; the arguments are pairing, document, header, inputs, approved.`},
		{"atr_transact", jsonv.Obj("pairing", pairing, "Document", f.D), `unknown argument "Document"`},
		{"atr_confirm", jsonv.Obj("pairing", pairing, "document", f.D), `missing argument "account"`},
		{"atr_confirm", jsonv.Obj("pairing", pairing, "document", f.D, "account", f.account, "inputs", "x"), `"inputs" must be a JSON object`},
		{"atr_finish", jsonv.Obj("pairing", pairing, "atr", "not base64!", "chosen", jsonv.Obj(), "signature", "0x"), `"atr" must be a base64 string`},
		{"atr_check", jsonv.Obj("pairing", pairing, "atr", "/w", "presented", jsonv.Obj()), `"atr" must be a base64 string`},
		{"atr_agree", jsonv.Obj("atr", "/w==", "chosen", "x"), `"chosen" must be a JSON object`},
	}
	for _, c := range cases {
		r := callUnchecked(t, cs, c.tool, c.args)
		if !isRefusal(r, c.tool) || !strings.Contains(r.text, c.want) || !strings.Contains(r.text, "Nothing was done.") {
			t.Errorf("%s %s: %s", c.tool, jsonv.Marshal(c.args), r.text)
		}
	}
	// Arguments that are not an object at all.
	if r := callUnchecked(t, cs, "atr_check", nil); !isRefusal(r, "atr_check") {
		t.Errorf("no arguments: %s", r.text)
	}
	if s.fetches.Load() != 0 || sg.calls.Load() != 0 {
		t.Fatalf("%d fetches, %d signer calls", s.fetches.Load(), sg.calls.Load())
	}
}

func connectWithSigner(t *testing.T, f *fixture, s *seller, sg *countingSigner) *gosdk.ClientSession {
	cs := connectHTTP(t, newServer(t, f, s, mcpserver.Config{Signer: sg}), nil)
	listTools(t, cs)
	return cs
}
