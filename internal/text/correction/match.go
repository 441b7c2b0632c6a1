package correction

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// autoThreshold is the confidence from which a change is applied.
const autoThreshold = 0.85

// matcher runs one Find over one text.
type matcher struct {
	d            *dict
	sc           *scanner
	opts         Options
	bible, place bool
	found        recs
	misses       []fuzzyMiss // a cache of words without a fuzzy match; its length is a power of two
	dyn          [][]string  // replacements built for this text, in blocks (see sref)
	buf          []byte      // scratch for replacements
	code         codeState   // the code blocks read so far
	hasCode      bool        // the text holds a backtick or a '<'
	books        []bookMiss  // a cache of words compared with the books; its length is a power of two
	bibleSeen    bool        // a book change has been applied
	placeEnd     int         // where the latest place written right ends (see placeListBefore)
	stopNode     *node       // where the latest walk stopped, at token stopJ
	cands        [8]cand     // the forms at's walks find (see at)
	stopJ        int
	refs         []refRec       // the references of the records, in order
	doc          docKind        // what the whole text is (see sermon), read once when a rule asks
	citedBooks   [2]uint64      // the versified books read before a reference so far, by dict.bookOf
	citedChs     [16]uint16     // the latest chapters cited, book<<8|chapter, a ring (see citeChapter)
	nounUsed     bookMemo       // the books the text uses as a common noun (nounUse)
	citesAhead   bookMemo       // the books the text cites with a chapter anywhere (citedAhead, r14m_ahead.go)
	namedOnce    bookMemo       // the books the text names once (loneRange, r14j_lonerange.go)
	numberedOnce bookMemo       // the numbered books the text names once by their number (loneNumbered, r14o_otherbook.go)
	wordCounts   map[string]int // how often the text writes each name soundWritten asked about (r14n_sound.go)
	appliedBooks appliedBooks   // the books applied on their own so far (booksNamed, namedBook: r14r_title.go)
	nCitedChs    int
	chapters     [chapterWords]uint64 // every chapter the text has cited, by its index (see dict.chapterBase)
	caseRead     bool                 // captionCase has read the text's case
	lowerCase    bool                 // the text is lowercase throughout, as auto-captions are (see captionCase)
	foreignLo    int                  // the line foreignLine read last, [foreignLo, foreignHi), and its answer
	foreignHi    int
	foreign      bool
	colonsRead   bool // writesColons has read the text
	colons       bool
	gluedRead    bool // gluesVerses has read the text
	glued        bool
}

// citedID reports whether the book named id was read before a reference
// earlier in the text.
func (m *matcher) citedID(id sref) bool {
	k := m.d.bookOf(id)
	return k != 0 && m.citedBooks[k>>6]&(1<<(k&63)) != 0
}

// cited reports whether book b was read before a reference earlier in
// the text: "in acts" after "acts 2" is the book, where on its own it may
// be a misheard "in fact".
func (m *matcher) cited(b *book) bool {
	if b == nil {
		return false
	}
	k := m.d.bookOf(b.id)
	return k != 0 && m.citedBooks[k>>6]&(1<<(k&63)) != 0
}

// citeChapter remembers that the text cited chapter ch of book b (see
// dict.bookOf). The latest sixteen are kept: a sermon comes back to the
// few chapters it preaches on.
func (m *matcher) citeChapter(b uint8, ch int) {
	if ch < 1 || ch > 255 {
		return
	}
	m.citedChs[m.nCitedChs&15] = uint16(b)<<8 | uint16(ch)
	m.nCitedChs++
	if m.d.hasChapter(b, ch) {
		k := int(m.d.chapterBase[b-1]) + ch - 1
		m.chapters[k>>6] |= 1 << (k & 63)
	}
}

// letterPair returns the index of the first two bytes of w as lowercase
// ASCII letters (0 to 675), or -1.
func letterPair(w string) int {
	if len(w) < 2 {
		return -1
	}
	a, b := w[0]|0x20, w[1]|0x20
	if a < 'a' || a > 'z' || b < 'a' || b > 'z' {
		return -1
	}
	return int(a-'a')*26 + int(b-'a')
}

// citedPair reports whether w begins with the first two letters of a book
// the text has cited: the cheap test before a word is compared with the
// books.
func (m *matcher) citedPair(w string) bool {
	p := letterPair(w)
	return p >= 0 && (m.d.pairBooks[p][0]&m.citedBooks[0] != 0 || m.d.pairBooks[p][1]&m.citedBooks[1] != 0)
}

// citedChapter reports whether the text has cited chapter ch of book b
// among the latest sixteen chapters it cited.
func (m *matcher) citedChapter(b uint8, ch int) bool {
	want := uint16(b)<<8 | uint16(ch)
	for k := range min(m.nCitedChs, 16) {
		if m.citedChs[k] == want {
			return true
		}
	}
	return false
}

// refRec is the reference read after the book of record rec, as
// Reference holds it (a lone number after a book of one chapter is a
// verse).
type refRec struct {
	rec                            int32
	bk, ch, chEnd, verse, verseEnd uint8
}

// ruleID names the rule of a change.
type ruleID uint8

const (
	ruleBookLowercase ruleID = iota
	ruleBookAbbreviation
	ruleBookMisspelling
	ruleBookAltName
	ruleBookSpokenOrdinal
	ruleBookOrdinal
	rulePsalmSingular
	ruleReferenceNormalize
	ruleBookFuzzy
	rulePlaceLowercase // the place rules come last: see category
	rulePlaceVariant
	rulePlaceFuzzy
	rulePlaceRealWord
	rulePersonLowercase // the person rules come after the place rules: see category
	rulePersonFuzzy
)

func (r ruleID) String() string {
	switch r {
	case ruleBookLowercase:
		return "book.lowercase"
	case ruleBookAbbreviation:
		return "book.abbreviation"
	case ruleBookMisspelling:
		return "book.misspelling"
	case ruleBookAltName:
		return "book.alt_name"
	case ruleBookSpokenOrdinal:
		return "book.spoken_ordinal"
	case ruleBookOrdinal:
		return "book.ordinal"
	case rulePsalmSingular:
		return "psalm.singular"
	case ruleReferenceNormalize:
		return "reference.normalize"
	case rulePlaceLowercase:
		return "place.lowercase"
	case rulePlaceVariant:
		return "place.variant"
	case rulePlaceFuzzy:
		return "place.fuzzy"
	case ruleBookFuzzy:
		return "book.fuzzy"
	case rulePlaceRealWord:
		return "place.real_word"
	case rulePersonLowercase:
		return "person.lowercase"
	case rulePersonFuzzy:
		return "person.fuzzy"
	}
	return "unknown"
}

func (r ruleID) category() string {
	if r >= rulePersonLowercase {
		return CategoryPerson
	}
	if r >= rulePlaceLowercase {
		return CategoryPlace
	}
	return CategoryBible
}

// rec is a change as the matcher records it, a tenth the size of a
// Change: Find turns the records into Changes once it knows how many
// there are.
type rec struct {
	repl  sref
	start int32
	n     uint16 // length of the original; longN: see recs.long
	rule  ruleID
	conf  uint8 // confidence in hundredths
}

// longN marks a record whose original is too long for rec.n.
const longN = math.MaxUint16

// confPct and pctConf convert a confidence to and from hundredths. All
// the engine's confidences have two decimals, and float64(p)/100 is the
// float64 nearest p/100, so a confidence survives the round trip.
func confPct(conf float64) uint8 { return uint8(math.Round(conf * 100)) }
func pctConf(p uint8) float64    { return float64(p) / 100 }

// recs stores records in blocks that are never copied.
type recs struct {
	blocks [][]rec
	n      int
	long   map[int32]int32 // the end of each record with n == longN, by start
}

// end returns the end offset of x.
func (r *recs) end(x rec) int {
	if x.n == longN {
		return int(r.long[x.start])
	}
	return int(x.start) + int(x.n)
}

// last returns the latest record; r must not be empty.
func (r *recs) last() rec {
	b := r.blocks[len(r.blocks)-1]
	return b[len(b)-1]
}

func (r *recs) add(start, end int, repl sref, rule ruleID, conf uint8) {
	x := rec{repl: repl, start: int32(start), n: uint16(min(end-start, longN)), rule: rule, conf: conf}
	if x.n == longN {
		if r.long == nil {
			r.long = map[int32]int32{}
		}
		r.long[x.start] = int32(end)
	}
	if k := len(r.blocks); k == 0 || len(r.blocks[k-1]) == cap(r.blocks[k-1]) {
		size := 64
		if k > 0 {
			size = min(2*cap(r.blocks[k-1]), 2048)
		}
		r.blocks = append(r.blocks, make([]rec, 0, size))
	}
	b := &r.blocks[len(r.blocks)-1]
	*b = append(*b, x)
	r.n++
}

// sref names a replacement: an index into dict.names, or with dynRef
// set into matcher.dyn. Records hold no pointers, so the collector
// neither scans them nor puts barriers on their writes.
type sref uint32

const dynRef sref = 1 << 31

// dynBlock is the number of replacements in a block of matcher.dyn.
const dynBlock = 256

// str keeps s, a replacement built for this text.
func (m *matcher) str(s string) sref {
	k := len(m.dyn) - 1
	if k < 0 || len(m.dyn[k]) == dynBlock {
		m.dyn = append(m.dyn, make([]string, 0, dynBlock))
		k++
	}
	m.dyn[k] = append(m.dyn[k], s)
	return dynRef | sref(k*dynBlock+len(m.dyn[k])-1)
}

// get returns the replacement r.
func (m *matcher) get(r sref) string {
	if r&dynRef != 0 {
		r &^= dynRef
		return m.dyn[r/dynBlock][r%dynBlock]
	}
	return m.d.names[r]
}

// cand is a dictionary form that ends at token j.
type cand struct {
	n *node
	j int
}

// lookBack is the number of tokens before the current one that the
// matcher may read.
const lookBack = 8

