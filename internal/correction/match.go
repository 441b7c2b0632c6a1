package correction

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// autoThreshold is the confidence from which a change is applied.
const autoThreshold = 0.85

// matcher runs one Find over one text.
type matcher struct {
	e            *Engine
	d            *dict
	sc           *scanner
	opts         Options
	bible, place bool
	out          []Change
}

// cand is a dictionary form that ends at token j.
type cand struct {
	n *node
	j int
}

func (m *matcher) run() []Change {
	for i := 0; i < len(m.sc.toks); {
		next := m.at(i)
		if next <= i {
			next = i + 1
		}
		i = next
	}
	return m.out
}

// walk returns the dictionary forms that start at token i, shortest first.
func (m *matcher) walk(i int, buf *[8]cand) []cand {
	c := buf[:0]
	sc := m.sc
	n, ok := lookup(sc, m.d.root, i)
	if !ok {
		return c
	}
	for j := i; ; {
		if n.book != nil || n.place != nil {
			c = append(c, cand{n, j})
		}
		if len(n.next) == 0 || len(c) == len(buf) || !sc.nameGap(j) {
			return c
		}
		if n, ok = lookup(sc, n.next, j+1); !ok {
			return c
		}
		j++
	}
}

// at looks for a correction starting at token i and returns the token to
// continue from.
func (m *matcher) at(i int) int {
	sc := m.sc
	t := sc.toks[i]
	if n := t.e() - t.s(); n < 32 {
		// Skip the lookups for words whose length and first and last
		// letters no dictionary key has. Non-ASCII letters map to 0 and
		// are marked like any other shape.
		k := (n*27+letterIndex(sc.text[t.s()]))*27 + letterIndex(sc.text[t.e()-1])
		if !m.d.first[k] {
			if m.place && n >= 6 && m.d.fuzzyShape[k] {
				m.fuzzyPlace(i)
			}
			return i + 1
		}
	}
	var buf [8]cand
	if m.bible {
		if p, ok := lookup(sc, m.d.prefixes, i); ok && sc.nameGap(i) {
			cands := m.walk(i+1, &buf)
			for k := len(cands) - 1; k >= 0; k-- {
				f := cands[k].n.book
				if f == nil || f.pfam == nil || f.pkind == kNone {
					continue
				}
				if next, ok := m.evalPrefixed(i, cands[k].j, p, f); ok {
					return next
				}
			}
		}
	}
	cands := m.walk(i, &buf)
	for k := len(cands) - 1; k >= 0; k-- {
		c := cands[k]
		if m.bible && c.n.book != nil {
			if next, ok := m.evalBook(i, c.j, c.n.book); ok {
				return next
			}
		}
		if m.place && c.n.place != nil && (c.n.book == nil || c.n.book.kind == kNone) {
			if next, ok := m.evalPlace(i, c.j, c.n.place); ok {
				return next
			}
		}
	}
	if m.place && len(cands) == 0 {
		m.fuzzyPlace(i)
	}
	return i + 1
}

// strongCue reports whether the words before token i announce a book:
// "the book of", "the gospel of", "the epistle to", "according to".
func (m *matcher) strongCue(i int) bool {
	sc := m.sc
	if sc.isAny(i-1, "of", "to") && sc.isAny(i-2, "book", "gospel", "epistle", "epistles", "letter", "letters", "books") {
		return true
	}
	return sc.is(i-1, "to") && sc.is(i-2, "according")
}

// weakCue reports whether the word before token i often precedes a
// reference: "in", "turn to", "read".
func (m *matcher) weakCue(i int) bool {
	return m.sc.isAny(i-1, "in", "to", "from", "read", "reading", "see", "turn", "open", "at")
}

