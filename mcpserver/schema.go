package mcpserver

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
)

// The tools' contracts are Go structs (contract.go). This file derives both
// the published JSON Schemas and the argument decoder from the same structs,
// by reflection, so that what the schema promises and what the decoder
// accepts cannot say different things. The golden file testdata/schemas.json
// pins the published result; a test fails when the structs change and the
// file does not.
//
// Field tags:
//
//	json:"name"            member name; ",omitempty" makes it optional
//	desc:"…"               the description an agent reads
//	schema:"base64"        a []byte sent as standard padded base64
//	schema:"pairing"       a pairing id (enum of the registry's ids)
//	schema:"hash"          "0x" and 64 lowercase hex digits
//	schema:"mac"           a seal's mac (same form as a hash)
//	schema:"nullable"      the value may also be null
//	schema:"code"          a decline code (enum)
//
// Go types map as: string → string, bool → boolean, int → integer (results only), []byte → base64 string,
// jsonv.Value → any JSON, *jsonv.Object → object, []jsonv.Value → array,
// struct (or pointer to struct) → a closed object, *jsonv.Value → any JSON
// whose presence the decoder reports (nil pointer: absent).

var (
	typeValue  = reflect.TypeFor[jsonv.Value]()
	typeObject = reflect.TypeFor[*jsonv.Object]()
	typeArray  = reflect.TypeFor[[]jsonv.Value]()
	typeBytes  = reflect.TypeFor[[]byte]()
)

// field is one member of a contract struct.
type field struct {
	name     string
	index    int
	optional bool
	desc     string
	kind     string // the schema tag
}

// fieldsOf is cached per type: the decoder runs on every call.
func fieldsOf(t reflect.Type) []field {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]field)
	}
	f := computeFields(t)
	fieldCache.Store(t, f)
	return f
}

var fieldCache sync.Map // reflect.Type → []field

func computeFields(t reflect.Type) []field {
	var out []field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		out = append(out, field{
			name: name, index: i, optional: opts == "omitempty",
			desc: f.Tag.Get("desc"), kind: f.Tag.Get("schema"),
		})
	}
	return out
}

// schemaOptions are the parts of a schema that depend on the configuration.
type schemaOptions struct {
	pairings []string
}

// declineCodes are the codes a decline result carries: the gate's twelve
// and the three of sealed values.
var declineCodes = append(append([]gate.Code(nil), gate.Codes...), gate.ChosenUnverified, gate.HoldUnverified, gate.OpeningUnverified)

// outputSchema is a tool's published output schema: an object that is
// either the tool's result or a decline.
func outputSchema(out reflect.Type, opts schemaOptions) *jsonv.Object {
	return jsonv.Obj("type", "object", "anyOf", []jsonv.Value{
		schemaFor(out, opts), schemaFor(reflect.TypeFor[declineOut](), opts),
	})
}

// schemaFor returns the JSON Schema of a contract struct: a closed object.
func schemaFor(t reflect.Type, opts schemaOptions) *jsonv.Object {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	props := &jsonv.Object{}
	var required []jsonv.Value
	for _, f := range fieldsOf(t) {
		s := typeSchema(t.Field(f.index).Type, f.kind, opts)
		if f.desc != "" {
			s.Set("description", f.desc)
		}
		props.Set(f.name, s)
		if !f.optional {
			required = append(required, f.name)
		}
	}
	out := jsonv.Obj("type", "object", "properties", props)
	if len(required) > 0 {
		out.Set("required", required)
	}
	out.Set("additionalProperties", false)
	return out
}

func typeSchema(t reflect.Type, kind string, opts schemaOptions) *jsonv.Object {
	var s *jsonv.Object
	switch {
	case t == typeValue || t.Kind() == reflect.Pointer && t.Elem() == typeValue:
		return &jsonv.Object{} // any JSON, null included
	case t == typeObject:
		s = jsonv.Obj("type", "object")
	case t == typeArray:
		s = jsonv.Obj("type", "array")
	case t == typeBytes:
		s = jsonv.Obj("type", "string", "contentEncoding", "base64")
	case t.Kind() == reflect.String:
		s = jsonv.Obj("type", "string")
		switch kind {
		case "pairing":
			ids := make([]jsonv.Value, len(opts.pairings))
			for i, id := range opts.pairings {
				ids[i] = id
			}
			s.Set("enum", ids)
		case "hash", "mac":
			s.Set("pattern", "^0x[0-9a-f]{64}$")
		case "code":
			codes := make([]jsonv.Value, 0, len(declineCodes))
			for _, c := range declineCodes {
				codes = append(codes, string(c))
			}
			s.Set("enum", codes)
		}
	case t.Kind() == reflect.Bool:
		s = jsonv.Obj("type", "boolean")
	case t.Kind() == reflect.Int:
		s = jsonv.Obj("type", "integer")
	case t.Kind() == reflect.Struct:
		s = schemaFor(t, opts)
	case t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct:
		s = schemaFor(t.Elem(), opts)
	default:
		// Contract structs are ours; an unsupported type is a programming
		// error that the schema tests catch at once.
		panic(fmt.Sprintf("mcpserver: no schema for %v", t))
	}
	if kind == "nullable" {
		typ, _ := s.Get("type")
		s.Set("type", []jsonv.Value{typ, "null"})
	}
	return s
}