func (m *matcher) run() {
	sc := m.sc
	for i := 0; sc.has(i); {
		// Skip the words the matcher has nothing to try on. A number is
		// tried (tNumTry) only after a word of five letters or more.
		toks, base := sc.toks, sc.base
		k := sc.nextTried(i - base)
		i = base + k
		sc.keep = i - lookBack
		if k == len(toks) {
			continue
		}
		flags := toks[k].flags
		if flags&tDigits != 0 {
			// A number no book claimed: the word before may be a misspelled
			// one of five letters or more.
			if prev := sc.tok(max(i-1, 0)); m.bible && i > 0 && prev.flags&tDigits == 0 && prev.e()-prev.s() >= 5 {
				if next, ok := m.fuzzyBook(i-1, false); ok {
					i = max(next, i+1)
					continue
				}
			}
			if flags&tFull == 0 {
				i++
				continue
			}
		}
		if flags&tFull == 0 {
			if m.place && !m.knownMiss(&toks[k]) {
				m.fuzzyPlace(i)
			}
			if m.bible && toks[k].e()-toks[k].s() >= 7 && flags&tDigits == 0 && m.citedPair(sc.text[toks[k].s():]) && m.sermon() {
				// "what Paul said to the Philipsians" in a sermon that has
				// cited Philippians.
				m.citedBareBook(i)
			}
			i++
			continue
		}
		next := m.at(i)
		if next <= i {
			next = i + 1
		}
		i = next
	}
}

// entry returns what key returns and the cue kind of token i.
func (m *matcher) entry(i int) (*node, prefix, bool, cueKind) {
	sc := m.sc
	t := sc.tok(i)
	if t.flags&tMulti != 0 {
		n, p, ok := m.key(i)
		return n, p, ok, cueNone
	}
	e := m.d.find(sc.text[t.s():t.e()], t.h, t.upper())
	if e == nil {
		return nil, prefix{}, false, cueNone
	}
	return e.node, e.pre, e.isPre, e.cue
}

// key returns the root node of token i (nil if none) and its meaning as
// a book number.
func (m *matcher) key(i int) (*node, prefix, bool) {
	sc := m.sc
	t := sc.tok(i)
	if t.flags&tMulti != 0 {
		n, _ := lookup(sc, m.d.root, i)
		p, ok := lookup(sc, m.d.prefixes, i)
		return n, p, ok
	}
	e := m.d.find(sc.text[t.s():t.e()], t.h, t.upper())
	if e == nil {
		return nil, prefix{}, false
	}
	return e.node, e.pre, e.isPre
}

// walk returns the dictionary forms that start at token i, whose root
// node is n, shortest first.
func (m *matcher) walk(i int, n *node, buf *[8]cand) []cand {
	c := buf[:0]
	sc := m.sc
	if n == nil {
		return c
	}
	for j := i; ; {
		if n.book != nil || n.place != nil {
			c = append(c, cand{n, j})
		}
		if len(n.next) == 0 || len(c) == len(buf) || !sc.nameGap(j) {
			return c
		}
		var next *node
		ok := false
		if t := &sc.toks[j+1-sc.base]; t.flags&tMulti != 0 || n.nexts>>(t.h>>58)&1 != 0 {
			next, ok = lookup(sc, n.next, j+1) // nameGap has read token j+1
		}
		if !ok {
			m.stopNode, m.stopJ = n, j // the spoken name may go on, misheard
			return c
		}
		n = next
		j++
	}
}

// fuzzyTail looks for a multi-word place name whose first words are tokens
// i..j, read up to node n, and whose last word token j+1 is a mishearing
// of ("caesarea philipi", "the sea of galili"): a fix of the first words
// alone would stop at a shorter name than the one spoken.
func (m *matcher) fuzzyTail(i, j int, n *node) (int, bool) {
	sc := m.sc
	k := j + 1
	if !sc.has(k) {
		return 0, false
	}
	t := sc.tok(k)
	size := t.e() - t.s()
	if size < 4 || size > 24 || t.flags&(tDigits|tMulti) != 0 {
		return 0, false
	}
	lw := sc.lowerBytes(k)
	maxD := 1
	if size >= 6 {
		maxD = 2 // two edits only of the same sound: "galili" for "galilee"
	}
	var best *placeForm
	bestD, bestKey := maxD+1, ""
	for key, child := range n.next {
		p := child.place
		if p == nil || p.stop || len(p.words) != k-i+1 || key[0] != lw[0] ||
			len(key)-size > maxD || size-len(key) > maxD {
			continue
		}
		d := editDistance(lw, key, maxD)
		if d > maxD || (d == 2 && phoneticKey(string(lw)) != phoneticKey(key)) {
			continue
		}
		// The nearest, then the most mentioned, then the first in order:
		// the map's order must not decide.
		if d < bestD || (d == bestD && (p.mentions > best.mentions || p.mentions == best.mentions && key < bestKey)) {
			best, bestD, bestKey = p, d, key
		}
	}
	if best == nil || bestD == 0 {
		return 0, false
	}
	// "the most holy places" is no misheard "Most Holy Place": a name of
	// ordinary words is left alone, as evalPlace leaves it.
	if _, ok := m.d.commonPlaceWords[strings.ToLower(best.words[len(best.words)-1])]; ok && m.commonPhrase(i, j, best) {
		return 0, false
	}
	conf := 0.75
	if bestD == 1 && size >= 6 && best.rule != rulePlaceVariant {
		conf = 0.86 // the first words are the name's already
	}
	repl := best.name
	if allUpper(sc.text[sc.tok(i).s():t.e()]) {
		repl = strings.ToUpper(repl)
	}
	m.add(sc.tok(i).s(), t.e(), m.str(repl), rulePlaceFuzzy, conf)
	return k + 1, true
}

// at looks for a correction starting at token i and returns the token to
// continue from.
func (m *matcher) at(i int) int {
	sc := m.sc
	t := sc.tok(i)
	if n := t.e() - t.s(); n < 32 {
		// Skip the lookups for words whose length and first and last
		// letters no dictionary key has. Non-ASCII letters map to 0 and
		// are marked like any other shape.
		k := (n*27+int(m.d.letterIndexes[sc.text[t.s()]]))*27 + int(m.d.letterIndexes[sc.text[t.e()-1]])
		if !m.d.first.has(k) {
			if m.place && n >= 6 && m.d.fuzzyShape.has(k) {
				m.fuzzyPlace(i)
			}
			return i + 1
		}
	}
	buf := &m.cands // at runs only from run, one call at a time
	root, p, isPre, cue := m.entry(i)
	if cue != cueNone {
		if next := m.cueAt(i, cue); next > i {
			return next
		}
	}
	if m.bible && isPre && sc.nameGap(i) {
		next, _, _ := m.key(i + 1)
		cands := m.walk(i+1, next, buf)
		for k := len(cands) - 1; k >= 0; k-- {
			f := cands[k].n.book
			if f == nil || f.pfam == nil || f.pkind == kNone {
				continue
			}
			if next, ok := m.evalPrefixed(i, cands[k].j, p, f); ok {
				return next
			}
		}
	} else if m.bible && isPre && p.style == pOrdWord && sc.has(i+1) && sc.text[sc.tok(i).e():sc.tok(i+1).s()] == ", " {
		if next, ok := m.commaOrdinal(i, p, buf); ok {
			return next
		}
	}
	m.stopNode = nil
	cands := m.walk(i, root, buf)
	if m.place && m.stopNode != nil && m.stopNode.tails != 0 && (m.stopJ > i || m.stopNode.place != nil) &&
		sc.has(m.stopJ+1) && m.stopNode.tails>>letterIndex(sc.text[sc.tok(m.stopJ+1).s()])&1 != 0 {
		if next, ok := m.fuzzyTail(i, m.stopJ, m.stopNode); ok {
			return next
		}
	}
	for k := len(cands) - 1; k >= 0; k-- {
		c := cands[k]
		if m.bible && c.n.book != nil {
			if next, ok := m.evalBook(i, c.j, c.n.book); ok {
				return next
			}
		}
		if m.place && c.n.place != nil && (c.n.book == nil || c.n.book.kind == kNone) {
			next, ok := m.evalPlace(i, c.j, c.n.place)
			m.placeListAhead(c.j)
			if ok {
				return next
			}
		}
	}
	if m.place && len(cands) == 0 {
		m.fuzzyPlace(i)
	}
	return i + 1
}

// commaOrdinal suggests the numbered book for a spoken ordinal, token i,
// that a comma parts from the name before a verse range: "First, John 5,
// 11 to 13" is heard for "1 John 5:11-13". Without the range ("First, John
// 3:16 says") the ordinal is as often the first point of a list.
func (m *matcher) commaOrdinal(i int, p prefix, buf *[8]cand) (int, bool) {
	sc := m.sc
	if !sc.firstUpper(i) {
		return 0, false
	}
	next, _, _ := m.key(i + 1)
	cands := m.walk(i+1, next, buf)
	for k := len(cands) - 1; k >= 0; k-- {
		f := cands[k].n.book
		if f == nil || f.pfam == nil || f.pkind == kNone || f.pfam.books[p.num] == nil {
			continue
		}
		j := cands[k].j
		r := m.parseRef(j + 1)
		e := r.endTok
		// "5, 11 to 13": the verse range after a comma is read here.
		if r.ok && (r.verse > 0 && r.verseEnd > 0 || r.verse == 0 && sc.has(e+3) && sc.tok(e+1).digits() &&
			sc.isAny(e+2, "to", "through") && sc.tok(e+3).digits()) {
			return m.emitBook(i, j, f.pfam.books[p.num].id, r, ruleBookSpokenOrdinal, 0.6), true
		}
	}
	return 0, false
}

