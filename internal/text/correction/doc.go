// Package correction is the deterministic correction engine of the
// Transcript Cleaning Service: it finds mangled Bible book names and
// biblical place names in sermon transcripts and proposes or applies
// corrections.
//
// The engine knows the 66 books of the Protestant canon and the
// deuterocanonical books listed in the embedded data, with their
// spellings, misspellings, abbreviations and numbered forms
// ("first corinthians", "1st Corinthians", "I Corinthians", "one john").
// It also knows the biblical place names, their spellings in other
// translations and their derived forms.
//
// A correction is either applied to the content (StatusAutoApplied) or
// offered as a suggestion (StatusNeedsReview). Whether a candidate is
// applied depends on how dangerous the matched word is and on its
// context: book names that are also English words or common first names
// ("job", "mark", "acts", "john", "peter") change only when a chapter or
// verse reference follows them, such as "13:4", "13 4", "chapter thirteen
// verse four" or "verses 4 through 7". Before a bare chapter number an
// English-word book changes after a cue ("in acts 17", "turn to judges 6",
// a list of references) or at a sentence's start, and is suggested
// elsewhere; a first name is capitalised, as it would be for a person. A
// number that counts ("james 3 times", "mark 3 things") or a determiner
// ("his job 2") keeps the English reading. Short abbreviations that are
// English function words ("is", "am", "so") never change.
//
// Canonical choices:
//
//   - The Song of Songs is written "Song of Solomon" (the canonical name of
//     the embedded data); "Song of Songs" and its misspellings are
//     rewritten to it.
//   - A single psalm is "Psalm" ("Psalms 23" becomes "Psalm 23"); the book
//     without a psalm number, or with a range of psalms, is "Psalms".
//   - Numbered books use Arabic numerals: "1 Corinthians", "2 Kings".
//   - An unnumbered "corinthians 13" only gets its capital letter: the
//     engine does not guess which letter is meant.
//   - Place names are corrected for case only ("jerusalem" becomes
//     "Jerusalem") or, for likely speech-recognition errors, to the nearest
//     well-known name ("capernum" becomes "Capernaum", needs review unless
//     the context is strong). A spelling used by another translation
//     ("Accho", "Sion") is left as written, and one name is never rewritten
//     into a synonym (Zion stays Zion, Calvary stays Calvary).
//
// Misspellings that no list holds are found by context only. A word
// before a chapter number, after "the book of" or as the addressees of a
// letter ("the letter to the colosians") is compared by spelling and sound
// with the 66 books: applied when the reference or cue is strong,
// suggested otherwise, and only suggested for an English word three edits
// away ("the book of rumors"). After a place cue ("in", "near", "the brook
// of", a list of places) a word is compared with the rarer places too, and
// a misheard last word completes a multi-word name ("caesarea philipi").
// An English word a recognizer writes for a place ("cavalry") is suggested
// when the words of its story are near.
//
// The whole document is evidence too. Its first 64 KB tell whether it is a
// sermon (at least five words in a thousand are "god", "jesus", "bible",
// "verse", "church" and their like) or, long enough, not about scripture
// at all. In a text that is not, no name is suggested by its sound or
// spelling alone. In a sermon a book that is also an English word is
// applied after a preposition that leads to a book ("in acts we see",
// "through judges") or before a verb a book takes ("revelation says"),
// and a book the sermon has already cited with a reference is applied when
// it comes back without one ("the end of judges", "prayed the psalms");
// never after an article ("a revelation") or before "of" ("acts of
// kindness"). A word the King James Version has as a proper name ("Pontius",
// "Gideon") is never a misheard other name, an ordinary English word that
// only sounds like a name ("chaos", "believers") is not suggested outside
// "the book of" and "chapter", and a caption line with two function words
// of another language gets no change by sound. A caption line that ends
// with an article or a preposition does not end a sentence.
//
// References are read against the versification of the King James Version
// (the verses of each of the 1,189 chapters): "Psalm one forty-five" is
// Psalm 145, "Romans 828" is Romans 8:28, "1 Peter 5-7" is 1 Peter 5:7,
// and a chapter or verse a book does not have is never written. With
// Options.NormalizeReferences each book change carries its Reference
// (book, chapter, verses and OSIS id).
//
// The names of biblical people are a third category, CategoryPerson. By
// default (Options.Categories empty) a sermon's names heard wrong after a
// naming cue ("named", "called", "the sons of"), as a short word and the
// rest ("one sephoraus"), or, without a cue, as a person that a chapter
// the sermon cites names ("gyrus" for Jairus beside Mark 5) are
// suggested, never applied. When
// Options.Categories lists it, a lowercase name of the KJV also gets its
// capital and a misheard long name without a cue is suggested.
//
// Some text is never changed or suggested: words inside URLs, e-mail
// addresses and handles, file paths and names, and code (backtick spans,
// fenced blocks, <code> and <pre> written in the text); a book adjective or
// demonym without a reference ("the Galatian believers"); a "book of"
// phrase after an indefinite article ("a book of numbers"); a multi-word
// place whose only words to capitalise are ordinary ones ("the most holy
// place", "the city of David"); a capitalised word inside a sentence, a
// demonym or a word after "to" taken for a misheard place without a place
// cue. ProseGuard, IsBookAdjective and IsCommonPlaceWord let other
// reviewers of the changes apply the same rules.
//
// The embedded data comes from openbibleinfo/Bible-Passage-Reference-Parser
// v3.2.0 (MIT), openbibleinfo/Bible-Geocoding-Data (CC BY 4.0), the
// public-domain King James Version (chapter and verse counts, proper names)
// and SCOWL (English words that sound like names); see data/NOTICE.
package correction
