package correction

import (
	"strings"
)

// An automatic change needs evidence beyond the word itself. The rules
// below find the changes whose only evidence is a spelling, and make them
// suggestions: the engine's confidence in the name stays what it was,
// but nothing in the text confirms it.
//
//   - A book's name spelt otherwise than the name (a listed variant or a
//     fuzzy match: "the psalma said", the psalmist) in one lowercase
//     word, with no chapter or verse after it and no cue before it. A
//     capital alone ("the book of acts"), a name of several words ("song
//     of songs", "first peter"), a spelling before a reference ("galatian
//     6 1") or after a cue ("the letter to the colosians", "in
//     revelations"), and a capital the text writes ("Phillipians is a
//     letter") keep their evidence.
//   - A lowercase word capitalised as a rare name when the word is, but
//     for one vowel, an ordinary word that the engine knows is taken for
//     a name ("join their harim": a harem, not Harim of Ezra), unless the
//     text cites a book whose chapters name it ("the island of crete"
//     in a sermon on Acts 27).
//   - A reference written out whose verse is a number said as a word
//     right after "chapter" and its number, with no "verse" before it,
//     or whose verse the text goes on from with a colon and a number.
//
// The matcher marks such a record when it is made (markThin,
// thinBook) and Find decides its status once the whole text is read
// (thinStatus).

// thinBit marks a record's confidence (in hundredths) whose change needs
// the evidence above to be applied.
const thinBit = 0x80

// thinConf is the confidence of a change made a suggestion for want of
// evidence: likely, not confirmed.
const thinConf = 0.8

// autoPct is autoThreshold in hundredths.
const autoPct = 85

// markThin returns p, the confidence in hundredths of the record of a
// change into repl by rule, with thinBit set when the change capitalises
// a name that is an ordinary word but for a vowel.
func (m *matcher) markThin(repl sref, rule ruleID, p uint8) uint8 {
	if p >= autoPct && (rule == rulePlaceLowercase || rule == rulePlaceVariant) && m.d.spelledName(repl) {
		return p | thinBit
	}
	return p
}

// thinBook reports whether the change of tokens i..j into a book by rule,
// not recorded yet, would be applied on a spelling alone (see
// spellingOnly).
func (m *matcher) thinBook(i, j int, r *ref, rule ruleID) bool {
	return (rule == ruleBookMisspelling || rule == ruleBookFuzzy || rule == ruleBookAltName) && m.spellingOnly(i, j, r)
}

// spellingOnly reports whether the book spelt otherwise at tokens i..j
// has nothing but its spelling: one lowercase word, with no reference r
// or number after it and no cue of a book before it.
func (m *matcher) spellingOnly(i, j int, r *ref) bool {
	sc := m.sc
	return i == j && !r.ok && !sc.firstUpper(i) && !numberNext(sc.text, sc.tok(j).e()) &&
		!m.strongCue(i) && !m.weakCue(i) && !m.sermonCue(i, j) && !m.listCue(i)
}

// thinVerse reports whether reference r, written out, reads its verse on
// thin evidence: a number said as a word right after "chapter" and its
// number, with no "verse" between ("like philippians chapter two one mind"
// counts a mind, where "chapter two, verse one" and "chapter 4 19" say
// the verse), or a verse the text goes on from with a colon and a number
// ("John 4 4:50", "Hebrews chapter 10 10:17": the last number is a
// chapter and its verse, not a verse).
func (m *matcher) thinVerse(r *ref) bool {
	if !r.ok || r.verse == 0 {
		return false
	}
	sc := m.sc
	if e := sc.tok(r.endTok).e(); e+1 < len(sc.text) && sc.text[e] == ':' && '0' <= sc.text[e+1] && sc.text[e+1] <= '9' {
		return true
	}
	if !r.chapterWord || !r.bareVerse {
		return false
	}
	for k := r.chapterTok + 1; k <= r.verseTok; k++ {
		if sc.tok(k).flags&tDigits != 0 {
			return false
		}
	}
	return true
}

