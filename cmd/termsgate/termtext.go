package main

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Seller-chosen text (a token's name, a settlement's errorReason or
// transaction, a Location header, a status line, what a seller's document
// says) reaches the terminal on the CLI's lines. A terminal obeys control
// characters: "USDC\r\x1b[2K\x1b[1A…" as a token name would rewrite the
// line that names the amount and the payee. So every line the CLI writes to
// stderr passes through termWriter, and seller text set inside one line goes
// through termText, which escapes line breaks too (a seller must not be able
// to print a line of its own that looks like ours). JSON output (stdout) is
// left as it is: its readers are programs, and JSON escapes C0 controls.

// termText escapes s for one terminal line: C0 controls (line breaks and
// tabs included), DEL, C1 controls, invisible format characters (the bidi
// overrides among them, which reorder what is shown) and bytes that are not
// UTF-8 are written as \xNN, \n, \r, \t or \u{NNNN}.
func termText(s string) string { return string(appendTerm(nil, []byte(s), false)) }

// termWriter escapes what it writes as termText does, except the newlines
// and tabs that lay out the CLI's own lines; and it shortens the long
// arguments clip names (main.go's longArgs).
type termWriter struct {
	w    io.Writer
	clip []echoClip
}

func (t termWriter) Write(p []byte) (int, error) {
	n := len(p)
	if len(t.clip) > 0 {
		s := string(p)
		for _, c := range t.clip {
			s = strings.ReplaceAll(s, c.from, c.to)
		}
		p = []byte(s)
	}
	if _, err := t.w.Write(appendTerm(make([]byte, 0, len(p)), p, true)); err != nil {
		return 0, err
	}
	return n, nil
}

func appendTerm(dst, p []byte, layout bool) []byte {
	for len(p) > 0 {
		r, n := utf8.DecodeRune(p)
		switch {
		case r == utf8.RuneError && n == 1:
			dst = fmt.Appendf(dst, `\x%02x`, p[0])
		case layout && (r == '\n' || r == '\t'):
			dst = append(dst, p[:n]...)
		case r == '\n':
			dst = append(dst, `\n`...)
		case r == '\r':
			dst = append(dst, `\r`...)
		case r == '\t':
			dst = append(dst, `\t`...)
		case r < 0x20 || r == 0x7f:
			dst = fmt.Appendf(dst, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f, unicode.Is(unicode.Cf, r), r == '\u2028', r == '\u2029':
			dst = fmt.Appendf(dst, `\u{%04x}`, r)
		default:
			dst = append(dst, p[:n]...)
		}
		p = p[n:]
	}
	return dst
}