// argError is an argument the tool refuses before doing anything: its
// message names the argument, for the agent to correct the call.
type argError struct {
	msg string
}

func (e *argError) Error() string { return e.msg }

func argErrorf(format string, a ...any) *argError { return &argError{fmt.Sprintf(format, a...)} }

// decodeArgs fills the contract struct dst (a pointer) from args. Every
// member must be a field (an unknown argument is refused by name: a dropped
// argument could be a cap the agent believes it set), every required field
// must be present, and every value must have the field's JSON type.
func decodeArgs(tool string, args *jsonv.Object, dst any) *argError {
	v := reflect.ValueOf(dst).Elem()
	return decodeObject(tool, "", args, v)
}

func decodeObject(tool, path string, o *jsonv.Object, v reflect.Value) *argError {
	fields := fieldsOf(v.Type())
	for _, m := range o.Members() {
		f, ok := lookupField(fields, m.Key)
		if !ok {
			return argErrorf("%s: unknown argument %q; the arguments are %s. Nothing was done.",
				tool, path+m.Key, names(fields, path))
		}
		if err := decodeValue(tool, path+m.Key, m.Value, f.kind, v.Field(f.index)); err != nil {
			return err
		}
	}
	for _, f := range fields {
		if !f.optional && !o.Has(f.name) {
			return argErrorf("%s: missing argument %q. Nothing was done.", tool, path+f.name)
		}
	}
	return nil
}

func lookupField(fields []field, name string) (field, bool) {
	for _, f := range fields {
		if f.name == name {
			return f, true
		}
	}
	return field{}, false
}

func names(fields []field, path string) string {
	list := make([]string, len(fields))
	for i, f := range fields {
		list[i] = path + f.name
	}
	return strings.Join(list, ", ")
}

func decodeValue(tool, path string, jv jsonv.Value, kind string, v reflect.Value) *argError {
	t := v.Type()
	wrong := func(what string) *argError {
		return argErrorf("%s: argument %q must be %s. Nothing was done.", tool, path, what)
	}
	switch {
	case t == typeValue:
		if jv != nil {
			v.Set(reflect.ValueOf(jv))
		}
	case t.Kind() == reflect.Pointer && t.Elem() == typeValue:
		p := reflect.New(typeValue)
		if jv != nil {
			p.Elem().Set(reflect.ValueOf(jv))
		}
		v.Set(p)
	case t == typeObject:
		o, ok := jsonv.AsObject(jv)
		if !ok {
			return wrong("a JSON object")
		}
		v.Set(reflect.ValueOf(o))
	case t == typeArray:
		a, ok := jsonv.AsArray(jv)
		if !ok {
			return wrong("a JSON array")
		}
		v.Set(reflect.ValueOf(a))
	case t == typeBytes:
		s, ok := jsonv.AsString(jv)
		if !ok {
			return wrong("a base64 string (standard alphabet, padded)")
		}
		b, err := gate.ParseATR(s)
		if err != nil {
			return wrong("a base64 string (standard alphabet, padded)")
		}
		v.SetBytes(b)
	case t.Kind() == reflect.String:
		s, ok := jsonv.AsString(jv)
		if !ok {
			return wrong("a string")
		}
		v.SetString(s)
	case t.Kind() == reflect.Bool:
		b, ok := jv.(bool)
		if !ok {
			return wrong("true or false")
		}
		v.SetBool(b)
	case t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct:
		o, ok := jsonv.AsObject(jv)
		if !ok {
			return wrong("a JSON object")
		}
		p := reflect.New(t.Elem())
		if err := decodeObject(tool, path+".", o, p.Elem()); err != nil {
			return err
		}
		v.Set(p)
	default:
		return argErrorf("%s: argument %q has a type this server cannot read.", tool, path)
	}
	return nil
}