// strongCue reports whether the words before token i announce a book:
// "the book of", "the gospel of", "the epistle to", "according to".
func (m *matcher) strongCue(i int) bool {
	sc := m.sc
	// Every cue ends with "of", "to" or "the" before token i: a word of
	// another length is none (most words, at one comparison).
	if i < 1 || !sc.has(i-1) {
		return false
	}
	if t := &sc.toks[i-1-sc.base]; t.end-t.start != 2 && t.end-t.start != 3 {
		return false
	}
	if sc.in(i-1, &sc.d.ws.ofTo) && sc.in(i-2, &sc.d.ws.writing) {
		// "a book of numbers", "another letter to the romans": an
		// indefinite article makes the phrase a common noun, not a title.
		return !sc.in(i-3, &sc.d.ws.indefinite)
	}
	if sc.is(i-1, "of") && sc.isAny(i-2, "chapter", "chapters") {
		// "the first chapter of genesis", "the last chapters of
		// revelation": a chapter's place in a book; "going through
		// another chapter of acts" (chapterOfCue).
		if sc.isAny(i-3, "first", "last", "second", "third", "next", "opening", "final", "whole") {
			return sc.is(i-4, "the")
		}
		return m.chapterOfCue(i)
	}
	if sc.is(i-1, "the") && sc.is(i-2, "to") && sc.isAny(i-3, "letter", "letters", "epistle", "epistles", "wrote", "writes", "writing", "written") {
		return !sc.in(i-4, &sc.d.ws.indefinite)
	}
	return sc.is(i-1, "to") && sc.is(i-2, "according")
}

// weakCue reports whether the word before token i often precedes a
// reference: "in", "turn to", "read".
func (m *matcher) weakCue(i int) bool {
	return m.sc.in(i-1, &m.d.ws.weak)
}

// locativeBefore reports whether a word that places what follows precedes token i: "to",
// "in", "near", …
func (m *matcher) locativeBefore(i int) bool {
	return m.sc.in(i-1, &m.d.ws.locative)
}

// countAfter reports whether the word after reference r makes its number a count or an
// age: "3 times", "5 years old", "2 of them".
func (m *matcher) countAfter(r ref) bool {
	return m.sc.in(r.endTok+1, &m.d.ws.count)
}

// determinerBefore reports whether a determiner or possessive precedes token i, making it
// an English noun: "the numbers", "his job", "a mark".
func (m *matcher) determinerBefore(i int) bool {
	return m.sc.in(i-1, &m.d.ws.nounBefore)
}

// listCue reports whether token i follows a book reference and "and", "or", "then", "and
// then" or "and also", as "revelations" does in "first corinthians 13 4 and revelations 21".
func (m *matcher) listCue(i int) bool {
	sc := m.sc
	if m.found.n == 0 || !sc.isAny(i-1, "and", "or", "then", "also") {
		return false
	}
	conj := i - 1
	if sc.isAny(conj, "then", "also") && sc.is(conj-1, "and") {
		conj--
	} else if sc.is(conj, "also") {
		return false
	}
	last := m.found.last()
	if last.rule >= rulePlaceLowercase {
		return false
	}
	end := m.found.end(last)
	// Between the book and the conjunction: the numbers and words of its reference.
	for k := conj - 1; k >= 0 && k >= conj-9; k-- {
		t := sc.tok(k)
		switch {
		case t.e() == end:
			return true
		case t.e() < end:
			return false
		case t.digits(), sc.isAny(k, "chapter", "chapters", "verse", "verses", "v", "vs"):
		default:
			if _, ok := lookup(sc, m.d.numWords, k); !ok {
				return false
			}
		}
	}
	return false
}

func (m *matcher) evalPrefixed(i, j int, p prefix, f *bookForm) (int, bool) {
	sc := m.sc
	b := f.pfam.books[p.num]
	if b == nil {
		return 0, false
	}
	// "i samuel 3" after "turn to", "in", "read": the ordinal, where
	// elsewhere a lowercase "i" is the pronoun ("then i john 3 16").
	// No one says "i" before a plural ("i kings 18", "i corinthians
	// 13"): there it is the ordinal wherever a reference follows.
	lowerRoman := p.style == pRoman && !sc.tok(i).upper()
	if lowerRoman && p.num == 1 && !m.weakCue(i) && !plural(f.pfam.base) {
		return 0, false
	}
	if p.style == pDigit || p.style == pCardWord {
		// "chapter 1 john says", "verse one peter": the number belongs to
		// the reference before.
		if sc.isAny(i-1, "chapter", "chapters", "verse", "verses", "v", "vs") {
			return 0, false
		}
		if i > 0 && sc.tok(i-1).digits() &&
			strings.Trim(sc.text[sc.tok(i-1).e():sc.tok(i).s()], " \t") == "" && !m.ordinalAfterRange(i, j, b) {
			return 0, false // "romans 8 28 1 john": no separator, a verse number
		}
	}
	r := m.parseRefIn(j+1, m.d.bookOf(b.id))
	if !r.ok && p.style != pDigit && sc.isAny(j+1, "chapter", "chapters") && m.parseRef(j+1).ok {
		// "being a disciple would be first / john chapter 8": a chapter
		// the numbered book does not have (1 John has five) makes the
		// word before a list's "first", and the name the other book.
		return 0, false
	}
	baseRisk := f.risk != riskNone || f.pkind >= kAbbrev
	var conf float64
	switch {
	case lowerRoman:
		switch {
		case r.strong:
			conf = 0.9
		case r.ok:
			conf = 0.86
		case p.num >= 2 && m.sermon():
			// "where are we here ii thessalonians": auto-captions write
			// the spoken "second" so; "ii" is no English word.
			conf = 0.86
		default:
			return 0, false
		}
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
		case p.style == pOrdWord && (m.weakCue(i) || m.bibleSeen || m.sermon()) && !m.personAfter(j+1) && !m.determinerBefore(i):
			// "turn to first john", or "first peter" in a sermon that cites
			// books: nothing else reads "first" with a name this way.
			conf = 0.86
		default:
			conf = 0.55
		}
	default:
		conf = 0.95
		if r.ok {
			conf = 0.98
		}
	}
	var rule ruleID
	switch p.style {
	case pOrdWord, pCardWord:
		rule = ruleBookSpokenOrdinal
	case pOrdinal, pRoman:
		rule = ruleBookOrdinal
	default:
		base := sc.text[sc.tok(i+1).s():sc.tok(j).e()]
		switch {
		case strings.EqualFold(base, f.pfam.base):
			rule = ruleBookLowercase
		case f.pkind == kAbbrev:
			rule = ruleBookAbbreviation
		default:
			rule = ruleBookMisspelling
		}
	}
	return m.emitBook(i, j, b.id, r, rule, conf), true
}

