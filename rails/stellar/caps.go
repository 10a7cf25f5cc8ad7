package stellar

import "github.com/stellar/go-stellar-sdk/xdr"

// The decoder caps over a decoded envelope: every ScVal anywhere (operation
// arguments, authorization entries and their signatures, footprint keys)
// nests vectors and maps at most MaxScValDepth deep, the envelope holds at
// most MaxScElements vector elements and map entries in all, and authorized
// invocations nest at most MaxInvocations deep. The walk stops at the first
// excess, so it is linear in what was decoded.

type caps struct {
	elements int
	ok       bool
}

// ScValWithinCaps reports whether one ScVal, alone, is within the caps.
func ScValWithinCaps(v *xdr.ScVal) bool {
	c := &caps{ok: true}
	c.scVal(v, 0)
	return c.ok
}

// DecodeScVal reads one XDR ScVal (bytes, no trailing data) within the caps.
func DecodeScVal(raw []byte) (*xdr.ScVal, bool) {
	var v xdr.ScVal
	if err := xdr.SafeUnmarshal(raw, &v); err != nil || !ScValWithinCaps(&v) {
		return nil, false
	}
	return &v, true
}

func envelopeWithinCaps(env *xdr.TransactionEnvelope) bool {
	c := &caps{ok: true}
	switch env.Type {
	case xdr.EnvelopeTypeEnvelopeTypeTxV0:
		if env.V0 != nil {
			c.operations(env.V0.Tx.Operations)
		}
	case xdr.EnvelopeTypeEnvelopeTypeTx:
		if env.V1 != nil {
			c.transaction(&env.V1.Tx)
		}
	case xdr.EnvelopeTypeEnvelopeTypeTxFeeBump:
		if env.FeeBump != nil && env.FeeBump.Tx.InnerTx.V1 != nil {
			c.transaction(&env.FeeBump.Tx.InnerTx.V1.Tx)
		}
	}
	return c.ok
}

func (c *caps) transaction(tx *xdr.Transaction) {
	c.operations(tx.Operations)
	if tx.Ext.V == 1 && tx.Ext.SorobanData != nil {
		fp := &tx.Ext.SorobanData.Resources.Footprint
		c.ledgerKeys(fp.ReadOnly)
		c.ledgerKeys(fp.ReadWrite)
	}
}

func (c *caps) operations(ops []xdr.Operation) {
	for i := range ops {
		if !c.ok {
			return
		}
		b := &ops[i].Body
		switch {
		case b.InvokeHostFunctionOp != nil:
			c.hostFunction(&b.InvokeHostFunctionOp.HostFunction)
			for j := range b.InvokeHostFunctionOp.Auth {
				c.authEntry(&b.InvokeHostFunctionOp.Auth[j])
			}
		case b.RevokeSponsorshipOp != nil && b.RevokeSponsorshipOp.LedgerKey != nil:
			c.ledgerKey(b.RevokeSponsorshipOp.LedgerKey)
		}
	}
}

func (c *caps) ledgerKeys(keys []xdr.LedgerKey) {
	for i := range keys {
		c.ledgerKey(&keys[i])
	}
}

func (c *caps) ledgerKey(k *xdr.LedgerKey) {
	if k.ContractData != nil {
		c.scVal(&k.ContractData.Key, 0)
	}
}

func (c *caps) hostFunction(f *xdr.HostFunction) {
	switch {
	case f.InvokeContract != nil:
		c.scVals(f.InvokeContract.Args)
	case f.CreateContractV2 != nil:
		c.scVals(f.CreateContractV2.ConstructorArgs)
	}
}

func (c *caps) authEntry(e *xdr.SorobanAuthorizationEntry) {
	cr := &e.Credentials
	switch {
	case cr.Address != nil:
		c.scVal(&cr.Address.Signature, 0)
	case cr.AddressV2 != nil:
		c.scVal(&cr.AddressV2.Signature, 0)
	case cr.AddressWithDelegates != nil:
		c.scVal(&cr.AddressWithDelegates.AddressCredentials.Signature, 0)
		c.delegates(cr.AddressWithDelegates.Delegates)
	}
	c.invocation(&e.RootInvocation, 1)
}

func (c *caps) delegates(ds []xdr.SorobanDelegateSignature) {
	for i := range ds {
		if !c.ok {
			return
		}
		c.scVal(&ds[i].Signature, 0)
		c.delegates(ds[i].NestedDelegates)
	}
}

func (c *caps) invocation(inv *xdr.SorobanAuthorizedInvocation, level int) {
	if level > MaxInvocations {
		c.ok = false
	}
	if !c.ok {
		return
	}
	switch f := &inv.Function; {
	case f.ContractFn != nil:
		c.scVals(f.ContractFn.Args)
	case f.CreateContractV2HostFn != nil:
		c.scVals(f.CreateContractV2HostFn.ConstructorArgs)
	}
	for i := range inv.SubInvocations {
		c.invocation(&inv.SubInvocations[i], level+1)
	}
}

func (c *caps) scVals(vs []xdr.ScVal) {
	for i := range vs {
		c.scVal(&vs[i], 0)
	}
}

// scVal walks v, whose enclosing containers are depth deep.
func (c *caps) scVal(v *xdr.ScVal, depth int) {
	if !c.ok {
		return
	}
	switch v.Type {
	case xdr.ScValTypeScvVec:
		if v.Vec == nil || *v.Vec == nil {
			return
		}
		c.container(depth + 1)
		vec := **v.Vec
		for i := range vec {
			if c.elements++; c.elements > MaxScElements {
				c.ok = false
				return
			}
			c.scVal(&vec[i], depth+1)
		}
	case xdr.ScValTypeScvMap:
		if v.Map == nil || *v.Map == nil {
			return
		}
		c.entries(**v.Map, depth+1)
	case xdr.ScValTypeScvContractInstance:
		if v.Instance != nil && v.Instance.Storage != nil {
			c.entries(*v.Instance.Storage, depth+1)
		}
	}
}

func (c *caps) entries(m xdr.ScMap, level int) {
	c.container(level)
	for i := range m {
		if c.elements++; c.elements > MaxScElements {
			c.ok = false
			return
		}
		c.scVal(&m[i].Key, level)
		c.scVal(&m[i].Val, level)
	}
}

func (c *caps) container(level int) {
	if level > MaxScValDepth {
		c.ok = false
	}
}
