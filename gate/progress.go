package gate

import "context"

// ProgressFunc receives a short description of each step of a long call
// (the agreement exchange can run maxTimeoutSeconds + 180 s). The MCP server
// turns these into progress notifications.
type ProgressFunc func(step string)

type progressKey struct{}

// WithProgress returns a context whose long gate calls report their steps to f.
func WithProgress(ctx context.Context, f ProgressFunc) context.Context {
	return context.WithValue(ctx, progressKey{}, f)
}

func progress(ctx context.Context, step string) {
	if f := progressOf(ctx); f != nil {
		f(step)
	}
}

// progressOf is ctx's ProgressFunc, nil without one: a step whose text is
// put together (a link, a hash) is written only when someone reads it.
func progressOf(ctx context.Context) ProgressFunc {
	f, _ := ctx.Value(progressKey{}).(ProgressFunc)
	return f
}