func (m *matcher) evalBook(i, j int, f *bookForm) (int, bool) {
	if f.kind == kNone {
		if f.adjective && f.book != nil && i == j {
			return m.readersBook(i, f)
		}
		return 0, false
	}
	sc := m.sc
	var r ref
	if f.book != nil {
		r = m.parseRefIn(j+1, m.d.bookOf(f.book.id))
	} else {
		r = m.parseRef(j + 1)
	}
	orig := sc.text[sc.tok(i).s():sc.tok(j).e()]
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
		switch {
		case sc.is(i-1, "of") && sc.isAny(i-2, "book", "books"):
			// "the book of Psalms 23": the book's title, whatever follows.
			name = "Psalms"
		case r.ok && r.chapterRange, !r.ok && plural(orig):
			name = "Psalms"
		default:
			name = "Psalm"
		}
	}
	misspelled := f.kind == kMisspelling && !strings.EqualFold(orig, name)
	dangerous := f.kind >= kAbbrev
	strongCue := m.strongCue(i)
	if !r.ok && f.adjective && !upper && m.nounAfter(j) && i > 0 && sc.is(i-1, "the") && m.sermon() {
		// A sermon's "the corinthian church": the readers' name as an
		// adjective, written with its capital, not the book.
		return m.emitCase(i, j), true
	}
	if !r.ok && f.adjective && (!strongCue || m.nounAfter(j)) {
		// "the Galatian believers", "an Ephesian household": an adjective or
		// a demonym, a book only with a reference or after "the book of" —
		// and not before a noun even then: "he wrote to the Galatian
		// believers".
		return 0, false
	}
	if f.book != nil && f.book.osis == "Ps" && !strongCue && plural(sc.str(j)) && m.hymnsAfter(j) {
		// "speaking to one another in psalms [and] hymns and spiritual
		// songs" (Ephesians 5:19), even where the recognizer heard the
		// "and" as "10": the common noun of the verse, not the book.
		return 0, false
	}
	var conf float64
	switch {
	case !r.ok && !strongCue && f.book != nil && m.d.bookOf(f.book.id) == 0:
		// A book outside the versified canon, the deuterocanon, named
		// without a reference and not after "the book of": "hear the
		// wisdom of Solomon" before a reading of Proverbs is the king's
		// wisdom. A sermon that reads one cites it or names it a book.
		if !m.sermonCue(i, j) {
			return 0, false
		}
		conf = 0.6
	case rk == riskEnglish:
		switch {
		case r.strong:
			conf = 0.9
		case r.ok && strongCue:
			conf = 0.88
		case r.ok && misspelled && (upper || m.weakCue(i) || m.listCue(i) || i == 0 || sc.sentenceStart(i)):
			// "see Revelations 3", "turn to revelations 21": the English word takes no chapter,
			// but "many revelations 2 of them" counts.
			conf = 0.86
		case !r.ok && strongCue:
			conf = 0.88 // "the book of Revelations says"
		case !r.ok && !sc.is(j+1, "of") && !m.notSermon() && m.bookBeside(i, j):
			conf = 0.86 // "revelations and acts of the apostles", "genesis through malachi"
		case !r.ok && !upper && !sc.is(j+1, "of") && m.sermon() && m.bookRun(i, j):
			conf = 0.86 // "jeremiah lamentations habakkuk" (r14i_bookrun.go)
		case !r.ok && midUpper && misspelled:
			conf = 0.7 // "in Revelations we read", but "the Revelations of the prophets"
		case r.ok && (m.weakCue(i) || m.listCue(i) || m.basedOnCue(i, f)) && !m.countAfter(r):
			conf = 0.86 // "in acts 17", but "in numbers 20 years ago"
		case r.ok && (m.weakCue(i) || m.listCue(i)):
			conf = 0.7
		case r.ok && m.addressed(i):
			return m.addressedName(i, j, f.id, orig, name, upper) // "thank you mark four"
		case r.ok && !m.countAfter(r) && sc.afterSentenceEnd(i):
			conf = 0.86 // "Genesis 1 is about creation."
		case r.ok && !m.countAfter(r) && !m.determinerBefore(i):
			conf = 0.7 // "so acts 2 tells us": a suggestion; not "the numbers 3 and 4"
		case r.ok && !m.countAfter(r) && sc.isAny(i-1, "this", "that") && m.cited(f.book) && m.sermon():
			// "and so this / revelation 4 / this is a picture": "this" or
			// "that" before a book the sermon has cited, with a chapter it
			// has (the recognizer dropped an "is"): a suggestion.
			conf = 0.7
		case !r.ok && !upper && !(misspelled && !plural(orig) && plural(name)) &&
			((!f.garbled && m.sermonCue(i, j)) || m.garbledCue(i, j) || m.citedCue(i, j, f.book) || m.theBookCue(i, j, f) || m.pairedWisdomBook(i, j, f) || m.actsChurch(i, j, f) || m.actsReading(i, j, f) || m.chapterOrdinalAfter(j)) && m.sermon() && !m.plainNounBook(i, j, f):
			// A sermon's "in acts we see", "through judges", "the book
			// of revelation puts it": a whole document about scripture
			// makes the book likelier than the English word. But
			// "revelation" is a noun sermons use as often as the book:
			// "his very heart in revelation to us" in a sermon that never
			// reads Revelation, and so are the psalms, proverbs and
			// lamentations a speaker sings or says ("sometimes i get them
			// in psalms / and in rhyming things"). Such a book is applied
			// only once the sermon has cited it, and suggested before when
			// "in" or "into" is its only cue ("breaking out into
			// revelation"; but "turn to revelation", "revelation depicts"
			// are the book's).
			conf = 0.86
			if f.book != nil && nounBook(f.book.osis) && !m.cited(f.book) && sc.isAny(i-1, "in", "into") && !m.bookVerbAfter(j) {
				conf = 0.7
			}
		case !r.ok && !upper && m.sermon() && m.titleSpot(i, j, f) && !m.plainNounBook(i, j, f):
			conf = 0.7 // "when we studied revelation", "the lens of chronicles" (r14r_title.go)
		case !r.ok && !dangerous && sc.is(i-1, "in") && !f.garbled && !(misspelled && !plural(orig) && plural(name)):
			conf = 0.55 // "in genesis", but not "in acts" (a misheard "in fact")
		case m.chapterAgainOf(f, r):
			conf = 0.7 // "story of genesis 38 of" after "genesis 38": see r14o_otherbook.go
		default:
			return 0, false
		}
	case rk == riskCommonName:
		switch {
		case r.ok && m.addressed(i):
			return m.addressedName(i, j, f.id, orig, name, upper) // "thanks john eight"
		case r.strong:
			conf = 0.92
		case r.ok && (m.weakCue(i) || m.listCue(i) || strongCue):
			conf = 0.86
		case r.ok && strings.EqualFold(orig, name) && !m.countAfter(r):
			// "isaiah 53": capitalised, the name is right for the person too, unless the
			// number counts something ("james 3 times").
			conf = 0.86
		case r.ok:
			conf = 0.65
		case strongCue:
			conf = 0.88
		case !r.ok && !upper && (sc.is(j+1, "chapter") || m.chapterOrdinalAfter(j)) && !m.notSermon():
			conf = 0.86 // "in john chapter 8om", "james chapter / 125": a person has no chapter
		case !upper && m.nameInList(i, j) && !m.notSermon() && m.bookBeside(i, j):
			conf = 0.86 // "genesis through malachi", "exodus and john"
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
		case f.kind == kUnnumbered && !upper && (strongCue || ((m.sermonCue(i, j) || sc.isAny(i-1, "the", "of")) && m.sermon())):
			// "the letter to the thessalonians", and in a sermon "the
			// corinthians were wrestling": the letter or its readers, a
			// capital either way.
			conf = 0.88
		case f.kind == kUnnumbered && !upper && !sc.is(j+1, "of") && m.sermon() && m.bookRun(i, j):
			conf = 0.88 // "samuel and kings" (r14i_bookrun.go)
		case f.kind == kUnnumbered && !upper && m.sermon() && readersName(sc.str(i)):
			// A sermon's "who wrote corinthians": the letter or its
			// readers, a capital either way.
			conf = 0.88
		default:
			return 0, false
		}
	default:
		conf = 0.95
		if r.ok {
			conf = 0.98
		}
	}
	var rule ruleID
	switch {
	case psalm && name == "Psalm" && strings.EqualFold(orig, "psalms"):
		rule = rulePsalmSingular
	case strings.EqualFold(orig, name):
		rule = ruleBookLowercase
	case f.kind == kAlt:
		rule = ruleBookAltName
	case f.kind == kAbbrev:
		rule = ruleBookAbbreviation
	default:
		rule = ruleBookMisspelling
	}
	if r.ok && noBookOfItsOwn(f) {
		r.unsure = true // "timothy 1 19": no book "Timothy" to write a reference of
	}
	np := f.id
	if psalm {
		np = m.d.psalmID
		if name == "Psalms" {
			np = m.d.psalmsID
		}
	}
	return m.emitBook(i, j, np, r, rule, conf), true
}

// emitCase records a capital for the first letter of tokens i..j and
// returns the token after them.
func (m *matcher) emitCase(i, j int) int {
	sc := m.sc
	start, end := sc.tok(i).s(), sc.tok(j).e()
	w := sc.text[start:end]
	m.add(start, end, m.str(strings.ToUpper(w[:1])+w[1:]), rulePlaceLowercase, 0.86)
	return j + 1
}

// emitBook records the change of tokens i..j into name (and of the
// reference after it when references are normalized) and returns the
// token to continue from.
func (m *matcher) emitBook(i, j int, id sref, r ref, rule ruleID, conf float64) int {
	sc := m.sc
	start, end := sc.tok(i).s(), sc.tok(j).e()
	next := j + 1
	orig := sc.text[start:end]
	if b := m.d.bookOf(id); b != 0 && r.bk != b {
		r = m.parseRefIn(j+1, b)
	}
	if r.ok && r.chapterWord && r.verse > 0 && !r.unsure && r.bk != 0 && m.sermon() {
		if q := m.quotedBook(r); q != 0 {
			// A reading announced ("John chapter one, verse eight") and the
			// verse of another book read: "… this book of the law shall
			// not depart" is Joshua 1:8.
			m.add(start, end, m.d.bookID[q-1], ruleBookFuzzy, 0.6)
			return r.endTok + 1
		}
	}
	if r.ok && r.bk != 0 && conf >= autoThreshold {
		m.citedBooks[r.bk>>6] |= 1 << (r.bk & 63)
		if !r.unsure {
			m.citeChapter(r.bk, r.chapter)
		}
	} else if b := r.bk; b != 0 && conf >= autoThreshold && m.citedBooks[b>>6]&(1<<(b&63)) == 0 && m.strongCue(i) {
		// "has anyone read the book of judges lately": the document names
		// the book as a citation does, and "the end of judges" after it is
		// the book (see citedCue).
		m.citedBooks[b>>6] |= 1 << (b & 63)
	}
	if allUpper(orig) {
		id = m.str(strings.ToUpper(m.get(id)))
	}
	if r.ok {
		next = r.endTok + 1
	}
	repl, norm := id, false
	if m.opts.NormalizeReferences && r.ok && !r.unsure {
		refEnd := sc.tok(r.endTok).e()
		b := append(append(m.buf[:0], m.get(id)...), ' ')
		b = r.appendTo(b)
		m.buf = b
		if string(b) != sc.text[start:refEnd] {
			if orig == m.get(id) {
				rule = ruleReferenceNormalize
				conf = max(conf, 0.9)
			}
			end, norm = refEnd, true
		}
	}
	if norm {
		if sc.text[start:end] == string(m.buf) {
			return next
		}
		repl = m.str(string(m.buf))
	} else if sc.text[start:end] == m.get(repl) {
		return next
	}
	n := m.found.n
	thin := conf >= autoThreshold && (m.thinBook(i, j, &r, rule) || norm && m.thinVerse(&r))
	m.add(start, end, repl, rule, conf)
	if thin && m.found.n > n {
		m.found.markLastThin()
	}
	if r.ok && !r.unsure && r.bk != 0 && m.opts.NormalizeReferences && m.found.n > n {
		m.refs = append(m.refs, m.d.refRecOf(int32(n), r))
	}
	return next
}

func (m *matcher) add(start, end int, repl sref, rule ruleID, conf float64) {
	if (rule == rulePlaceFuzzy || rule == rulePlaceRealWord || rule == ruleBookFuzzy ||
		(rule == rulePlaceLowercase && conf < autoThreshold)) && m.notSermon() {
		// A word heard for a name only by its sound or spelling, or a
		// rare place's name in lowercase, in a long text that is no
		// sermon: a podcast's "bother" is not Bethel, nor its guest
		// "shion" the town Shion.
		return
	}
	if (rule == rulePlaceFuzzy || rule == rulePlaceRealWord || rule == rulePlaceVariant || rule == ruleBookFuzzy ||
		rule == rulePlaceLowercase && !m.sermon()) && m.foreignLine(start) {
		// A line of captions in another language: "en sion", "jerusalen"
		// are that language's words, not misheard English, and so, in a
		// text that is no English sermon, is a lowercase word that is also
		// a place's name ("o que vai gerar" is Portuguese's "to bring
		// about", not Gerar).
		return
	}
	if m.round14cCut(rule, conf, start, end) || rule == rulePlaceLowercase && m.tagalogWordCut(start, end) {
		return
	}
	if (rule == rulePlaceFuzzy || rule == ruleBookFuzzy) && m.ordinaryWord(start, end) {
		return
	}
	if rule == rulePlaceFuzzy && conf < autoThreshold && m.sungLine(start) {
		return
	}
	if (m.hasCode && (m.code.inCode(m.sc.text, start) || m.code.inlineCode(m.sc.text, start, end))) ||
		notProse(m.sc.text, start, end) {
		return
	}
	if m.found.n > 0 && start < m.found.end(m.found.last()) {
		// Records are in text order and never overlap: a match that
		// starts inside the last one ("romansh 1 pet 1": the chapter of
		// one book is the number of the next) gives way to it.
		return
	}
	m.found.add(start, end, repl, rule, m.markThin(repl, rule, confPct(conf)))
	if rule < rulePlaceLowercase && conf >= autoThreshold {
		m.bibleSeen = true
	}
}

