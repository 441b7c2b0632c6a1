package correction

import "strings"

// Misspelled book names that no variant list has ("levitikus 19 18", "the
// book of deuteronomey", "rumors chapter five") are matched against the
// books by spelling and sound, but only where the context makes a book
// certain: before a chapter (and verse) number, after "the book of", or as
// the addressees of a letter ("the letter to the colosians").

// bookTarget is a book name that misheard words are compared with.
type bookTarget struct {
	lower string  // "leviticus", "corinthians"
	key   string  // its phonetic key
	name  string  // the replacement without a number
	fam   *family // the numbered books of this name, if any
	psalm bool
	id    sref
}

// cueKind marks the words that open a context for a misheard book or
// place; they are entries of the key table.
type cueKind uint8

const (
	cueNone    cueKind = iota
	cueChapter         // "chapter": the word before may be a book
	cueTitle           // "book", "gospel", "letter": "the book of X"
	cueWrote           // "wrote": "wrote to the X"
	cueReal            // an English word the recognizer writes for a name ("cavalry")
	cueSome            // "some", a misheard "psalm" in "in some twenty three"
)

// cueWords returns the words that open a context, by kind.
func cueWords() map[string]cueKind {
	return map[string]cueKind{
		"chapter": cueChapter, "chapters": cueChapter,
		"book": cueTitle, "books": cueTitle, "gospel": cueTitle, "letter": cueTitle,
		"letters": cueTitle, "epistle": cueTitle, "epistles": cueTitle,
		"wrote": cueWrote, "writes": cueWrote, "writing": cueWrote, "written": cueWrote,
		"cavalry": cueReal, "calgary": cueReal,
		"some": cueSome,
	}
}

// realWordPlaces returns English words that a recognizer writes for a
// biblical place, with the place and the words of which one must be near
// for a suggestion ("the blood he shed on cavalry").
func realWordPlaces() map[string]realWord {
	crucifixion := []string{"cross", "blood", "crucif", "died", " die ", "shed", "jesus", "christ", "nails", "tomb", "golgotha", "skull", "sacrifice", "savior", "saviour"}
	return map[string]realWord{
		"cavalry": {name: "Calvary", near: crucifixion},
		"calgary": {name: "Calvary", near: crucifixion},
	}
}

// realWord is an English word that may stand for a place name.
type realWord struct {
	name string
	near []string
	id   sref
}

// buildBookTargets lists the single-word books of five letters or more
// and the bases of the numbered books.
func (d *dict) buildBookTargets(books map[string]*book, fams map[string]*family) {
	seen := map[string]bool{}
	add := func(name string, fam *family) {
		lower := strings.ToLower(name)
		if seen[lower] || len(lower) < 5 || strings.Contains(lower, " ") {
			return
		}
		seen[lower] = true
		d.bookTargets = append(d.bookTargets, bookTarget{
			lower: lower, key: phoneticKey(lower), name: name, fam: fam, psalm: lower == "psalms",
		})
	}
	for _, name := range protestantBooks() {
		if fam := fams[name]; fam != nil {
			add(name, fam)
			continue
		}
		if books[name] != nil {
			add(name, nil)
		}
	}
}

// protestantBooks returns the names of the 66 books, numbered books by
// their common base.
func protestantBooks() []string {
	return []string{
		"Genesis", "Exodus", "Leviticus", "Numbers", "Deuteronomy", "Joshua", "Judges", "Ruth",
		"Samuel", "Kings", "Chronicles", "Ezra", "Nehemiah", "Esther", "Job", "Psalms",
		"Proverbs", "Ecclesiastes", "Isaiah", "Jeremiah", "Lamentations", "Ezekiel",
		"Daniel", "Hosea", "Joel", "Amos", "Obadiah", "Jonah", "Micah", "Nahum", "Habakkuk",
		"Zephaniah", "Haggai", "Zechariah", "Malachi", "Matthew", "Mark", "Luke", "John",
		"Acts", "Romans", "Corinthians", "Galatians", "Ephesians", "Philippians",
		"Colossians", "Thessalonians", "Timothy", "Titus", "Philemon", "Hebrews", "James",
		"Peter", "Jude", "Revelation",
	}
}

// epistle reports whether a book is a letter to a church or a person.
func (t *bookTarget) epistle() bool {
	switch t.lower {
	case "romans", "corinthians", "galatians", "ephesians", "philippians", "colossians",
		"thessalonians", "hebrews", "timothy", "titus", "philemon":
		return true
	}
	return false
}

