// Package depcheck holds one test: the payment path's import graph stays
// free of the go-ethereum packages a payment gate never runs.
package depcheck
