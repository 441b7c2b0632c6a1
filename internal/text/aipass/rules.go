package aipass

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"tcs.dev/tcs/internal/text/correction"
)

// rulesModel is the version of the rule set, reported as the model of the
// Rules provider. Raise it whenever a check or a word list changes, so that
// stored results can be told apart.
const rulesModel = "rules-v5"

// Rules is the offline provider: a fixed set of deterministic checks of
// the words around each change. It is not a language model. It reads only
// the few words before and after a change, so it never understands a
// sentence; it recognises the patterns that decide most cases in sermon
// transcripts:
//
//   - a chapter or verse reference after a book name ("13:4", "13 4",
//     "chapter thirteen verse four"), checked against the number of
//     chapters of the book;
//   - a cue before a name: "the book of", "the gospel of", "according to",
//     "turn to", "open your Bibles to", "writes in" for books, and
//     locatives ("to", "from", "in", "the city of", "the road to") for
//     places;
//   - a reading as an English word or a person's name: a determiner or a
//     title before the word ("my job", "sister ruth", "a babel of
//     voices"), a verb after it ("peter said"), or a number that counts
//     ("james 2 kids");
//   - the sentence position of the change and the capital letters around
//     it;
//   - other biblical names nearby.
//
// Every change of the correction engine gets a verdict with a short reason.
// A change of a category or rule Rules does not know is left uncertain, and
// so is every change of a request whose language is not English, since the
// word lists are English.
//
// Rules proposes no changes of its own: every pattern it could safely
// correct is already in the engine's dictionaries, so its proposals could
// only repeat or contradict the deterministic pass.
//
// Rules holds only tables that NewRules builds and nothing changes
// afterwards; it is safe for concurrent use.
type Rules struct {
	bookEnglish   map[string]bool // book forms that are English words ("job", "acts")
	bookNames     map[string]bool // book forms that are given names ("john", "ruth")
	proseOf       map[string]bool // English book words that "of" continues as prose ("acts of")
	placeEnglish  map[string]bool // place names that are English words ("babel", "tarsus")
	placePeople   map[string]bool // place names that are given names ("jordan", "sharon")
	determiners   map[string]bool // "a", "the", "my", …
	indefinite    map[string]bool // the determiners that rule out a place name: all but "the"
	titles        map[string]bool // words before a person's name: "sister", "pastor"
	nameVerbs     map[string]bool // words after a name that make it a person's: "said", "and"
	personVerbs   map[string]bool // the verbs of nameVerbs that no place does: "said", not "is"
	englishFollow map[string]bool // words after an English noun: "is", "was"
	counters      map[string]bool // nouns after a number that counts: "years", "times"
	countOf       map[string]bool // "2 of them"
	subjects      map[string]bool // "in genesis we read": the subject after a book
	weakCues      map[string]bool // "in", "from", "read"
	locatives     map[string]bool // "to", "from", "near"
	strongLoc     map[string]bool // the locatives strong enough for a misheard place
	placeNouns    map[string]bool // "city", "sea", "road": "the city of", "the road to"
	titleNouns    map[string]bool // "book", "letter": the nouns of a title cue
	biblical      map[string]bool // biblical people often named near a place
	numbers       map[string]int  // spoken numbers: "one" … "ninety"
	ordinals      map[string]bool // the first word of a numbered book: "first", "1st", "II"
	chapterWords  map[string]bool // "chapter", "ch"
	verseWords    map[string]bool // "verse", "v"
	rangeWords    map[string]bool // "through", "to"
	abbrevDots    map[string]bool // words whose period ends no sentence: "st", "dr"
	strongCues    [][]string      // book cues, words in reverse order: {"of", "book"}
	mediumCues    [][]string
	chapters      map[string]int // chapters of a book by lowercase canonical name
	verses        map[string]int // verses of the books of one chapter
}

