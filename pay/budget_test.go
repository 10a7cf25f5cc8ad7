package pay_test

import (
	"testing"

	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/pay/budgettest"
)

func TestMemoryBudget(t *testing.T) {
	budgettest.Run(t, func(*testing.T) pay.Budget { return pay.NewMemoryBudget() })
}