// nounAfter reports whether token j, an adjective form of a book, is
// followed by a lowercase word it may qualify: "the Galatian believers".
// A word that follows a book name as often is not one: "the letter to the
// Galatian says", "the Hebrew and".
func (m *matcher) nounAfter(j int) bool {
	sc := m.sc
	k := j + 1
	if !sc.has(k) || !sc.plainGap(j) {
		return false
	}
	t := sc.tok(k)
	if t.flags&(tDigits|tMulti|tUpper) != 0 || t.e()-t.s() < 3 {
		return false
	}
	if _, ok := lookup(sc, m.d.numWords, k); ok {
		return false
	}
	// Rare (an adjective form of a book): the word's lowercase copy costs nothing that matters.
	return !NotQualified(strings.ToLower(sc.str(k)))
}

// personAfter reports whether token k makes the name before it a
// person's: "first john said", "second peter and".
func (m *matcher) personAfter(k int) bool {
	return m.sc.in(k, &m.d.ws.personAfter)
}

func (m *matcher) evalPlace(i, j int, p *placeForm) (int, bool) {
	if p.stop && !m.stopPlaceCue(i, j, p) || len(p.words) != j-i+1 {
		return 0, false
	}
	sc := m.sc
	start, end := sc.tok(i).s(), sc.tok(j).e()
	orig := sc.text[start:end]
	if i >= 2 && (sc.tok(i-2).flags|sc.tok(max(i-5, 0)).flags)&tUpper != 0 {
		m.placeBefore(i) // a capitalised word two or five tokens before: "Zelfat in Sidon"
	}
	if allUpper(orig) {
		return j + 1, true
	}
	if i == j {
		// One word: its replacement is the name itself (p.id), if its
		// first letter wants a capital.
		r, _ := utf8.DecodeRuneInString(p.words[0])
		if sc.firstUpper(i) || !unicode.IsUpper(r) {
			m.placeEnd = end // a place written right may open a list of places
			return j + 1, true
		}
		return m.placeConf(i, j, p, start, end, p.id), true
	}
	b := m.buf[:0]
	need := false
	for k := i; k <= j; k++ {
		if k > i {
			b = append(b, sc.text[sc.tok(k-1).e():sc.tok(k).s()]...)
		}
		w := p.words[k-i]
		r, _ := utf8.DecodeRuneInString(w)
		if !sc.firstUpper(k) && unicode.IsUpper(r) {
			need = true
			b = append(b, w...)
		} else {
			b = append(b, sc.str(k)...)
		}
	}
	m.buf = b
	if !need {
		m.placeEnd = end // a place written right may open a list of places
		return j + 1, true
	}
	if m.commonPhrase(i, j, p) {
		return j + 1, true
	}
	return m.placeConf(i, j, p, start, end, m.str(string(b))), true
}

// placeConf records the change of tokens i..j, the place p, from start to
// end into repl, with evalPlace's confidence, and returns the token after.
func (m *matcher) placeConf(i, j int, p *placeForm, start, end int, repl sref) int {
	sc := m.sc
	var conf float64
	switch {
	case p.mentions >= 10 && len(p.name) >= 6:
		conf = 0.92
	case p.mentions >= 50 && len(p.name) >= 4:
		conf = 0.9
	case i != j:
		conf = 0.88
	case len(p.name) >= 4 && (m.locativeBefore(i) || sc.is(i-1, "unto")):
		// "went to cana": after a locative the rarer names are places (or, capitalised
		// all the same, people).
		conf = 0.86
	default:
		conf = 0.6
	}
	if i == j && m.glossedRarePlace(start, end, p) {
		return j + 1
	}
	m.add(start, end, repl, p.rule, conf)
	return j + 1
}

// placeBefore suggests the place that a capitalised word sounds like when
// it is placed in the place at token i: "a widow of Zelfat in the land of
// Sidon" is heard for Zarephath, "Kana in Galilee" for Cana. The word must
// have the very sound of a well-known place, of four sounds or more, in a
// text about scripture.
func (m *matcher) placeBefore(i int) {
	sc := m.sc
	k := i - 1
	if n := sc.tok(k).e() - sc.tok(k).s(); n != 2 && n != 4 {
		return // not "in", "of", "by" or "near": the common case, read first
	}
	if i >= 6 && sc.tok(i-5).flags&tUpper != 0 && sc.is(k, "of") &&
		sc.isAny(k-1, "land", "region", "city", "country", "province") && sc.is(k-2, "the") {
		k -= 3 // "Zelfat in the land of Sidon"
	}
	x := k - 1
	if x < 0 || sc.tok(x).flags&tUpper == 0 || !sc.isAny(k, "in", "of", "near", "by") {
		return // "went in Jerusalem": most words before a place are lowercase
	}
	t := sc.tok(x)
	n := t.e() - t.s()
	if n < 4 || n > 16 || t.flags&(tDigits|tMulti) != 0 || t.flags&tUpper == 0 || !sc.firstUpper(x) ||
		sc.sentenceStart(x) || allUpper(sc.str(x)) || demonymEnding(sc.str(x)) || !sc.plainGap(x) {
		return
	}
	if m.found.n > 0 && m.found.end(m.found.last()) > t.s() {
		return
	}
	if root, _, isPre := m.key(x); root != nil || isPre {
		return // a name the dictionary knows
	}
	lw := sc.lowerBytes(x)
	if _, ok := m.d.kjvNames[string(lw)]; ok {
		// "the heir of my house is Eliezer of Damascus": a man the Bible
		// names, not a misheard Ellasar; a name the Bible itself has is
		// no misheard other name.
		return
	}
	for _, c := range lw {
		if c < 'a' || c > 'z' {
			return
		}
	}
	var kb [32]byte
	key := appendPhoneticKey(kb[:0], lw)
	if len(key) < 4 {
		return
	}
	var best *fuzzyTarget
	var tb [32]byte
	for _, idx := range m.d.placeByLetter[letterIndex(lw[0])] {
		tg := &m.d.placeTargets[idx]
		if tg.lower == string(lw) || len(tg.lower)-n > 4 || n-len(tg.lower) > 4 ||
			string(appendPhoneticKey(tb[:0], []byte(tg.lower))) != string(key) {
			continue
		}
		if best == nil || tg.mentions > best.mentions {
			best = tg
		}
	}
	if best == nil || !m.aboutScripture(t) {
		return
	}
	m.add(t.s(), t.e(), best.id, rulePlaceFuzzy, 0.6)
}

// commonPhrase reports whether the words of tokens i..j that the place
// form p would capitalise are all ordinary words: "the holy city", "the
// high places", "the most holy place", "the city of David" are English
// phrases as well as names.
func (m *matcher) commonPhrase(i, j int, p *placeForm) bool {
	sc := m.sc
	for k := i; k <= j; k++ {
		w := p.words[k-i]
		r, _ := utf8.DecodeRuneInString(w)
		if sc.firstUpper(k) || !unicode.IsUpper(r) {
			continue
		}
		if _, ok := lookup(sc, m.d.commonPlaceWords, k); !ok {
			return false
		}
	}
	return true
}

// fuzzyMiss remembers a word that has no fuzzy match: its hash and
// where it occurred.
type fuzzyMiss struct {
	h     uint32 // the high half of the word's hash
	start int32  // where the word occurred
	n     uint8  // its length; 0 for a free slot
	dists uint8  // the distance of near, and of wide << 2
	// near and wide are 1 + the index of the word's matches in
	// dict.fuzzyAll and dict.placeTargets, or 0 for none.
	near, wide uint16
}

// fuzzyBest returns the well-known place name that sounds like the
// lowercase word lw and is nearest to it, and its distance, or nil. The
// distance is at most one, or two from eight letters (from six when wide).
func (m *matcher) fuzzyBest(lw []byte, wide bool) (*fuzzyTarget, int, uint16) {
	for _, c := range lw {
		if c < 'a' || c > 'z' {
			return nil, 0, 0
		}
	}
	var kb [32]byte
	key := appendPhoneticKey(kb[:0], lw)
	if !m.d.maybeFuzzyKey(key) || m.d.fuzzyEnglish[string(lw)] {
		return nil, 0, 0
	}
	targets := m.d.fuzzy[string(key)]
	maxD := 1
	if n := len(lw); n >= 8 || (wide && n >= 6) {
		maxD = 2 // the targets sound the same: "efesus" for "ephesus"
	}
	var best *fuzzyTarget
	bestD := maxD + 1
	for k := range targets {
		tg := &targets[k]
		if tg.lower == string(lw) {
			return nil, 0, 0
		}
		dd := editDistance(lw, tg.lower, maxD)
		if dd < bestD || (dd == bestD && best != nil && tg.mentions > best.mentions) {
			best, bestD = tg, dd
		}
	}
	if best == nil || bestD > maxD {
		return nil, 0, 0
	}
	return best, bestD, best.idx
}

// placeListAhead tries the word after a place that token j ends and "and"
// or "or" with listPlace, when the scanner marked it as a word no rule
// tries: "galatia / and fergia" is heard for Phrygia, whose first letter
// no shape of fuzzyPlace's has.
func (m *matcher) placeListAhead(j int) {
	sc := m.sc
	if !sc.in(j+1, &sc.d.ws.andOr) || !sc.has(j+2) || sc.tok(j+2).flags&tried != 0 {
		return
	}
	if t := sc.tok(j + 2); t.e()-t.s() >= 5 && t.e()-t.s() <= 24 && t.flags&(tDigits|tMulti) == 0 {
		m.listPlace(j+2, sc.lowerBytes(j+2))
	}
}

