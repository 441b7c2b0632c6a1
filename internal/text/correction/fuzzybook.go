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
	cueHead            // "garden", "pool", "brook": "the garden of X" names one of a few places
	cueLook            // "look", a misheard "Luke" in "in look he's saying"
	cueWriter          // "writer", "right": "the writer of Hebrews", heard "the right of Hebrew"
)

// cueWords returns the words that open a context, by kind.
func cueWords() map[string]cueKind {
	return map[string]cueKind{
		"chapter": cueChapter, "chapters": cueChapter,
		"book": cueTitle, "books": cueTitle, "gospel": cueTitle, "letter": cueTitle,
		"letters": cueTitle, "epistle": cueTitle, "epistles": cueTitle,
		"wrote": cueWrote, "writes": cueWrote, "writing": cueWrote, "written": cueWrote,
		"cavalry": cueReal, "calgary": cueReal, "calvery": cueReal, "calvory": cueReal,
		"derby": cueReal, "listerine": cueReal, "lister": cueReal,
		"some":   cueSome,
		"garden": cueHead, "sea": cueHead, "lake": cueHead, "pool": cueHead, "brook": cueHead,
		"valley": cueHead, "mount": cueHead, "widow": cueHead, "island": cueHead, "isle": cueHead, "cave": cueHead,
		"look":   cueLook,
		"writer": cueWriter, "writers": cueWriter, "right": cueWriter, "rider": cueWriter,
		"author": cueWriter,
	}
}

// headPlaceNames returns, for each noun of cueHead, the places that
// follow it and "of" in the Bible: the garden of Gethsemane, the pool of
// Siloam.
func headPlaceNames() map[string][]string {
	return map[string][]string{
		"garden": {"Gethsemane", "Eden"},
		"sea":    {"Galilee", "Tiberias", "Chinnereth"},
		"lake":   {"Gennesaret", "Galilee"},
		"pool":   {"Siloam", "Bethesda"},
		"brook":  {"Kidron", "Cherith", "Besor"},
		// The widows the Bible names by their town (1 Kings 17, Luke 7).
		"widow": {"Zarephath", "Nain"},
		// The islands of Acts and Revelation: "the island called Melita",
		// "the isle that is called Patmos".
		"island": {"Melita", "Cyprus", "Crete", "Clauda", "Patmos", "Chios", "Samos", "Rhodes"},
		"isle":   {"Patmos", "Melita", "Cyprus", "Crete"},
		// The caves David and Abraham are known by (1 Samuel 22, Genesis 23).
		"cave":   {"Adullam", "Machpelah", "Makkedah", "En-gedi"},
		"valley": {"Hinnom", "Elah", "Jezreel", "Achor", "Jehoshaphat", "Eshcol", "Kidron"},
		// "Mount Sinai": the mountains follow the noun without "of".
		"mount": {"Sinai", "Carmel", "Hermon", "Moriah", "Horeb", "Tabor", "Ebal", "Gerizim", "Nebo",
			"Gilboa", "Ararat", "Pisgah", "Olivet", "Zion", "Seir"},
	}
}

// headTarget is a place that follows a noun of cueHead.
type headTarget struct {
	lower string // "gethsemane"
	key   string // its phonetic key
	name  string
	id    sref
}

// buildHeadTargets lists the places of headPlaceNames by noun.
func buildHeadTargets() map[string][]headTarget {
	out := map[string][]headTarget{}
	for noun, names := range headPlaceNames() {
		for _, name := range names {
			lower := strings.ToLower(name)
			out[noun] = append(out[noun], headTarget{lower: lower, key: phoneticKey(lower), name: name})
		}
	}
	return out
}

