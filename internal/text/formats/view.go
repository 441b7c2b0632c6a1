package formats

import (
	"errors"
	"fmt"
	"sort"
)

// Edit replaces View.Text[Start:End] with Replacement.
type Edit struct {
	Start, End  int
	Replacement string
}

// View is the correctable text of a document and the way back to its bytes.
//
// A View is immutable after Extract returns it and safe for concurrent use.
type View struct {
	// Text is the correctable text: the document's text runs joined by
	// separators (see the package documentation).
	Text string

	format   Format
	src      []byte // the bytes runs point into; word/document.xml for DOCX
	orig     []byte // DOCX: the original zip archive
	runs     []run  // visible runs, in Text and source order
	mirrors  []mirror
	newlines []int // offsets of '\n' in src
}

// run is a contiguous piece of the source that appears in View.Text.
type run struct {
	t0, t1 int      // range in View.Text
	s0, s1 int      // range in the source
	esc    []escape // escape sequences; nil when the text is the source verbatim
	enc    encoding
	gap    bool // a non-empty separator precedes the run in View.Text
	tag    int  // DOCX: offset of the '>' of a <w:t> start tag without xml:space, else 0
	para   int  // DOCX: 1-based paragraph number
}

// escape is one escape sequence in a run: text bytes [t, t+tn) of the run
// decode source bytes [s, s+sn). Offsets are relative to the run's t0 and s0.
type escape struct{ t, tn, s, sn int }

// mirror is a copy elsewhere in the source of the text of the visible runs
// [first, last). Its runs carry View.Text coordinates of the text they
// repeat. Rewrite applies to a mirror whatever it applies to those runs.
type mirror struct {
	first, last int
	runs        []run
}

// srcPos maps offset o of the run's text to an offset of the run's source,
// both relative. When o falls strictly inside an escape sequence, the
// whole sequence is taken: for a start the sequence's start, for an end its
// end. It also returns the text offset that corresponds to the result.
func (r *run) srcPos(o int, start bool) (s, t int) {
	k := sort.Search(len(r.esc), func(i int) bool { return r.esc[i].t > o }) - 1
	if k < 0 {
		return o, o
	}
	e := r.esc[k]
	switch {
	case o == e.t:
		return e.s, o
	case o >= e.t+e.tn:
		return e.s + e.sn + o - e.t - e.tn, o
	case start:
		return e.s, e.t
	default:
		return e.s + e.sn, e.t + e.tn
	}
}

// verbatim reports whether text [o1, o2) of the run is the same bytes in
// the source, that is, no escape sequence overlaps it.
func (r *run) verbatim(o1, o2 int) bool {
	k := sort.Search(len(r.esc), func(i int) bool { return r.esc[i].t >= o2 }) - 1
	return k < 0 || r.esc[k].t+r.esc[k].tn <= o1
}

// find returns the index of the last run starting at or before text
// offset x, or 0.
func find(runs []run, x int) int {
	k := sort.Search(len(runs), func(i int) bool { return runs[i].t0 > x }) - 1
	if k < 0 {
		return 0
	}
	return k
}

// Source maps the byte range [start, end) of View.Text to the range of the
// original content that holds it; for DOCX the offsets are into the
// archive's word/document.xml. ok is true when the range lies in one run
// and the source holds exactly the same bytes; it is false when the range
// crosses a separator or markup between runs, or covers an escape sequence
// (a JSON \u escape, an HTML entity) whose source bytes differ from the
// text. When ok is false srcStart and srcEnd still give the smallest source
// range that covers the text (widened to whole escape sequences), or
// 0, 0 when start and end are not a valid range of View.Text. For a VTT
// line repeated by rolling captions, Source gives the copy shown in
// View.Text (the first one).
func (v *View) Source(start, end int) (srcStart, srcEnd int, ok bool) {
	if start < 0 || end < start || end > len(v.Text) || len(v.runs) == 0 {
		return 0, 0, false
	}
	i := find(v.runs, start)
	ri := &v.runs[i]
	if start == end {
		if start > ri.t1 || start < ri.t0 {
			return ri.s1, ri.s1, false
		}
		s, t := ri.srcPos(start-ri.t0, true)
		return ri.s0 + s, ri.s0 + s, t == start-ri.t0
	}
	j := find(v.runs, end-1)
	rj := &v.runs[j]
	if start >= ri.t1 || start < ri.t0 {
		if i+1 < len(v.runs) && start >= ri.t1 {
			srcStart = v.runs[i+1].s0
		} else {
			srcStart = ri.s1
		}
	} else {
		s, _ := ri.srcPos(start-ri.t0, true)
		srcStart = ri.s0 + s
	}
	if end > rj.t1 || end <= rj.t0 {
		srcEnd = rj.s1
	} else {
		s, _ := rj.srcPos(end-rj.t0, false)
		srcEnd = rj.s0 + s
	}
	if srcEnd < srcStart {
		srcEnd = srcStart
	}
	ok = i == j && start >= ri.t0 && end <= ri.t1 && ri.verbatim(start-ri.t0, end-ri.t0)
	return srcStart, srcEnd, ok
}