// listPlace suggests the well-known place that token i, lw in lowercase,
// sounds like where it continues a list of places in a sermon: "over the
// region of galatia / and fergia" is heard for Phrygia. The list makes a
// place likely, so the spelling may be one edit further from the name
// than fuzzyBest allows, the sound the same.
func (m *matcher) listPlace(i int, lw []byte) {
	if len(lw) < 5 || !m.sermon() || m.d.fuzzyEnglish[string(lw)] || m.isEnglishNear(i) {
		return
	}
	if changed, known := m.placeListBefore(i); !changed && !known {
		return
	}
	if _, ok := m.d.kjvNames[string(lw)]; ok {
		return // "Rome and Philippi", a name the Bible has, is written right
	}
	var kb [32]byte
	key := appendPhoneticKey(kb[:0], lw)
	if len(key) < 3 || !m.d.maybeFuzzyKey(key) {
		return
	}
	var best *fuzzyTarget
	targets := m.d.fuzzy[string(key)]
	for k := range targets {
		tg := &targets[k]
		if editDistance(lw, tg.lower, 3) <= 3 && (best == nil || tg.mentions > best.mentions) {
			best = tg
		}
	}
	if best != nil {
		t := m.sc.tok(i)
		m.add(t.s(), t.e(), best.id, rulePlaceFuzzy, 0.6)
	}
}

// fuzzyPlace looks for a well-known place name that token i may be a
// mishearing of ("capernum" for "Capernaum").
func (m *matcher) fuzzyPlace(i int) {
	sc := m.sc
	t := sc.tok(i)
	n := t.e() - t.s()
	if n < 5 || n > 24 || t.digits() {
		return
	}
	// Whether a word is near a place at all depends on the word only: an
	// ASCII word remembered as a miss is not tried again, whatever its
	// context.
	var slot *fuzzyMiss
	var near, wide *fuzzyTarget // same sound, two edits from six letters; another sound or a rarer place
	var nearD, wideD int
	cached := false
	if t.flags&tMulti == 0 && len(m.misses) > 0 {
		// Two slots a word: two words of one slot do not evict each other.
		k := int(t.h >> 40 & uint64(len(m.misses)-1))
		h32 := uint32(t.h >> 32)
		for _, s := range [2]int{k, k ^ 1} {
			if x := &m.misses[s]; x.h == h32 && int(x.n) == n && asciiEqualFold(sc.str(i), sc.text[x.start:int(x.start)+n]) {
				if x.near == 0 && x.wide == 0 {
					return // no place near this word
				}
				slot, cached = x, true
				near, nearD = m.d.fuzzyAt(x.near), int(x.dists&3)
				wide, wideD = m.d.placeAt(x.wide), int(x.dists>>2&3)
				break
			}
		}
		if slot == nil {
			slot = &m.misses[k]
			if slot.n != 0 && (m.misses[k^1].n == 0 || t.h>>39&1 == 1) {
				slot = &m.misses[k^1]
			}
		}
	}
	if !cached {
		// Another sound or a rarer place (wide) is used only after a cue.
		var ni, wi uint16
		lw := sc.lowerBytes(i)
		near, nearD, ni = m.fuzzyBest(lw, true)
		if near == nil && !m.d.fuzzyEnglish[string(lw)] {
			wide, wideD, wi = m.d.nearestPlace(lw)
		}
		if slot != nil {
			*slot = fuzzyMiss{h: uint32(t.h >> 32), start: t.start, n: uint8(n), near: ni, wide: wi,
				dists: uint8(nearD) | uint8(wideD)<<2}
		}
		if near == nil && wide == nil {
			m.listPlace(i, lw)
			return
		}
	}
	// A place context: a locative, "the brook of", a list of places. "to"
	// and "from" also lead to people ("said hello to", "a letter from").
	strong, toFrom := m.placeCueBefore(i)
	if !strong && !toFrom && near == nil {
		return
	}
	upper := sc.firstUpper(i) && !sc.sentenceStart(i)
	if near != nil || !(strong || upper) {
		wide = nil
	}
	if near == nil && wide == nil {
		return
	}
	cue := strong || (toFrom && !sc.isAny(i-2, "hello", "said", "say", "says",
		"spoke", "speak", "talk", "talked", "wrote", "write", "sent", "send", "gave", "give", "married",
		"introduced", "belongs", "thanks", "listen", "listened", "letter", "message", "gift", "email"))
	// A capitalised word inside a sentence that is no known name is most
	// often another proper noun ("Canadians", "Marian", a product): it is
	// tried only after a place cue, or after "of" in a text about
	// scripture when it sounds like a well-known place of eight letters or
	// more ("by the leg of Genesareta"). A demonym is never a misheard
	// place.
	if demonymEnding(sc.str(i)) {
		return
	}
	ofName := false
	if upper && !cue {
		if (near == nil || n < 8 || !sc.is(i-1, "of") || !m.aboutScripture(t)) && !m.lonePlace(i, near, nearD) {
			return
		}
		ofName = true
	}
	best, bestD := near, nearD
	if best != nil && bestD == 2 && n < 8 && !cue {
		best = nil // two edits in a short word only after a cue
	}
	if best == nil && (strong || (cue && upper)) {
		// Not a lowercase word after "to": "to create", "to attach" are verbs.
		best, bestD = wide, wideD
	}
	if best == nil || (n < 6 && !strong && !(cue && upper)) {
		return
	}
	if _, ok := m.d.kjvNames[string(sc.lowerBytes(i))]; ok {
		// "Pontius Pilate", "Gideon", "Caesar": a name the Bible itself
		// has is no misheard other name.
		return
	}
	if !strong && i > 0 && sc.plainGap(i-1) && (m.firstName(i-1) || i > 1 && sc.plainGap(i-2) && m.firstName(i-2)) {
		return // "john carmer", "john mark carmer": after a first name, a surname
	}
	if m.bible {
		// "corintheans 13 4": a book before a reference wins.
		if _, ok := m.fuzzyBook(i, false); ok {
			return
		}
	}
	conf := 0.6
	if bestD == 1 {
		conf = 0.75
		if n >= 7 && best.mentions >= 20 && (cue || sc.is(i-1, "of")) {
			conf = 0.86
		}
		if upper && !strong {
			conf = 0.75 // "go to Nazaret", but also "went to Marian"
		}
	}
	if bestD == 1 && conf < 0.86 && cue && !upper && n >= 6 && sameSkeleton(sc.lowerBytes(i), best.lower) && m.sermon() {
		// A sermon's "came to shekem", "in gadarra": a vowel or a doubled
		// letter moved, after a place cue.
		conf = 0.86
	}
	if ofName {
		conf = min(conf, 0.7) // a sound without a place cue: suggested
	}
	best, conf = m.soundWritten(i, best, conf)
	repl := best.id
	if allUpper(sc.str(i)) {
		repl = m.str(strings.ToUpper(best.name))
	}
	m.add(t.s(), t.e(), repl, rulePlaceFuzzy, conf)
}

// sungLine reports whether two of the line around offset start, the line
// before it and the line after it are said again word for word within 2
// KB: a song's chorus, whose captions ("bring joy to the city of haram",
// twice) a place's sound does not explain. Lines shorter than 24 bytes (an
// "amen") are not compared.
func (m *matcher) sungLine(start int) bool {
	text := m.sc.text
	a := strings.LastIndexByte(text[:start], '\n') + 1
	b := strings.IndexByte(text[start:], '\n')
	if b < 0 {
		return false
	}
	b += start
	lines := [3][2]int{{a, b}}
	if a > 0 {
		lines[1] = [2]int{strings.LastIndexByte(text[:a-1], '\n') + 1, a - 1}
	}
	if c := strings.IndexByte(text[b+1:], '\n'); c >= 0 {
		lines[2] = [2]int{b + 1, b + 1 + c}
	}
	said := 0
	for _, l := range lines {
		if l[1]-l[0] < 24 {
			continue
		}
		line := text[l[0]:l[1]]
		lo, hi := min(l[0], max(0, a-2048)), max(l[1], min(len(text), b+2048))
		if k := strings.LastIndex(text[lo:l[0]], line); k >= 0 && (lo+k == 0 || text[lo+k-1] == '\n') {
			said++
		} else if k := strings.Index(text[l[1]:hi], line); k >= 0 && l[1]+k+len(line) < len(text) && text[l[1]+k+len(line)] == '\n' {
			said++
		}
	}
	return said >= 2
}

// knownMiss reports whether the word of t, of ASCII letters, is cached as
// having no place near it: the common case, answered without a call.
func (m *matcher) knownMiss(t *token) bool {
	if t.flags&tMulti != 0 || len(m.misses) == 0 {
		return false
	}
	// The word is in one of its two slots at most (see fuzzyPlace); a
	// false answer only costs the call.
	k := t.h >> 40 & uint64(len(m.misses)-1)
	h32 := uint32(t.h >> 32)
	x := &m.misses[k]
	if x.h != h32 {
		x = &m.misses[k^1]
	}
	return x.h == h32 && x.near|x.wide == 0 && int32(x.n) == t.end-t.start &&
		asciiEqualFold(m.sc.text[t.start:t.end], m.sc.text[x.start:x.start+int32(x.n)])
}

// placeCueBefore reports whether a strong place cue precedes token i (a
// locative such as "in" or "near", "the brook of", a list of places), or
// "to" or "from". It reads the word before once: it runs on every word
// that may be a misheard place.
func (m *matcher) placeCueBefore(i int) (strong, toFrom bool) {
	sc := m.sc
	if i < 1 {
		return false, false
	}
	t := sc.tok(i - 1)
	if n := t.e() - t.s(); n >= 2 && n <= 7 && t.flags&tMulti == 0 {
		var buf [7]byte
		for k := 0; k < n; k++ {
			buf[k] = sc.text[t.s()+k] | 0x20
		}
		switch string(buf[:n]) {
		case "in", "into", "near", "at", "through", "toward", "towards", "unto":
			return true, false
		case "to", "from":
			return false, true
		case "of":
			if m.placeOf(i) {
				return true, false
			}
		}
	}
	changed, known := m.placeListBefore(i)
	if known && sc.firstUpper(i) && m.personAfter(i+1) && !(sc.is(i+1, "and") && sc.isAny(i+2, "the", "a")) {
		// "we visited Rome and Philippe came along": a person; but "between
		// Zorah and Eshtal and the tomb" goes on as a list of places.
		known = false
	}
	return changed, known
}

