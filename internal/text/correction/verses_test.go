package correction

import (
	"fmt"
	"testing"
)

func TestReferencesThatExist(t *testing.T) {
	e := testEngine(t)
	norm := Options{NormalizeReferences: true}
	tests := []struct {
		name string
		in   string
		want string // corrected content
		ref  string // the first change's reference, as book chapter:verse-end osis
	}{
		{"a spoken chapter and verse", "john three sixteen says", "John 3:16 says", "John 3:16 John.3.16"},
		{"a psalm of three digits spoken as two numbers", "Psalm one forty-five says", "Psalm 145 says", "Psalm 145 Ps.145"},
		{"a psalm of three digits before a verse", "psalm one nineteen verse one hundred and five", "Psalm 119:105", "Psalm 119:105 Ps.119.105"},
		{"a psalm's verse that exists stays a verse", "psalm one six says", "Psalm 1:6 says", "Psalm 1:6 Ps.1.6"},
		{"a chapter and verse run together", "Romans 828 says", "Romans 8:28 says", "Romans 8:28 Rom.8.28"},
		{"digits read two ways are left", "Genesis 121 says", "Genesis 121 says", ""},
		{"a year is no reference", "in Acts 1990 we", "in Acts 1990 we", ""},
		{"a spoken chapter before verses in digits", "Colossians three 12 through 17", "Colossians 3:12–17", "Colossians 3:12-17 Col.3.12-Col.3.17"},
		{"two verses joined by and", "romans chapter eight verses five and six", "Romans 8:5–6", "Romans 8:5-6 Rom.8.5-Rom.8.6"},
		{"verse number", "acts chapter four, verse number 7", "Acts 4:7", "Acts 4:7 Acts.4.7"},
		{"a verse the chapter does not have is left out", "john chapter 3 verse 40", "John 3 verse 40", "John 3 John.3"},
		{"a range end the chapter does not have is left out", "john 3:16 through 40", "John 3:16 through 40", "John 3:16 John.3.16"},
		{"a chapter the book does not have is no reference", "romans 20 says", "Romans 20 says", ""},
		{"a book of one chapter takes a verse", "jude three says", "Jude 3 says", "Jude 1:3 Jude.1.3"},
		{"a range of chapters the book does not have is a chapter and a verse", "1 peter 5-7 says", "1 Peter 5:7 says", "1 Peter 5:7 1Pet.5.7"},
		{"a range of chapters that exist stays one", "romans 5-7 says", "Romans 5–7 says", "Romans 5-7 Rom.5-Rom.7"},
		{"a following verse is read against the chapter before it", "john chapter 3. verse 16 says", "John 3:16 says", "John 3:16 John.3.16"},
		{"a following verse the chapter does not have is left", "john chapter 3. verse 40 says", "John 3. verse 40 says", "John 3 John.3"},
		{"the singular of the readers' name before a chapter and a verse", "turn to roman 8 28", "turn to Romans 8:28", "Romans 8:28 Rom.8.28"},
		{"the same before a bare number stays", "in hebrew 11 we read", "in hebrew 11 we read", ""},
		{"the same after a determiner stays", "the roman 8 28 legions", "the roman 8 28 legions", ""},
		{"a number with a leading zero is an identifier", "resolution numbers 06-0003 and 14-0030", "resolution numbers 06-0003 and 14-0030", ""},
		{"a range of psalms", "psalms 120 through 134", "Psalms 120–134", "Psalms 120-134 Ps.120-Ps.134"},
		{"a numbered book", "first corinthians chapter thirteen verse four", "1 Corinthians 13:4", "1 Corinthians 13:4 1Cor.13.4"},
		{"a number that is compared is quoted, not a chapter", "in ecclesiastes two is better than one", "in Ecclesiastes two is better than one", ""},
		{"a chapter that is described stays a chapter", "ecclesiastes four is a great chapter", "Ecclesiastes 4 is a great chapter", "Ecclesiastes 4 Eccl.4"},
		{"a verse that is compared stays a verse", "romans eight twenty eight is better than gold", "Romans 8:28 is better than gold", "Romans 8:28 Rom.8.28"},
		{"three chapters in a row without their commas are left as written", "romans 6 7 and 8 tell us", "Romans 6 7 and 8 tell us", ""},
		{"a chapter, a verse and the next verse", "romans 8 28 and 29 tell us", "Romans 8:28–29 tell us", "Romans 8:28-29 Rom.8.28-Rom.8.29"},
		{"a psalm of a hundred and more", "psalm a hundred and three bless the lord", "Psalm 103 bless the lord", "Psalm 103 Ps.103"},
		{"a verse of a hundred and more", "psalm a hundred and nineteen verse a hundred and five", "Psalm 119:105", "Psalm 119:105 Ps.119.105"},
		{"a hundred after a book that has no such chapter", "john a hundred times", "john a hundred times", ""},
		{"a psalm of three digits with a zero said as oh", "psalm one oh three bless the lord", "Psalm 103 bless the lord", "Psalm 103 Ps.103"},
		{"a verse of three digits with a zero said as oh", "psalm one nineteen one oh five thy word", "Psalm 119:105 thy word", "Psalm 119:105 Ps.119.105"},
		{"a chapter the book does not have read with oh is the chapter before it", "in first john one oh nine", "in 1 John 1 oh nine", "1 John 1 1John.1"},
		{"oh after a chapter that is no number", "genesis one oh no", "Genesis 1 oh no", "Genesis 1 Gen.1"},
		{"the chapter, then and, then the verse", "luke chapter 6 and verse 37 judge not", "Luke 6:37 judge not", "Luke 6:37 Luke.6.37"},
		{"the chapter, then and, then the verses", "amos chapter 6 and verses 1 to 7 for our text", "Amos 6:1–7 for our text", "Amos 6:1-7 Amos.6.1-Amos.6.7"},
		{"and after a chapter without the word chapter is left", "john three and verse sixteen", "John 3 and verse sixteen", "John 3 John.3"},
		{"a spoken verse and the next one said after it", "matthew twenty eight nineteen twenty go therefore", "Matthew 28:19–20 go therefore", "Matthew 28:19-20 Matt.28.19-Matt.28.20"},
		{"a spoken verse and a number that goes on", "matthew twenty eight nineteen twenty five people", "Matthew 28:19 twenty five people", "Matthew 28:19 Matt.28.19"},
		{"a spoken verse and a number that is not the next verse", "acts two thirty eight three thousand", "Acts 2:38 three thousand", "Acts 2:38 Acts.2.38"},
		{"verses in digits and a number after them are left as written", "john 3 16 17", "John 3 16 17", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.Correct(tc.in, norm)
			if r.Content != tc.want {
				t.Errorf("Correct(%q) = %q, want %q (%v)", tc.in, r.Content, tc.want, compactAll(r.Changes))
			}
			got := ""
			if len(r.Changes) > 0 && r.Changes[0].Reference != nil {
				got = refString(*r.Changes[0].Reference)
			}
			if got != tc.ref {
				t.Errorf("Correct(%q): reference %q, want %q", tc.in, got, tc.ref)
			}
		})
	}
}

