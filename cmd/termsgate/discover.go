package main

// termsgate discover: read a seller's LCP discovery document
// (/.well-known/legal-context.json) under the ATR's fetch rules. It is a
// listing, not a confirmation: it shows where the seller says its terms
// are, and the gate still checks the ATR against H before anything is paid.

import (
	"context"
	"io"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/discovery"
	"github.com/termsgate/termsgate/jsonv"
)

func init() {
	commands["discover"] = command{"read a seller's LCP discovery document (/.well-known/legal-context.json; a listing, not a confirmation)", runDiscover}
}

func runDiscover(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	f := newFlags("discover", "discover [--allow-private] [--ca-file FILE] https://SELLER[/PATH]\n\n"+
		"Fetches https://SELLER/.well-known/legal-context.json (or the URL given, when it has a path) as the ATR is\n"+
		"fetched (https only, no redirect, identity coding, 10 s) and prints its known members in LCP's order, the\n"+
		"members ignored, and the bytes' SHA-256 and ETag. A refused document is a decline (exit 1).", stderr).addNetwork()
	if err := parseFlags(f.fs, args); err != nil {
		return exitUsage
	}
	if f.fs.NArg() != 1 {
		f.fs.Usage()
		return exitUsage
	}
	var res *discovery.Result
	err := f.run(context.Background(), stderr, func(ctx context.Context) error {
		var err error
		res, err = discovery.Fetch(ctx, &atr.Fetcher{Client: f.client()}, f.fs.Arg(0))
		return err
	})
	if err != nil {
		return printResult(stdout, stderr, nil, err)
	}
	ignored := make([]jsonv.Value, len(res.Ignored))
	for i, p := range res.Ignored {
		ignored[i] = p
	}
	return printResult(stdout, stderr, jsonv.Obj(
		"url", res.URL,
		"document", res.Document.JSON(),
		"ignored", ignored,
		"sha256", atr.Sum(res.Bytes).String(),
		"etag", discovery.ETag(res.Bytes),
		"bytes", len(res.Bytes),
	), nil)
}