// nearestBook returns the book nearest to the lowercase word w, its
// spelling distance and the distance of their phonetic keys (each up to
// 3, or nil).
func (d *dict) nearestBook(w []byte) (*bookTarget, int, int) {
	var kb [32]byte
	key := appendPhoneticKey(kb[:0], w)
	var best *bookTarget
	bestD, bestK := 4, 4
	for k := range d.bookTargets {
		t := &d.bookTargets[k]
		if len(key) == 0 || len(t.key) == 0 || key[0] != t.key[0] {
			continue
		}
		if n := len(w) - len(t.lower); n > 3 || n < -3 {
			continue
		}
		dd := editDistance(w, t.lower, 3)
		if dd > 3 {
			continue
		}
		kd := editDistance(key, t.key, 3)
		if dd < bestD || (dd == bestD && kd < bestK) {
			best, bestD, bestK = t, dd, kd
		}
	}
	return best, bestD, bestK
}

// cueAt handles token i, a cue word of kind cue. It returns the token to
// continue from, or i when nothing was found.
func (m *matcher) cueAt(i int, cue cueKind) int {
	sc := m.sc
	switch cue {
	case cueChapter:
		if prev := sc.tok(max(i-1, 0)); m.bible && i > 0 && prev.e()-prev.s() >= 5 {
			if next, ok := m.fuzzyBook(i-1, false); ok {
				return next
			}
		}
	case cueTitle, cueWrote:
		c := i + 2 // "the book of X"
		if !sc.isAny(i+1, "of", "to") {
			return i
		}
		if sc.is(c, "the") && sc.is(i+1, "to") {
			c++ // "the letter to the X"
		} else if cue == cueWrote {
			return i
		}
		if !sc.has(c) {
			return i // the text ends with the cue
		}
		if _, ok := lookup(sc, m.d.prefixes, c); ok && sc.has(c+1) {
			c++ // "the book of first corintheans": the prefix is read with the name
		}
		if m.bible && sc.has(c) {
			if next, ok := m.fuzzyBook(c, true); ok {
				return next
			}
		}
	case cueReal:
		if m.place {
			m.realWordPlace(i)
		}
	case cueSome:
		if m.bible {
			return m.somePsalm(i)
		}
	}
	return i
}

// somePsalm suggests "Psalm" for "some" after "in" and before a psalm
// number in a text about scripture: "so in some one, ten" is heard for
// "so in Psalm 110". It returns the token to continue from, or i.
func (m *matcher) somePsalm(i int) int {
	sc := m.sc
	if !sc.is(i-1, "in") {
		return i
	}
	r := m.parseRef(i + 1)
	if !r.ok || m.countAfter(r) {
		return i // "in some 20 years"
	}
	t := sc.tok(i)
	lo, hi := max(0, t.s()-400), min(len(sc.text), t.e()+400)
	around := strings.ToLower(sc.text[lo:hi])
	for _, w := range []string{"bible", "scripture", "psalm", "verse", "chapter", "the lord", "god"} {
		if strings.Contains(around, w) {
			m.add(t.s(), t.e(), m.d.psalmID, ruleBookFuzzy, 0.7)
			return r.endTok + 1
		}
	}
	return i
}

// fuzzyBook tries token c as a misspelled book name before a reference
// or after a cue (cued), and returns the token to continue from.
func (m *matcher) fuzzyBook(c int, cued bool) (int, bool) {
	sc := m.sc
	if c < 0 || !sc.has(c) {
		return 0, false
	}
	t := sc.tok(c)
	n := t.e() - t.s()
	if n < 5 || n > 16 || t.flags&(tDigits|tMulti) != 0 {
		return 0, false
	}
	if m.found.n > 0 && m.found.end(m.found.last()) > t.s() {
		return 0, false // already part of a change
	}
	best, dist, kdist := m.nearestBookAt(c)
	if best == nil {
		return 0, false
	}
	r := m.parseRef(c + 1)
	if root, _, isPre := m.key(c); isPre || (root != nil && (root.place != nil || root.book == nil ||
		root.book.kind != kNone || !(r.strong || cued))) {
		// A dictionary form: its own rules decided. Only a word the
		// dictionary never reads as a book ("ester", "number") is tried,
		// and only before a strong reference or after a cue.
		return 0, false
	}
	if lw := sc.lowerBytes(c); !cued && (m.d.chapterEnglish[string(lw)] || (!r.strong && m.d.fuzzyEnglish[string(lw)])) {
		// "another chapter", "the final chapter"; an English word that
		// sounds like a name only before a strong reference ("Hebrew
		// chapter one").
		return 0, false
	}
	if !cued && !r.ok {
		return 0, false
	}
	at := c // where the cue must be: before the prefix of "first samoel"
	if c > 0 && sc.nameGap(c-1) {
		if _, ok := lookup(sc, m.d.prefixes, c-1); ok {
			at = c - 1
		}
	}
	if cued && !m.strongCue(at) {
		return 0, false // "a book of numbers"
	}
	if cued && sc.is(at-1, "the") && !best.epistle() {
		return 0, false // "the letter to the X" names a church or a person
	}
	close := dist <= 1 || (dist <= 2 && (len(best.lower) >= 7 || kdist == 0))
	// A real word three edits away ("rumors" for "Romans") only after
	// "the book of" or before "chapter", never before bare numbers.
	far := !close && dist <= 3 && kdist <= 1 && n >= 6 && (cued || (r.chapterWord && !m.determinerBefore(c))) &&
		n-len(best.lower) <= 1 && len(best.lower)-n <= 1
	if !close && !far {
		return 0, false
	}
	start := c
	id := best.id
	if best.psalm {
		id = m.d.psalmsID
		if r.ok && !r.chapterRange {
			id = m.d.psalmID
		}
	}
	if c > 0 && best.fam != nil && sc.nameGap(c-1) {
		if p, ok := lookup(sc, m.d.prefixes, c-1); ok {
			if b := best.fam.books[p.num]; b != nil && (p.style != pRoman || sc.tok(c-1).upper()) &&
				(p.style != pCardWord || r.strong) {
				start, id = c-1, b.id
			}
		}
	}
	if m.found.n > 0 && m.found.end(m.found.last()) > sc.tok(start).s() {
		start, id = c, best.id
	}
	var conf float64
	switch {
	case close && r.strong:
		conf = 0.9
	case close && cued && (len(best.lower) >= 7 || r.ok):
		conf = 0.88
	case close && cued:
		conf = 0.7 // "the book of names" is English too: a short book only suggested
	case close && r.ok && len(best.lower) >= 7 && (m.weakCue(start) || m.listCue(start)) && !m.countAfter(r):
		conf = 0.86
	case close && r.ok:
		conf = 0.7
	case far && (r.strong || cued):
		conf = 0.7 // a real word the recognizer wrote: "the book of rumors"
	default:
		return 0, false
	}
	return m.emitBook(start, c, id, r, ruleBookFuzzy, conf), true
}