func TestReferencesOnlyWhenNormalizing(t *testing.T) {
	e := testEngine(t)
	for _, c := range e.Find("john three sixteen says", Options{}) {
		if c.Reference != nil {
			t.Errorf("%s: a reference without NormalizeReferences", compact(c))
		}
	}
}

func TestVersificationTable(t *testing.T) {
	e := testEngine(t)
	d := e.d
	if len(d.verses) != 66 {
		t.Fatalf("%d books versified, want 66", len(d.verses))
	}
	total, chapters := 0, 0
	for _, v := range d.verses {
		chapters += len(v.verses)
		for _, n := range v.verses {
			total += int(n)
		}
	}
	if chapters != 1189 || total != 31102 {
		t.Errorf("%d chapters and %d verses, want the KJV's 1189 and 31102", chapters, total)
	}
	ps := d.bookOf(d.psalmID)
	if !d.hasVerse(ps, 119, 176) || d.hasVerse(ps, 119, 177) || d.hasChapter(ps, 151) {
		t.Error("Psalm 119 has 176 verses and the Psalms 150 chapters")
	}
}

// refString renders a Reference as "Book 3:16-18 OSIS".
func refString(r Reference) string {
	s := fmt.Sprintf("%s %d", r.Book, r.Chapter)
	switch {
	case r.Verse > 0 && r.VerseEnd > 0:
		s += fmt.Sprintf(":%d-%d", r.Verse, r.VerseEnd)
	case r.Verse > 0:
		s += fmt.Sprintf(":%d", r.Verse)
	case r.ChapterEnd > 0:
		s += fmt.Sprintf("-%d", r.ChapterEnd)
	}
	return s + " " + r.OSIS
}