// placeOf reports whether token i follows a place noun and "of": "the
// brook of", "the land of", "the city of".
func (m *matcher) placeOf(i int) bool {
	return m.sc.is(i-1, "of") && m.sc.isAny(i-2, "brook", "city", "land", "sea", "valley", "mount",
		"mountain", "river", "plain", "plains", "wilderness", "desert", "region", "town", "village",
		"hill", "hills", "pool", "road", "gate", "coast", "coasts", "regions", "towns", "cities", "garden",
		"cave", "island", "isle")
}

// placeListBefore reports whether token i continues a list of places: a
// place that ends one or two tokens before, joined by a comma, "and" or
// "or" ("from jerusalem, bethany and capernum"). changed is for a place
// the matcher corrected, known for one written right ("from Neapolis and
// Philipi"), a weaker cue: that place may be the only one.
func (m *matcher) placeListBefore(i int) (changed, known bool) {
	if i < 1 {
		return false, false
	}
	end := -1
	if m.found.n > 0 {
		if last := m.found.last(); last.rule >= rulePlaceLowercase {
			end = m.found.end(last)
		}
	}
	if m.placeEnd > end {
		if m.listAt(i, m.placeEnd) {
			return false, true
		}
	}
	return end >= 0 && m.listAt(i, end), false
}

// listAt reports whether token i follows a word that ends at byte end and
// a comma, "and" or "or".
func (m *matcher) listAt(i, end int) bool {
	sc := m.sc
	prev := sc.tok(i - 1)
	if prev.e() == end {
		return strings.TrimSpace(sc.text[end:sc.tok(i).s()]) == ","
	}
	cut := " ,"
	if m.captionCase() {
		cut = " ,\r\n" // a caption's cue line ends anywhere: "over the region of galatia / and fergia"
	}
	return sc.isAny(i-1, "and", "or") && i >= 2 && sc.tok(i-2).e() == end &&
		strings.Trim(sc.text[end:prev.s()], cut) == ""
}

// demonymEnding reports whether w ends like a demonym or an adjective of
// a people: "Canadians", "Lebanese", "Israelite".
func demonymEnding(w string) bool {
	n := len(w)
	for _, suf := range []string{"ian", "ians", "ese", "ite", "ites", "ish"} {
		if n > len(suf)+2 && strings.EqualFold(w[n-len(suf):], suf) {
			return true
		}
	}
	return false
}

// ref is a chapter and verse reference after a book name.
type ref struct {
	ok           bool
	strong       bool  // more than a bare number: "13:4", "13 4", "chapter 13"
	chapterWord  bool  // the word "chapter" opens it
	chapterRange bool  // "Psalms 120 through 134", "Psalms 1 and 2"
	unsure       bool  // two readings, neither sure: not normalized (see readRef)
	bareVerse    bool  // the verse is a bare number after the chapter ("6 3")
	bk           uint8 // the versified book it was read for (see dict.bookOf), 0 for none
	chapter      int
	verse        int
	verseEnd     int
	chapterEnd   int
	chapterTok   int // last token of the chapter
	verseTok     int // last token of the first verse
	endTok       int // last token of the reference
}

// appendTo appends the reference as "13:4–7" to b.
func (r ref) appendTo(b []byte) []byte {
	b = strconv.AppendInt(b, int64(r.chapter), 10)
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
	return b
}

// plainGap reports whether tokens k and k+1 are separated by spaces or a
// hyphen only, as the words of one spoken number are.
func (sc *scanner) plainGap(k int) bool {
	g := sc.refGap(k)
	return g.ok && !g.colon && !g.comma && !g.period
}

// parseRef reads a reference starting at token k.
func (m *matcher) parseRef(k int) ref {
	return m.parseRefIn(k, 0)
}

// parseRefIn reads a reference of book b (see dict.bookOf; 0 for a book
// not known) starting at token k. With b, the book's versification
// chooses among the readings of the words and never lets a chapter or
// verse it does not have into the reference.
func (m *matcher) parseRefIn(k int, b uint8) ref {
	r := m.readRef(k, b)
	r.bk = b // read for b, whether or not it is a reference
	return r
}

// readRef is parseRefIn.
func (m *matcher) readRef(k int, b uint8) ref {
	sc := m.sc
	var r ref
	if k <= 0 || !sc.has(k) {
		return r
	}
	if g := sc.refGap(k - 1); !g.ok || g.dash || g.colon || sc.sentenceBetween(g, k) {
		return r
	}
	chapterWord := false
	if sc.in(k, &sc.d.ws.chapter) {
		if !sc.refGap(k).ok {
			return r
		}
		chapterWord = true
		k++
	}
	if b != 0 && !chapterWord && m.d.singleChapter(b) && sc.in(k, &sc.d.ws.verse) && sc.refGap(k).ok {
		// "is there any more to say jude / verse 17": a book of one
		// chapter names its verse so; the chapter is understood.
		if v, next, _ := m.parseNum(k + 1); m.d.hasVerse(b, 1, v) {
			return ref{ok: true, chapter: v, chapterTok: next - 1, endTok: next - 1}
		}
		return r
	}
	v, next, spoken := m.parseNum(k)
	if b != 0 && spoken && v > 100 && v%100 < 10 && !m.d.hasChapter(b, v) && sc.isAny(k+1, "oh", "o") {
		v, next = v/100, k+1 // "1 john one oh nine": no chapter 109, so chapter one
	}
	if b != 0 && !spoken && (v == 0 || !m.d.hasChapter(b, v)) && !chapterWord {
		// "Romans 828": a chapter and a verse without their colon.
		if t := sc.tok(k); sc.has(k) && t.digits() && t.e()-t.s() >= 3 && t.e()-t.s() <= 4 {
			if c, vs, ok := m.d.splitDigits(b, sc.text[t.s():t.e()]); ok && !(v%100 != c && m.citedChapter(b, v%100)) {
				// But "on psalm 91 ... what psalm 191 says": a chapter the
				// text has just cited, with a digit before it, is that
				// chapter misheard, not 19:1; it is left as written.
				r = ref{ok: true, bk: b, chapter: c, verse: vs, chapterTok: k, verseTok: k, endTok: k}
				m.refRange(k+1, b, &r)
				return r
			}
			if m.sermon() && m.d.gluedTwice(b, sc.text[t.s():t.e()]) {
				return ref{ok: true, unsure: true, bk: b, chapter: 1, chapterTok: k, endTok: k}
			}
		}
	}
	if v < 1 || v > 150 {
		return r
	}
	r = ref{ok: true, strong: chapterWord, chapterWord: chapterWord, chapter: v, chapterTok: next - 1, endTok: next - 1}
	if m.quantityNotChapter(next, spoken, chapterWord) {
		r.unsure = true // the book's name, no chapter to write
		return r
	}
	k = m.refVerse(next, b, &r, spoken)
	if b != 0 && spoken && !chapterWord && r.verse >= 10 && r.verse <= 99 && r.chapter < 10 &&
		!m.d.hasVerse(b, r.chapter, r.verse) && m.d.hasChapter(b, r.chapter*100+r.verse) &&
		sc.plainGap(r.chapterTok) {
		// "Psalm one forty-five" is Psalm 145, not 1:45.
		r.chapter, r.verse, r.chapterTok, r.endTok, r.strong = r.chapter*100+r.verse, 0, r.verseTok, r.verseTok, true
		k = m.refVerse(r.verseTok+1, b, &r, true)
	}
	m.refRange(k, b, &r)
	if r.verse == 0 && !r.strong && m.verseAhead(r.endTok+1) {
		r.strong = true // "acts 15 beginning in verse 36": a chapter read from a verse
	}
	m.d.checkRef(b, &r)
	if r.chapterEnd > r.chapter+1 && b != 0 && !r.chapterWord && sc.refGap(r.chapterTok).dash &&
		m.d.hasVerse(b, r.chapter, r.chapterEnd) && m.citedChapter(b, r.chapter) {
		// "Romans 6-11" in a sermon on Romans 6: chapters 6 to 11, or the
		// verse 6:11 of the chapter the sermon reads? Left as written.
		// Two chapters in a row ("2 Corinthians 8-9") are a range.
		r.unsure = true
	}
	r.unsure = r.unsure || r.chapterEnd > r.chapter+1 && m.loneRange(b, &r) // "acts 1-8" named once: see r14j_lonerange.go
	r.unsure = r.unsure || r.verse > 0 && m.dashAgain(b, &r)                // "2 timothy 1-5" after "2 timothy 3 1-5": see r14l_dashagain.go
	r.unsure = r.unsure || m.loneNumbered(b, &r)                            // "2 corinthians 4-8" beside "1 corinthians": see r14o_otherbook.go
	if r.bareVerse && b != 0 && r.verse == r.chapter+1 && r.verseEnd == r.verse+1 && m.d.hasChapter(b, r.verseEnd) {
		// "romans 6 7 and 8": three chapters in a row, or 6:7–8; the
		// captions dropped the commas that told them apart. Left as
		// written.
		r.unsure = true
	}
	if r.bareVerse && r.verseEnd == 0 && (sc.has(r.endTok+1) && sc.tok(r.endTok+1).digits() && sc.plainGap(r.endTok) || m.restatedVerse(&r)) {
		// "romans 6 3 5": 6:3–5 or 6:3 and a number of what follows; the
		// captions dropped what told them apart. Left as written, as is
		// "romans 8 4 verse 14" (restatedVerse).
		r.unsure = true
	}
	return r
}

