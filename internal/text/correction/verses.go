package correction

import (
	"fmt"
	"strconv"
	"strings"
)

// Reference is a Bible reference found with a change: the book the
// change names and the chapter and verses written after it.
type Reference struct {
	Book       string `json:"book"`                  // canonical name, e.g. "1 Corinthians"
	OSIS       string `json:"osis"`                  // OSIS id, e.g. "1Cor.13.4-1Cor.13.7"
	Chapter    int    `json:"chapter"`               // 1-based
	ChapterEnd int    `json:"chapter_end,omitempty"` // last chapter of a range of chapters
	Verse      int    `json:"verse,omitempty"`       // first verse; 0 for a whole chapter
	VerseEnd   int    `json:"verse_end,omitempty"`   // last verse of a range of verses
}

// versified is the versification of one book: how many verses each of
// its chapters has, as the King James Version counts them.
type versified struct {
	name   string  // canonical name
	osis   string  // OSIS book id
	verses []uint8 // verses[c-1] is the number of verses of chapter c
}

// buildVerses reads the versification table and maps the book names of
// d.names to it.
func (d *dict) buildVerses() error {
	byOSIS := map[string]uint8{}
	err := readTSV("data/kjv_versification.tsv", func(f []string) error {
		if len(f) != 2 {
			return fmt.Errorf("want 2 fields, have %d", len(f))
		}
		counts := strings.Split(f[1], ",")
		v := versified{osis: f[0], verses: make([]uint8, len(counts))}
		for k, c := range counts {
			n, err := strconv.Atoi(c)
			if err != nil || n < 1 || n > 255 {
				return fmt.Errorf("%s chapter %d: bad verse count %q", f[0], k+1, c)
			}
			v.verses[k] = uint8(n)
		}
		d.verses = append(d.verses, v)
		byOSIS[f[0]] = uint8(len(d.verses))
		return nil
	})
	if err != nil {
		return err
	}
	d.nameBook = make([]uint8, len(d.names))
	for k, name := range d.names {
		osis, ok := d.osisOf[name]
		if name == d.psalm {
			osis, ok = "Ps", true
		}
		if b := byOSIS[osis]; ok && b != 0 {
			d.nameBook[k] = b
			if d.verses[b-1].name == "" || name != d.psalm {
				d.verses[b-1].name = name
			}
		}
	}
	for k := range d.verses {
		name := d.verses[k].name
		if name == "" {
			continue // reported below
		}
		if i := strings.IndexByte(name, ' '); i >= 0 && name[0] >= '0' && name[0] <= '9' {
			name = name[i+1:]
		}
		if p := letterPair(name); p >= 0 {
			b := k + 1
			d.pairBooks[p][b>>6] |= 1 << (b & 63)
		}
	}
	d.bookID = make([]sref, len(d.verses))
	for k, name := range d.names {
		if b := d.nameBook[k]; b != 0 && d.verses[b-1].name == name {
			d.bookID[b-1] = sref(k)
		}
	}
	for k := range d.verses {
		if d.verses[k].name == "" {
			return fmt.Errorf("correction: no book name for %s", d.verses[k].osis)
		}
	}
	d.osisOf = nil
	return nil
}

// bookOf returns the versified book a replacement names, plus one, or 0.
func (d *dict) bookOf(id sref) uint8 {
	if id&dynRef != 0 || int(id) >= len(d.nameBook) {
		return 0
	}
	return d.nameBook[id]
}

// hasChapter reports whether book b (see bookOf) has chapter c.
func (d *dict) hasChapter(b uint8, c int) bool {
	return c >= 1 && c <= len(d.verses[b-1].verses)
}

// hasVerse reports whether chapter c of book b has verse v.
func (d *dict) hasVerse(b uint8, c, v int) bool {
	return d.hasChapter(b, c) && v >= 1 && v <= int(d.verses[b-1].verses[c-1])
}

// singleChapter reports whether book b has one chapter only (Obadiah,
// Philemon, 2 and 3 John, Jude): a lone number after it is a verse.
func (d *dict) singleChapter(b uint8) bool {
	return len(d.verses[b-1].verses) == 1
}

// splitDigits reads a run of three or four digits that a recognizer wrote
// for a chapter and a verse ("828" for 8:28) in book b. It returns the
// only reading that exists; none when there are two ("121": 12:1 or
// 1:21) or none.
func (d *dict) splitDigits(b uint8, digits string) (c, v int, ok bool) {
	c, v, found := d.digitReadings(b, digits)
	return c, v, found == 1
}

// digitReadings counts the readings of a run of three or four digits as a
// chapter and a verse of book b that exist, and returns the last of them.
func (d *dict) digitReadings(b uint8, digits string) (c, v, found int) {
	n := 0
	for k := 0; k < len(digits); k++ {
		n = n*10 + int(digits[k]-'0')
	}
	for _, div := range [...]int{10, 100, 1000} {
		if div >= n || (div == 1000 && len(digits) < 4) {
			break
		}
		cc, vv := n/div, n%div
		if vv < div/10 || !d.hasVerse(b, cc, vv) { // "808" is not 8:08
			continue
		}
		c, v = cc, vv
		found++
	}
	return c, v, found
}