// NewRules returns the Rules provider with its tables built.
func NewRules() *Rules {
	r := &Rules{
		bookEnglish:   wordSet(rulesBookEnglish()),
		bookNames:     wordSet(rulesBookNames()),
		proseOf:       wordSet([]string{"acts", "job", "jobs", "mark", "numbers", "judges", "kings", "genesis", "exodus", "revelations", "philippines"}),
		placeEnglish:  wordSet(rulesPlaceEnglish()),
		placePeople:   wordSet(rulesPlacePeople()),
		determiners:   wordSet(rulesDeterminers()),
		titles:        wordSet(rulesTitles()),
		nameVerbs:     wordSet(rulesNameVerbs()),
		personVerbs:   wordSet(rulesNameVerbs()),
		englishFollow: wordSet(rulesEnglishFollow()),
		counters:      wordSet(rulesCounters()),
		countOf:       wordSet([]string{"them", "us", "you", "those", "these", "which"}),
		subjects:      wordSet([]string{"we", "you", "i", "he", "she", "they", "it", "there", "god", "jesus", "paul", "moses", "david", "the"}),
		weakCues:      wordSet([]string{"in", "from", "read", "reading", "see", "at", "open", "to", "into", "through", "study", "studying", "preach", "preaching"}),
		locatives:     wordSet(rulesLocatives()),
		strongLoc:     wordSet([]string{"in", "to", "from", "at", "near", "into", "toward", "towards", "through", "unto", "of", "via", "across", "beyond", "outside", "inside", "entered", "reached", "visited", "leaving"}),
		placeNouns:    wordSet(rulesPlaceNouns()),
		titleNouns:    wordSet([]string{"book", "books", "gospel", "letter", "letters", "epistle", "epistles"}),
		biblical:      wordSet(rulesBiblicalPeople()),
		numbers:       map[string]int{},
		ordinals:      wordSet([]string{"first", "second", "third", "fourth", "1st", "2nd", "3rd", "4th", "1", "2", "3", "4", "i", "ii", "iii", "iv", "one", "two", "three", "four"}),
		chapterWords:  wordSet([]string{"chapter", "chapters", "ch", "chap"}),
		verseWords:    wordSet([]string{"verse", "verses", "v", "vs", "vv"}),
		rangeWords:    wordSet([]string{"through", "thru", "to"}),
		abbrevDots:    wordSet([]string{"st", "mt", "dr", "mr", "mrs", "ms", "rev", "vs", "v", "vv", "ch", "chap", "cf", "jr", "sr"}),
		chapters:      map[string]int{},
		verses:        map[string]int{},
	}
	for _, w := range []string{"was", "were", "is", "has", "had", "and", "will", "would", "could", "can", "did", "left"} {
		delete(r.personVerbs, w)
	}
	r.indefinite = make(map[string]bool, len(r.determiners))
	for w := range r.determiners {
		if w != "the" {
			r.indefinite[w] = true
		}
	}
	for i, w := range []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
		"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"} {
		r.numbers[w] = i + 1
	}
	for i, w := range []string{"twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"} {
		r.numbers[w] = 20 + 10*i
	}
	for _, c := range rulesStrongCues() {
		r.strongCues = append(r.strongCues, reverseWords(strings.Fields(c)))
	}
	for _, c := range rulesMediumCues() {
		r.mediumCues = append(r.mediumCues, reverseWords(strings.Fields(c)))
	}
	for _, b := range rulesChapters() {
		r.chapters[b.name] = b.chapters
		if b.verses > 0 {
			r.verses[b.name] = b.verses
		}
	}
	return r
}

// Name returns "rules".
func (r *Rules) Name() string { return "rules" }

// Repeatable returns true: the same request always gets the same review.
func (r *Rules) Repeatable() bool { return true }

// Model returns the version of the rule set, such as "rules-v1".
func (r *Rules) Model() string { return rulesModel }

// rulesCtxEvery is how many changes Review judges between two looks at
// its context.
const rulesCtxEvery = 512

// Review judges every change of req from the words around it in req.Text.
// It uses no tokens and fails only when ctx is done.
func (r *Rules) Review(ctx context.Context, req Request) (*Review, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	verdicts := make(map[string]Judgement, len(req.Changes))
	english := isEnglishTag(req.Language)
	var cited map[string]bool // read when a rule first needs it
	var sermon int8           // 0 not read yet, 1 a sermon, 2 not
	var w ctxWindow
	guard := correction.NewProseGuard(req.Text)
	for i := range req.Changes {
		if i > 0 && i%rulesCtxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		c := &req.Changes[i]
		var v Verdict
		var reason string
		switch {
		case c.Start < 0 || c.End > len(req.Text) || c.Start >= c.End || req.Text[c.Start:c.End] != c.Original:
			v, reason = Uncertain, "the change does not match the text"
		case !english:
			v, reason = Uncertain, "the rules know English only"
		case guard.NotProse(c.Start, c.End) != "":
			// The engine's own rule: a URL, an address, a path or code is never changed.
			v, reason = Rejected, "inside "+guard.NotProse(c.Start, c.End)+", not prose"
		default:
			w.load(r, req.Text, c.Start, c.End)
			switch c.Category {
			case correction.CategoryBible:
				v, reason = r.judgeBook(&w, c, func() map[string]bool {
					if cited == nil {
						cited = r.citedBooks(req)
					}
					return cited
				}, func() bool {
					if sermon == 0 {
						sermon = 2
						if correction.IsSermon(req.Text) {
							sermon = 1
						}
					}
					return sermon == 1
				})
				if v == Uncertain && i > 0 && verdicts[req.Changes[i-1].ID].Verdict == Confirmed {
					if listed := r.listedAfter(req.Text, &req.Changes[i-1], c); listed != "" {
						v, reason = Confirmed, listed
					}
				}
			case correction.CategoryPlace:
				v, reason = r.judgePlace(&w, c, req.Changes, i)
			case correction.CategoryPerson:
				v, reason = judgePerson(c)
			}
		}
		if v == "" {
			continue // Finish: no rule applies
		}
		verdicts[c.ID] = Judgement{ChangeID: c.ID, Verdict: v, Reason: reason}
	}
	return Finish(req, verdicts, nil, "no rule applies"), nil
}

