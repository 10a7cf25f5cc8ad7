package stripe

import (
	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

type railsInspection = rails.Inspection

type chargeInspector struct{ Charge }
type subscriptionInspector struct{ Subscription }

func mustHash() atr.Hash { return atr.Sum([]byte("abc")) }

var _ = jsonv.Obj