// refVerse reads the verse of r at token k: ":16", "verse 16", "verse
// number 16", or a number of the chapter's kind after a space ("three
// sixteen", "3 16"; with a book known, a verse in digits after a spoken
// chapter too: "three 12"). It returns the token after what it read.
func (m *matcher) refVerse(k int, b uint8, r *ref, spoken bool) int {
	sc := m.sc
	if !sc.has(k) {
		return k
	}
	g := sc.refGap(k - 1)
	if !g.ok || g.dash && !m.dashVerse(k, b, r) {
		return k
	}
	if r.chapterWord && !g.comma && !g.period && sc.is(k, "and") && sc.has(k+1) && sc.refGap(k).ok &&
		sc.isAny(k+1, "verse", "verses") {
		k++ // "chapter three and verse sixteen"
	}
	switch {
	case g.colon:
		if v2, nx, _ := m.parseNum(k); v2 >= 1 && v2 <= 176 {
			r.verse, r.strong, r.verseTok, r.endTok, k = v2, true, nx-1, nx-1, nx
		}
	case sc.in(k, &sc.d.ws.verse):
		n := k + 1
		if sc.has(n) && sc.refGap(k).ok && sc.isAny(n, "number", "numbers") && sc.refGap(n).ok {
			n++ // "verse number 7"
		}
		if sc.has(n) && sc.refGap(n-1).ok {
			if v2, nx, _ := m.parseNum(n); v2 >= 1 && v2 <= 176 {
				r.verse, r.strong, r.verseTok, r.endTok, k = v2, true, nx-1, nx-1, nx
				if d := m.unitAfter(nx - 1); d > 0 && v2%10 == 0 && v2 >= 20 && v2 <= 90 && b != 0 && m.d.hasVerse(b, r.chapter, v2+d) &&
					!m.countAfter(ref{endTok: nx}) {
					// "galatians 3 verse 20 / 8": "twenty-eight" written
					// as two numbers, here across a caption's cue line.
					r.verse, r.verseTok, r.endTok, k = v2+d, nx, nx, nx+1
				}
			}
		}
	case g.period && m.periodVerse(k, b, r):
		v2, nx, _ := m.parseNum(k)
		r.verse, r.strong, r.verseTok, r.endTok, k = v2, true, nx-1, nx-1, nx
	case !g.comma && !g.period && m.gluedVerse(k, b, r.chapter) > 0:
		r.verse, r.strong, r.verseTok, r.endTok = m.gluedVerse(k, b, r.chapter), true, k, k
		k++
	case !g.comma && !g.period:
		if v2, nx, sp := m.parseNum(k); v2 >= 1 && v2 <= 176 && (sp == spoken || (b != 0 && spoken && m.d.hasVerse(b, r.chapter, v2))) {
			r.verse, r.strong, r.verseTok, r.endTok, k = v2, true, nx-1, nx-1, nx
			r.bareVerse = true
		}
	}
	return k
}

// unitAfter returns the digit 1 to 9 that token k+1 is, written as a
// digit after a plain gap (spaces, or a line end in lowercase captions),
// or 0.
func (m *matcher) unitAfter(k int) int {
	sc := m.sc
	if !sc.has(k + 1) {
		return 0
	}
	t := sc.tok(k + 1)
	if t.e()-t.s() != 1 || sc.text[t.s()] < '1' || sc.text[t.s()] > '9' {
		return 0
	}
	gap := sc.text[sc.tok(k).e():t.s()]
	if strings.Trim(gap, " ") != "" && !(m.captionCase() && strings.Trim(gap, " \r\n") == "" && strings.Count(gap, "\n") == 1) {
		return 0
	}
	return int(sc.text[t.s()] - '0')
}

// refRange reads the end of a range at token k after r: "through 7",
// "-7", "and 2" (chapters), "and 6" (the next verse).
func (m *matcher) refRange(k int, b uint8, r *ref) {
	sc := m.sc
	if !sc.has(k) {
		return
	}
	g := sc.refGap(k - 1)
	if !g.ok || g.comma || g.period {
		return
	}
	rk := -1
	switch {
	case g.dash:
		rk = k
	case sc.in(k, &sc.d.ws.rangeEnd) && sc.refGap(k).ok:
		rk = k + 1
	case r.verse == 0 && sc.is(k, "and") && sc.refGap(k).ok:
		if v3, _, _ := m.parseNum(k + 1); v3 > r.chapter && v3 <= 150 {
			r.chapterRange = true
		}
		return
	case r.verse > 0 && b != 0 && sc.is(k, "and") && sc.refGap(k).ok:
		// "verses five and six": a range of two verses.
		if v3, nx, _ := m.parseNum(k + 1); v3 == r.verse+1 && m.d.hasVerse(b, r.chapter, v3) {
			r.verseEnd, r.endTok = v3, nx-1
		}
		return
	case r.verse > 0 && r.verseEnd == 0 && b != 0 && !g.colon && !sc.tok(r.verseTok).digits():
		// "matthew twenty eight nineteen twenty": a spoken verse and the
		// next one said after it, with nothing between, are a range.
		if v3, nx, sp := m.parseNum(k); sp && v3 == r.verse+1 && m.d.hasVerse(b, r.chapter, v3) && !m.numberGoesOn(nx) {
			r.verseEnd, r.endTok = v3, nx-1
		}
		return
	}
	if rk >= 0 && sc.has(rk) {
		v3, nx, _ := m.parseNum(rk)
		switch {
		case r.verse > 0 && v3 > r.verse && v3 <= 176:
			r.verseEnd, r.endTok = v3, nx-1
		case r.verse == 0 && v3 > r.chapter && v3 <= 150:
			r.chapterEnd, r.chapterRange, r.endTok, r.strong = v3, true, nx-1, true
		}
	}
}

// verseAhead reports whether tokens from k say where the reading of a
// chapter begins: "beginning in verse", "starting at verse", "starting
// with verses".
func (m *matcher) verseAhead(k int) bool {
	sc := m.sc
	if !sc.in(k, &m.d.ws.begin) {
		return false
	}
	if sc.isAny(k+1, "in", "at", "with", "from") {
		k++
	}
	return sc.in(k+1, &m.d.ws.verse)
}

// numberGoesOn reports whether token k is a number said or written
// right after the one before it ("nineteen twenty five" is a year).
func (m *matcher) numberGoesOn(k int) bool {
	sc := m.sc
	if !sc.has(k) || !sc.plainGap(k-1) {
		return false
	}
	if sc.tok(k).digits() {
		return true
	}
	_, ok := m.numWord(k)
	return ok
}

// numWord returns the value of token k as a number word ("seven",
// "twenty"), if it is one.
func (m *matcher) numWord(k int) (int, bool) {
	if t := m.sc.tok(k); t.flags&tMulti == 0 && !m.d.maybeNumWord(t.h) {
		return 0, false // most words: no map lookup
	}
	return lookup(m.sc, m.d.numWords, k)
}

// parseNum reads a number written in digits ("23") or words ("twenty
// three", "one hundred and nineteen") at token k. It returns the value
// (0 if none), the token after it, and whether it was spoken.
func (m *matcher) parseNum(k int) (int, int, bool) {
	sc := m.sc
	if !sc.has(k) {
		return 0, k, false
	}
	t := sc.tok(k)
	if t.digits() {
		if t.e()-t.s() > 3 || sc.text[t.s()] == '0' {
			return 0, k, false // "resolution numbers 06-0003": an identifier
		}
		v := 0
		for p := t.s(); p < t.e(); p++ {
			v = v*10 + int(sc.text[p]-'0')
		}
		return v, k + 1, false
	}
	v, ok := m.numWord(k)
	if !ok && t.e()-t.s() == 1 && sc.text[t.s()]|0x20 == 'a' && sc.is(k+1, "hundred") && sc.plainGap(k) {
		v, ok = 1, true // "psalm a hundred and three"
	}
	if !ok || v == 100 {
		return 0, k, false
	}
	k++
	if v < 10 && sc.isAny(k, "oh", "o") && sc.has(k+1) && sc.plainGap(k-1) && sc.plainGap(k) {
		// "psalm one oh three": the hundreds, and a zero said as the
		// letter.
		if u, ok := m.numWord(k + 1); ok && u < 10 {
			return v*100 + u, k + 2, true
		}
	}
	if v < 10 && sc.has(k) && sc.plainGap(k-1) && sc.is(k, "hundred") {
		total := v * 100
		k++
		if sc.has(k) && sc.plainGap(k-1) && sc.is(k, "and") {
			k++
		}
		if sc.has(k) && sc.plainGap(k-1) {
			if rest, nk, sp := m.parseNum(k); sp && rest > 0 && rest < 100 {
				return total + rest, nk, true
			}
		}
		return total, k, true
	}
	if v >= 20 && sc.has(k) && sc.plainGap(k-1) {
		if u, ok := m.numWord(k); ok && u < 10 {
			return v + u, k + 1, true
		}
	}
	return v, k, true
}

// plural reports whether the word w ends with an s: "in lamentation" is
// no "in Lamentations".
func plural(w string) bool {
	return len(w) > 1 && w[len(w)-1]|0x20 == 's'
}

// firstName reports whether token k is a book's name that is a common
// first name ("john", "james", "peter").
func (m *matcher) firstName(k int) bool {
	n, _, _ := m.key(k)
	return n != nil && n.book != nil && n.book.risk == riskCommonName
}

// readersBook changes the singular of the readers' name of a letter that
// is no book on its own ("roman", "hebrew") into the letter before a
// chapter and a verse: "turn to roman 8 28", "hebrew 11 verse 1"; "the
// roman 8 legions" and "hebrew 11 people" stay.
func (m *matcher) readersBook(i int, f *bookForm) (int, bool) {
	r := m.parseRefIn(i+1, m.d.bookOf(f.book.id))
	if !r.ok || r.verse == 0 || m.determinerBefore(i) || m.countAfter(r) {
		return 0, false
	}
	return m.emitBook(i, i, f.book.id, r, ruleBookMisspelling, 0.9), true
}

// sameSkeleton reports whether a and b have the same consonants in the
// same order once doubled letters are read once: "shekem" and "shechem"
// do not ("k" for "ch"), "gadarra" and "gadara", "bethsayda" and
// "bethsaida" do.
func sameSkeleton(a []byte, b string) bool {
	i, j := 0, 0
	next := func(s func(int) byte, n int, k *int) byte {
		for *k < n {
			c := s(*k)
			*k++
			switch c {
			case 'a', 'e', 'i', 'o', 'u', 'y':
				continue
			}
			for *k < n && s(*k) == c {
				*k++
			}
			return c
		}
		return 0
	}
	for {
		x := next(func(k int) byte { return a[k] }, len(a), &i)
		y := next(func(k int) byte { return b[k] }, len(b), &j)
		if x != y {
			return false
		}
		if x == 0 {
			return true
		}
	}
}