// realWordPlace suggests the place an English word stands for when words
// of its story are near: "the blood he shed on cavalry".
func (m *matcher) realWordPlace(i int) {
	sc := m.sc
	rw, ok := lookup(sc, m.d.realWords, i)
	if !ok {
		return
	}
	t := sc.tok(i)
	lo, hi := max(0, t.s()-400), min(len(sc.text), t.e()+400)
	around := strings.ToLower(sc.text[lo:hi])
	for _, w := range rw.near {
		if strings.Contains(around, w) {
			repl := rw.id
			if allUpper(sc.str(i)) {
				repl = m.str(strings.ToUpper(rw.name))
			}
			m.add(t.s(), t.e(), repl, rulePlaceRealWord, 0.7)
			return
		}
	}
}

// nearestPlace returns the place of placeTargets nearest to the lowercase
// word w that starts with the same letter, within one edit (two from
// eight letters), or nil. Of equally near places the most mentioned wins.
func (d *dict) nearestPlace(w []byte) (*fuzzyTarget, int, uint16) {
	maxD := 1
	if len(w) >= 8 {
		maxD = 2
	}
	if letterIndex(w[0]) == 0 {
		return nil, 0, 0
	}
	var best *fuzzyTarget
	bestD := maxD + 1
	for _, k := range d.placeByLetter[letterIndex(w[0])] {
		t := &d.placeTargets[k]
		if len(t.lower)-len(w) > maxD || len(w)-len(t.lower) > maxD {
			continue
		}
		if t.lower == string(w) {
			return nil, 0, 0
		}
		dd := editDistance(w, t.lower, maxD)
		if dd < bestD || (dd == bestD && best != nil && t.mentions > best.mentions) {
			best, bestD = t, dd
		}
	}
	if best == nil || bestD > maxD {
		return nil, 0, 0
	}
	if len(w) <= 6 && phoneticKey(string(w)) != phoneticKey(best.lower) {
		return nil, 0, 0 // a short word must sound the same: not "jesus" for "Jebus"
	}
	return best, bestD, best.idx
}

// bookMiss remembers the book nearest to a word (see nearestBook).
type bookMiss struct {
	h           uint64
	start, end  int32
	best        *bookTarget
	dist, kdist uint8
}

// nearestBookAt returns nearestBook for token c, a word of ASCII letters
// of five to 16 bytes, through the matcher's cache.
func (m *matcher) nearestBookAt(c int) (*bookTarget, int, int) {
	sc := m.sc
	t := sc.tok(c)
	n := t.e() - t.s()
	slot := &m.books[t.h>>40&uint64(len(m.books)-1)]
	if slot.h == t.h && int(slot.end-slot.start) == n && asciiEqualFold(sc.str(c), sc.text[slot.start:slot.end]) {
		return slot.best, int(slot.dist), int(slot.kdist)
	}
	var best *bookTarget
	var dist, kdist int
	lw := sc.lowerBytes(c)
	letters := true
	for _, ch := range lw {
		if ch < 'a' || ch > 'z' {
			letters = false
			break
		}
	}
	if letters {
		best, dist, kdist = m.d.nearestBook(lw)
	}
	*slot = bookMiss{h: t.h, start: t.start, end: t.end, best: best, dist: uint8(dist), kdist: uint8(kdist)}
	return best, dist, kdist
}