// checkRef makes r, read after a name of book b, one that exists: a
// chapter the book does not have makes it no reference, and a verse or
// the end of a range the chapter does not have is left out of it.
func (d *dict) checkRef(b uint8, r *ref) {
	if !r.ok || b == 0 {
		return
	}
	if d.singleChapter(b) && !r.chapterWord && r.verse == 0 && r.chapterEnd == 0 {
		// "Jude 3", "Philemon 10 through 12": verses.
		if !d.hasVerse(b, 1, r.chapter) {
			*r = ref{}
			return
		}
		if r.verseEnd > 0 && !d.hasVerse(b, 1, r.verseEnd) {
			r.verseEnd, r.endTok = 0, r.chapterTok
		}
		return
	}
	if !d.hasChapter(b, r.chapter) {
		*r = ref{}
		return
	}
	if r.chapterEnd > 0 && !d.hasChapter(b, r.chapterEnd) {
		if d.hasVerse(b, r.chapter, r.chapterEnd) && !r.chapterWord {
			// "1 Peter 5-7": 1 Peter has five chapters, and 5:7 is the
			// verse meant.
			r.verse, r.chapterEnd, r.chapterRange = r.chapterEnd, 0, false
		} else {
			r.chapterEnd, r.chapterRange, r.endTok = 0, false, r.chapterTok
		}
	}
	if r.verse > 0 && !d.hasVerse(b, r.chapter, r.verse) {
		// "chapter 3 verse 40" of a chapter of 36 verses: the chapter is
		// all that is certain.
		r.verse, r.verseEnd, r.endTok = 0, 0, r.chapterTok
	}
	if r.verseEnd > 0 && !d.hasVerse(b, r.chapter, r.verseEnd) {
		r.verseEnd, r.endTok = 0, r.verseTok
	}
}

// refRecOf packs r, read after book r.bk, for record rec.
func (d *dict) refRecOf(rec int32, r ref) refRec {
	x := refRec{rec: rec, bk: r.bk, ch: uint8(r.chapter), chEnd: uint8(r.chapterEnd), verse: uint8(r.verse), verseEnd: uint8(r.verseEnd)}
	if d.singleChapter(r.bk) && !r.chapterWord && r.verse == 0 && r.chapterEnd == 0 {
		x.ch, x.verse = 1, uint8(r.chapter)
	}
	return x
}

// references returns the references of rs, their OSIS ids carved out of
// one string.
func (d *dict) references(rs []refRec) []Reference {
	out := make([]Reference, len(rs))
	var sb strings.Builder
	sb.Grow(len(rs) * 16)
	osis := func(v *versified, c, vs uint8) {
		sb.WriteString(v.osis)
		sb.WriteByte('.')
		sb.WriteString(strconv.Itoa(int(c)))
		if vs > 0 {
			sb.WriteByte('.')
			sb.WriteString(strconv.Itoa(int(vs)))
		}
	}
	ends := make([]int, len(rs))
	for k := range rs {
		x := &rs[k]
		v := &d.verses[x.bk-1]
		osis(v, x.ch, x.verse)
		switch {
		case x.verseEnd > 0:
			sb.WriteByte('-')
			osis(v, x.ch, x.verseEnd)
		case x.chEnd > 0:
			sb.WriteByte('-')
			osis(v, x.chEnd, 0)
		}
		ends[k] = sb.Len()
		book := v.name
		if v.osis == "Ps" && x.chEnd == 0 {
			book = d.psalm
		}
		out[k] = Reference{Book: book, Chapter: int(x.ch), ChapterEnd: int(x.chEnd), Verse: int(x.verse), VerseEnd: int(x.verseEnd)}
	}
	all, pos := sb.String(), 0
	for k := range out {
		out[k].OSIS = all[pos:ends[k]]
		pos = ends[k]
	}
	return out
}

// buildNames reads the proper names of the King James Version, those of
// its lists included (data/kjv_listed_names.txt).
func (d *dict) buildNames() error {
	data, err := dataFS.ReadFile("data/kjv_names.txt")
	if err != nil {
		return err
	}
	listed, err := dataFS.ReadFile("data/kjv_listed_names.txt")
	if err != nil {
		return err
	}
	d.kjvNames = make(map[string]struct{}, 3700)
	var names []string
	for line := range strings.SplitSeq(string(data)+"\n"+string(listed), "\n") {
		if line != "" && line[0] != '#' {
			d.kjvNames[strings.ToLower(line)] = struct{}{}
			names = append(names, line)
		}
	}
	d.buildPersons(names)
	if err := d.buildChapterPeople(); err != nil {
		return err
	}
	if err := d.buildVerseStarts(); err != nil {
		return err
	}
	data, err = dataFS.ReadFile("data/english_near_names.txt")
	if err != nil {
		return err
	}
	d.englishNear = make(map[string]struct{}, 4400)
	for line := range strings.SplitSeq(string(data), "\n") {
		if line != "" && line[0] != '#' {
			d.englishNear[line] = struct{}{}
		}
	}
	data, err = dataFS.ReadFile("data/person_near_words.txt")
	if err != nil {
		return err
	}
	d.personNear = make(map[string]struct{}, 1100)
	for line := range strings.SplitSeq(string(data), "\n") {
		if line != "" && line[0] != '#' {
			d.personNear[line] = struct{}{}
		}
	}
	data, err = dataFS.ReadFile("data/modern_names_near_people.txt")
	if err != nil {
		return err
	}
	d.modernNames = make(map[string]struct{}, 64)
	for line := range strings.SplitSeq(string(data), "\n") {
		if line != "" && line[0] != '#' {
			d.modernNames[line] = struct{}{}
		}
	}
	d.wideNear = wideNearList()
	data, err = dataFS.ReadFile("data/kjv_common_words.txt")
	if err != nil {
		return err
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if line != "" && line[0] != '#' {
			d.englishNear[line] = struct{}{}
		}
	}
	if err := d.buildSpelledEnglish(); err != nil {
		return err
	}
	d.buildKnown()
	return nil
}