func (m *matcher) evalPrefixed(i, j int, p prefix, f *bookForm) (int, bool) {
	sc := m.sc
	b := f.pfam.books[p.num]
	if b == nil {
		return 0, false
	}
	if p.style == pRoman && !sc.toks[i].upper {
		return 0, false
	}
	if p.style == pDigit || p.style == pCardWord {
		// "chapter 1 john says", "verse one peter": the number belongs to
		// the reference before.
		if sc.isAny(i-1, "chapter", "chapters", "verse", "verses", "v", "vs") {
			return 0, false
		}
		if i > 0 && sc.toks[i-1].digits &&
			strings.Trim(sc.text[sc.toks[i-1].e():sc.toks[i].s()], " \t") == "" {
			return 0, false // "romans 8 28 1 john": no separator, a verse number
		}
	}
	r := m.parseRef(j + 1)
	baseRisk := f.risk != riskNone || f.pkind >= kAbbrev
	var conf float64
	switch {
	case p.style == pCardWord || (p.style == pRoman && p.num == 1):
		switch {
		case !r.ok:
			return 0, false
		case r.strong:
			conf = 0.92
		default:
			conf = 0.6
		}
	case baseRisk:
		switch {
		case r.strong:
			conf = 0.95
		case r.ok:
			conf = 0.88
		case m.strongCue(i):
			conf = 0.88
		case f.pkind >= kAbbrev:
			return 0, false
		default:
			conf = 0.55
		}
	default:
		conf = 0.95
		if r.ok {
			conf = 0.98
		}
	}
	var rule string
	switch p.style {
	case pOrdWord, pCardWord:
		rule = "book.spoken_ordinal"
	case pOrdinal, pRoman:
		rule = "book.ordinal"
	default:
		base := sc.text[sc.toks[i+1].s():sc.toks[j].e()]
		switch {
		case strings.EqualFold(base, f.pfam.base):
			rule = "book.lowercase"
		case f.pkind == kAbbrev:
			rule = "book.abbreviation"
		default:
			rule = "book.misspelling"
		}
	}
	return m.emitBook(i, j, b.name, r, rule, conf), true
}

func (m *matcher) evalBook(i, j int, f *bookForm) (int, bool) {
	if f.kind == kNone {
		return 0, false
	}
	sc := m.sc
	r := m.parseRef(j + 1)
	orig := sc.text[sc.toks[i].s():sc.toks[j].e()]
	upper := sc.firstUpper(i)
	midUpper := upper && !sc.sentenceStart(i)
	rk := f.risk
	name := f.name
	psalm := f.book != nil && f.book.osis == "Ps"
	if psalm {
		switch {
		case upper:
			rk = riskNone
		case r.ok:
			rk = riskRareName // "psalm 23"
		}
		plural := strings.HasSuffix(strings.ToLower(orig), "s")
		switch {
		case r.ok && r.chapterRange, !r.ok && plural:
			name = "Psalms"
		default:
			name = "Psalm"
		}
	}
	misspelled := f.kind == kMisspelling && !strings.EqualFold(orig, name)
	dangerous := f.kind >= kAbbrev
	strongCue := m.strongCue(i)
	var conf float64
	switch {
	case rk == riskEnglish:
		switch {
		case r.strong:
			conf = 0.9
		case r.ok && strongCue:
			conf = 0.88
		case r.ok && midUpper && misspelled:
			conf = 0.86 // "see Revelations 3"
		case !r.ok && midUpper && misspelled:
			conf = 0.7 // "in Revelations we read", but "the Revelations of the prophets"
		case r.ok && m.weakCue(i):
			conf = 0.7
		case !r.ok && strongCue:
			conf = 0.88
		case !r.ok && !dangerous && sc.is(i-1, "in"):
			conf = 0.55 // "in genesis"
		default:
			return 0, false
		}
	case rk == riskCommonName:
		switch {
		case r.strong:
			conf = 0.92
		case r.ok && (m.weakCue(i) || strongCue):
			conf = 0.86
		case r.ok:
			conf = 0.65
		case strongCue:
			conf = 0.88
		default:
			return 0, false
		}
	case rk == riskRareName:
		switch {
		case r.strong:
			conf = 0.93
		case r.ok, strongCue:
			conf = 0.88
		case midUpper && misspelled:
			conf = 0.88
		default:
			conf = 0.6
		}
	case dangerous:
		switch {
		case r.strong:
			conf = 0.9
		case r.ok && f.kind == kUnnumbered:
			conf = 0.86
		case r.ok:
			conf = 0.65
		default:
			return 0, false
		}
	default:
		conf = 0.95
		if r.ok {
			conf = 0.98
		}
	}
	var rule string
	switch {
	case psalm && name == "Psalm" && strings.EqualFold(orig, "psalms"):
		rule = "psalm.singular"
	case strings.EqualFold(orig, name):
		rule = "book.lowercase"
	case f.kind == kAlt:
		rule = "book.alt_name"
	case f.kind == kAbbrev:
		rule = "book.abbreviation"
	default:
		rule = "book.misspelling"
	}
	return m.emitBook(i, j, name, r, rule, conf), true
}

