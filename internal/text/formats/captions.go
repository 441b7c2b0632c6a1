package formats

import (
	"bytes"
	"strings"
)

// extractTXT: the whole content, after a UTF-8 byte order mark, is one run.
func extractTXT(src []byte, lim Limits) (*View, error) {
	b := newBuilder(src, TXT, lim)
	b.add(skipBOM(src), len(src), encRaw)
	return b.view()
}

// line is a line of the source without its terminator ("\n" or "\r\n").
type line struct{ s, e int }

func splitLines(src []byte, from int) []line {
	lines := make([]line, 0, bytes.Count(src[from:], []byte{'\n'})+1)
	for i := from; i < len(src); {
		j := bytes.IndexByte(src[i:], '\n')
		next := len(src)
		if j < 0 {
			j = len(src)
		} else {
			j += i
			next = j + 1
		}
		e := j
		if e > i && src[e-1] == '\r' {
			e--
		}
		lines = append(lines, line{i, e})
		i = next
	}
	return lines
}

func isBlank(b []byte) bool {
	return len(bytes.TrimSpace(b)) == 0
}

// splitTags calls fn for each piece of src[s0:s1] that is not an inline
// tag. A tag is '<' followed by a letter, digit or '/' up to the next '>'
// (HTML-like SRT tags, WebVTT class, voice and timestamp tags); with curly
// set, "{\...}" (SSA override codes found in SRT files) is a tag too.
func splitTags(src []byte, s0, s1 int, curly bool, fn func(a, b int)) {
	last := s0
	for i := s0; i < s1; i++ {
		c := src[i]
		var close byte
		switch {
		case c == '<' && i+1 < s1 && (isAlnum(src[i+1]) || src[i+1] == '/'):
			close = '>'
		case curly && c == '{' && i+1 < s1 && src[i+1] == '\\':
			close = '}'
		default:
			continue
		}
		j := bytes.IndexByte(src[i+1:s1], close)
		if j < 0 {
			break
		}
		fn(last, i)
		i += j + 1
		last = i + 1
	}
	fn(last, s1)
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// extractSRT takes the text lines of each cue: the non-blank lines after a
// timing line ("... --> ..."), up to a blank line or to the next cue number
// followed by a timing line. Cue numbers, timing lines, blank lines and
// inline tags (<i>, </i>, <font ...>, {\an8}) are not text. Each text line
// becomes a line of View.Text; pieces of a line split by tags are joined
// without a separator.
func extractSRT(src []byte, lim Limits) (*View, error) {
	b := newBuilder(src, SRT, lim)
	lines := splitLines(src, skipBOM(src))
	inCue := false
	for k, l := range lines {
		if b.full() {
			break
		}
		text := src[l.s:l.e]
		if inCue {
			if isBlank(text) {
				inCue = false
				continue
			}
			if allDigits(bytes.TrimSpace(text)) && k+1 < len(lines) && isTiming(src[lines[k+1].s:lines[k+1].e]) {
				inCue = false
				continue
			}
			b.separate("\n")
			splitTags(src, l.s, l.e, true, func(x, y int) { b.add(x, y, encRaw) })
			continue
		}
		if isTiming(text) {
			inCue = true
		}
	}
	return b.view()
}

// extractVTT takes the payload lines of each cue. The header block
// ("WEBVTT" and the lines up to the first empty line), NOTE, STYLE and
// REGION blocks, cue identifiers, timing lines with their cue settings and
// inline tags (<c>, </c>, <v Name>, <00:00:01.000>) are not text;
// character references (&amp;) are decoded. Lines that hold only white
// space are skipped.
//
// Rolling captions, as in YouTube's automatic captions, repeat the lines
// of one cue in the next. A payload line whose text equals the text of a
// line of the previous cue is not added to View.Text again; it becomes a
// copy of that line, and Rewrite applies the line's changes to every copy.
func extractVTT(src []byte, lim Limits) (*View, error) {
	b := newBuilder(src, VTT, lim)
	lines := splitLines(src, skipBOM(src))
	type primary struct{ first, last int }
	type cueLine struct {
		text string
		p    int
	}
	var (
		prims     []primary
		prev, cur []cueLine
		mirrors   []mirror
		segs      []line
		dec       []byte
		prevIndex map[string]int
	)
	k := 0
	if k < len(lines) && bytes.HasPrefix(src[lines[k].s:lines[k].e], []byte("WEBVTT")) {
		for k < len(lines) && lines[k].e > lines[k].s {
			k++
		}
	}
	for k < len(lines) && !b.full() {
		if lines[k].e == lines[k].s {
			k++
			continue
		}
		start := k
		for k < len(lines) && lines[k].e > lines[k].s {
			k++
		}
		block := lines[start:k]
		first := src[block[0].s:block[0].e]
		if isBlockKeyword(first, "NOTE") || isBlockKeyword(first, "STYLE") || isBlockKeyword(first, "REGION") {
			continue
		}
		ti := -1
		for i := 0; i < len(block) && i < 2; i++ {
			if isTiming(src[block[i].s:block[i].e]) {
				ti = i
				break
			}
		}
		if ti < 0 {
			continue
		}
		cur = cur[:0]
		for _, l := range block[ti+1:] {
			if b.full() {
				break
			}
			segs = segs[:0]
			splitTags(src, l.s, l.e, false, func(x, y int) {
				if x < y {
					segs = append(segs, line{x, y})
				}
			})
			dec = dec[:0]
			for _, s := range segs {
				dec, _ = decode(dec, src[s.s:s.e], encEntity)
			}
			if isBlank(dec) {
				continue
			}
			p := -1
			if prevIndex != nil {
				if i, ok := prevIndex[string(dec)]; ok {
					p = i
				}
			} else {
				for _, c := range prev {
					if c.text == string(dec) {
						p = c.p
						break
					}
				}
			}
			if p >= 0 {
				if !b.count(len(segs), 0) {
					break
				}
				b.copies += len(segs)
				pr := prims[p]
				t := b.runs[pr.first].t0
				m := mirror{first: pr.first, last: pr.last}
				for _, s := range segs {
					d, esc := decode(nil, src[s.s:s.e], encEntity)
					m.runs = append(m.runs, run{t0: t, t1: t + len(d), s0: s.s, s1: s.e, esc: esc, enc: encEntity})
					t += len(d)
				}
				mirrors = append(mirrors, m)
				cur = append(cur, cueLine{string(dec), p})
				continue
			}
			b.separate("\n")
			pr := primary{first: len(b.runs)}
			for _, s := range segs {
				b.add(s.s, s.e, encEntity)
			}
			pr.last = len(b.runs)
			prims = append(prims, pr)
			cur = append(cur, cueLine{string(dec), len(prims) - 1})
		}
		if len(cur) > 0 {
			prev, cur = cur, prev
			// A long cue is looked up in a map: comparing each line with each line of the
			// previous cue would take quadratic time.
			prevIndex = nil
			if len(prev) > 16 {
				prevIndex = make(map[string]int, len(prev))
				for _, c := range prev {
					if _, ok := prevIndex[c.text]; !ok {
						prevIndex[c.text] = c.p
					}
				}
			}
		}
	}
	v, err := b.view()
	if err != nil {
		return nil, err
	}
	v.mirrors = mirrors
	return v, nil
}

// isBlockKeyword reports whether line starts a WebVTT block named kw:
// kw alone or followed by a space or tab.
func isBlockKeyword(line []byte, kw string) bool {
	s := string(line)
	return strings.HasPrefix(s, kw) && (len(s) == len(kw) || s[len(kw)] == ' ' || s[len(kw)] == '\t')
}
