package correction

//go:generate go run ./gen/kjvpeople -names data/kjv_names.txt -versification data/kjv_versification.tsv -o data/kjv_people.tsv

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// numChapters is the number of chapters of the 66 books of the KJV.
const numChapters = 1189

// chapterWords is the number of uint64 words of a set of chapters.
const chapterWords = (numChapters + 63) / 64

// buildChapterPeople reads the chapters that name each person of the KJV
// (data/kjv_people.tsv, generated from the public-domain KJV text by
// gen/kjvpeople): a sermon that cites a chapter may say its people's
// names, heard wrong. Names of places, books and peoples, and names of
// four letters or fewer, are left out, as buildPersons leaves them.
func (d *dict) buildChapterPeople() error {
	byOSIS := make(map[string]uint8, len(d.verses))
	d.chapterBase = make([]uint16, len(d.verses))
	n := 0
	for k, v := range d.verses {
		byOSIS[v.osis] = uint8(k + 1)
		d.chapterBase[k] = uint16(n)
		n += len(v.verses)
	}
	if n != numChapters {
		return fmt.Errorf("correction: the versification has %d chapters, want %d", n, numChapters)
	}
	d.chapterPeople = make([][]personName, numChapters)
	return readTSV("data/kjv_people.tsv", func(f []string) error {
		if len(f) != 2 {
			return fmt.Errorf("want 2 fields, have %d", len(f))
		}
		name := f[0]
		lower := strings.ToLower(name)
		if len(lower) < 5 || d.placeKeys[lower] || d.isBookWord(lower) || groupName(lower) {
			return nil
		}
		p := personName{name: name, lower: lower}
		for c := range strings.SplitSeq(f[1], ",") {
			osis, ch, ok := strings.Cut(c, ".")
			b := byOSIS[osis]
			k := 0
			for _, r := range ch {
				k = k*10 + int(r-'0')
			}
			if !ok || b == 0 || !d.hasChapter(b, k) {
				return fmt.Errorf("bad chapter %q", c)
			}
			i := int(d.chapterBase[b-1]) + k - 1
			d.chapterPeople[i] = append(d.chapterPeople[i], p)
		}
		return nil
	})
}

// soundedName is a person's name and its phonetic key.
type soundedName struct {
	personName
	key string
}

// chapterPeople returns the people named by the chapters the text has
// cited, or nil.
func (m *matcher) chapterPeople() []soundedName {
	var out []soundedName
	for w, set := range m.chapters {
		for ; set != 0; set &= set - 1 {
			k := w<<6 + bits.TrailingZeros64(set)
			for _, p := range m.d.chapterPeople[k] {
				if !containsPerson(out, p.name) {
					out = append(out, soundedName{p, phoneticKey(p.lower)})
				}
			}
		}
	}
	return out
}

func containsPerson(ps []soundedName, name string) bool {
	for _, p := range ps {
		if p.name == name {
			return true
		}
	}
	return false
}

// chapterPerson returns the person among people, those of the chapters
// the text cites, that the word w sounds like, or "": a word that no
// list holds, with the sound of the name and within half its letters of
// it ("malcus" for Malchus in a sermon on John 18, "yodius" for Euodias,
// "synteki" for Syntyche in one on Philippians 4), or the name's first
// letters cut short ("bartimae" for Bartimaeus in one on Mark 10).
func (m *matcher) chapterPerson(people []soundedName, w string) string {
	if len(w) < 5 || len(w) > 20 || len(people) == 0 {
		return ""
	}
	var b [24]byte
	lw := appendLower(b[:0], w)
	for _, c := range lw {
		if c < 'a' || c > 'z' {
			return ""
		}
	}
	d := m.d
	if _, ok := d.kjvNames[string(lw)]; ok || d.placeKeys[string(lw)] || d.isBookWord(string(lw)) || d.fuzzyEnglish[string(lw)] {
		return ""
	}
	if _, ok := d.englishNear[string(lw)]; ok {
		return ""
	}
	if _, ok := d.personNear[string(lw)]; ok {
		return ""
	}
	if isEnglishWord(string(lw)) {
		return ""
	}
	var kb [32]byte
	key := appendPhoneticKey(kb[:0], lw)
	if len(key) < 3 {
		return ""
	}
	best, bestD := "", len(lw)
	for _, p := range people {
		pk := p.key
		switch {
		case pk == string(key):
			// The nearest of the names of that sound: "timur" is Tamar
			// before Thamar.
			if half := len(p.lower) / 2; !szOnly(lw, p.lower) {
				if dd := editDistance(lw, p.lower, half); dd <= half && dd < bestD {
					best, bestD = p.name, dd
				}
			}
		case len(lw) >= 7 && len(p.lower) > len(lw) && len(p.lower)-len(lw) <= 3 && len(key) >= 4 &&
			strings.HasPrefix(pk, string(key)) && editDistance(lw, p.lower[:len(lw)], 1) <= 1:
			// The end cut off: "blind / bartimae".
			if dd := len(p.lower) - len(lw); dd < bestD {
				best, bestD = p.name, dd
			}
		}
	}
	return best
}