// emitBook records the change of tokens i..j into name (and of the
// reference after it when references are normalized) and returns the
// token to continue from.
func (m *matcher) emitBook(i, j int, name string, r ref, rule string, conf float64) int {
	sc := m.sc
	start, end := sc.toks[i].s(), sc.toks[j].e()
	next := j + 1
	orig := sc.text[start:end]
	if allUpper(orig) {
		name = strings.ToUpper(name)
	}
	if r.ok {
		next = r.endTok + 1
	}
	repl := name
	if m.opts.NormalizeReferences && r.ok {
		refEnd := sc.toks[r.endTok].e()
		norm := name + " " + r.format()
		if norm != sc.text[start:refEnd] {
			if orig == name {
				rule = "reference.normalize"
				conf = max(conf, 0.9)
			}
			end, repl = refEnd, norm
		}
	}
	if sc.text[start:end] == repl {
		return next
	}
	m.add(CategoryBible, start, end, repl, rule, conf)
	return next
}

func (m *matcher) add(cat string, start, end int, repl, rule string, conf float64) {
	st := StatusNeedsReview
	if conf >= autoThreshold {
		st = StatusAutoApplied
	}
	m.out = append(m.out, Change{
		Category:    cat,
		Original:    m.sc.text[start:end],
		Replacement: repl,
		Start:       start,
		End:         end,
		Rule:        rule,
		Confidence:  conf,
		Status:      st,
	})
}

func (m *matcher) evalPlace(i, j int, p *placeForm) (int, bool) {
	if p.stop || len(p.words) != j-i+1 {
		return 0, false
	}
	sc := m.sc
	start, end := sc.toks[i].s(), sc.toks[j].e()
	orig := sc.text[start:end]
	if allUpper(orig) {
		return j + 1, true
	}
	var sb strings.Builder
	need := false
	for k := i; k <= j; k++ {
		if k > i {
			sb.WriteString(sc.text[sc.toks[k-1].e():sc.toks[k].s()])
		}
		w := p.words[k-i]
		r, _ := utf8.DecodeRuneInString(w)
		if !sc.firstUpper(k) && unicode.IsUpper(r) {
			need = true
			sb.WriteString(w)
		} else {
			sb.WriteString(sc.str(k))
		}
	}
	if !need {
		return j + 1, true
	}
	var conf float64
	switch {
	case p.mentions >= 10 && len(p.name) >= 6:
		conf = 0.92
	case p.mentions >= 50 && len(p.name) >= 4:
		conf = 0.9
	case i != j:
		conf = 0.88
	default:
		conf = 0.6
	}
	m.add(CategoryPlace, start, end, sb.String(), p.rule, conf)
	return j + 1, true
}

// fuzzyPlace looks for a well-known place name that token i may be a
// mishearing of ("capernum" for "Capernaum").
func (m *matcher) fuzzyPlace(i int) {
	sc := m.sc
	t := sc.toks[i]
	n := t.e() - t.s()
	if n < 6 || n > 24 || t.digits {
		return
	}
	lw := sc.lowerBytes(i)
	for _, c := range lw {
		if c < 'a' || c > 'z' {
			return
		}
	}
	if m.d.fuzzyEnglish[string(lw)] {
		return
	}
	var kb [32]byte
	targets := m.d.fuzzy[string(appendPhoneticKey(kb[:0], lw))]
	if len(targets) == 0 {
		return
	}
	w := string(lw)
	maxD := 1
	if n >= 8 {
		maxD = 2
	}
	var best *fuzzyTarget
	bestD := maxD + 1
	for k := range targets {
		tg := &targets[k]
		if tg.lower == w {
			return
		}
		dd := editDistance(w, tg.lower, maxD)
		if dd < bestD || (dd == bestD && best != nil && tg.mentions > best.mentions) {
			best, bestD = tg, dd
		}
	}
	if best == nil || bestD > maxD {
		return
	}
	conf := 0.6
	if bestD == 1 {
		conf = 0.75
		if n >= 7 && best.mentions >= 20 && sc.isAny(i-1, "in", "to", "from", "at", "near", "into", "toward", "towards", "through", "of") {
			conf = 0.86
		}
	}
	repl := best.name
	if allUpper(sc.str(i)) {
		repl = strings.ToUpper(repl)
	}
	m.add(CategoryPlace, t.s(), t.e(), repl, "place.fuzzy", conf)
}

// ref is a chapter and verse reference after a book name.
type ref struct {
	ok           bool
	strong       bool // more than a bare number: "13:4", "13 4", "chapter 13"
	chapterRange bool // "Psalms 120 through 134", "Psalms 1 and 2"
	chapter      int
	verse        int
	verseEnd     int
	chapterEnd   int
	endTok       int // last token of the reference
}

// format writes the reference as "13:4–7".
func (r ref) format() string {
	b := strconv.AppendInt(nil, int64(r.chapter), 10)
	switch {
	case r.verse > 0:
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(r.verse), 10)
		if r.verseEnd > 0 {
			b = append(b, "–"...)
			b = strconv.AppendInt(b, int64(r.verseEnd), 10)
		}
	case r.chapterEnd > 0:
		b = append(b, "–"...)
		b = strconv.AppendInt(b, int64(r.chapterEnd), 10)
	}
	return string(b)
}

