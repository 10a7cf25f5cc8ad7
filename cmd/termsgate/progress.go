package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/termsgate/termsgate/gate"
)

// stepLog follows the gate's steps (gate.WithProgress). With -v it logs each
// step when it ends, with the time it took; on a terminal, a step still
// running after a second says so on one line that it keeps current, so a 10 s
// fetch or a 240 s agreement exchange is never silent. When stderr is not a
// terminal and -v is off it prints nothing.
type stepLog struct {
	w       io.Writer // the CLI's stderr, escaping control characters
	raw     io.Writer // the terminal itself, for the live line's own \r and erase
	verbose bool
	live    bool

	mu    sync.Mutex
	step  string
	start time.Time
	shown bool // the live line is on screen
	stop  chan struct{}
	once  sync.Once
}

// progressAfter is how long a step runs before the terminal hears of it.
const progressAfter = time.Second

func newStepLog(stderr io.Writer, verbose bool) *stepLog {
	raw := stderr
	if tw, ok := stderr.(termWriter); ok {
		raw = tw.w
	}
	l := &stepLog{w: stderr, raw: raw, verbose: verbose, live: isTerminal(raw), stop: make(chan struct{})}
	if l.live {
		go l.tick()
	}
	return l
}

// isTerminal reports whether w is a character device (a terminal), without
// a dependency: that is all progress lines need to know.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// context returns ctx with the gate's steps reported here.
func (l *stepLog) context(ctx context.Context) context.Context {
	return gate.WithProgress(ctx, l.begin)
}

// begin ends the current step and starts step.
func (l *stepLog) begin(step string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.endLocked()
	l.step, l.start = step, time.Now()
}

// note logs an event that takes no time of its own (an answer), with -v.
func (l *stepLog) note(event string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.endLocked()
	if l.verbose {
		fmt.Fprintf(l.w, "termsgate: %8s  %s\n", "", event)
	}
}

func (l *stepLog) endLocked() {
	if l.step == "" {
		return
	}
	if l.shown {
		fmt.Fprint(l.raw, "\r\033[K")
		l.shown = false
	}
	if l.verbose {
		fmt.Fprintf(l.w, "termsgate: %8s  %s\n", formatMS(time.Since(l.start)), l.step)
	}
	l.step = ""
}

// done ends the last step and stops the live line.
func (l *stepLog) done() {
	l.once.Do(func() {
		close(l.stop)
		l.mu.Lock()
		defer l.mu.Unlock()
		l.endLocked()
	})
}

func (l *stepLog) tick() {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			l.mu.Lock()
			if l.step != "" {
				if d := time.Since(l.start); d >= progressAfter {
					// The step may hold seller text (a link): escaped, on our own line.
					fmt.Fprintf(l.raw, "\rtermsgate: %s … %d s\033[K", termText(l.step), int(d/time.Second))
					l.shown = true
				}
			}
			l.mu.Unlock()
		}
	}
}

func formatMS(d time.Duration) string {
	return fmt.Sprintf("%d ms", d.Milliseconds())
}

// timedTransport reports each request it sends to the seller as a step
// (send) and its status as an event (answer).
type timedTransport struct {
	base http.RoundTripper
	log  *stepLog
}

func (t timedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	what := "sending " + r.Method + " " + r.URL.Redacted()
	if r.Header.Get("Payment-Signature") != "" || strings.HasPrefix(r.Header.Get("Authorization"), "Payment ") {
		what += " with the payment"
	}
	t.log.begin(what)
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		t.log.note("no answer: " + err.Error())
		return nil, err
	}
	t.log.note("the seller answered " + resp.Status)
	return resp, nil
}

// logHandler renders the paying transport's log records (pay.Transport's
// Logger) as -v lines among the steps: the message, then its attributes
// other than the URL the steps already name. The records of the payment
// made and of a decline are left out: the command prints the summary or the
// decline once, after the steps.
func (l *stepLog) logHandler() slog.Handler { return stepLogHandler{l: l} }

type stepLogHandler struct {
	l     *stepLog
	attrs []slog.Attr
}

// saidElsewhere are the records whose content the command prints itself.
var saidElsewhere = map[string]bool{"pay: paid": true, "pay: declined": true}

func (h stepLogHandler) Enabled(context.Context, slog.Level) bool { return h.l.verbose }

func (h stepLogHandler) Handle(_ context.Context, r slog.Record) error {
	if saidElsewhere[r.Message] {
		return nil
	}
	var parts []string
	add := func(a slog.Attr) bool {
		if a.Key != "url" && !a.Equal(slog.Attr{}) {
			parts = append(parts, a.Key+" "+a.Value.String())
		}
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	text := strings.TrimPrefix(r.Message, "pay: ")
	if len(parts) > 0 {
		text += " (" + strings.Join(parts, ", ") + ")"
	}
	h.l.note(text)
	return nil
}

func (h stepLogHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return stepLogHandler{l: h.l, attrs: append(append([]slog.Attr(nil), h.attrs...), as...)}
}

func (h stepLogHandler) WithGroup(string) slog.Handler { return h }