// realWordPlaces returns English words that a recognizer writes for a
// biblical place, with the place and the words of which one must be near
// for a suggestion ("the blood he shed on cavalry").
func realWordPlaces() map[string]realWord {
	firstJourney := []string{"paul", "barnabas", "iconium", "lystra", "derbe", "antioch", "galatia", "pisidia", "lycaonia"}
	crucifixion := []string{"cross", "blood", "crucif", "died", " die ", "shed", "jesus", "christ", "nails", "tomb", "golgotha", "skull", "sacrifice", "savior", "saviour"}
	return map[string]realWord{
		"cavalry": {name: "Calvary", near: crucifixion},
		"calgary": {name: "Calvary", near: crucifixion},
		"calvery": {name: "Calvary", near: crucifixion},
		"calvory": {name: "Calvary", near: crucifixion},
		// Paul's first journey (Acts 14): "Derby and Listerine".
		"derby":     {name: "Derbe", near: firstJourney},
		"listerine": {name: "Lystra", near: firstJourney},
		"lister":    {name: "Lystra", near: firstJourney},
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
		if lower := strings.ToLower(name); len(lower) <= 4 && books[name] != nil {
			// "Luke", "Acts": compared only before a strong reference (see shortBook).
			d.shortBooks = append(d.shortBooks, bookTarget{lower: lower, key: phoneticKey(lower), name: name})
		}
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
	if t := d.closerSpelled(w, best, bestD); t != nil {
		return t, 1, editDistance(key, t.key, 3)
	}
	return best, bestD, bestK
}

// soundBook returns the book of seven letters or more whose phonetic key
// is within one edit of the lowercase word w's, of a key of four sounds
// or more, and that distance, or nil.
func (d *dict) soundBook(w []byte) (*bookTarget, int) {
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return nil, 0
		}
	}
	var kb [32]byte
	key := appendPhoneticKey(kb[:0], w)
	if len(key) < 4 {
		return nil, 0
	}
	var best *bookTarget
	bestK := 2
	for k := range d.bookTargets {
		t := &d.bookTargets[k]
		if len(t.lower) < 7 || t.key[0] != key[0] || len(w)-len(t.lower) > 3 || len(t.lower)-len(w) > 3 {
			continue
		}
		if kd := editDistance(key, t.key, 1); kd < bestK {
			best, bestK = t, kd
		}
	}
	return best, bestK
}