// listMaxGap is the most bytes between two books of one list of references.
const listMaxGap = 80

// listedAfter returns why book change c continues a list of references that the confirmed
// change prev began ("first corinthians 13 4 and revelations 21"), or "" if it does not: only
// prev's reference and "and", "or", "then", "and then" or "and also" stand between them.
func (r *Rules) listedAfter(text string, prev, c *correction.Change) string {
	if prev.Category != correction.CategoryBible || prev.End > c.Start || c.Start-prev.End > listMaxGap {
		return ""
	}
	var words []ctxWord
	p := prev.End
	for {
		s, e, ok := nextWordSpan(text, p, c.Start)
		if !ok {
			break
		}
		// Only a reference's punctuation may stand between its words: "13:4", "13-14", "13, 4".
		if strings.Trim(text[p:s], " \t:-–,.") != "" {
			return ""
		}
		words = append(words, makeCtxWord(text, s, e, text[p:s]))
		p = e
	}
	if strings.TrimSpace(text[p:c.Start]) != "" {
		return ""
	}
	n := len(words)
	last := func(k int) string { return words[n-k].lower } // the kth word from the end
	switch {
	case n >= 2 && last(2) == "and" && (last(1) == "then" || last(1) == "also"):
		words = words[:n-2]
	case n >= 1 && (last(1) == "and" || last(1) == "or" || last(1) == "then"):
		words = words[:n-1]
	default:
		return ""
	}
	name, prevRef := splitBookRef(prev.Replacement)
	numbers := 0
	for _, x := range words {
		switch _, spoken := r.numbers[x.lower]; {
		case spoken || x.digits:
			numbers++
		case r.chapterWords[x.lower], r.verseWords[x.lower], r.rangeWords[x.lower]:
		default:
			return ""
		}
	}
	if numbers == 0 && prevRef == "" {
		return ""
	}
	return "listed after a reference to " + clip(name)
}

// isEnglishTag reports whether the BCP 47 tag lang is English or empty.
func isEnglishTag(lang string) bool {
	if lang == "" {
		return true
	}
	base, _, _ := strings.Cut(lang, "-")
	base, _, _ = strings.Cut(base, "_")
	return strings.EqualFold(base, "en") || strings.EqualFold(base, "eng")
}

