package correction

import (
	"embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

//go:embed data/bible_book_variants_detailed.tsv data/bible_book_variants_ambiguous.tsv data/bible_places.tsv data/kjv_versification.tsv data/kjv_names.txt data/kjv_listed_names.txt data/english_near_names.txt data/kjv_common_words.txt data/person_near_words.txt data/modern_names_near_people.txt data/kjv_people.tsv data/kjv_verse_starts.bin
var dataFS embed.FS

// kind is how a dictionary form relates to its book, safest first.
type kind uint8

const (
	kCanonical kind = iota
	kNumbered
	kAlt
	kMisspelling
	kAbbrev
	kUnnumbered
	kNone kind = 255 // the form may not be used this way
)

func parseKind(s string) (kind, bool) {
	switch s {
	case "canonical":
		return kCanonical, true
	case "numbered_form":
		return kNumbered, true
	case "alt_canonical":
		return kAlt, true
	case "misspelling_or_variant":
		return kMisspelling, true
	case "abbreviation":
		return kAbbrev, true
	case "unnumbered_ambiguous":
		return kUnnumbered, true
	}
	return kNone, false
}

// risk is how likely a single-word form is to be ordinary prose.
type risk uint8

const (
	riskNone risk = iota
	riskRareName
	riskCommonName
	riskEnglish
)

// book is one book of the Bible.
type book struct {
	name string // canonical name, e.g. "1 Corinthians"
	osis string
	id   sref // name in dict.names
}

// family groups the numbered books that share a name ("1 John", "2 John").
type family struct {
	base  string // "John"
	books [5]*book
}

// bookForm is what one dictionary form means as a book name.
type bookForm struct {
	key string
	// Standalone use: the form names book (or the family base, unnumbered).
	book *book
	fam  *family
	kind kind   // kNone when the form is not a book on its own
	name string // replacement when used on its own
	id   sref   // name in dict.names
	// Use after a number or ordinal ("first" + "corinthians").
	pfam  *family
	pkind kind
	risk  risk
	// adjective: also an adjective or a demonym ("galatian"); garbled:
	// an English word a misheard phrase produces ("acts" for "fact").
	adjective, garbled bool
}

// placeForm is what one dictionary form means as a place name.
type placeForm struct {
	name     string   // the form in its canonical casing
	words    []string // the words of name
	rule     ruleID
	mentions int
	stop     bool
	id       sref // words[0] in dict.names
}

// node is one step of the word trie shared by books and places.
type node struct {
	next  map[string]*node
	book  *bookForm
	place *placeForm
	tails uint32 // bit l: a usable place form ends one word after this node, a word whose first letter has index l
	// nexts has bit h>>58 set for the hash h (keyHash) of each key of
	// next: a word of ASCII letters and digits whose bit is not set is
	// no key, with no map lookup (see matcher.walk).
	nexts uint64
}

// prefixStyle is how a book number was written.
type prefixStyle uint8

const (
	pDigit    prefixStyle = iota // "1"
	pOrdinal                     // "1st"
	pOrdWord                     // "first"
	pCardWord                    // "one"
	pRoman                       // "I", "II"
)

type prefix struct {
	num   int
	style prefixStyle
}

// fuzzyTarget is a well-known place name that misheard words are compared with.
type fuzzyTarget struct {
	lower, name string
	mentions    int
	id          sref   // name in dict.names
	idx         uint16 // 1 + its index in dict.fuzzyAll or dict.placeTargets
}

// fuzzyAt returns the target of dict.fuzzyAll with index idx-1, or nil.
func (d *dict) fuzzyAt(idx uint16) *fuzzyTarget {
	if idx == 0 {
		return nil
	}
	return d.fuzzyAll[idx-1]
}

// placeAt returns the target of dict.placeTargets with index idx-1, or nil.
func (d *dict) placeAt(idx uint16) *fuzzyTarget {
	if idx == 0 {
		return nil
	}
	return &d.placeTargets[idx-1]
}

// dict holds the immutable tables built by NewEngine.
type dict struct {
	root         map[string]*node
	prefixes     map[string]prefix
	numWords     map[string]int
	fuzzy        map[string][]fuzzyTarget
	fuzzyEnglish map[string]bool
	placeKeys    map[string]bool // first words of place forms, for the fuzzy pass
	// adjectives holds the book forms that are also an adjective or a
	// demonym ("galatian", "roman"): never a book without a reference.
	adjectives map[string]bool
	// garbled holds the English-word books that a misheard phrase often
	// produces ("in acts" for "in fact"): never suggested on a weak cue.
	garbled map[string]bool
	// commonPlaceWords holds the ordinary words of multi-word place names.
	commonPlaceWords map[string]struct{}
	// fuzzyAll lists the targets of fuzzy, for the matcher's cache.
	fuzzyAll []*fuzzyTarget
	// placeTargets are the places a misheard word after a place cue is
	// compared with: names of five letters or more mentioned five times.
	placeTargets []fuzzyTarget
	// placeByLetter indexes placeTargets by the letter index of their
	// first letter.
	placeByLetter [27][]int32
	// bookTargets are the books misspelled names are compared with.
	bookTargets []bookTarget
	// shortBooks are the books of four letters or less (see shortBook).
	shortBooks []bookTarget
	// headTargets are the places that follow the nouns of cueHead.
	headTargets map[string][]headTarget
	// chapterEnglish holds the English words often said before
	// "chapter" or a number: never a misheard book there.
	chapterEnglish map[string]bool
	// cues are the words that open a context (see cueKind).
	cues map[string]cueKind
	// realWords are English words a recognizer writes for a place.
	realWords map[string]realWord
	// first holds, for each word length up to 31 and first and last
	// letter, whether some root or prefix key has that shape: most words
	// of a text skip the map lookups through it.
	first shapeSet
	// fuzzyShape holds, for each word length and first and last letter,
	// whether a fuzzy target is within reach (laid out like first).
	fuzzyShape shapeSet
	// scanShapes holds three bits (in four) for each shape, for the
	// scanner, so that one load answers all: bit 0 when a word of that
	// shape is tried as a misheard place (a shape of first or fuzzyShape,
	// six to 24 letters), bit 1 when it is tried only after a word of
	// placeCues (a bit set over word hashes; five to 24 letters, see
	// cueShape), bit 2 when personScan keeps it (five to 20 letters, or
	// four of a shape of few English words, see fourLetterShapes).
	scanShapes [2048]uint64 // 1458 used; the index is masked, not checked
	// letterIndexes is letterIndex of every byte: one load in the scanner.
	letterIndexes [256]uint8
	placeCues     [4]uint64
	// numBits is a bit set over the hashes of the number words (see
	// numWords): a word without its bit is no number word.
	numBits [4]uint64
	// keys is a Bloom filter (two bits a key) over the hashes of the ASCII
	// words the matcher must look up: prefixes, root keys that can lead
	// to a change, and all root keys of six letters or more (a key stops
	// the fuzzy pass). Other words skip the full matcher.
	keys [1 << 10]uint64
	// table and entries hold the ASCII root and prefix keys, found by the
	// hash the scanner computes; the maps serve the other words. A slot
	// of table holds 1 + the index of an entry, or 0 when free.
	table   []uint16
	entries []keyEntry
	// fuzzyKeys is a Bloom filter over the keys of fuzzy.
	fuzzyKeys [1 << 7]uint64
	// psalm and psalms are the replacements for a single psalm and for
	// the book.
	psalm, psalms     string
	psalmID, psalmsID sref
	lukeID            sref // "Luke", for lookBook
	// names holds the replacements the dictionary offers (see sref).
	names []string
	// osisOf maps a canonical book name to its OSIS id, while the
	// dictionary is built.
	osisOf map[string]string
	// verses holds the versification of the books that have one (see
	// verses.go); nameBook maps a name of d.names to its index in verses
	// plus one, 0 for a name that is no such book.
	verses   []versified
	nameBook []uint8
	bookID   []sref // bookID[b-1] is the replacement naming versified book b
	// pairBooks[p] is the set of versified books (bit b, see bookOf) whose
	// name but its number begins with the letter pair p (see letterPair).
	pairBooks [676][2]uint64
	// kjvNames holds the proper names of the King James Version,
	// lowercase: a word that is one is never a misheard other name.
	kjvNames map[string]struct{}
	// persons maps the lowercase names of biblical people to their
	// spelling; personSounds indexes the longer ones by phonetic key.
	persons      map[string]string
	personSounds map[string][]personName
	// personCueSounds indexes the names of people of five letters or
	// more by phonetic key, for a word heard after a naming cue ("a man
	// named ananas").
	personCueSounds map[string][]personName
	// personsByLetter lists the same names by their first letter.
	personsByLetter [26][]personName
	// chapterBase[b-1] is the index of chapter 1 of book b (see bookOf)
	// among the 1,189 chapters of the KJV, in canonical order.
	chapterBase []uint16
	// known is a blocked Bloom filter of the words that no person's name
	// heard wrong is (see buildKnown), for the scanner.
	known *[knownBits]uint64
	// chapterPeople lists, by the index of a chapter, the people the
	// chapter names (see buildChapterPeople).
	chapterPeople [][]soundedName
	// chapterPlaces lists, by the index of a chapter, the places the
	// chapter names (see addChapterPlace).
	chapterPlaces [][]soundedName
	// chapterFrequent lists, by the index of a chapter, the people the
	// KJV names in it and in many other chapters (see frequentName).
	chapterFrequent [][]soundedName
	// verseStarts holds the hash of the opening words of each verse of the
	// KJV in canonical order, and chapterVerse the index among them of
	// verse 1 of each chapter (see buildVerseStarts).
	verseStarts  []uint32
	chapterVerse []int32
	startFilter  *[startBits / 64]uint64 // a blocked Bloom filter of verseStarts
	// verseSounds lists by phonetic key the people the KJV names in a
	// few verses, with the words of those verses.
	verseSounds map[string][]versePerson
	// cueHash holds the hashes (see keyHash) of the words before a
	// name that personScan gathers: "named", "called", "of", and the
	// short words a long name is heard as, "one", "a", "an".
	cueHash [numCues]uint64
	cueMask [256]uint8 // bitCue at the top eight bits of each of cueHash
	ws      wordSets   // the words the matcher reads most often
	rows    nameRows   // the KJV's lists of names said in a row
	ofHash  [len(ofNames)]uint64
	// personNear holds the English words and modern names that sound
	// like a biblical person's name: never that name after a naming cue.
	personNear map[string]struct{}
	// modernNames holds the given names and surnames of SCOWL that the
	// people of the cited chapters would take for a KJV person heard
	// wrong ("stephanie" for Stephen): names of the congregation.
	modernNames map[string]struct{}
	// englishNear holds the ordinary words that sound or are spelt like
	// a biblical place or book: English words, and the KJV's own common
	// words ("fiery sardius" is a stone, not Sardis).
	englishNear map[string]struct{}
	// spelledEnglish holds the names that are an englishNear word but for
	// a vowel, with the books that name them (see buildSpelledEnglish).
	spelledEnglish map[string][2]uint64
	spelledIDs     []uint64 // the replacements (by sref) that are names of spelledEnglish
	// wide lists by first letter the KJV's names of four letters or
	// more, and wideNear the words of the large English lists and the
	// stems of contractions that sound like one of them (see
	// matcher.widePerson).
	wide     wideIndex
	wideNear sortedLines
	// companions holds every name of the KJV with its chapters (see
	// matcher.companionName).
	companions companionIndex
}

// keyHash returns the hash of a lowercase ASCII word as the scanner
// computes it.
func keyHash(w string) uint64 {
	var h uint64
	for i := 0; i < len(w); i += 8 {
		h = mixWord(h, (load8(w, i)|ones*0x20)&lowBytes(min(len(w)-i, 8)))
	}
	return wordKey(h, len(w))
}

// knownBits is the size of dict.known in uint64 words, a power of two:
// 2 Mbit for some 70,000 words, three bits each (one word of another
// list in a thousand is taken for a known word).
const knownBits = 1 << 15

// addKnown adds the word with hash h (see keyHash) to d.known.
func (d *dict) addKnown(h uint64) {
	d.known[h>>49] |= 1<<(h>>31&63) | 1<<(h>>37&63) | 1<<(h>>43&63)
}

// knownMiss returns 1 if the ASCII word with hash h is in no list of
// known words (see buildKnown), and 0 if it may be.
func (d *dict) knownMiss(h uint64) uint8 { return knownMiss(d.known, h) }

// knownMiss is dict.knownMiss of the filter known.
func knownMiss(known *[knownBits]uint64, h uint64) uint8 {
	w := known[h>>49]
	return uint8(w>>(h>>31&63)&(w>>(h>>37&63))&(w>>(h>>43&63))&1) ^ 1
}

// The key filter is a blocked Bloom filter: a hash picks one word of
// d.keys and two bits in it.
func (d *dict) addKey(h uint64) {
	d.keys[h>>54] |= 1<<(h>>32&63) | 1<<(h>>38&63)
}

// keyBit returns 1 if the ASCII word with hash h may be one that the
// matcher must look up, and 0 if it is not.
func (d *dict) keyBit(h uint64) uint8 {
	w := d.keys[h>>54]
	return uint8(w >> (h >> 32 & 63) & (w >> (h >> 38 & 63)) & 1)
}

// shapeSet is a set of word shapes (see shape), as bits.
type shapeSet [(32*27*27 + 63) / 64]uint64

func (s *shapeSet) add(i int)      { s[i>>6] |= 1 << (i & 63) }
func (s *shapeSet) has(i int) bool { return s[i>>6]>>(i&63)&1 != 0 }

// scanShape returns the three bits of shape k in scanShapes.
func (d *dict) scanShape(k int) uint8 { return uint8(d.scanShapes[k>>4&2047] >> (k & 15 * 4) & 7) }

// keyEntry is one ASCII word of the open-addressing table of root and
// prefix keys.
type keyEntry struct {
	h     uint64
	key   string
	node  *node // nil if the word only is a prefix
	pre   prefix
	isPre bool
	cue   cueKind // the context the word opens, if any
}

// tableBits is the log2 of the number of slots of dict.table, about
// three times the number of keys.
const tableBits = 13

func (d *dict) entry(w string) *keyEntry {
	h := keyHash(w)
	mask := uint64(len(d.table) - 1)
	for i := h >> (64 - tableBits); ; i = (i + 1) & mask {
		k := d.table[i]
		if k == 0 {
			d.entries = append(d.entries, keyEntry{h: h, key: w})
			d.table[i] = uint16(len(d.entries))
			return &d.entries[len(d.entries)-1]
		}
		if e := &d.entries[k-1]; e.key == w {
			return e
		}
	}
}

// find returns the entry of the ASCII word w with hash h (from a token
// holding ASCII letters and digits only), or nil.
func (d *dict) find(w string, h uint64, upper bool) *keyEntry {
	mask := uint64(len(d.table) - 1)
	for i := h >> (64 - tableBits); ; i = (i + 1) & mask {
		k := d.table[i]
		if k == 0 {
			return nil
		}
		e := &d.entries[k-1]
		if e.h == h && len(e.key) == len(w) && keyEqual(w, e.key, b2u(upper)<<5) {
			return e
		}
	}
}

// keyEqual reports whether the ASCII letters and digits w, each byte
// or-ed with fold (0x20 lowers an uppercase letter, 0 keeps it), equal
// the key, a lowercase word of the same length. It compares four or
// eight bytes at a time, the last ones overlapping: a loop of byte
// compares mispredicts at its end, and a call of the runtime's compare
// costs more than the compare of a short word.
func keyEqual(w, key string, fold uint8) bool {
	n := len(w)
	key = key[:n]
	f := uint64(fold) * ones
	switch {
	case n >= 8:
		for i := 0; i < n-8; i += 8 {
			if loadFull(w[i:])|f != loadFull(key[i:]) {
				return false
			}
		}
		return loadFull(w[n-8:])|f == loadFull(key[n-8:])
	case n >= 4:
		f4 := uint32(f)
		return load4(w)|f4 == load4(key) && load4(w[n-4:])|f4 == load4(key[n-4:])
	}
	for i := 0; i < n; i++ {
		if w[i]|fold != key[i] {
			return false
		}
	}
	return true
}

// asciiEqualFold reports whether the ASCII letters and digits a and b
// are equal ignoring case.
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) >= 8 {
		// Eight bytes at a time, the last eight overlapping: a loop of
		// byte compares mispredicts at its unpredictable end.
		const fold = ones * 0x20
		for i := 0; i < len(a)-8; i += 8 {
			if loadFull(a[i:])|fold != loadFull(b[i:])|fold {
				return false
			}
		}
		return loadFull(a[len(a)-8:])|fold == loadFull(b[len(b)-8:])|fold
	}
	if len(a) >= 4 {
		// Two overlapping loads of four bytes: most words compared are
		// of five to seven letters.
		const fold = 0x20202020
		return load4(a)|fold == load4(b)|fold && load4(a[len(a)-4:])|fold == load4(b[len(b)-4:])|fold
	}
	for i := 0; i < len(a); i++ {
		if a[i]|0x20 != b[i]|0x20 {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// nameReplacements gives every replacement of the dictionary its sref.
func (d *dict) nameReplacements() {
	ids := map[string]sref{}
	intern := func(s string) sref {
		id, ok := ids[s]
		if !ok {
			id = sref(len(d.names))
			ids[s] = id
			d.names = append(d.names, s)
		}
		return id
	}
	d.psalmID, d.psalmsID, d.lukeID = intern(d.psalm), intern(d.psalms), intern("Luke")
	var walk func(m map[string]*node)
	walk = func(m map[string]*node) {
		for _, n := range m {
			if f := n.book; f != nil {
				f.id = intern(f.name)
				if f.book != nil {
					f.book.id = intern(f.book.name)
				}
				for _, fam := range []*family{f.fam, f.pfam} {
					if fam == nil {
						continue
					}
					for _, b := range fam.books {
						if b != nil {
							b.id = intern(b.name)
						}
					}
				}
			}
			if p := n.place; p != nil {
				p.id = intern(p.words[0])
			}
			walk(n.next)
		}
	}
	walk(d.root)
	for k := range d.bookTargets {
		t := &d.bookTargets[k]
		t.id = intern(t.name)
	}
	for k := range d.shortBooks {
		t := &d.shortBooks[k]
		t.id = intern(t.name)
	}
	for _, ts := range d.headTargets {
		for k := range ts {
			ts[k].id = intern(ts[k].name)
		}
	}
	for k, rw := range d.realWords {
		rw.id = intern(rw.name)
		d.realWords[k] = rw
	}
	keys := make([]string, 0, len(d.fuzzy))
	for key := range d.fuzzy {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	for _, key := range keys {
		ts := d.fuzzy[key]
		for k := range ts {
			ts[k].id = intern(ts[k].name)
			d.fuzzyAll = append(d.fuzzyAll, &ts[k])
			ts[k].idx = uint16(len(d.fuzzyAll))
		}
	}
	for k := range d.placeTargets {
		t := &d.placeTargets[k]
		t.id = intern(t.name)
		t.idx = uint16(k + 1)
		l := letterIndex(t.lower[0])
		d.placeByLetter[l] = append(d.placeByLetter[l], int32(k))
	}
}

// live reports whether a form that reaches n can lead to a change: n
// or a node after it holds a usable book or place form.
func live(n *node) bool {
	if (n.book != nil && n.book.kind != kNone) || (n.place != nil && (!n.place.stop || cuedStop(n.place))) {
		return true
	}
	for _, c := range n.next {
		if live(c) {
			return true
		}
	}
	return false
}

// letterIndex maps a lowercase ASCII letter to 1..26 and anything else to 0.
func letterIndex(c byte) int {
	c |= 0x20
	if c >= 'a' && c <= 'z' {
		return int(c-'a') + 1
	}
	return 0
}

// shape returns the index into dict.first of a word, or -1 when the word
// is too long for the table (such words are always looked up).
func shape(w string) int {
	if len(w) >= 32 || len(w) == 0 {
		return -1
	}
	return (len(w)*27+letterIndex(w[0]))*27 + letterIndex(w[len(w)-1])
}

func (d *dict) markShapes() {
	for k, n := range d.root {
		if i := shape(k); i >= 0 {
			d.first.add(i)
		}
		// A dead key shorter than six letters changes nothing, and the
		// fuzzy pass skips it for its length anyway.
		if len(k) >= 6 || live(n) {
			d.addKey(keyHash(k))
		}
		if isASCII(k) {
			d.entry(k).node = n
		}
	}
	for k, cue := range d.cues {
		if i := shape(k); i >= 0 {
			d.first.add(i)
		}
		d.addKey(keyHash(k))
		d.entry(k).cue = cue
	}
	for k := range d.prefixes {
		if i := shape(k); i >= 0 {
			d.first.add(i)
		}
		d.addKey(keyHash(k))
		if isASCII(k) {
			e := d.entry(k)
			e.pre, e.isPre = d.prefixes[k], true
		}
	}
	var cueShapes shapeSet
	cueShape := func(t *fuzzyTarget, spread int) {
		// After a place cue the scanner also flags words that lost or
		// changed the last sound ("nazaret", "emmauz": a silent final h,
		// s and z alike) and words of five letters.
		ends := []byte{t.lower[len(t.lower)-1]}
		switch t.lower[len(t.lower)-1] {
		case 's':
			ends = append(ends, 'z')
		case 'z':
			ends = append(ends, 's')
		case 'h':
			ends = append(ends, t.lower[len(t.lower)-2])
		}
		for n := len(t.lower) - spread; n <= len(t.lower)+spread; n++ {
			if n < 5 || n >= 32 || (n == 5 && len(t.lower) > 6) {
				continue // a word of five letters is compared within one edit
			}
			for _, last := range ends {
				cueShapes.add((n*27+letterIndex(t.lower[0]))*27 + letterIndex(last))
			}
		}
	}
	for key, ts := range d.fuzzy {
		d.addFuzzyKey(key)
		for k := range ts {
			t := &ts[k]
			for n := len(t.lower) - 2; n <= len(t.lower)+2; n++ {
				if n >= 0 && n < 32 {
					d.fuzzyShape.add((n*27+letterIndex(t.lower[0]))*27 + letterIndex(t.lower[len(t.lower)-1]))
				}
			}
			cueShape(t, 2)
		}
	}
	for k := range d.placeTargets {
		cueShape(&d.placeTargets[k], 1)
	}
	for c := range d.letterIndexes {
		d.letterIndexes[c] = uint8(letterIndex(byte(c)))
	}
	four := fourLetterShapes()
	for k := 0; k < 32*27*27; k++ {
		n := k / (27 * 27) // the word length, up to 31
		var b uint64
		if n >= 5 && n <= 20 || n == 4 && four.has(k) {
			b |= 4
		}
		if n >= 6 && n <= 24 && (d.first.has(k) || d.fuzzyShape.has(k)) {
			b |= 1
		}
		if n >= 5 && n <= 24 && cueShapes.has(k) {
			b |= 2
		}
		d.scanShapes[k>>4] |= b << (k & 15 * 4)
	}
	for _, w := range []string{"in", "into", "near", "at", "through", "toward", "towards", "unto",
		"to", "from", "of", "and", "or", "mount"} {
		h := keyHash(w)
		d.placeCues[h>>62] |= 1 << (h >> 32 & 63)
	}
	for w := range d.numWords {
		h := keyHash(w)
		d.numBits[h>>62] |= 1 << (h >> 32 & 63)
	}
}

// maybeNumWord reports whether the ASCII word with hash h may be a key
// of numWords.
func (d *dict) maybeNumWord(h uint64) bool {
	return d.numBits[h>>62]>>(h>>32&63)&1 != 0
}

// placeCueBit returns 1 if the word with hash h may be a place cue ("in",
// "near", "of", "and"), and 0 if it is not.
func (d *dict) placeCueBit(h uint64) uint8 {
	return uint8(d.placeCues[h>>62] >> (h >> 32 & 63) & 1)
}

func (d *dict) insert(words []string) *node {
	n := d.root[words[0]]
	if n == nil {
		n = &node{}
		d.root[words[0]] = n
	}
	for _, w := range words[1:] {
		if n.next == nil {
			n.next = map[string]*node{}
		}
		c := n.next[w]
		if c == nil {
			c = &node{}
			n.next[w] = c
		}
		n = c
	}
	return n
}

func buildPrefixes() map[string]prefix {
	p := map[string]prefix{}
	for i, w := range []string{"first", "second", "third", "fourth"} {
		p[w] = prefix{i + 1, pOrdWord}
	}
	for i, w := range []string{"one", "two", "three", "four"} {
		p[w] = prefix{i + 1, pCardWord}
	}
	for i, w := range []string{"1st", "2nd", "3rd", "4th"} {
		p[w] = prefix{i + 1, pOrdinal}
	}
	for i, w := range []string{"i", "ii", "iii", "iv"} {
		p[w] = prefix{i + 1, pRoman}
	}
	for i := 1; i <= 4; i++ {
		p[strconv.Itoa(i)] = prefix{i, pDigit}
	}
	return p
}

func buildNumWords() map[string]int {
	m := map[string]int{}
	for i, w := range []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
		"ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"} {
		m[w] = i + 1
	}
	for i, w := range []string{"twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"} {
		m[w] = (i + 2) * 10
	}
	m["hundred"] = 100
	return m
}

func readTSV(name string, fn func(f []string) error) error {
	data, err := dataFS.ReadFile(name)
	if err != nil {
		return err
	}
	// One string for the file: the fields the tables keep are slices of
	// it, not a string each for the collector to mark.
	text := string(data)
	line := 0
	for l := range strings.Lines(text) {
		line++
		l = strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")
		if line == 1 || l == "" {
			continue
		}
		if err := fn(strings.Split(l, "\t")); err != nil {
			return fmt.Errorf("correction: %s line %d: %w", name, line, err)
		}
	}
	return nil
}

// buildDict reads the embedded data into lookup tables.
func buildDict() (*dict, error) {
	d := &dict{
		ws:             newWordSets(),
		rows:           buildNameRows(),
		root:           map[string]*node{},
		prefixes:       buildPrefixes(),
		numWords:       buildNumWords(),
		fuzzy:          map[string][]fuzzyTarget{},
		fuzzyEnglish:   toSet(fuzzyEnglishWords()),
		placeKeys:      map[string]bool{},
		adjectives:     toSet(bookAdjectiveWords()),
		cues:           cueWords(),
		chapterEnglish: toSet(chapterEnglishWords()),
		realWords:      realWordPlaces(),
		headTargets:    buildHeadTargets(),
		garbled:        toSet(bookGarbledWords()),
		commonPlaceWords: func() map[string]struct{} {
			m := map[string]struct{}{}
			for _, w := range commonPlaceWords() {
				m[w] = struct{}{}
			}
			return m
		}(),
		table:  make([]uint16, 1<<tableBits),
		osisOf: map[string]string{},
		psalm:  "Psalm",
		psalms: "Psalms",
	}
	if err := d.buildBooks(); err != nil {
		return nil, err
	}
	if err := d.buildPlaces(); err != nil {
		return nil, err
	}
	d.markShapes()
	d.nameReplacements()
	if err := d.buildVerses(); err != nil {
		return nil, err
	}
	if err := d.buildNames(); err != nil {
		return nil, err
	}
	var mark func(m map[string]*node)
	mark = func(m map[string]*node) {
		for _, n := range m {
			for key, c := range n.next {
				n.nexts |= 1 << (keyHash(key) >> 58)
				if c.place != nil && !c.place.stop {
					n.tails |= 1 << letterIndex(key[0])
				}
			}
			mark(n.next)
		}
	}
	mark(d.root)
	if len(d.fuzzyAll) >= 1<<16 || len(d.placeTargets) >= 1<<16 {
		return nil, fmt.Errorf("correction: too many fuzzy targets")
	}
	if len(d.entries) > len(d.table)/2 {
		return nil, fmt.Errorf("correction: %d keys overfill the key table", len(d.entries))
	}
	return d, nil
}

func (d *dict) bookForm(words []string) *bookForm {
	n := d.insert(words)
	if n.book == nil {
		n.book = &bookForm{key: strings.Join(words, " "), kind: kNone, pkind: kNone}
	}
	return n.book
}

func (d *dict) buildBooks() error {
	books := map[string]*book{}
	fams := map[string]*family{}
	never := toSet(bookNeverWords())
	neverPrefixed := toSet(bookNeverPrefixedWords())
	ambiguous := map[string]bool{}
	if err := readTSV("data/bible_book_variants_ambiguous.tsv", func(f []string) error {
		ambiguous[strings.ToLower(f[0])] = true
		return nil
	}); err != nil {
		return err
	}
	conflict := map[*bookForm]bool{}

	add := func(variant, canonical, osis string, k kind) {
		words := splitKey(variant)
		if len(words) == 0 || words[0] == "the" {
			return
		}
		b := books[canonical]
		if b == nil {
			b = &book{name: canonical, osis: osis}
			books[canonical] = b
			d.osisOf[canonical] = osis
		}
		num := 0
		base := canonical
		if c := canonical[0]; c >= '1' && c <= '4' && len(canonical) > 2 && canonical[1] == ' ' {
			num = int(c - '0')
			base = canonical[2:]
		}
		if num == 0 {
			f := d.bookForm(words)
			if f.book != nil && f.book != b {
				conflict[f] = true
			}
			if k < f.kind || f.book == nil {
				f.book, f.kind = b, min(k, f.kind)
				f.name = canonical
				if k == kAlt && osis != "Song" && osis != "Ps" {
					f.name = variant // "Acts of the Apostles": only its case is fixed
				}
			}
			return
		}
		fam := fams[base]
		if fam == nil {
			fam = &family{base: base}
			fams[base] = fam
		}
		fam.books[num] = b
		if _, ok := d.prefixes[words[0]]; ok && len(words) > 1 {
			f := d.bookForm(words[1:])
			f.pfam = fam
			f.pkind = min(f.pkind, k)
			return
		}
		if len(words) == 1 && words[0][0] >= '0' && words[0][0] <= '9' {
			return // "1cor"
		}
		f := d.bookForm(words)
		if f.book != nil || (f.fam != nil && f.fam != fam) {
			conflict[f] = true
		}
		f.fam = fam
		f.kind = min(f.kind, kUnnumbered)
		f.name = base
	}

	if err := readTSV("data/bible_book_variants_detailed.tsv", func(f []string) error {
		if len(f) < 4 {
			return fmt.Errorf("want 6 fields, have %d", len(f))
		}
		k, ok := parseKind(f[3])
		if !ok {
			return nil // prefixed_form: "The Gospel according to St Luke"
		}
		add(f[0], f[1], f[2], k)
		return nil
	}); err != nil {
		return err
	}
	// Speech-recognition mishearings the data does not hold.
	add("Philippines", "Philippians", "Phil", kMisspelling)
	add("have a cook", "Habakkuk", "Hab", kAbbrev)
	add("Habakuk", "Habakkuk", "Hab", kMisspelling)

	riskOf := map[string]risk{}
	for _, w := range bookRareNameWords() {
		riskOf[w] = riskRareName
	}
	for _, w := range bookCommonNameWords() {
		riskOf[w] = riskCommonName
	}
	for _, w := range bookEnglishWords() {
		riskOf[w] = riskEnglish
	}
	var walk func(m map[string]*node)
	walk = func(m map[string]*node) {
		for _, n := range m {
			if f := n.book; f != nil {
				single := !strings.Contains(f.key, " ")
				f.risk = riskOf[f.key]
				f.adjective, f.garbled = d.adjectives[f.key], d.garbled[f.key]
				if conflict[f] || ambiguous[f.key] || (single && (len(f.key) <= 2 || never[f.key])) {
					f.kind = kNone
				}
				if single && (len(f.key) <= 2 || neverPrefixed[f.key]) {
					f.pkind = kNone
				}
				if f.key == "have a cook" {
					f.risk = riskEnglish
				}
			}
			walk(n.next)
		}
	}
	walk(d.root)
	d.buildBookTargets(books, fams)
	return nil
}

func (d *dict) buildPlaces() error {
	stop := toSet(placeStopWords())
	type row struct {
		forms    []string
		rules    []string
		mentions int
	}
	var rows []row
	known := map[string]bool{}
	ites, err := kjvItes()
	if err != nil {
		return err
	}
	adjectives := toSet(bookAdjectiveWords())
	if err := readTSV("data/bible_places.tsv", func(f []string) error {
		if len(f) < 5 {
			return fmt.Errorf("want 7 fields, have %d", len(f))
		}
		mentions, _ := strconv.Atoi(f[4])
		r := row{mentions: mentions}
		addForm := func(s, rule string) {
			if s = strings.TrimSpace(s); s != "" {
				r.forms = append(r.forms, s)
				r.rules = append(r.rules, rule)
			}
		}
		addForm(f[0], "place.lowercase")
		known[strings.ToLower(f[0])] = true
		for _, v := range strings.Split(f[1], "|") {
			addForm(v, "place.variant")
			known[strings.ToLower(v)] = true
		}
		for _, v := range strings.Split(f[3], "|") {
			addForm(v, "place.lowercase")
		}
		for _, v := range strings.Split(f[2], "|") {
			addForm(v, "place.other_name")
		}
		for _, v := range demonymForms(f, ites, adjectives) {
			addForm(v, "place.lowercase")
		}
		rows = append(rows, r)
		return nil
	}); err != nil {
		return err
	}
	// A multi-word form is used only when one of its words is a place
	// name in its own right ("mount zion", not "the lord will provide"),
	// or when it is the main name of a well-known place ("red sea").
	distinct := map[string]bool{}
	for k := range known {
		if !strings.ContainsAny(k, " -") && len(k) >= 4 && !stop[k] {
			distinct[k] = true
		}
	}
	for _, r := range rows {
		for i, form := range r.forms {
			words := splitKey(form)
			if len(words) == 0 {
				continue
			}
			key := strings.Join(words, " ")
			isOther := r.rules[i] == "place.other_name"
			if len(words) == 1 && isOther && (len(key) < 5 || stop[key]) {
				continue
			}
			if len(words) > 1 {
				ok := i == 0 && r.mentions >= 50
				for _, w := range words {
					ok = ok || distinct[w]
				}
				if !ok || words[0] == "the" {
					continue
				}
			}
			if isOther {
				r.rules[i] = "place.lowercase" // synonyms are only recased
			}
			cased := tokenize(form, nil)
			if len(cased) != len(words) {
				continue
			}
			n := d.insert(words)
			p := n.place
			if p == nil || r.mentions > p.mentions {
				ws := make([]string, len(cased))
				for j, t := range cased {
					ws[j] = form[t.s():t.e()]
				}
				wasStop := p != nil && p.stop
				rule := rulePlaceLowercase
				if r.rules[i] == "place.variant" {
					rule = rulePlaceVariant
				}
				p = &placeForm{name: form, words: ws, rule: rule, mentions: r.mentions, stop: wasStop}
				n.place = p
			}
			if (len(words) == 1 && (len(key) <= 2 || stop[key])) || key == "" {
				p.stop = true
			}
			d.placeKeys[words[0]] = true
			if len(words) == 1 && !isOther && len(key) >= 6 && r.mentions >= 20 && !stop[key] && isASCIILetters(key) {
				pk := phoneticKey(key)
				d.fuzzy[pk] = append(d.fuzzy[pk], fuzzyTarget{lower: key, name: form, mentions: r.mentions})
			}
			if len(words) == 1 && i == 0 && len(key) >= 5 && r.mentions >= 5 && !stop[key] && isASCIILetters(key) {
				d.placeTargets = append(d.placeTargets, fuzzyTarget{lower: key, name: form, mentions: r.mentions})
			}
		}
	}
	return nil
}

func isASCIILetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return s != ""
}
