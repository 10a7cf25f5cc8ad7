package main

import "io"

// settleDemo is `demo --settle` (internal/settledemo), set only in a binary
// built with -tags simchain: it compiles go-ethereum's node and the
// simulated chain, which the default binary leaves out (internal/depcheck).
var settleDemo func(stdout, stderr io.Writer) int

const settleHint = "termsgate demo: --settle needs the in-process chain, which this binary was built without; run\n" +
	"  go run -tags simchain ./cmd/termsgate demo --settle"
