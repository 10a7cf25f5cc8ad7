package main

// --state: where the spend budget and the payment journal live (package
// ledger; docs/paying-client.md, "The store").

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/termsgate/termsgate/ledger"
	"github.com/termsgate/termsgate/pay"
)

const stateUsage = "where the spend budget and the payment journal are kept: a file, or a postgres:// URL shared by a fleet, or \"memory\" for none that outlives the process (default: $TERMSGATE_STATE, else termsgate/state.db under the user's state directory, e.g. ~/.local/state)"

// stateEnv, when set, is the default of --state.
const stateEnv = "TERMSGATE_STATE"

// stateMemory is the --state value that keeps nothing.
const stateMemory = "memory"

// addStateFlag adds --state to fs.
func addStateFlag(fs *flag.FlagSet) *string {
	return fs.String("state", "", stateUsage)
}

// openStores shares one open store per --state value within the process:
// the embedded file admits one opener at a time, and the tests run several
// commands in one process.
var openStores struct {
	sync.Mutex
	m map[string]*sharedStore
}

type sharedStore struct {
	ledger.Store
	refs int
}

// openState opens the store --state names (its default when spec is
// empty); nil, nil for "memory". Call the returned close when done.
func openState(ctx context.Context, spec string) (ledger.Store, func(), error) {
	if spec == "" {
		spec = os.Getenv(stateEnv)
	}
	if spec == stateMemory {
		return nil, func() {}, nil
	}
	if spec == "" {
		p, err := ledger.DefaultPath()
		if err != nil {
			return nil, nil, err
		}
		spec = p
	}
	openStores.Lock()
	defer openStores.Unlock()
	if openStores.m == nil {
		openStores.m = map[string]*sharedStore{}
	}
	s := openStores.m[spec]
	if s == nil {
		st, err := ledger.Open(ctx, spec)
		if err != nil {
			return nil, nil, fmt.Errorf("--state: %w", err)
		}
		s = &sharedStore{Store: st}
		openStores.m[spec] = s
	}
	s.refs++
	var once sync.Once
	return s.Store, func() {
		once.Do(func() {
			openStores.Lock()
			defer openStores.Unlock()
			if s.refs--; s.refs == 0 {
				delete(openStores.m, spec)
				s.Close()
			}
		})
	}, nil
}

// stateBudget is the budget kept in the store --state names, open for the
// rest of the process (a signing command's or a server's life); nil for
// "memory".
func stateBudget(spec string) (pay.Budget, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	store, _, err := openState(ctx, spec)
	if err != nil || store == nil {
		return nil, err
	}
	return ledger.Budget(store), nil
}