// markLastThin sets thinBit on the latest record.
func (r *recs) markLastThin() {
	b := r.blocks[len(r.blocks)-1]
	b[len(b)-1].conf |= thinBit
}

// thinStatus returns the confidence of a record marked by markThin or
// thinBook and whether its change is applied: it is suggested, with
// thinConf, unless it names a place or person of a book the text cites.
func (m *matcher) thinStatus(r rec) (float64, bool) {
	if r.rule == rulePlaceLowercase || r.rule == rulePlaceVariant {
		var b [32]byte
		books := m.d.spelledEnglish[string(appendLower(b[:0], m.get(r.repl)))]
		if books[0]&m.citedBooks[0] != 0 || books[1]&m.citedBooks[1] != 0 {
			return pctConf(r.conf &^ thinBit), true
		}
	}
	return thinConf, false
}

// spelledName reports whether the replacement id is a name of
// spelledEnglish.
func (d *dict) spelledName(id sref) bool {
	return id&dynRef == 0 && int(id>>6) < len(d.spelledIDs) && d.spelledIDs[id>>6]&(1<<(id&63)) != 0
}

// numberNext reports whether the word after text[:end] is a number, in
// digits or in words, or the word chapter or verse: a book's reference.
func numberNext(text string, end int) bool {
	i := end
	for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r' || text[i] == ',' || text[i] == ':') {
		i++
	}
	if i < len(text) && '0' <= text[i] && text[i] <= '9' {
		return true
	}
	j := i
	for j < len(text) && j-i < 12 && ('a' <= text[j]|0x20 && text[j]|0x20 <= 'z') {
		j++
	}
	if j == i || j-i >= 12 {
		return false
	}
	var b [12]byte
	switch string(appendLower(b[:0], text[i:j])) {
	case "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
		"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
		"eighteen", "nineteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy",
		"eighty", "ninety", "hundred", "chapter", "chapters", "chap", "verse", "verses":
		return true
	}
	return false
}

// buildSpelledEnglish finds the names of data/kjv_people.tsv (people and
// places) that are, but for one vowel, a word of englishNear ("harim":
// harem), with the books whose chapters name each (bit b, see bookOf).
func (d *dict) buildSpelledEnglish() error {
	byOSIS := make(map[string]uint8, len(d.verses))
	for k, v := range d.verses {
		byOSIS[v.osis] = uint8(k + 1)
	}
	d.spelledEnglish = map[string][2]uint64{}
	err := readTSV("data/kjv_people.tsv", func(f []string) error {
		lower := strings.ToLower(f[0])
		if len(lower) < 4 || len(lower) > 32 || !d.vowelFromEnglish(lower) {
			return nil
		}
		var books [2]uint64
		for c := range strings.SplitSeq(f[1], ",") {
			osis, _, _ := strings.Cut(c, ".")
			if b := byOSIS[osis]; b != 0 {
				books[b>>6] |= 1 << (b & 63)
			}
		}
		d.spelledEnglish[lower] = books
		return nil
	})
	if err != nil {
		return err
	}
	d.spelledIDs = make([]uint64, (len(d.names)+63)/64)
	var b [32]byte
	for k, name := range d.names {
		if len(name) < 4 || len(name) > len(b) {
			continue
		}
		if _, ok := d.spelledEnglish[string(appendLower(b[:0], name))]; ok {
			d.spelledIDs[k>>6] |= 1 << (k & 63)
		}
	}
	return nil
}

// vowelFromEnglish reports whether the lowercase word w is a word of
// englishNear with one vowel changed (y counts as a vowel).
func (d *dict) vowelFromEnglish(w string) bool {
	var b [32]byte
	s := append(b[:0], w...)
	for i, c := range s {
		if !isVowelLetter(c) {
			continue
		}
		for _, v := range []byte("aeiouy") {
			if v == c {
				continue
			}
			s[i] = v
			if _, ok := d.englishNear[string(s)]; ok {
				return true
			}
		}
		s[i] = c
	}
	return false
}