// Line returns the 1-based line in the original content of View.Text
// offset off. An offset in a separator belongs to the run before it.
// Offsets out of range are clamped. For DOCX, where lines of the archive
// mean nothing, it returns the 1-based paragraph number of word/document.xml.
func (v *View) Line(off int) int {
	if len(v.runs) == 0 {
		return 1
	}
	off = max(0, min(off, len(v.Text)))
	r := &v.runs[find(v.runs, off)]
	if v.format == DOCX {
		return r.para
	}
	s := r.s1
	if off <= r.t1 {
		o, _ := r.srcPos(max(off-r.t0, 0), true)
		s = r.s0 + o
	}
	return sort.SearchInts(v.newlines, s) + 1
}

// op is an edit confined to one run: text [o1, o2) of the run, relative
// to its t0, becomes repl.
type op struct {
	run    int
	o1, o2 int
	repl   string
}

// patch replaces source bytes [s0, s1) with b.
type patch struct {
	s0, s1 int
	b      []byte
}

// Rewrite applies edits to the original content and returns the new
// document bytes. The edits are in View.Text coordinates, sorted by Start
// and non-overlapping (an insertion may share its offset with the start of
// the next edit). An edit inside one run changes exactly the source bytes
// of its range (widened to whole escape sequences, whose other text is
// re-encoded); replacements are encoded as the format requires (JSON
// string escapes, HTML and XML entities for '&', '<' and '>'). Edits that
// cross runs follow the rule in the package documentation. Where a line of
// text is repeated (rolling YouTube captions) the same change is applied to
// every copy. Rewrite(nil) returns a copy of the original content.
func (v *View) Rewrite(edits []Edit) ([]byte, error) {
	prev := 0
	for k, e := range edits {
		if e.Start < 0 || e.End < e.Start || e.End > len(v.Text) {
			return nil, fmt.Errorf("formats: edit %d: range [%d, %d) out of text of length %d", k, e.Start, e.End, len(v.Text))
		}
		if e.Start < prev {
			return nil, fmt.Errorf("formats: edit %d: not sorted or overlaps the previous edit", k)
		}
		prev = e.End
	}
	if len(v.runs) == 0 {
		for _, e := range edits {
			if e.Replacement != "" {
				return nil, errors.New("formats: edit of a document without text")
			}
		}
		edits = nil
	}
	ops := distribute(v.Text, v.runs, edits, true)
	patches := v.patches(v.runs, ops, nil)
	if len(v.mirrors) > 0 && len(patches) > 0 {
		var sub []Edit
		for mi := range v.mirrors {
			m := &v.mirrors[mi]
			k := sort.Search(len(ops), func(i int) bool { return ops[i].run >= m.first })
			sub = sub[:0]
			for ; k < len(ops) && ops[k].run < m.last; k++ {
				o := ops[k]
				t0 := v.runs[o.run].t0
				sub = append(sub, Edit{t0 + o.o1, t0 + o.o2, o.repl})
			}
			patches = v.patches(m.runs, distribute(v.Text, m.runs, sub, false), patches)
		}
		sort.SliceStable(patches, func(a, b int) bool { return patches[a].s0 < patches[b].s0 })
	}
	out, err := splice(v.src, patches)
	if err != nil {
		return nil, err
	}
	if v.format == DOCX {
		if len(patches) == 0 {
			return append([]byte(nil), v.orig...), nil
		}
		return rezip(v.orig, out)
	}
	return out, nil
}