// plainGap reports whether tokens k and k+1 are separated by spaces or a
// hyphen only, as the words of one spoken number are.
func (sc *scanner) plainGap(k int) bool {
	g := sc.refGap(k)
	return g.ok && !g.colon && !g.comma && !g.period
}

// parseRef reads a reference starting at token k.
func (m *matcher) parseRef(k int) ref {
	sc := m.sc
	n := len(sc.toks)
	var r ref
	if k <= 0 || k >= n {
		return r
	}
	if g := sc.refGap(k - 1); !g.ok || g.dash || g.colon {
		return r
	}
	chapterWord := false
	if sc.isAny(k, "chapter", "chapters", "ch", "chap") {
		if !sc.refGap(k).ok {
			return r
		}
		chapterWord = true
		k++
	}
	v, next, spoken := m.parseNum(k)
	if v < 1 || v > 150 {
		return r
	}
	r = ref{ok: true, strong: chapterWord, chapter: v, endTok: next - 1}
	k = next
	if k < n {
		if g := sc.refGap(k - 1); g.ok && !g.dash {
			switch {
			case g.colon:
				if v2, nx, _ := m.parseNum(k); v2 >= 1 && v2 <= 176 {
					r.verse, r.strong, r.endTok, k = v2, true, nx-1, nx
				}
			case sc.isAny(k, "verse", "verses", "v", "vs"):
				if k+1 < n && sc.refGap(k).ok {
					if v2, nx, _ := m.parseNum(k + 1); v2 >= 1 && v2 <= 176 {
						r.verse, r.strong, r.endTok, k = v2, true, nx-1, nx
					}
				}
			case !g.comma && !g.period:
				if v2, nx, sp := m.parseNum(k); v2 >= 1 && v2 <= 176 && sp == spoken {
					r.verse, r.strong, r.endTok, k = v2, true, nx-1, nx
				}
			}
		}
	}
	if k < n {
		g := sc.refGap(k - 1)
		if !g.ok || g.comma || g.period {
			return r
		}
		rk := -1
		switch {
		case g.dash:
			rk = k
		case sc.isAny(k, "through", "thru", "to") && sc.refGap(k).ok:
			rk = k + 1
		case r.verse == 0 && sc.is(k, "and") && sc.refGap(k).ok:
			if v3, _, _ := m.parseNum(k + 1); v3 > r.chapter && v3 <= 150 {
				r.chapterRange = true
			}
			return r
		}
		if rk >= 0 && rk < n {
			v3, nx, _ := m.parseNum(rk)
			switch {
			case r.verse > 0 && v3 > r.verse && v3 <= 176:
				r.verseEnd, r.endTok = v3, nx-1
			case r.verse == 0 && v3 > r.chapter && v3 <= 150:
				r.chapterEnd, r.chapterRange, r.endTok, r.strong = v3, true, nx-1, true
			}
		}
	}
	return r
}

// parseNum reads a number written in digits ("23") or words ("twenty
// three", "one hundred and nineteen") at token k. It returns the value
// (0 if none), the token after it, and whether it was spoken.
func (m *matcher) parseNum(k int) (int, int, bool) {
	sc := m.sc
	if k >= len(sc.toks) {
		return 0, k, false
	}
	t := sc.toks[k]
	if t.digits {
		if t.e()-t.s() > 3 {
			return 0, k, false
		}
		v := 0
		for p := t.s(); p < t.e(); p++ {
			v = v*10 + int(sc.text[p]-'0')
		}
		return v, k + 1, false
	}
	v, ok := lookup(sc, m.d.numWords, k)
	if !ok || v == 100 {
		return 0, k, false
	}
	k++
	if v < 10 && k < len(sc.toks) && sc.plainGap(k-1) && sc.is(k, "hundred") {
		total := v * 100
		k++
		if k < len(sc.toks) && sc.plainGap(k-1) && sc.is(k, "and") {
			k++
		}
		if k < len(sc.toks) && sc.plainGap(k-1) {
			if rest, nk, sp := m.parseNum(k); sp && rest > 0 && rest < 100 {
				return total + rest, nk, true
			}
		}
		return total, k, true
	}
	if v >= 20 && k < len(sc.toks) && sc.plainGap(k-1) {
		if u, ok := lookup(sc, m.d.numWords, k); ok && u < 10 {
			return v + u, k + 1, true
		}
	}
	return v, k, true
}