// judgeBook judges a change of the bible category.
func (r *Rules) judgeBook(w *ctxWindow, c *correction.Change, cited func() map[string]bool, sermon func() bool) (Verdict, string) {
	name, refPart := splitBookRef(c.Replacement)
	book := strings.ToLower(name)

	// The words of the change: the name, then the reference the change
	// rewrote, if any.
	nameEnd := len(w.inside)
	var ref spokenRef
	if refPart != "" {
		var spoken spokenRef
		for k := 1; k < len(w.inside); k++ {
			if rf := r.parseRef(w.inside, k); rf.ok && rf.last == len(w.inside)-1 {
				spoken, nameEnd = rf, k
				break
			}
		}
		if bad := r.checkNormalized(book, name, refPart, &spoken); bad != "" {
			return Uncertain, bad
		}
		if c.Rule == "reference.normalize" {
			return Confirmed, "well-formed reference " + refPart
		}
		ref = spoken
		if !ref.strong {
			ref.count = r.countAfter(w.after, 0)
		}
	}
	if nameEnd == 0 {
		return Uncertain, "no words in the change"
	}
	base, ordinal := w.inside[:nameEnd], ""
	if len(base) > 1 && r.ordinals[base[0].lower] {
		base, ordinal = base[1:], base[0].lower
	}
	key := joinWordsLower(base)
	english, person := r.bookEnglish[key], r.bookNames[key]
	risky := english || person
	if c.Rule == "book.fuzzy" && len(base) > 1 {
		// "a room of chapter 8": English words the engine heard as one
		// name; the chapter after them is its reason, not a second one.
		return Uncertain, "the words '" + clip(key) + "' only sound like '" + clip(name) + "'"
	}
	if c.Rule == "book.fuzzy" && len(w.before) >= 2 && w.before[0].lower == "of" &&
		(w.before[1].lower == "writer" || w.before[1].lower == "right" || w.before[1].lower == "rider" ||
			w.before[1].lower == "author" || w.before[1].lower == "writers") {
		// "the right of Hebrew says": the writer of a letter, heard; the
		// singular alone is also the language.
		return Uncertain, "after 'the " + clip(w.before[1].lower) + " of', maybe misheard"
	}
	if bad := r.notATitle(w, key, ref.ok || r.refAfter(w)); bad != "" {
		return Rejected, bad
	}
	upperMid := startsUppercase(c.Original) && !w.sentenceStart && !w.lineStart
	if c.Rule == "book.fuzzy" && len(key) <= 4 && !ref.ok && matchBookCue(w.before, r.strongCues) == "" {
		// "Look chapter five, verse one", "in some twenty three": a short
		// English word the engine heard as a book. A reference after it is
		// the engine's reason, not a second one, so the engine suggests it.
		return Uncertain, "the short word '" + clip(key) + "' only sounds like '" + clip(name) + "'"
	}

	// A reference after the name, or inside the change.
	if !ref.ok {
		if len(w.after) > 0 && r.mayStartRef(w.after[0]) {
			w.readAfter(r, rulesMaxAfter)
		}
		ref = r.parseRef(w.after, 0)
		if ref.ok && ref.count == "" {
			if bad := r.checkChapters(book, name, &ref); bad != "" {
				if risky {
					return Rejected, bad
				}
				ref = spokenRef{}
			}
		}
	}
	if ref.ok {
		switch {
		case ref.count != "" && risky:
			return Rejected, "'" + clip(strconv.Itoa(ref.chapter)+" "+ref.count) + "' is a count, not a chapter"
		case ref.count != "":
			// "ephesians 2 times": the number is no chapter, the name needs none.
		case ref.strong || !risky:
			return Confirmed, "followed by " + ref.describe()
		case key == "psalm" || key == "psalms":
			return Confirmed, "followed by the psalm number " + strconv.Itoa(ref.chapter)
		default:
			if cue := r.anyCue(w); cue != "" {
				return Confirmed, "followed by " + ref.describe() + ", after '" + clip(cue) + "'"
			}
			if upperMid {
				return Confirmed, "capitalised and followed by " + ref.describe()
			}
			return Uncertain, "only the bare number " + strconv.Itoa(ref.chapter) + " after it"
		}
	}
	if cue := matchBookCue(w.before, r.strongCues); cue != "" {
		return Confirmed, "after '" + clip(cue) + "'"
	}
	if english && !person && c.Rule == "book.lowercase" && strings.EqualFold(joinWordsLower(base), book) &&
		(len(w.after) == 0 || w.after[0].lower != "of" || book == "psalms") && cited()[book] {
		// "the end of judges", "prayed the psalms" in a text that cites
		// Judges 2 and Psalm 46: the engine applies the book only then.
		return Confirmed, "the text cites " + clip(name) + " with a reference"
	}
	if english && !person && c.Rule == "book.lowercase" && strings.EqualFold(joinWordsLower(base), book) && len(w.before) > 0 &&
		(len(w.after) == 0 || w.after[0].lower != "of") && !r.garbledCue(w, book) && sermon() {
		switch prev := w.before[0].lower; prev {
		case "in", "through", "from", "into", "on", "after":
			if prev == "in" && book == "revelation" {
				// "his very heart in revelation to us": the noun, as
				// often as the book, in a sermon that does not cite
				// Revelation (cited above); the engine only suggests it.
				return Uncertain, "'in revelation' may be the noun; the text does not cite Revelation"
			}
			// "comes from exodus", "through judges" in a sermon, as the
			// engine applies it.
			return Confirmed, "after '" + prev + "' in a sermon"
		}
	}
	if risky && len(w.before) > 0 {
		prev := w.before[0].lower
		if person && r.titles[prev] {
			return Rejected, "reads as the name '" + clip(key) + "' after '" + clip(prev) + "'"
		}
		if r.determiners[prev] {
			return Rejected, readsAsReason(key, english)
		}
	}
	if cue := matchBookCue(w.before, r.mediumCues); cue != "" {
		return Confirmed, "after '" + clip(cue) + "'"
	}
	if subj := r.inFrame(w); subj != "" {
		return Confirmed, "after 'in', with '" + clip(subj) + "' starting the clause"
	}
	if risky && len(w.after) > 0 && isPlainGap(w.after[0].gap) {
		next := w.after[0].lower
		switch {
		case english && (r.englishFollow[next] || next == "of" && r.proseOf[key]):
			return Rejected, readsAsReason(key, true)
		case person && (r.personVerbs[next] || ordinal == "" && r.nameVerbs[next]):
			// "first john is short" is the book; "first peter said no" is the man.
			return Rejected, readsAsReason(key, false)
		}
	}
	if len(w.before) > 0 && r.weakCues[w.before[0].lower] && c.Rule != "book.abbreviation" {
		cue := w.before[0].lower
		switch {
		case !risky:
			return Confirmed, "after '" + clip(cue) + "'"
		case upperMid:
			return Confirmed, "capitalised after '" + clip(cue) + "', as a book name"
		}
		return Uncertain, "only the weak cue '" + clip(cue) + "' before it"
	}
	if !risky {
		if c.Rule == "book.abbreviation" {
			return Uncertain, "abbreviation without a reference"
		}
		return Confirmed, "'" + clip(key) + "' reads only as a book name"
	}
	if ordinal != "" {
		return Uncertain, "only the number '" + clip(ordinal) + "' as a cue"
	}
	if startsUppercase(c.Original) && (w.sentenceStart || w.lineStart) {
		return Uncertain, "capital only from the sentence start; no reference"
	}
	return Uncertain, "no reference or cue nearby"
}