// distribute splits edits into per-run operations; text is View.Text. With absorb set, the
// blanks after a prefix removed from a later run are removed as well when
// a separator precedes that run (see the package documentation).
func distribute(text string, runs []run, edits []Edit, absorb bool) []op {
	if len(runs) == 0 {
		return nil
	}
	var ops []op
	for k, e := range edits {
		if text[e.Start:e.End] == e.Replacement {
			continue
		}
		// i holds the edit's start, j its last byte (or its end when empty).
		i, j := find(runs, e.Start), find(runs, max(e.End-1, e.Start))
		ri, rj := &runs[i], &runs[j]
		oa := min(e.Start, ri.t1) - ri.t0
		ob := min(e.End, rj.t1) - rj.t0
		oa, ob = max(oa, 0), max(ob, 0)
		if i == j {
			ops = append(ops, op{i, oa, ob, e.Replacement})
			continue
		}
		ops = append(ops, op{i, oa, ri.t1 - ri.t0, e.Replacement})
		for m := i + 1; m < j; m++ {
			ops = append(ops, op{m, 0, runs[m].t1 - runs[m].t0, ""})
		}
		if ob == 0 {
			continue
		}
		limit := len(text)
		if k+1 < len(edits) {
			limit = edits[k+1].Start
		}
		if !absorb || !rj.gap {
			ops = append(ops, op{j, 0, ob, ""})
			continue
		}
		// Remove the blanks after the removed prefix, through the runs
		// that follow without a separator.
		for m := j; m < len(runs); m++ {
			r := &runs[m]
			if m > j && r.gap {
				break
			}
			o := ob
			if m > j {
				o = 0
			}
			for r.t0+o < min(r.t1, limit) && (text[r.t0+o] == ' ' || text[r.t0+o] == '\t') {
				o++
			}
			if o > 0 {
				ops = append(ops, op{m, 0, o, ""})
			}
			if r.t0+o < r.t1 {
				break
			}
		}
	}
	return ops
}

// splice applies sorted, non-overlapping patches to src.
func splice(src []byte, patches []patch) ([]byte, error) {
	n := len(src)
	for _, p := range patches {
		n += len(p.b) - (p.s1 - p.s0)
	}
	out := make([]byte, 0, max(n, 0))
	at := 0
	for _, p := range patches {
		if p.s0 < at || p.s1 < p.s0 || p.s1 > len(src) {
			return nil, errors.New("formats: internal error: overlapping source changes")
		}
		out = append(out, src[at:p.s0]...)
		out = append(out, p.b...)
		at = p.s1
	}
	return append(out, src[at:]...), nil
}

// patches appends to dst the source patches for ops on runs. Ops on one
// run whose source ranges, widened to whole escape sequences, overlap are
// merged into one patch.
func (v *View) patches(runs []run, ops []op, dst []patch) []patch {
	tagged := -1
	for k := 0; k < len(ops); {
		o := ops[k]
		r := &runs[o.run]
		text := v.Text[r.t0:r.t1]
		_, pre := r.srcPos(o.o1, true)
		_, suf := r.srcPos(o.o2, false)
		repl := o.repl
		for k++; k < len(ops) && ops[k].run == o.run; k++ {
			n := ops[k]
			_, npre := r.srcPos(n.o1, true)
			if npre >= suf {
				break
			}
			repl += text[o.o2:n.o1] + n.repl
			o.o2 = n.o2
			_, suf = r.srcPos(n.o2, false)
		}
		if text[o.o1:o.o2] == repl {
			continue
		}
		s0, _ := r.srcPos(pre, true)
		s1, _ := r.srcPos(suf, false)
		if pre < o.o1 || suf > o.o2 {
			repl = text[pre:o.o1] + repl + text[o.o2:suf]
		}
		if r.tag > 0 && o.run != tagged {
			tagged = o.run
			dst = append(dst, patch{r.tag, r.tag, []byte(` xml:space="preserve"`)})
		}
		dst = append(dst, patch{r.s0 + s0, r.s0 + s1, encode(repl, r.enc)})
	}
	return dst
}