// cueAt handles token i, a cue word of kind cue. It returns the token to
// continue from, or i when nothing was found.
func (m *matcher) cueAt(i int, cue cueKind) int {
	sc := m.sc
	switch cue {
	case cueChapter:
		if m.bible && i > 1 && sc.is(i-1, "of") {
			return m.ofChapterBook(i)
		}
		if prev := sc.tok(max(i-1, 0)); m.bible && i > 0 && prev.e()-prev.s() >= 5 {
			if next, ok := m.fuzzyBook(i-1, false); ok {
				return next
			}
		} else if m.bible && i > 0 && prev.e()-prev.s() >= 3 {
			if next, ok := m.shortBook(i-1, false); ok {
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
			if n := sc.tok(c).e() - sc.tok(c).s(); n >= 3 && n <= 4 {
				if next, ok := m.shortBook(c, true); ok {
					return next // "the gospel of look"
				}
			}
			if next, ok := m.extraLetterBook(c); ok {
				return next // "the book of facts"
			}
		}
	case cueLook:
		if m.bible {
			m.lookBook(i)
		}
	case cueReal:
		if m.place {
			m.realWordPlace(i)
		}
	case cueSome:
		if m.bible {
			return m.somePsalm(i)
		}
	case cueWriter:
		if m.bible {
			return m.writerOf(i)
		}
	case cueHead:
		if m.place {
			return m.headPlace(i)
		}
	}
	return i
}

// aboutScripture reports whether words of scripture ("bible", "verse",
// "god", …) are within 400 bytes of token t.
func (m *matcher) aboutScripture(t token) bool {
	sc := m.sc
	lo, hi := max(0, t.s()-400), min(len(sc.text), t.e()+400)
	around := strings.ToLower(sc.text[lo:hi])
	for _, w := range [...]string{"bible", "scripture", "psalm", "verse", "chapter", "the lord", "god"} {
		if strings.Contains(around, w) {
			return true
		}
	}
	return false
}

// shortBook suggests the book of four letters or less that token c, an
// English word of three or four letters, sounds like before "chapter" and
// a verse, or after "the gospel of" (cued, and checked with strongCue): "Look chapter five, verse one
// to four" is heard for "Luke 5:1-4". It returns the token to continue from.
func (m *matcher) shortBook(c int, cued bool) (int, bool) {
	sc := m.sc
	t := sc.tok(c)
	if t.flags&(tDigits|tMulti) != 0 {
		return 0, false
	}
	// The sound first: most words before "chapter" sound like no book.
	switch sc.text[t.s()] | 0x20 {
	case 'a', 'e', 'j', 'l', 'm', 'r': // the first letters of the short books
	default:
		return 0, false
	}
	lw := sc.lowerBytes(c)
	var kb [8]byte
	key := appendPhoneticKey(kb[:0], lw)
	var b *bookTarget
	for k := range m.d.shortBooks {
		x := &m.d.shortBooks[k]
		if x.key == string(key) && x.lower[0] == lw[0] && len(lw)-len(x.lower) <= 1 && len(x.lower)-len(lw) <= 1 {
			b = x
			break
		}
	}
	if b == nil || m.found.n > 0 && m.found.end(m.found.last()) > t.s() {
		return 0, false
	}
	if near, dist, _ := m.nearestBookAt(c); near != nil && dist == 1 && near.lower != b.lower && editDistance(sc.lowerBytes(c), b.lower, 1) > 1 {
		b = near // "jona" is a letter from Jonah, two from John
	}
	if root, _, isPre := m.key(c); root != nil || isPre {
		return 0, false // a name or a number word: its own rules decided
	}
	if allUpper(sc.str(c)) || m.determinerBefore(c) || m.d.chapterEnglish[string(lw)] || cued && !m.strongCue(c) {
		return 0, false // "each chapter", "read chapter", "a gospel of look"
	}
	r := m.parseRef(c + 1)
	if !cued && (!r.ok || !r.strong || !r.chapterWord || r.verse == 0) {
		return 0, false // only "chapter N, verse M" makes a book certain
	}
	return m.emitBook(c, c, b.id, r, ruleBookFuzzy, 0.6), true
}

// lookBook suggests Luke for "look", token i, after "in" and before a
// speaker and a verb of saying when a book is named just before: "in
// Matthew he's saying don't worry about tomorrow, in look he's saying plan
// for tomorrow".
func (m *matcher) lookBook(i int) {
	sc := m.sc
	if !sc.is(i-1, "in") {
		return
	}
	speaks := sc.isAny(i+1, "he", "she", "jesus", "paul") &&
		(sc.isAny(i+2, "says", "said", "saying", "writes", "wrote", "tells", "told", "teaches") ||
			sc.isAny(i+2, "is", "was") && sc.isAny(i+3, "saying", "writing", "telling", "teaching"))
	// "he's saying": the tokens "he", "s", "saying".
	if !speaks && !(sc.isAny(i+1, "he", "she") && sc.is(i+2, "s") && sc.isAny(i+3, "saying", "writing", "telling", "teaching")) {
		return
	}
	if t := sc.tok(i); m.bookNamedBefore(t) {
		m.add(t.s(), t.e(), m.d.lukeID, ruleBookFuzzy, 0.6)
	}
}

// bookNamedBefore reports whether a book is named, capitalised, in the 300
// bytes before token t; in a text lowercase throughout (captionCase), a
// book's lowercase name as a whole word counts ("in matthew he's saying").
func (m *matcher) bookNamedBefore(t token) bool {
	before := m.sc.text[max(0, t.s()-300):t.s()]
	lower := m.captionCase()
	for _, ts := range [][]bookTarget{m.d.bookTargets, m.d.shortBooks} {
		for k := range ts {
			if strings.Contains(before, ts[k].name) || lower && containsWord(before, ts[k].lower) {
				return true
			}
		}
	}
	return false
}

// containsWord reports whether s holds w between bytes that are not
// letters.
func containsWord(s, w string) bool {
	for off := 0; ; {
		k := strings.Index(s[off:], w)
		if k < 0 {
			return false
		}
		a, b := off+k, off+k+len(w)
		if (a == 0 || !isWordByte(s[a-1])) && (b == len(s) || !isWordByte(s[b])) {
			return true
		}
		off = a + 1
	}
}

// headPlace suggests the place that a capitalised word after "the garden
// of", "the pool of", … sounds like. Few places follow each of these
// nouns, so the likeness may be looser than fuzzyPlace's: "the Garden of
// Cassimony" is heard for Gethsemane. It returns the token to continue
// from, or i.
func (m *matcher) headPlace(i int) int {
	sc := m.sc
	// "Mount Sinai", and "the Brook Cherith" as often as "the brook of
	// Cherith": the name follows the noun without "of".
	mount := sc.is(i, "mount") || sc.is(i, "brook") && !sc.is(i+1, "of")
	c := i + 1
	if !mount {
		if !sc.is(i+1, "of") {
			return i
		}
		c = i + 2
		if sc.is(c, "the") {
			c++
		}
	}
	if !sc.has(c) {
		return i
	}
	if !mount && sc.isAny(c, "a", "an") {
		return m.headSplit(i, c)
	}
	t := sc.tok(c)
	n := t.e() - t.s()
	if n < 4 || n > 16 || t.flags&(tDigits|tMulti) != 0 || allUpper(sc.str(c)) {
		return i
	}
	lower := !sc.firstUpper(c)
	minLower := 7
	if sc.isAny(i, "widow", "island", "isle", "cave") {
		// "a widow of zelfat", "the island of malita", "the cave of
		// adulum": the towns, islands and caves are short, and after these
		// nouns a word no English list has is no English word.
		minLower = 6
	}
	if lower && (n < minLower || !m.sermon() || !m.captionCase() || m.isEnglishNear(c) ||
		m.d.fuzzyEnglish[string(sc.lowerBytes(c))]) {
		// A lowercase word is English ("the sea of glass", "a pool of
		// blood"); but in a sermon's captions, lowercase throughout, a
		// long word no English list has may be the place ("the garden of
		// cassimony"), and only the noun's own places are compared.
		return i
	}
	if root, _, isPre := m.key(c); root != nil || isPre {
		return i // a name the dictionary knows, or its misspelling
	}
	lw := sc.lowerBytes(c)
	for _, ch := range lw {
		if ch < 'a' || ch > 'z' {
			return i
		}
	}
	targets := m.d.headTargets[strings.ToLower(sc.str(i))]
	if mount {
		// The mountains are compared below, before any other place.
	} else if lower {
		// In lowercase captions a word spelled near one of the noun's
		// places ("the garden of gethsemene") is fuzzyPlace's, as
		// before; another is compared with the noun's places only, by
		// sound ("jesimony" is no Jeshimon, but Gethsemane).
		near, _, _ := m.fuzzyBest(lw, true)
		if near == nil {
			near, _, _ = m.d.nearestPlace(lw)
		}
		for k := range targets {
			if near != nil && targets[k].id == near.id {
				return i
			}
		}
	} else if near, _, _ := m.fuzzyBest(lw, true); near != nil {
		// fuzzyPlace finds it after the place noun, or with the noun
		// ("the sea of Gallilee"); but a word of another last letter
		// ("Gethsemany") skips it, so it is called here.
		k := (n*27+int(m.d.letterIndexes[lw[0]]))*27 + int(m.d.letterIndexes[lw[n-1]])
		if !m.d.first.has(k) && !(n >= 6 && m.d.fuzzyShape.has(k)) {
			m.fuzzyPlace(c)
			return c + 1
		}
		return i
	} else if wide, _, _ := m.d.nearestPlace(lw); wide != nil {
		return i
	}
	var kb [32]byte
	key := appendPhoneticKey(kb[:0], lw)
	if len(key) < 2 || len(key) < 3 && !mount {
		return i
	}
	var best *headTarget
	bestD := 2
	for k := range targets {
		tg := &targets[k]
		if tg.key[0] != key[0] || len(lw)-len(tg.lower) > 3 || len(tg.lower)-len(lw) > 3 {
			continue
		}
		if mount {
			// A mountain's name is short: the same sound, and within two
			// letters of it ("Mount Sinia", "Mount Carmal").
			if tg.key == string(key) && tg.lower[0] == lw[0] && editDistance(lw, tg.lower, 2) <= 2 {
				best = tg
				break
			}
			continue
		}
		if d := editDistance(key, tg.key, 1); d < bestD {
			best, bestD = tg, d
		}
	}
	if best == nil {
		return i
	}
	m.add(t.s(), t.e(), best.id, rulePlaceFuzzy, 0.7)
	return c + 1
}

// headSplit suggests the noun's place that "a" or "an", token c, and the
// lowercase word after it sound like together, in a sermon's captions:
// "the cave of a doulam" is heard for Adullam. It returns the token to
// continue from, or i.
func (m *matcher) headSplit(i, c int) int {
	sc := m.sc
	if !sc.has(c+1) || !sc.plainGap(c) || !m.sermon() || !m.captionCase() {
		return i
	}
	t := sc.tok(c + 1)
	if n := t.e() - t.s(); n < 4 || n > 16 || t.flags&(tDigits|tMulti|tUpper) != 0 || m.isEnglishNear(c+1) {
		return i
	}
	var b [24]byte
	joined := appendLower(append(b[:0], sc.str(c)...), sc.str(c+1))
	for _, ch := range joined {
		if ch < 'a' || ch > 'z' {
			return i
		}
	}
	if m.d.fuzzyEnglish[string(joined[len(sc.str(c)):])] {
		return i
	}
	var kb [32]byte
	key := appendPhoneticKey(kb[:0], joined)
	if len(key) < 3 {
		return i
	}
	targets := m.d.headTargets[strings.ToLower(sc.str(i))]
	for k := range targets {
		tg := &targets[k]
		if tg.key == string(key) && editDistance(joined, tg.lower, 3) <= 3 {
			m.add(sc.tok(c).s(), t.e(), tg.id, rulePlaceFuzzy, 0.7)
			return c + 2
		}
	}
	return i
}

// somePsalm suggests "Psalm" for "some" after "in" and before a psalm
// number in a text about scripture: "so in some one, ten" is heard for
// "so in Psalm 110". It returns the token to continue from, or i.
func (m *matcher) somePsalm(i int) int {
	sc := m.sc
	and := sc.is(i-1, "and")
	if !and && !sc.is(i-1, "in") {
		return i
	}
	r := m.parseRef(i + 1)
	if !and && !r.ok && sc.isAny(i+1, "not", "nine", "night") && sc.isAny(i+2, "the", "to", "tea") &&
		sc.isAny(i+3, "one", "two", "three", "four", "five", "six", "seven", "eight", "nine") {
		// "in some not the one": "ninety-one" heard as three words.
		if t := sc.tok(i); m.aboutScripture(t) {
			m.add(t.s(), t.e(), m.d.psalmID, ruleBookFuzzy, 0.6)
			return i + 4
		}
		return i
	}
	if !r.ok || m.countAfter(r) || and && (!r.strong || r.verse == 0) {
		return i // "in some 20 years", "and some 20 of them"
	}
	if t := sc.tok(i); m.aboutScripture(t) {
		m.add(t.s(), t.e(), m.d.psalmID, ruleBookFuzzy, 0.7)
		return r.endTok + 1
	}
	return i
}

// peopleStem returns the key of a letter's addressees without their
// plural ending ("romans" gives the key of "rom"), or "" for other books.
func peopleStem(lower string) string {
	for _, end := range [...]string{"ians", "ans", "ews"} {
		if s, ok := strings.CutSuffix(lower, end); ok {
			return phoneticKey(s)
		}
	}
	return ""
}

// writerOf suggests the plural book for its singular after "the writer
// of", token i being "writer" or a word heard for it: "the right of
// Hebrew says" for "the writer of Hebrews says". It returns the token to
// continue from, or i.
func (m *matcher) writerOf(i int) int {
	sc := m.sc
	c := i + 2
	if !sc.is(i+1, "of") || !sc.has(c) || !sc.isAny(i-1, "the", "a") {
		return i
	}
	t := sc.tok(c)
	if n := t.e() - t.s(); n < 5 || n > 15 || t.flags&(tDigits|tMulti) != 0 {
		return i
	}
	if !sc.firstUpper(c) && !(m.captionCase() && m.sermon() && m.bookVerbAfter(c)) {
		// A capital tells the book from "the right of roman citizens";
		// in a sermon's captions, lowercase throughout, only a verb a
		// book takes does: "the right of hebrew says".
		return i
	}
	lw := sc.lowerBytes(c)
	for k := range m.d.bookTargets {
		b := &m.d.bookTargets[k]
		if b.epistle() && len(b.lower) == len(lw)+1 && b.lower[len(b.lower)-1] == 's' && b.lower[:len(lw)] == string(lw) {
			m.add(t.s(), t.e(), b.id, ruleBookFuzzy, 0.7)
			return c + 1
		}
	}
	return i
}

// ofChapterBook suggests the letter whose addressees' stem the word
// before "of chapter N" sounds like, token i being "chapter": "the Bible
// tells us a room of chapter 8" is heard for "Romans chapter 8". It
// returns the token to continue from, or i.
func (m *matcher) ofChapterBook(i int) int {
	sc := m.sc
	c := i - 2
	t := sc.tok(c)
	if n := t.e() - t.s(); n < 3 || n > 8 || t.flags&(tDigits|tMulti) != 0 || sc.firstUpper(c) {
		return i // a capitalised word is a name: "the Book of Chapter 8"
	}
	r := m.parseRef(i)
	if !r.ok || !r.chapterWord {
		return i
	}
	if root, _, isPre := m.key(c); root != nil || isPre {
		return i
	}
	lw := sc.lowerBytes(c)
	for _, ch := range lw {
		if ch < 'a' || ch > 'z' {
			return i
		}
	}
	var kb [16]byte
	key := string(appendPhoneticKey(kb[:0], lw))
	if len(key) < 2 {
		return i
	}
	var best *bookTarget
	for k := range m.d.bookTargets {
		b := &m.d.bookTargets[k]
		if b.epistle() && b.lower[0] == lw[0] && peopleStem(b.lower) == key {
			if best != nil {
				return i // two letters sound alike: no reason for either
			}
			best = b
		}
	}
	if best == nil || !m.aboutScripture(t) {
		return i
	}
	start := c
	if sc.is(c-1, "a") && sc.tok(c-1).e()+1 == t.s() {
		start = c - 1 // "a room of": the article was heard with the name
	}
	if m.found.n > 0 && m.found.end(m.found.last()) > sc.tok(start).s() {
		return i
	}
	m.add(sc.tok(start).s(), sc.tok(i-1).e(), best.id, ruleBookFuzzy, 0.6)
	return i
}

// fuzzyBook tries token c as a misspelled book name before a reference
// or after a cue (cued); see fuzzyName. A word before "chapter N" that no
// rule read as a book may still be the book the sermon has cited with
// chapter N (see citedChapterOf).
func (m *matcher) fuzzyBook(c int, cued bool) (int, bool) {
	if next, ok := m.fuzzyName(c, cued); ok {
		return next, true
	}
	if cued || m.nCitedChs == 0 {
		return 0, false
	}
	if !m.sc.is(c+1, "chapter") {
		return 0, false
	}
	b, r := m.citedChapterOf(c)
	if b == 0 {
		return 0, false
	}
	m.repeatedChapterBook(c, b)
	return m.emitBook(c, c, m.d.bookID[b-1], r, ruleBookFuzzy, 0.7), true
}

// repeatedChapterBook suggests book b (see dict.bookOf), which
// citedChapterOf read in token c, for the same word said just before it:
// "the same chapter or promise, the promise chapter 16", a speaker's own
// repetition, after "Proverbs 16". The first is suggested without a
// reference.
func (m *matcher) repeatedChapterBook(c int, b uint8) {
	sc := m.sc
	p := c - 1
	if sc.is(p, "the") {
		p--
	}
	if p < 0 || !strings.EqualFold(sc.str(p), sc.str(c)) || m.found.n > 0 && m.found.end(m.found.last()) > sc.tok(p).s() {
		return
	}
	m.emitBook(p, p, m.d.bookID[b-1], ref{}, ruleBookFuzzy, 0.7)
}

// citedChapterOf reads token c, a word before "chapter N", as the book
// whose chapter N the sermon has cited, when the word begins with the
// book's first three letters and is about as long: "the promise chapter
// 16" after "Proverbs 16". It returns the book (see dict.bookOf) and the
// reference after c, or 0. Only suggested.
func (m *matcher) citedChapterOf(c int) (uint8, ref) {
	sc := m.sc
	t := sc.tok(c)
	n := t.e() - t.s()
	if n < 5 || n > 16 || t.flags&(tDigits|tMulti) != 0 {
		return 0, ref{}
	}
	if m.found.n > 0 && m.found.end(m.found.last()) > t.s() {
		return 0, ref{}
	}
	if root, _, isPre := m.key(c); isPre || root != nil {
		return 0, ref{} // a dictionary form: its own rules decided
	}
	r := m.parseRef(c + 1)
	if !r.ok || !r.chapterWord || !m.sermon() {
		return 0, ref{}
	}
	w := sc.str(c)
	var found uint8
	for k := range min(m.nCitedChs, 16) {
		b, ch := uint8(m.citedChs[k]>>8), int(m.citedChs[k]&0xff)
		name := m.d.verses[b-1].name
		if ch != r.chapter || name[0] >= '0' && name[0] <= '9' || len(name)-n > 3 || n-len(name) > 3 ||
			!strings.EqualFold(name[:3], w[:3]) || found == b {
			continue
		}
		if found != 0 {
			return 0, ref{} // two books: neither is sure
		}
		found = b
	}
	if found == 0 {
		return 0, ref{}
	}
	return found, r
}

// citedBareBook suggests the book the sermon has cited for token c, a
// word no English or biblical name has, a letter from the book's name (two
// from one of nine letters or more), without a reference after it: "what
// Paul said to the Philipsians" after Philippians 4:19. run calls it only
// for a word that begins as a cited book does (see citedPair), in a
// sermon.
func (m *matcher) citedBareBook(c int) {
	sc := m.sc
	t := sc.tok(c)
	n := t.e() - t.s()
	if n < 7 || n > 16 || t.flags&(tDigits|tMulti) != 0 {
		return
	}
	if m.found.n > 0 && m.found.end(m.found.last()) > t.s() {
		return
	}
	if sc.has(c+1) && (sc.tok(c+1).digits() || sc.is(c+1, "chapter")) {
		return // a reference after it: fuzzyBook's
	}
	best, dist, _ := m.nearestBookAt(c) // remembered for the word: texts repeat their words
	if best == nil || len(best.lower) < 7 || dist > 2 || dist == 2 && len(best.lower) < 9 || !m.citedID(best.id) {
		return
	}
	if root, _, isPre := m.key(c); isPre || root != nil {
		return // a dictionary form: its own rules decided ("Galatia")
	}
	lw := sc.lowerBytes(c)
	if _, ok := m.d.kjvNames[string(lw)]; ok || m.d.fuzzyEnglish[string(lw)] || m.isEnglishNear(c) {
		return
	}
	m.emitBook(c, c, best.id, ref{}, ruleBookFuzzy, 0.7)
}

// fuzzyName tries token c as a misspelled book name before a reference
// or after a cue (cued), and returns the token to continue from.
func (m *matcher) fuzzyName(c int, cued bool) (int, bool) {
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
	sound := false
	if best == nil {
		// "the book of tyrannomy", "tyrannomy chapter 30 verse 19": where
		// the context is sure, a word may sound like a long book and be
		// spelled unlike it. The word after is read first: this runs
		// before every number.
		if !cued && !sc.isAny(c+1, "chapter", "chapters") {
			return 0, false
		}
		if best, kdist = m.d.soundBook(sc.lowerBytes(c)); best == nil {
			return 0, false
		}
		dist, sound = 4, true
	}
	r := m.parseRef(c + 1)
	if b := m.d.bookOf(best.id); !r.ok && best.fam == nil && b != 0 {
		// "galasians 329": a chapter and a verse without their colon,
		// read as for the book's own name.
		r = m.parseRefIn(c+1, b)
	}
	sure := cued || (r.chapterWord && r.verse > 0 && !m.determinerBefore(c))
	if sound && !sure {
		return 0, false
	}
	if root, _, isPre := m.key(c); isPre || (root != nil && (root.place != nil || root.book == nil ||
		root.book.kind != kNone || !(r.strong || cued) || root.book.adjective && m.determinerBefore(c))) {
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
	if !close && !far && !sound {
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
	case close && cued && m.sermon() && !m.isEnglishNear(c):
		// "the book of hosia", "the book of zephania" in a sermon: a word
		// English does not have, a letter or two from the book.
		conf = 0.86
	case close && cued:
		conf = 0.7 // "the book of names" is English too: a short book only suggested
	case close && r.ok && len(best.lower) >= 7 && (m.weakCue(start) || m.listCue(start)) && !m.countAfter(r):
		conf = 0.86
	case close && r.ok:
		conf = 0.7
	case far && (r.strong || cued):
		conf = 0.7 // a real word the recognizer wrote: "the book of rumors"
	case sound && sure && !m.d.fuzzyEnglish[string(sc.lowerBytes(c))]:
		conf = 0.7
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
	if !ok || m.commonNounUse(i) {
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

// extraLetterBook suggests the short book that token c, after "the book
// of", is heard for with one more letter in front, when the document has
// cited that book: "the book of facts" for Acts in a sermon on Acts, but
// not "the gospel of truth". It is only suggested.
func (m *matcher) extraLetterBook(c int) (int, bool) {
	sc := m.sc
	t := sc.tok(c)
	if n := t.e() - t.s(); n < 4 || n > 6 || t.flags&(tDigits|tMulti) != 0 || !m.strongCue(c) {
		return 0, false
	}
	if m.found.n > 0 && m.found.end(m.found.last()) > t.s() {
		return 0, false
	}
	lw := sc.lowerBytes(c)
	for k := range m.d.shortBooks {
		x := &m.d.shortBooks[k]
		if string(lw[1:]) == x.lower && sc.is(c-2, "book") && m.citedID(x.id) {
			return m.emitBook(c, c, x.id, m.parseRef(c+1), ruleBookFuzzy, 0.6), true
		}
	}
	return 0, false
}

// isEnglishNear reports whether token c is an ordinary English word that
// sounds or is spelt like a biblical name (see dict.englishNear).
func (m *matcher) isEnglishNear(c int) bool {
	_, ok := m.d.englishNear[string(m.sc.lowerBytes(c))]
	return ok
}