// notATitle returns why the book words key are English and not a title,
// as the engine reads them, or "": an adjective or demonym before a noun
// without a reference ("the Galatian believers"), or a "book of" phrase
// after an indefinite article ("a book of numbers").
func (r *Rules) notATitle(w *ctxWindow, key string, ref bool) string {
	if ref {
		return ""
	}
	b := w.before
	if len(b) >= 3 && (b[0].lower == "of" || b[0].lower == "to") && r.titleNouns[b[1].lower] && r.indefinite[b[2].lower] {
		return "common noun after '" + clip(b[2].lower+" "+b[1].lower+" "+b[0].lower) + "'"
	}
	if correction.IsBookAdjective(key) && !r.adjectiveAsBook(w) {
		return "adjective or demonym '" + clip(key) + "', no reference"
	}
	return ""
}

// adjectiveAsBook reports whether a book's adjective or demonym form reads as the book, as the
// engine reads it: after "the book of", "the letter to the", "wrote to the" or "according
// to", and not before a lowercase word it may qualify ("he wrote to the Galatian believers").
func (r *Rules) adjectiveAsBook(w *ctxWindow) bool {
	b := w.before
	word := func(i int, words ...string) bool { return len(b) > i && slices.Contains(words, b[i].lower) }
	cue := (word(0, "of", "to") && len(b) > 1 && r.titleNouns[b[1].lower]) ||
		(word(0, "the") && word(1, "to") && word(2, "letter", "letters", "epistle", "epistles", "wrote", "writes", "writing", "written")) ||
		(word(0, "to") && word(1, "according"))
	if !cue {
		return false
	}
	if len(w.after) == 0 || !isPlainGap(w.after[0].gap) {
		return true
	}
	next := w.after[0]
	if _, spoken := r.numbers[next.lower]; spoken || next.digits || next.lower0 != next.lower {
		return true
	}
	return correction.NotQualified(next.lower)
}

// refAfter reports whether a chapter number or "chapter" follows the change.
func (r *Rules) refAfter(w *ctxWindow) bool {
	return len(w.after) > 0 && r.mayStartRef(w.after[0]) && r.parseRef(w.after, 0).ok
}

// mayStartRef reports whether x may be the first word of a reference.
func (r *Rules) mayStartRef(x ctxWord) bool {
	_, spoken := r.numbers[x.lower]
	return x.digits || spoken || r.chapterWords[x.lower]
}

// checkNormalized checks a reference the engine rewrote: refPart as the
// replacement writes it against spoken, the reference the original words
// give, and both against the chapters of book. It returns why the
// reference is doubtful, or "".
func (r *Rules) checkNormalized(book, name, refPart string, spoken *spokenRef) string {
	want, ok := parseWrittenRef(refPart)
	if !ok {
		return "malformed reference '" + clip(refPart) + "'"
	}
	if !spoken.ok {
		return "cannot check '" + clip(refPart) + "' against the words"
	}
	if bad := r.checkChapters(book, name, &want); bad != "" {
		return bad
	}
	if bad := r.checkChapters(book, name, spoken); bad != "" {
		return bad
	}
	if spoken.chapter != want.chapter || spoken.verse != want.verse ||
		spoken.verseEnd != want.verseEnd || spoken.chapterEnd != want.chapterEnd {
		return "'" + clip(refPart) + "' differs from the words spoken"
	}
	return ""
}

