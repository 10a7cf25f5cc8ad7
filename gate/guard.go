package gate

import (
	"context"
	"errors"
	"fmt"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// errThrew stands for a pairing member that panicked or failed with an error
// that is no refusal: the reference gates' "throw".
var errThrew = errors.New("gate: pairing member failed")

// protect runs one pairing member and turns a panic, or an error that is no
// refusal, into errThrew, so that seller input can never crash the caller.
func protect[T any](f func() (T, error)) (out T, err error) {
	defer func() {
		if r := recover(); r != nil {
			var zero T
			out, err = zero, errThrew
		}
	}()
	out, err = f()
	if err != nil && !isRefusal(err) {
		return out, errThrew
	}
	return out, err
}

// signSafely asks the signer, turning a panic into an error. Unlike protect
// it keeps the signer's own error: it is the signer-failed decline's cause
// (a locked key, a refused prompt, an unreachable Clef).
func signSafely(ctx context.Context, signer Signer, req rails.Request) (v jsonv.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("gate: the signer panicked: %v", r)
		}
	}()
	return signer.Sign(ctx, req)
}

// call is protect with a throw reported as the refusal failCode
// (docs/protocol.md, "Declines": a throw in build is <ns>/build-failed,
// in bound bound-failed).
func call[T any](failCode string, f func() (T, error)) (T, error) {
	out, err := protect(f)
	if errors.Is(err, errThrew) {
		return out, rails.Refuse(failCode)
	}
	return out, err
}

// callIn is call with the refusal ns+what, joined only on a throw: the
// checks that pass (every one, on a payment made) then write no code.
func callIn[T any](ns, what string, f func() (T, error)) (T, error) {
	out, err := protect(f)
	if errors.Is(err, errThrew) {
		return out, rails.Refuse(ns + what)
	}
	return out, err
}

func isRefusal(err error) bool {
	var ref *rails.Refusal
	return errors.As(err, &ref)
}

// refusalCode is the code of a refusal returned by call.
func refusalCode(err error) string {
	var ref *rails.Refusal
	if errors.As(err, &ref) {
		return ref.Code
	}
	return fmt.Sprint(err)
}

func hasSuffix(s, suffix string) bool {
	return len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix
}

// nothingToSign reports a refusal that means "the build is itself the
// payment": no request for the buyer to sign.
func nothingToSign(code string) bool {
	return hasSuffix(code, "/no-signed-place") || hasSuffix(code, "/nothing-to-sign")
}
