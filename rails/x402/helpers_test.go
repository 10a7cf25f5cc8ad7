package x402_test

import "github.com/termsgate/termsgate/rails"

func chosenRef() rails.Chosen { return rails.Chosen{Ref: rails.NewRef()} }