// countAfter returns the noun at ws[k] that makes the number before it a
// count ("years", "of them"), or "".
func (r *Rules) countAfter(ws []ctxWord, k int) string {
	if k >= len(ws) || !isPlainGap(ws[k].gap) {
		return ""
	}
	switch n := ws[k].lower; {
	case r.counters[n]:
		return n
	case n == "of" && k+1 < len(ws) && isPlainGap(ws[k+1].gap) && r.countOf[ws[k+1].lower]:
		return "of " + ws[k+1].lower
	}
	return ""
}

// checkChapters checks rf against the chapters of book and returns why it
// cannot be a reference into it, or "". A single number after a book of
// one chapter is a verse: rf becomes strong.
func (r *Rules) checkChapters(book, name string, rf *spokenRef) string {
	n, ok := r.chapters[book]
	if !ok {
		return ""
	}
	if v := r.verses[book]; v > 0 {
		switch {
		case rf.verse == 0 && rf.chapterEnd == 0 && rf.chapter <= v:
			rf.oneChapter, rf.strong = true, true
			return ""
		case rf.verse > 0 && rf.chapter == 1 && rf.verse <= v:
			return ""
		}
		return "one chapter of " + strconv.Itoa(v) + " verses in " + name
	}
	if rf.chapter > n {
		return "no chapter " + strconv.Itoa(rf.chapter) + " in " + name
	}
	if rf.chapterEnd > n {
		// "1 peter 5-7": no chapter 7, so the verse 5:7, as the engine
		// reads it.
		rf.verse, rf.chapterEnd, rf.strong = rf.chapterEnd, 0, true
	}
	return ""
}

// anyCue returns the book cue before the change, strong, medium or weak,
// or "".
func (r *Rules) anyCue(w *ctxWindow) string {
	if cue := matchBookCue(w.before, r.strongCues); cue != "" {
		return cue
	}
	if cue := matchBookCue(w.before, r.mediumCues); cue != "" {
		return cue
	}
	if len(w.before) > 0 && r.weakCues[w.before[0].lower] {
		return w.before[0].lower
	}
	return ""
}

// inFrame returns the subject that follows "in <book>", as in "in genesis
// we read" or "in acts paul preaches", or "".
func (r *Rules) inFrame(w *ctxWindow) string {
	if len(w.before) == 0 || w.before[0].lower != "in" || len(w.after) < 2 {
		return ""
	}
	a := w.after[0]
	if !r.subjects[a.lower] || (!isPlainGap(a.gap) && strings.TrimSpace(a.gap) != ",") || !isPlainGap(w.after[1].gap) {
		return ""
	}
	if a.lower == "the" { // "in acts the apostles", not "in acts the way"
		if !r.biblical[w.after[1].lower] {
			return ""
		}
		return "the " + w.after[1].lower
	}
	return a.lower
}

