//go:build simchain

package main

import (
	"fmt"
	"io"

	"github.com/termsgate/termsgate/internal/settledemo"
)

func init() {
	settleDemo = func(stdout, stderr io.Writer) int {
		if err := settledemo.Run(stdout, demoATR, demoBody); err != nil {
			fmt.Fprintln(stderr, "termsgate demo:", err)
			return exitFailure
		}
		return exitOK
	}
}