// chapterPersons adds to out the people of the cited chapters that the
// words of the text at spans sound like (see chapterPerson), and returns
// it in text order.
func (m *matcher) chapterPersons(out []personRec, spans [][2]int32) []personRec {
	people := m.chapterPeople()
	if len(people) == 0 {
		return out
	}
	text := m.sc.text
	added := false
	seen := map[string]string{} // a word said again is read once
	for _, s := range spans {
		start, end := int(s[0]), int(s[1])
		w := text[start:end]
		name, ok := seen[w]
		if !ok {
			name = m.chapterPerson(people, w)
			seen[w] = name
		}
		if name != "" && !notProse(text, start, end) {
			out = append(out, personRec{start, end, name, 0.6})
			added = true
		}
	}
	if added {
		slices.SortFunc(out, func(a, b personRec) int { return a.start - b.start })
		out = slices.CompactFunc(out, func(a, b personRec) bool { return a.start == b.start })
	}
	return out
}

// rareWord reports whether token t may be a name heard wrong: five to
// 20 bytes, no number, no dictionary key and no word of the lists of
// known words (see buildKnown).
func rareWord(d *dict, t *token) bool {
	return uint(t.end-t.start-5) <= 15 && t.flags&(tFull|tDigits|tMulti) == 0 && d.knownMiss(t.h) == 1
}

// rareSpans returns the bounds of the words of the text that rareWord
// keeps, for a text the scanner has not read so.
func (m *matcher) rareSpans() [][2]int32 {
	text := m.sc.text
	var out [][2]int32
	for i := 0; i < len(text); {
		if !isWordByte(text[i]) || text[i] == '\'' {
			i++
			continue
		}
		j := i
		letters := true
		for j < len(text) && isWordByte(text[j]) && text[j] != '\'' {
			letters = letters && text[j]|0x20 >= 'a' && text[j]|0x20 <= 'z'
			j++
		}
		if n := j - i; letters && n >= 5 && n <= 20 {
			if h := keyHash(text[i:j]); m.d.knownMiss(h) == 1 && m.d.keyBit(h) == 0 {
				out = append(out, [2]int32{int32(i), int32(j)})
			}
		}
		i = j
	}
	return out
}

// buildKnown fills d.known with the words of five to 20 letters that a
// name heard wrong is not: the English words of SCOWL, the KJV's names
// and its own common words, and the words listed as near a name. The
// scanner keeps the other words (see rareWord), so that the people of the cited
// chapters are compared with a few words of a text, not with all.
func (d *dict) buildKnown() {
	d.known = new([knownBits]uint64)
	add := func(w string) {
		if len(w) >= 5 && len(w) <= 20 {
			d.addKnown(keyHash(w))
		}
	}
	s := englishWords[strings.IndexByte(englishWords, '\n')+1:]
	for w := range strings.SplitSeq(s, "\n") {
		add(w)
	}
	for w := range d.kjvNames {
		add(w)
	}
	for w := range d.englishNear {
		add(w)
	}
	for w := range d.personNear {
		add(w)
	}
	for w := range d.fuzzyEnglish {
		add(w)
	}
}
