package correction

import (
	"slices"
	"testing"
)

// TestYouTubeCaptionRules holds the rules issue 24's fourth round took from
// real YouTube auto-captions of sermons (lowercase, no punctuation, one cue
// a line); the examples are written in that shape, not copied.
func TestYouTubeCaptionRules(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string // compact changes, in order, with NormalizeReferences
	}{
		{"a cited book that the sermon also uses as a noun stays the noun when it comes back bare",
			captionSermon + "turn to revelation 4\nand see his throne\nthis revelation changed me\nso god wants to give us revelation\nabout our lives",
			[]string{"revelation 4>Revelation 4 book.lowercase auto"}},
		{"a cited book that the sermon never uses as a noun comes back as the book",
			captionSermon + "turn to revelation 4\nand see his throne\nwhen you read revelation\nyou see the lamb",
			[]string{"revelation 4>Revelation 4 book.lowercase auto", "revelation>Revelation book.lowercase auto"}},
		{"no before the word is a noun use",
			captionSermon + "read revelation 4 with me\nsome prophecy brings no revelation\nbut it can bring revelation to you",
			[]string{"revelation 4>Revelation 4 book.lowercase auto"}},
		{"the book of a book names it as a citation does, and its bare return is the book",
			captionSermon + "has anyone read the book of judges lately\nif judges were on your playlist\nat the very end of judges we read",
			[]string{"judges>Judges book.lowercase auto", "judges>Judges book.lowercase auto", "judges>Judges book.lowercase auto"}},
		{"a possessive before a named book is the noun",
			captionSermon + "read the book of revelation with me\nfocus on god's truth and god's revelation\nin a sustained manner",
			[]string{"revelation>Revelation book.lowercase auto"}},
		{"an ordinal before a chapter its numbered book does not have is a list's first",
			captionSermon + "being a disciple would be first\njohn chapter 8 you can read it",
			[]string{"john chapter 8>John 8 book.lowercase auto"}},
		{"an ordinal before a chapter its numbered book has is the book's number",
			captionSermon + "being a disciple would be first\njohn chapter 3 you can read it",
			[]string{"first\njohn chapter 3>1 John 3 book.spoken_ordinal auto"}},
		{"a fused chapter and verse after an ordinal still reads as the numbered book",
			captionSermon + "faith in jesus first john 49 please go there",
			[]string{"first john>1 John book.spoken_ordinal auto"}},
		{"a lowercase ii before a numbered book is its number in a sermon",
			captionSermon + "where are we here ii thessalonians\nphilippians is next",
			[]string{"ii thessalonians>2 Thessalonians book.ordinal auto", "philippians>Philippians book.lowercase auto"}},
		{"a lowercase ii with a chapter",
			captionSermon + "so ii timothy chapter 1 verse 6\nit says",
			[]string{"ii timothy chapter 1 verse 6>2 Timothy 1:6 book.ordinal auto"}},
		{"a lowercase i before a book without a cue stays the pronoun",
			captionSermon + "and then i john said it",
			[]string{}},
		{"psalms before hymns and spiritual songs stay the common noun, even with a misheard number",
			sermonOpening + "speaking to one another in Psalms 10\nspiritual songs we sing",
			[]string{}},
		{"psalms before hymns stay the common noun", captionSermon + "we sing psalms and hymns together",
			[]string{}},
		{"a psalm cited before a reading stays the book", captionSermon + "according to psalms 104\nwe enter his gates",
			[]string{"psalms 104>Psalm 104 psalm.singular auto"}},
		{"in psalms before the sermon cites the book is only suggested",
			captionSermon + "sometimes i get them in psalms\nand in rhyming things",
			[]string{"psalms>Psalms book.lowercase review"}},
		{"in psalms after the sermon cites the book is applied",
			captionSermon + "psalm 23 is a comfort\nand in psalms we find more",
			[]string{"psalm 23>Psalm 23 book.lowercase auto", "psalms>Psalms book.lowercase auto"}},
		{"a run of digits ending in a chapter just cited is left as written",
			sermonOpening + "do you meditate on Psalm 91 or are you all over the place\nwhen it comes to what Psalm 191 says",
			[]string{}},
		{"a run of digits without such a citation is a chapter and a verse",
			sermonOpening + "do you meditate on Psalm 23 or are you all over the place\nwhen it comes to what Psalm 191 says",
			[]string{"Psalm 191>Psalm 19:1 reference.normalize auto"}},
		{"a biblical man's name before of and a place is not a misheard place",
			sermonOpening + "the heir of my house is Eliezer of\nDamascus and Abram said",
			[]string{}},
		{"verse after a book of one chapter is its reference",
			captionSermon + "is there any more to say jude\nverse 17 okay",
			[]string{"jude\nverse 17>Jude 17 book.lowercase auto"}},
		{"verse after a book of one chapter before a count is only suggested",
			captionSermon + "and i told jude verse 3 times",
			[]string{"jude verse 3>Jude 3 book.lowercase review"}},
		{"a verse a book of one chapter does not have is no reference",
			captionSermon + "jude verse 40 is not there",
			[]string{}},
		{"verse after a book of many chapters is no reference",
			captionSermon + "and then mark verse 3 was read",
			[]string{}},
		{"a stone the KJV names in lowercase is no misheard town",
			captionSermon + "brightness of jasper and\nfiery sardius and there was a halo",
			[]string{}},
		{"a lowercase word no list has after the island of is compared with the islands",
			captionSermon + "so that's where they're at the\nisland of malita\nand they were kind",
			[]string{"malita>Melita place.fuzzy review"}},
		{"an English word after the island of stays", captionSermon + "we went to the island of paradise",
			[]string{}},
		{"a word after a place and and that sounds like another place is suggested, across a cue line",
			captionSermon + "he went over the region of galatia\nand fergia strengthening all",
			[]string{"galatia>Galatia place.lowercase auto", "fergia>Phrygia place.fuzzy review"}},
		{"a word after a place and and that sounds like no place stays",
			captionSermon + "he went to jerusalem and others came",
			[]string{"jerusalem>Jerusalem place.lowercase auto"}},
		{"the same list outside a sermon gets no sound match", "he went over the region of galatia and fergia. " + podcastText,
			[]string{"galatia>Galatia place.lowercase auto"}},
		{"a lowercase word no list has after the cave of is compared with the caves",
			captionSermon + "david left gath and escaped to the cave of\nadulum\nand his brothers came",
			[]string{"gath>Gath place.lowercase auto", "adulum>Adullam place.fuzzy review"}},
		{"a place of the noun heard as a and the rest is suggested",
			captionSermon + "and they found this in\ndavid at the cave of a doulam and you\nknow",
			[]string{"a doulam>Adullam place.fuzzy review"}},
		{"a and an English word after the cave of stay", captionSermon + "the cave of a bear was dark",
			[]string{}},
		{"an English word after the cave of stays", captionSermon + "we played in the cave of wonders",
			[]string{}},
		{"into revelation before the sermon cites the book is only suggested",
			captionSermon + "how about breaking out into\nrevelation\nhow about a whole new body",
			[]string{"revelation>Revelation book.lowercase review"}},
		{"a tens verse and a digit on the next cue line are one number",
			captionSermon + "everybody okay with that yes\ngalatians 3 verse 20\n8 there is neither jew nor greek",
			[]string{"galatians 3 verse 20\n8>Galatians 3:28 book.lowercase auto"}},
		{"a tens verse and a digit before a count stay apart", captionSermon + "read galatians 3 verse 20 8 times",
			[]string{"galatians 3 verse 20>Galatians 3:20 book.lowercase auto"}},
		{"a tens verse and a digit that make a verse the chapter lacks stay apart", captionSermon + "read romans 16 verse 20\n9 of us came",
			[]string{"romans 16 verse 20>Romans 16:20 book.lowercase auto"}},
		{"world war ii before a name outside a sermon stays", "after world war ii john went home and " + podcastText,
			[]string{}},
	}
	persons := []struct {
		name string
		in   string
		want []string
	}{
		{"a word no list has after named is the person it sounds like, and so wherever the sermon says it again",
			captionSermon + "there was a certain disciple at damascus\nnamed ananas\nand the lord said to him in a vision\nananas and he said here i am",
			[]string{"damascus>Damascus place.lowercase auto", "ananas>Ananias person.fuzzy review", "ananas>Ananias person.fuzzy review"}},
		{"a word one letter off a name after the sons of is that person, though its sound differs",
			captionSermon + "also there were seven sons of skeva a\njewish chief priest",
			[]string{"skeva>Sceva person.fuzzy review"}},
		{"a long name heard as one and the rest is that person",
			captionSermon + "in verse 8 and mentioned of one sephoraus\nhis friend he was not ashamed",
			[]string{"one sephoraus>Onesiphorus person.fuzzy review"}},
		{"a word of English after a stays", captionSermon + "he had a bedroom upstairs and one afternoon he slept",
			[]string{}},
		{"the same word without a naming cue stays", captionSermon + "and the lord said to him in a vision\nananas and he said here i am",
			[]string{}},
		{"an English word after called stays", captionSermon + "the doctrine has been called\ntotal depravity",
			[]string{}},
		{"a modern name after named stays", captionSermon + "a story of a woman named teresa she had married",
			[]string{}},
		{"outside a sermon nothing is heard for a person", "there was a man named ananas in the office. " + podcastText,
			[]string{}},
	}
	for _, tc := range persons {
		t.Run(tc.name, func(t *testing.T) {
			got := compactAll(e.Find(tc.in, Options{Categories: []string{CategoryBible, CategoryPlace, CategoryPerson}}))
			if !slices.Equal(got, tc.want) {
				t.Errorf("Find(...%q) = %q, want %q", tc.in[max(0, len(tc.in)-80):], got, tc.want)
			}
		})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := compactAll(e.Find(tc.in, Options{NormalizeReferences: true}))
			if !slices.Equal(got, tc.want) {
				t.Errorf("Find(...%q) = %q, want %q", tc.in[max(0, len(tc.in)-80):], got, tc.want)
			}
		})
	}
}

