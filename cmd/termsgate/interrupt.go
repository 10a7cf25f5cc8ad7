package main

// Ctrl-C during a payment. The process must not die between the signature
// and the line that says where the payment is: the first SIGINT cancels
// what runs (the fetch, the signer's call, the request), the command says in
// one line what was signed or sent, and it exits 130 as a shell reports an
// interrupted command.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails"
)

// exitInterrupted is 128 + SIGINT.
const exitInterrupted = 130

// interrupt follows one command's payment for Ctrl-C.
type interrupt struct {
	sig  chan os.Signal
	hit  atomic.Bool
	done chan struct{}
	once sync.Once

	signed atomic.Int32 // signatures the signer made
}

// catchInterrupt returns ctx cancelled by the first SIGINT, and the
// interrupt that says whether one came. stop ends the catch.
func catchInterrupt(ctx context.Context) (context.Context, *interrupt) {
	ctx, cancel := context.WithCancel(ctx)
	in := &interrupt{sig: make(chan os.Signal, 1), done: make(chan struct{})}
	signal.Notify(in.sig, os.Interrupt)
	go func() {
		defer cancel()
		select {
		case <-in.sig:
			in.hit.Store(true)
		case <-in.done:
		}
	}()
	return ctx, in
}

func (in *interrupt) stop() {
	in.once.Do(func() {
		signal.Stop(in.sig)
		close(in.done)
	})
}

// asking runs f (a passphrase prompt) with SIGINT not caught: a terminal
// read does not end when the context does, so Ctrl-C there ends the process
// at once, as it did before anything was caught; nothing is signed yet.
func (in *interrupt) asking(f func()) {
	signal.Stop(in.sig)
	defer signal.Notify(in.sig, os.Interrupt)
	f()
}

// interrupted reports whether a SIGINT came.
func (in *interrupt) interrupted() bool { return in.hit.Load() }

// watch is s counting the signatures it makes.
func (in *interrupt) watch(s gate.Signer) gate.Signer { return watchedSigner{s, in} }

type watchedSigner struct {
	gate.Signer
	in *interrupt
}

func (w watchedSigner) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	v, err := w.Signer.Sign(ctx, req)
	if err == nil && v != nil {
		w.in.signed.Add(1)
	}
	return v, err
}

// payReport is pay's line after an interrupt: res is what the seller
// answered (nil when it did not), err what the exchange returned, journaled
// whether payments are journaled (--state is not memory).
func (in *interrupt) payReport(stdout, stderr io.Writer, res *pay.Result, err error, journaled bool) int {
	var se *pay.SendError
	var d *gate.Decline
	switch {
	case res != nil:
		fmt.Fprintf(stderr, "termsgate: interrupted: paid %s; the seller answered %d, and its answer was cut short\n", termText(res.Summary.String()), res.StatusCode)
	case errors.As(err, &se) && journaled:
		fmt.Fprintf(stderr, "termsgate: interrupted: signed %s and sent it, unanswered; it is kept in the journal, and the next pay of this URL presents it again instead of signing anew (termsgate payments lists it)\n", termText(se.Result.Summary.String()))
	case errors.As(err, &se):
		fmt.Fprintf(stderr, "termsgate: interrupted: signed %s and sent it, unanswered; it is not journaled (--state memory): the seller may have it, so send it again as is rather than paying anew: -H '%s: %s'\n", termText(se.Result.Summary.String()), se.Result.HeaderName, se.Result.Header)
	case errors.As(err, &d) && d.Moved != nil:
		fmt.Fprintf(stdout, "%s\n", jsonv.Marshal(d.JSON()))
		fmt.Fprintln(stderr, "termsgate: interrupted: a payment was already released; it is kept under \"moved\" in the decline on standard output: present it again, do not sign a new one")
	case in.signed.Load() > 0:
		fmt.Fprintln(stderr, "termsgate: interrupted: signed a payment but sent nothing; it is dropped, and nothing was paid")
	default:
		fmt.Fprintln(stderr, "termsgate: interrupted: nothing signed, nothing sent")
	}
	return exitInterrupted
}

// transactReport is transact's line after an interrupt: res is what the
// gate returned (printed already when not nil), err its error.
func (in *interrupt) transactReport(stdout, stderr io.Writer, res *gate.Transacted, err error) int {
	var d *gate.Decline
	switch {
	case res != nil && res.Signed != nil:
		fmt.Fprintln(stderr, "termsgate: interrupted: signed the payment printed on standard output; it was not sent")
	case errors.As(err, &d) && d.Moved != nil:
		fmt.Fprintf(stdout, "%s\n", jsonv.Marshal(d.JSON()))
		fmt.Fprintln(stderr, "termsgate: interrupted: a payment was already released (sent); it is kept under \"moved\" in the decline on standard output: present it again, do not sign a new one")
	case in.signed.Load() > 0:
		fmt.Fprintln(stderr, "termsgate: interrupted: signed, but nothing was printed or sent; the signature is dropped")
	default:
		fmt.Fprintln(stderr, "termsgate: interrupted: nothing signed, nothing sent")
	}
	return exitInterrupted
}
