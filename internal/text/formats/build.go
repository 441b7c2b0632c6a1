package formats

import (
	"bytes"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// encoding says how a run's text is stored in the source.
type encoding uint8

const (
	encRaw    encoding = iota // verbatim
	encEntity                 // HTML, WebVTT and XML character references
	encJSON                   // the inside of a JSON string
)

// encode returns s as it must be written into a run of encoding e.
func encode(s string, e encoding) []byte {
	switch e {
	case encEntity:
		b := make([]byte, 0, len(s)+8)
		for i := 0; i < len(s); i++ {
			switch c := s[i]; c {
			case '&':
				b = append(b, "&amp;"...)
			case '<':
				b = append(b, "&lt;"...)
			case '>':
				b = append(b, "&gt;"...)
			default:
				b = append(b, c)
			}
		}
		return b
	case encJSON:
		b := make([]byte, 0, len(s)+8)
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, `\n`...)
			case c == '\r':
				b = append(b, `\r`...)
			case c == '\t':
				b = append(b, `\t`...)
			case c < 0x20:
				b = append(b, `\u00`...)
				b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
			default:
				b = append(b, c)
			}
		}
		return b
	}
	return []byte(s)
}

// newBuilder returns a builder for src of format f within lim (with its defaults set).
func newBuilder(src []byte, f Format, lim Limits) *builder {
	return &builder{src: src, format: f, lim: lim, text: make([]byte, 0, min(len(src)+len(src)/8+16, lim.MaxText+1))}
}

// builder assembles View.Text and its runs.
type builder struct {
	src  []byte
	text []byte
	runs []run
	sep  string // separator requested before the next run

	format Format
	lim    Limits
	// escapes counts the escape sequences decoded so far.
	escapes int
	// copies counts the runs of VTT mirrors, which count against the limit on runs.
	copies int
	// err is the limit the document went beyond; once set, add adds nothing.
	err error
}

// full reports whether the document went beyond a limit: the extractor may stop.
func (b *builder) full() bool { return b.err != nil }

// fail records that the document went beyond a limit (the first one met is kept).
func (b *builder) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// count checks n more runs (with esc escape sequences) against the limits.
func (b *builder) count(runs, esc int) bool {
	b.escapes += esc
	switch {
	case len(b.text) > b.lim.MaxText:
		b.fail(tooLarge(b.format, "the extracted text is longer than %d bytes", b.lim.MaxText))
	case len(b.runs)+b.copies+runs > b.lim.MaxRuns:
		b.fail(tooLarge(b.format, "the document splits into more than %d text runs", b.lim.MaxRuns))
	case b.escapes > b.lim.MaxEscapes:
		b.fail(tooLarge(b.format, "the text holds more than %d character references or escapes", b.lim.MaxEscapes))
	}
	return b.err == nil
}

// separate requests separator s before the next run. The strongest request
// wins: "\n" over " " over "".
func (b *builder) separate(s string) {
	if s == "\n" || b.sep == "" {
		b.sep = s
	}
}

// add appends source bytes [s0, s1), decoded per e, as a run. Empty ranges
// are ignored. A range that continues the previous run in the source with
// no separator requested is merged into it. add returns the index of the
// run the bytes went into, or -1.
func (b *builder) add(s0, s1 int, e encoding) int {
	if s0 >= s1 || b.err != nil {
		return -1
	}
	gap := false
	if len(b.runs) > 0 && b.sep != "" {
		b.text = append(b.text, b.sep...)
		gap = true
	}
	b.sep = ""
	t0 := len(b.text)
	// Each escape sequence starts with one of these bytes: counting them bounds the escapes
	// before any is decoded.
	switch e {
	case encEntity:
		if !b.count(0, bytes.Count(b.src[s0:s1], []byte{'&'})) {
			return -1
		}
	case encJSON:
		if !b.count(0, bytes.Count(b.src[s0:s1], []byte{'\\'})) {
			return -1
		}
	}
	var esc []escape
	b.text, esc = decode(b.text, b.src[s0:s1], e)
	if !b.count(1, 0) {
		return -1
	}
	if n := len(b.runs); n > 0 && !gap {
		p := &b.runs[n-1]
		if p.s1 == s0 && p.enc == e && p.tag == 0 && p.t1 == t0 {
			for _, x := range esc {
				x.t += p.t1 - p.t0
				x.s += p.s1 - p.s0
				p.esc = append(p.esc, x)
			}
			p.t1, p.s1 = len(b.text), s1
			return n - 1
		}
	}
	b.runs = append(b.runs, run{t0: t0, t1: len(b.text), s0: s0, s1: s1, esc: esc, enc: e, gap: gap})
	return len(b.runs) - 1
}

// view returns the finished View, or the limit the document went beyond.
func (b *builder) view() (*View, error) {
	if b.err != nil {
		return nil, b.err
	}
	return &View{Text: string(b.text), src: b.src, runs: b.runs}, nil
}

// decode appends the text of src in encoding e to dst and returns the
// escape sequences met, relative to the start of src and of the appended
// text.
func decode(dst, src []byte, e encoding) ([]byte, []escape) {
	switch e {
	case encEntity:
		return decodeEntities(dst, src)
	case encJSON:
		return decodeJSON(dst, src)
	}
	return append(dst, src...), nil
}

// decodeEntities decodes character references of the form "&name;",
// "&#n;" and "&#xh;". Other ampersands are text.
func decodeEntities(dst, src []byte) ([]byte, []escape) {
	var esc []escape
	base := len(dst)
	last := 0
	for i := 0; i < len(src); i++ {
		if src[i] != '&' {
			continue
		}
		j := i + 1
		for j < len(src) && j-i <= 40 && isRefByte(src[j]) {
			j++
		}
		if j >= len(src) || src[j] != ';' || j == i+1 {
			continue
		}
		ref := string(src[i : j+1])
		dec := html.UnescapeString(ref)
		if dec == ref {
			continue
		}
		dst = append(dst, src[last:i]...)
		esc = append(esc, escape{t: len(dst) - base, tn: len(dec), s: i, sn: j + 1 - i})
		dst = append(dst, dec...)
		last = j + 1
		i = j
	}
	return append(dst, src[last:]...), esc
}

func isRefByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '#'
}

// decodeJSON decodes the inside of a JSON string (already validated by the
// scanner). Invalid \u sequences and lone surrogates decode to U+FFFD.
func decodeJSON(dst, src []byte) ([]byte, []escape) {
	var esc []escape
	base := len(dst)
	last := 0
	for i := 0; i < len(src); {
		if src[i] != '\\' || i+1 >= len(src) {
			i++
			continue
		}
		dst = append(dst, src[last:i]...)
		t := len(dst) - base
		n := 2
		switch c := src[i+1]; c {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := hex4(src[i+2:])
			n = 6
			if !ok {
				r, n = utf8.RuneError, 2
			} else if utf16.IsSurrogate(r) {
				r2, ok2 := rune(0), false
				if i+12 <= len(src) && src[i+6] == '\\' && src[i+7] == 'u' {
					r2, ok2 = hex4(src[i+8:])
				}
				if d := utf16.DecodeRune(r, r2); ok2 && d != utf8.RuneError {
					r, n = d, 12
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
		default:
			dst = append(dst, c)
		}
		esc = append(esc, escape{t: t, tn: len(dst) - base - t, s: i, sn: n})
		i += n
		last = i
	}
	return append(dst, src[last:]...), esc
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[:4]), 16, 32)
	return rune(v), err == nil
}