func TestBookAfterThisOrThat(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"a cited book after this, with a chapter, is suggested",
			captionSermon + "in revelation 1 john sees the lord\nand so this\nrevelation 4\nthis is a picture",
			[]string{"revelation>Revelation book.lowercase auto", "revelation>Revelation book.lowercase review"}},
		{"a cited book after that, with a chapter, is suggested",
			captionSermon + "turn to acts 1 with me\nand that\nacts 2 is where the spirit came",
			[]string{"acts>Acts book.lowercase auto", "acts>Acts book.lowercase review"}},
		{"a book not cited yet after this stays",
			captionSermon + "and so this\nrevelation 4\nthis is a picture", []string{}},
		{"a number that counts after this stays",
			captionSermon + "turn to numbers 6 with me\nand this numbers 3 times",
			[]string{"numbers>Numbers book.lowercase auto"}},
		{"a number of years after that stays",
			captionSermon + "turn to job 1 with me\nthat job 2 years ago",
			[]string{"job>Job book.lowercase auto"}},
		{"outside a sermon this before a book stays",
			podcastText + "in revelation 1 john sees\nand so this\nrevelation 4\nthis is a picture",
			[]string{"revelation>Revelation book.lowercase auto"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := e.Find(tc.in, Options{})
			checkChanges(t, tc.in, cs)
			if got := compactAll(cs); !slices.Equal(got, tc.want) {
				t.Errorf("Find(...%q) = %q, want %q", tc.in[max(0, len(tc.in)-80):], got, tc.want)
			}
		})
	}
}