// citedBooks returns the books (lowercase, the Psalms as "psalms") that
// the request's changes name before a number, or that its text writes
// before one: a sermon (correction.IsSermon) that cites Judges 2 means the
// book by a bare "judges" elsewhere. It returns an empty set for a text
// that is no sermon.
func (r *Rules) citedBooks(req Request) map[string]bool {
	cited := map[string]bool{}
	if !correction.IsSermon(req.Text) {
		return cited
	}
	text := req.Text
	var lw []byte
	for i := 0; i < len(text); {
		if !isLetter(text[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && isLetter(text[j]) {
			j++
		}
		if j+1 < len(text) && text[j] == ' ' && text[j+1] >= '1' && text[j+1] <= '9' && j-i <= 13 {
			lw = append(lw[:0], text[i:j]...)
			for k := range lw {
				lw[k] |= 0x20
			}
			if r.bookEnglish[string(lw)] {
				book := string(lw)
				if book == "psalm" {
					book = "psalms"
				}
				cited[book] = true
			}
		}
		i = j
	}
	for i := range req.Changes {
		c := &req.Changes[i]
		if c.Category != correction.CategoryBible {
			continue
		}
		if name, refPart := splitBookRef(c.Replacement); refPart != "" {
			book := strings.ToLower(name)
			if book == "psalm" {
				book = "psalms"
			}
			cited[book] = true
		}
	}
	return cited
}

// readsAsReason returns the reason of a word read as English or as a name.
func readsAsReason(key string, english bool) string {
	if english {
		return "reads as the English word '" + clip(key) + "' here"
	}
	return "reads as the name '" + clip(key) + "' here"
}

// judgePerson judges a change of the person category: a capital on a
// biblical name the engine read in a sermon is confirmed, a name heard by
// its sound is left to the reader.
func judgePerson(c *correction.Change) (Verdict, string) {
	switch c.Rule {
	case "person.lowercase":
		if strings.EqualFold(c.Original, c.Replacement) {
			return Confirmed, "the capital of the biblical name '" + clip(c.Replacement) + "'"
		}
	case "person.fuzzy":
		return Uncertain, "'" + clip(c.Original) + "' only sounds like '" + clip(c.Replacement) + "'"
	}
	return "", ""
}

// judgePlace judges a change of the place category; changes are the
// request's changes and i the index of this one.
func (r *Rules) judgePlace(w *ctxWindow, c *correction.Change, changes []correction.Change, i int) (Verdict, string) {
	key := joinWordsLower(w.inside)
	single := len(w.inside) == 1
	switch c.Rule {
	case "place.lowercase":
		if phrase := r.ordinaryPhrase(w, c); !single && phrase != "" {
			return Rejected, "ordinary phrase '" + clip(phrase) + "'"
		}
		if single && len(w.before) > 0 {
			prev := w.before[0].lower
			if r.placeEnglish[key] && r.indefinite[prev] {
				return Rejected, readsAsReason(key, true)
			}
			if r.placePeople[key] && (r.titles[prev] || r.possessive(prev)) {
				return Uncertain, "reads as a person's name; the capital still fits"
			}
		}
		if phrase := r.capitalPhrase(w); phrase != "" {
			return Uncertain, "inside the capitalised phrase '" + clip(phrase) + "'"
		}
		if cue := r.locative(w.before, false); cue != "" {
			return Confirmed, "after '" + clip(cue) + "'"
		}
		if single && r.placePeople[key] && len(w.after) > 0 && isPlainGap(w.after[0].gap) && r.personVerbs[w.after[0].lower] {
			return Uncertain, "reads as a person's name; the capital still fits"
		}
		if near := r.nearName(w, changes, i); near != "" {
			return Confirmed, "near '" + clip(near) + "', another biblical name"
		}
		if !single {
			return Confirmed, "the multi-word place name '" + clip(key) + "'"
		}
		if r.placeEnglish[key] {
			if len(w.before) > 0 && w.before[0].lower == "the" {
				return Uncertain, "may be the English word '" + clip(key) + "' here"
			}
			return Uncertain, "no locative cue; '" + clip(key) + "' is also an English word"
		}
		if r.placePeople[key] {
			return Uncertain, "no locative cue; '" + clip(key) + "' is also a name"
		}
		if c.Status != correction.StatusAutoApplied {
			if w.sentenceStart {
				return Uncertain, "starts the sentence with no locative cue"
			}
			return Uncertain, "rare place name without a locative cue"
		}
		return Confirmed, "'" + clip(key) + "' has no common English reading"
	case "place.variant":
		if cue := r.locative(w.before, false); cue != "" {
			return Confirmed, "after '" + clip(cue) + "'"
		}
		if near := r.nearName(w, changes, i); near != "" {
			return Confirmed, "near '" + clip(near) + "', another biblical name"
		}
		return Uncertain, "variant spelling without a locative cue"
	case "place.fuzzy":
		target := strings.ToLower(c.Replacement)
		d := correction.EditDistance(key, target, 3)
		similar := d <= 1 || d == 2 && len(key) >= 8 && key[0] == target[0]
		what := "one letter from '" + clip(c.Replacement) + "'"
		if d > 1 {
			what = strconv.Itoa(d) + " letters from '" + clip(c.Replacement) + "'"
		}
		if cue := r.locative(w.before, true); cue != "" {
			if similar {
				return Confirmed, "after '" + clip(cue) + "', " + what
			}
			return Uncertain, "after '" + clip(cue) + "', but " + what
		}
		if w.sentenceStart {
			return Uncertain, "starts the sentence with no locative cue"
		}
		return Uncertain, "no locative cue for '" + clip(c.Replacement) + "'"
	}
	return "", ""
}

// ordinaryPhrase returns the words of a multi-word place change when the
// only words it capitalises are ordinary ones ("the most holy place", "the
// city of David"), which the engine leaves alone, or "".
func (r *Rules) ordinaryPhrase(w *ctxWindow, c *correction.Change) string {
	repl := strings.Fields(c.Replacement)
	if len(repl) != len(w.inside) {
		return ""
	}
	for k, x := range w.inside {
		if startsUppercase(x.lower0) || !startsUppercase(repl[k]) {
			continue
		}
		if !correction.IsCommonPlaceWord(x.lower) {
			return ""
		}
	}
	return joinWordsLower(w.inside)
}

// possessive reports whether w is a possessive determiner.
func (r *Rules) possessive(w string) bool {
	switch w {
	case "my", "his", "her", "our", "your", "their":
		return true
	}
	return false
}

// locative returns the locative cue that the words before a change, b,
// end with ("to", "to the", "city of", "mount"), or "". With strong, only
// the cues strong enough for a misheard name count.
func (r *Rules) locative(b []ctxWord, strong bool) string {
	if len(b) == 0 {
		return ""
	}
	cues := r.locatives
	if strong {
		cues = r.strongLoc
	}
	first := b[0].lower
	switch {
	case (first == "of" || first == "to") && len(b) > 1 && r.placeNouns[b[1].lower]:
		return b[1].lower + " " + first
	case first == "of" && len(b) > 1 && b[1].lower == "out":
		return "out of"
	case cues[first]:
		return first
	case r.placeNouns[first] && !strong: // "mount zion", "river jordan"
		return first
	case first == "the" && len(b) > 1:
		if sub := r.locative(b[1:], strong); sub != "" && !strings.Contains(sub, " ") {
			return sub + " the"
		}
	}
	return ""
}

// nearName returns another biblical name close to change i in its
// sentence: a change of the engine or a biblical person among the
// neighbouring words, or "".
func (r *Rules) nearName(w *ctxWindow, changes []correction.Change, i int) string {
	const (
		reach      = 60 // bytes
		afterWords = 5
	)
	lo, hi := w.start, w.end
	if n := len(w.before); n > 0 {
		lo = w.before[n-1].s
	}
	if n := min(len(w.after), afterWords); n > 0 {
		hi = w.after[n-1].e
	}
	lo, hi = max(lo, w.start-reach), min(hi, w.end+reach)
	if i > 0 {
		if p := changes[i-1]; p.Start >= lo && p.End <= w.start {
			return p.Replacement
		}
	}
	if i+1 < len(changes) {
		if n := changes[i+1]; n.Start >= w.end && n.End <= hi {
			return n.Replacement
		}
	}
	for _, x := range w.before {
		if r.biblical[x.lower] {
			return x.lower
		}
	}
	for _, x := range w.after {
		if r.biblical[x.lower] {
			return x.lower
		}
	}
	return ""
}

// capitalPhrase returns the capitalised phrase the change sits in, such as
// "New jerusalem", or "": a capitalised word right before or after it that
// is neither the first word of its sentence nor a cue or a known name.
func (r *Rules) capitalPhrase(w *ctxWindow) string {
	ok := func(x ctxWord) bool {
		return startsUppercase(x.lower0) && x.lower != "i" && !r.placeNouns[x.lower] && !r.locatives[x.lower] &&
			!r.biblical[x.lower] && !r.titles[x.lower] && x.lower != "god" && x.lower != "lord"
	}
	inside := func() string { return strings.Join(strings.Fields(w.text[w.start:w.end]), " ") }
	// The word before counts only if another word of its sentence precedes it.
	if len(w.before) > 0 && isPlainGap(w.before[0].gap) && !w.before[0].opens && ok(w.before[0]) {
		return w.before[0].lower0 + " " + inside()
	}
	if len(w.after) > 0 && isPlainGap(w.after[0].gap) && !strings.Contains(w.after[0].gap, "\n") && ok(w.after[0]) {
		return inside() + " " + w.after[0].lower0
	}
	return ""
}

// matchBookCue returns the cue of cues that the words before the change end
// with, in reading order, with a "the" before it ("the book of"), or "".
func matchBookCue(before []ctxWord, cues [][]string) string {
	skip := 0
	if len(before) > 0 && before[0].lower == "the" {
		skip = 1 // "the letter to the hebrews"
	}
	for off := 0; off <= skip; off++ {
		for _, cue := range cues {
			if off+len(cue) > len(before) {
				continue
			}
			ok := true
			for k, cw := range cue {
				if before[off+k].lower != cw {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			n := off + len(cue)
			if n < len(before) && before[n].lower == "the" {
				n++
			}
			parts := make([]string, n)
			for k := range n {
				parts[n-1-k] = before[k].lower
			}
			return strings.Join(parts, " ")
		}
	}
	return ""
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// garbledCue reports whether the change reads as an everyday phrase a
// recognizer turns into a book: "in acts" for "in fact", "in numbers".
func (r *Rules) garbledCue(w *ctxWindow, book string) bool {
	return w.before[0].lower == "in" && (book == "acts" || book == "numbers")
}
