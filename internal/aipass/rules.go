package aipass

import (
	"context"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"tcs.dev/tcs/internal/correction"
)

// rulesModel is the version of the rule set, reported as the model of the
// Rules provider. Raise it whenever a check or a word list changes, so that
// stored results can be told apart.
const rulesModel = "rules-v1"

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
	var w ctxWindow
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
		default:
			w.load(r, req.Text, c.Start, c.End)
			switch c.Category {
			case correction.CategoryBible:
				v, reason = r.judgeBook(&w, c)
			case correction.CategoryPlace:
				v, reason = r.judgePlace(&w, c, req.Changes, i)
			}
		}
		if v == "" {
			continue // Finish: no rule applies
		}
		verdicts[c.ID] = Judgement{ChangeID: c.ID, Verdict: v, Reason: reason}
	}
	return Finish(req, verdicts, nil, "no rule applies"), nil
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
func (r *Rules) judgeBook(w *ctxWindow, c *correction.Change) (Verdict, string) {
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
	upperMid := startsUppercase(c.Original) && !w.sentenceStart && !w.lineStart

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
		return "no chapter " + strconv.Itoa(rf.chapterEnd) + " in " + name
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

// readsAsReason returns the reason of a word read as English or as a name.
func readsAsReason(key string, english bool) string {
	if english {
		return "reads as the English word '" + clip(key) + "' here"
	}
	return "reads as the name '" + clip(key) + "' here"
}

// judgePlace judges a change of the place category; changes are the
// request's changes and i the index of this one.
func (r *Rules) judgePlace(w *ctxWindow, c *correction.Change, changes []correction.Change, i int) (Verdict, string) {
	key := joinWordsLower(w.inside)
	single := len(w.inside) == 1
	switch c.Rule {
	case "place.lowercase":
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

// ctxWord is one word in or near a change.
type ctxWord struct {
	s, e   int    // byte offsets in the text
	lower  string // lowercase text
	lower0 string // text as written
	gap    string // separator between this word and its neighbour toward the change
	digits bool   // only ASCII digits
	// opens reports, for a word before the change, whether it begins its
	// sentence or line.
	opens bool
}

// Window sizes: the words and bytes read around a change.
const (
	rulesMaxBefore   = 5
	rulesMaxAfter    = 12
	rulesFirstAfter  = 3 // the words after a change read at first: see readAfter
	rulesMaxInside   = 24
	rulesBeforeBytes = 160
	rulesAfterBytes  = 240
	rulesMaxWord     = 64 // longer words are read in pieces
)

// ctxWindow is the context of one change. It is reused across the changes of
// one review.
type ctxWindow struct {
	text          string
	start, end    int
	inside        []ctxWord // the words of the change
	before        []ctxWord // nearest first, up to a sentence end
	after         []ctxWord // nearest first, up to a sentence end
	sentenceStart bool      // the change opens the text or a sentence
	lineStart     bool      // the change opens a line
	next          int       // where readAfter goes on
	afterDone     bool      // after holds every word up to the sentence end
	bufB          [rulesMaxBefore]ctxWord
	bufA          [rulesMaxAfter]ctxWord
	bufI          [rulesMaxInside]ctxWord
}

// load reads the words in and around text[start:end].
func (w *ctxWindow) load(r *Rules, text string, start, end int) {
	w.text, w.start, w.end = text, start, end
	w.sentenceStart, w.lineStart = false, false

	w.inside = w.bufI[:0]
	for p := start; len(w.inside) < rulesMaxInside; {
		s, e, ok := nextWordSpan(text, p, end)
		if !ok {
			break
		}
		e = min(e, end)
		w.inside = append(w.inside, makeCtxWord(text, s, e, text[p:s]))
		p = e
	}

	w.before = w.bufB[:0]
	p, lo := start, max(0, start-rulesBeforeBytes)
	for len(w.before) < rulesMaxBefore {
		s, e, ok := prevWordSpan(text, p, lo)
		if !ok {
			if len(w.before) == 0 && (lo == 0 || !r.hasWordBefore(text, lo)) {
				w.sentenceStart, w.lineStart = true, true
			}
			break
		}
		gap := text[e:p]
		x := makeCtxWord(text, s, e, gap)
		var right ctxWord
		if n := len(w.before); n > 0 {
			right = w.before[n-1]
		} else if len(w.inside) > 0 {
			right = w.inside[0]
		}
		hard, line := r.sentenceBreak(gap, x, right)
		if len(w.before) == 0 {
			w.sentenceStart, w.lineStart = hard, line
		} else if hard || line {
			w.before[len(w.before)-1].opens = true
		}
		if hard {
			break
		}
		w.before = append(w.before, x)
		p = s
	}
	if n := len(w.before); n > 0 && n < rulesMaxBefore && !w.before[n-1].opens {
		// The search stopped at the text start, a sentence end or the
		// window edge: the farthest word begins its sentence.
		w.before[n-1].opens = true
	}

	w.after = w.bufA[:0]
	w.next, w.afterDone = end+possessiveLen(text[end:]), false
	w.readAfter(r, rulesFirstAfter)
}

// readAfter reads the words after the change until it holds n of them or
// the sentence ends.
func (w *ctxWindow) readAfter(r *Rules, n int) {
	text := w.text
	hi := min(len(text), w.end+rulesAfterBytes)
	for !w.afterDone && len(w.after) < min(n, rulesMaxAfter) {
		s, e, ok := nextWordSpan(text, w.next, hi)
		if !ok {
			w.afterDone = true
			break
		}
		gap := text[w.next:s]
		var prev ctxWord
		if len(w.after) > 0 {
			prev = w.after[len(w.after)-1]
		} else if len(w.inside) > 0 {
			prev = w.inside[len(w.inside)-1]
		}
		x := makeCtxWord(text, s, e, gap)
		if hard, _ := r.sentenceBreak(gap, prev, x); hard {
			w.afterDone = true
			break
		}
		w.after = append(w.after, x)
		w.next = e
	}
}

// hasWordBefore reports whether a word ends at or before p.
func (r *Rules) hasWordBefore(text string, p int) bool {
	_, _, ok := prevWordSpan(text, p, max(0, p-rulesBeforeBytes))
	return ok
}

// makeCtxWord returns the word text[s:e] with the separator gap.
func makeCtxWord(text string, s, e int, gap string) ctxWord {
	w := text[s:e]
	digits := w != ""
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			digits = false
			break
		}
	}
	return ctxWord{s: s, e: e, lower: strings.ToLower(w), lower0: w, gap: gap, digits: digits}
}

// sentenceBreak reports whether gap, the separator between the words left
// and right, ends a sentence (hard) or a line. A line break before a
// capitalised word ends a sentence too: punctuated transcripts start their
// lines with one, and caption lines, which run on, are in lowercase.
func (r *Rules) sentenceBreak(gap string, left, right ctxWord) (hard, line bool) {
	nl := 0
	for i := 0; i < len(gap); i++ {
		switch gap[i] {
		case '\n':
			nl++
		case '!', '?', ';':
			hard = true
		case ':':
			if !(left.digits && right.digits && gap == ":") {
				hard = true // "Paul said: …", but not "13:4"
			}
		case '.':
			if i == 0 && r.abbrevDots[left.lower] {
				continue // "St. John"
			}
			if left.digits && right.digits && gap == "." {
				continue // "3.16"
			}
			hard = true
		}
	}
	if nl == 1 && startsUppercase(right.lower0) && right.lower != "i" {
		hard = true
	}
	return hard || nl > 1, nl > 0
}

// isASCIIDigit reports whether c is an ASCII digit.
func isASCIIDigit(c byte) bool { return '0' <= c && c <= '9' }

// isASCIIWordByte reports whether the ASCII byte c belongs to a word.
func isASCIIWordByte(c byte) bool {
	return 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9'
}

// isTextWordRune reports whether r belongs to a word, as the correction
// engine's tokenizer has it.
func isTextWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// apostropheAt reports whether the rune at text[i:] is an apostrophe and
// returns its size.
func apostropheAt(text string, i int) (int, bool) {
	if i >= len(text) {
		return 0, false
	}
	if text[i] == '\'' {
		return 1, true
	}
	if strings.HasPrefix(text[i:], "’") {
		return len("’"), true
	}
	return 0, false
}

// letterStartsAt reports whether a letter starts at text[i:].
func letterStartsAt(text string, i int) bool {
	if i >= len(text) {
		return false
	}
	if c := text[i]; c < utf8.RuneSelf {
		return 'a' <= c|0x20 && c|0x20 <= 'z'
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return unicode.IsLetter(r)
}

// letterEndsAt reports whether a letter ends at text[:i].
func letterEndsAt(text string, i int) bool {
	if i <= 0 {
		return false
	}
	if c := text[i-1]; c < utf8.RuneSelf {
		return 'a' <= c|0x20 && c|0x20 <= 'z'
	}
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	return unicode.IsLetter(r)
}

// nextWordSpan returns the span of the first word that starts in
// text[p:limit]. A word is a run of letters, digits and marks, with
// apostrophes between letters ("don't"); a word longer than rulesMaxWord
// bytes is read in pieces.
func nextWordSpan(text string, p, limit int) (s, e int, ok bool) {
	i := p
	for i < limit {
		c := text[i]
		if c < utf8.RuneSelf {
			if isASCIIWordByte(c) {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if isTextWordRune(r) {
			break
		}
		i += size
	}
	if i >= limit {
		return 0, 0, false
	}
	s = i
	for stop := min(len(text), s+rulesMaxWord); i < stop; {
		c := text[i]
		if c < utf8.RuneSelf && isASCIIWordByte(c) {
			i++
			continue
		}
		if n, ok := apostropheAt(text, i); ok {
			if letterEndsAt(text, i) && letterStartsAt(text, i+n) {
				i += n
				continue
			}
			break
		}
		if c < utf8.RuneSelf {
			break
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isTextWordRune(r) {
			break
		}
		i += size
	}
	return s, i, true
}

// prevWordSpan returns the span of the last word that ends in
// text[limit:p].
func prevWordSpan(text string, p, limit int) (s, e int, ok bool) {
	i := p
	for i > limit {
		c := text[i-1]
		if c < utf8.RuneSelf {
			if isASCIIWordByte(c) {
				break
			}
			i--
			continue
		}
		r, size := utf8.DecodeLastRuneInString(text[:i])
		if isTextWordRune(r) {
			break
		}
		i -= size
	}
	if i <= limit {
		return 0, 0, false
	}
	e = i
	for stop := max(0, e-rulesMaxWord); i > stop; {
		c := text[i-1]
		if c < utf8.RuneSelf && isASCIIWordByte(c) {
			i--
			continue
		}
		if c == '\'' && letterEndsAt(text, i-1) && letterStartsAt(text, i) {
			i--
			continue
		}
		if strings.HasSuffix(text[:i], "’") && letterEndsAt(text, i-len("’")) && letterStartsAt(text, i) {
			i -= len("’")
			continue
		}
		if c < utf8.RuneSelf {
			break
		}
		r, size := utf8.DecodeLastRuneInString(text[:i])
		if !isTextWordRune(r) {
			break
		}
		i -= size
	}
	return i, e, true
}

// possessiveLen returns the length of the "'s" that s starts with, or 0.
func possessiveLen(s string) int {
	n, ok := apostropheAt(s, 0)
	if !ok || n >= len(s) || (s[n] != 's' && s[n] != 'S') || letterStartsAt(s, n+1) {
		return 0
	}
	return n + 1
}

// isPlainGap reports whether gap separates two words with spaces and at most
// one line break.
func isPlainGap(gap string) bool {
	nl := 0
	for i := 0; i < len(gap); i++ {
		switch gap[i] {
		case ' ', '\t', '\r':
		case '\n':
			nl++
		default:
			return false
		}
	}
	return len(gap) > 0 && nl <= 1
}

// refSep describes the separator between two words of a reference.
type refSep struct{ ok, colon, dash, comma, period, hyphen bool }

// parseRefSep describes gap, or returns the zero refSep if gap cannot
// separate the words of a reference.
func parseRefSep(gap string) refSep {
	if len(gap) == 0 || len(gap) > 8 {
		return refSep{}
	}
	g := refSep{ok: true}
	nl := 0
	for i := 0; i < len(gap); {
		switch c := gap[i]; {
		case c == ' ' || c == '\t' || c == '\r':
		case c == '\n':
			nl++
		case c == ':':
			if g.colon {
				return refSep{}
			}
			g.colon = true
		case c == '-':
			g.dash, g.hyphen = true, true
		case c == ',':
			g.comma = true
		case c == '.':
			g.period = true
		case strings.HasPrefix(gap[i:], "–"), strings.HasPrefix(gap[i:], "—"):
			g.dash = true
			i += len("–")
			continue
		default:
			return refSep{}
		}
		i++
	}
	if nl > 1 {
		return refSep{}
	}
	return g
}

// spokenRef is a chapter and verse reference as the words give it.
type spokenRef struct {
	ok         bool
	strong     bool // more than a bare number
	oneChapter bool // a verse of a book of one chapter
	chapter    int
	verse      int
	verseEnd   int
	chapterEnd int
	last       int    // index of its last word
	count      string // the noun after a bare number that counts ("years"), if any
}

// describe renders the reference for a reason: "the reference 13:4",
// "chapter 13", "chapters 120–134".
func (rf spokenRef) describe() string {
	switch {
	case rf.oneChapter:
		return "verse " + strconv.Itoa(rf.chapter) + " of a one-chapter book"
	case rf.verse > 0:
		s := "the reference " + strconv.Itoa(rf.chapter) + ":" + strconv.Itoa(rf.verse)
		if rf.verseEnd > 0 {
			s += "–" + strconv.Itoa(rf.verseEnd)
		}
		return s
	case rf.chapterEnd > 0:
		return "chapters " + strconv.Itoa(rf.chapter) + "–" + strconv.Itoa(rf.chapterEnd)
	}
	return "chapter " + strconv.Itoa(rf.chapter)
}

// parseRef reads a reference that starts at ws[k]; ws are the words after
// a book name, nearest first.
func (r *Rules) parseRef(ws []ctxWord, k int) spokenRef {
	var rf spokenRef
	if k >= len(ws) {
		return rf
	}
	if g := parseRefSep(ws[k].gap); !g.ok || g.colon || g.dash || g.period {
		return rf
	}
	chapterWord := false
	if r.chapterWords[ws[k].lower] {
		if k+1 >= len(ws) || !parseRefSep(ws[k+1].gap).ok {
			return rf
		}
		chapterWord = true
		k++
	}
	v, next, spoken := r.parseNum(ws, k)
	if v < 1 || v > 150 {
		return rf
	}
	rf = spokenRef{ok: true, strong: chapterWord, chapter: v, last: next - 1}
	k = next
	if k < len(ws) {
		if g := parseRefSep(ws[k].gap); g.ok && !g.dash {
			switch {
			case g.colon || g.period && ws[k-1].digits && ws[k].digits && ws[k].gap == ".":
				if v2, nx, _ := r.parseNum(ws, k); v2 >= 1 && v2 <= 176 {
					rf.verse, rf.strong, rf.last, k = v2, true, nx-1, nx
				}
			case r.verseWords[ws[k].lower]:
				if k+1 < len(ws) && parseRefSep(ws[k+1].gap).ok {
					if v2, nx, _ := r.parseNum(ws, k+1); v2 >= 1 && v2 <= 176 {
						rf.verse, rf.strong, rf.last, k = v2, true, nx-1, nx
					}
				}
			case !g.comma && !g.period:
				if v2, nx, sp := r.parseNum(ws, k); v2 >= 1 && v2 <= 176 && sp == spoken {
					rf.verse, rf.strong, rf.last, k = v2, true, nx-1, nx
				}
			}
		}
	}
	if k < len(ws) {
		g := parseRefSep(ws[k].gap)
		if !g.ok || g.comma || g.period {
			return rf
		}
		rk := -1
		switch {
		case g.dash:
			rk = k
		case r.rangeWords[ws[k].lower] && k+1 < len(ws) && parseRefSep(ws[k+1].gap).ok:
			rk = k + 1
		}
		if rk >= 0 {
			v3, nx, _ := r.parseNum(ws, rk)
			switch {
			case rf.verse > 0 && v3 > rf.verse && v3 <= 176:
				rf.verseEnd, rf.last = v3, nx-1
			case rf.verse == 0 && v3 > rf.chapter && v3 <= 150:
				rf.chapterEnd, rf.last, rf.strong = v3, nx-1, true
			}
		}
	}
	if !rf.strong {
		rf.count = r.countAfter(ws, rf.last+1)
	}
	return rf
}

// parseNum reads a number in digits ("23") or words ("twenty three", "one
// hundred and nineteen") at ws[k]. It returns the value (0 if none), the
// index after it, and whether it was spoken.
func (r *Rules) parseNum(ws []ctxWord, k int) (int, int, bool) {
	if k >= len(ws) {
		return 0, k, false
	}
	if ws[k].digits {
		if len(ws[k].lower) > 3 {
			return 0, k, false
		}
		v, _ := strconv.Atoi(ws[k].lower)
		return v, k + 1, false
	}
	v, ok := r.numbers[ws[k].lower]
	if !ok {
		return 0, k, false
	}
	k++
	spokenGap := func(k int) bool {
		g := parseRefSep(ws[k].gap)
		return g.ok && !g.colon && !g.comma && !g.period && (!g.dash || g.hyphen)
	}
	if v < 10 && k < len(ws) && spokenGap(k) && ws[k].lower == "hundred" {
		total := v * 100
		k++
		if k < len(ws) && spokenGap(k) && ws[k].lower == "and" {
			k++
		}
		if k < len(ws) && spokenGap(k) {
			if rest, nk, sp := r.parseNum(ws, k); sp && rest > 0 && rest < 100 {
				return total + rest, nk, true
			}
		}
		return total, k, true
	}
	if v >= 20 && k < len(ws) && spokenGap(k) {
		if u, ok := r.numbers[ws[k].lower]; ok && u < 10 {
			return v + u, k + 1, true
		}
	}
	return v, k, true
}

// splitBookRef splits a book replacement such as "1 Corinthians 13:4" into
// the name and the reference; the reference is "" when there is none.
func splitBookRef(repl string) (name, ref string) {
	i := strings.LastIndexByte(repl, ' ')
	if i <= 0 || i+1 >= len(repl) || !isASCIIDigit(repl[i+1]) {
		return repl, ""
	}
	return repl[:i], repl[i+1:]
}

// parseWrittenRef parses a reference as the engine writes it: "13", "13:4",
// "13:4–7" or "120–134".
func parseWrittenRef(s string) (spokenRef, bool) {
	var rf spokenRef
	num := func(s string) (int, bool) {
		if s == "" || len(s) > 3 {
			return 0, false
		}
		v, err := strconv.Atoi(s)
		return v, err == nil && v > 0 && s[0] != '+' && s[0] != '-'
	}
	head, tail, ranged := strings.Cut(s, "–")
	ch, vs, hasVerse := strings.Cut(head, ":")
	var ok bool
	if rf.chapter, ok = num(ch); !ok || rf.chapter > 150 {
		return rf, false
	}
	if hasVerse {
		if rf.verse, ok = num(vs); !ok || rf.verse > 176 {
			return rf, false
		}
	}
	if ranged {
		end, ok := num(tail)
		if !ok {
			return rf, false
		}
		if hasVerse {
			if end <= rf.verse || end > 176 {
				return rf, false
			}
			rf.verseEnd = end
		} else {
			if end <= rf.chapter || end > 150 {
				return rf, false
			}
			rf.chapterEnd = end
		}
	}
	rf.ok, rf.strong = true, hasVerse || ranged
	return rf, true
}

// joinWordsLower returns the lowercase words ws joined by spaces.
func joinWordsLower(ws []ctxWord) string {
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return ws[0].lower
	}
	var sb strings.Builder
	for i, x := range ws {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(x.lower)
	}
	return sb.String()
}

// startsUppercase reports whether s starts with an uppercase letter.
func startsUppercase(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

// clip cuts s to about 32 bytes, at a space if it can, for quoting in a
// reason.
func clip(s string) string {
	const most = 32
	if len(s) <= most {
		return s
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if sp := strings.LastIndexByte(s[:cut], ' '); sp > most/2 {
		cut = sp
	}
	return s[:cut] + "…"
}

// reverseWords returns the words s in reverse order.
func reverseWords(s []string) []string {
	out := make([]string, len(s))
	for i, w := range s {
		out[len(s)-1-i] = w
	}
	return out
}

// wordSet returns the set of words.
func wordSet(words []string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// The word lists below are judgement calls about sermon English. They are
// functions, like the correction engine's lists, so that the package holds
// no mutable state: NewRules turns them into sets.

// rulesBookEnglish returns the book forms that are ordinary English words.
func rulesBookEnglish() []string {
	return []string{
		"acts", "job", "mark", "numbers", "judges", "kings", "chronicle", "chronicles",
		"proverb", "proverbs", "lamentations", "revelation", "revelations", "psalm", "psalms",
		"palms", "genesis", "exodus", "philippines", "song", "songs", "wisdom", "king",
	}
}

// rulesBookNames returns the book forms that are given names, including the
// prophets' names that people rarely bear today.
func rulesBookNames() []string {
	return []string{
		"john", "james", "peter", "luke", "matthew", "mathew", "mark", "timothy", "titus",
		"jude", "ruth", "esther", "daniel", "joel", "amos", "jonah", "micah", "samuel",
		"joshua", "judith", "susanna", "isaiah", "jeremiah", "ezekiel", "malachi", "ezra",
		"zachariah", "nehemiah", "hosea", "obadiah", "nahum", "haggai", "habakkuk",
		"zephaniah", "zechariah", "baruch", "tobit", "philemon", "tobias", "job",
	}
}

// rulesPlaceEnglish returns the place names that are also English words.
func rulesPlaceEnglish() []string {
	return []string{
		"babel", "tarsus", "tabor", "eden", "phoenix", "sodom", "armageddon", "addon",
		"cauda", "marah", "hor", "mash", "seneh", "bamah", "gallim",
	}
}

// rulesPlacePeople returns the place names that are also given names.
func rulesPlacePeople() []string {
	return []string{
		"jordan", "sharon", "bethany", "shiloh", "lydia", "eden", "carmel", "rahab", "esau",
		"judah", "ephraim", "caleb", "tirzah", "elon", "dinah", "tamar",
	}
}

// rulesDeterminers returns the words before a noun that rule out a name.
func rulesDeterminers() []string {
	return []string{
		"a", "an", "the", "my", "his", "her", "our", "your", "their", "its", "this", "that",
		"these", "those", "every", "each", "no", "some", "any", "another", "such", "whose",
	}
}

// rulesTitles returns the words that stand before a person's name.
func rulesTitles() []string {
	return []string{
		"brother", "sister", "pastor", "elder", "deacon", "uncle", "aunt", "auntie", "cousin",
		"mr", "mrs", "ms", "miss", "dr", "saint", "st", "apostle", "prophet", "prophetess",
		"disciple", "friend", "son", "daughter", "wife", "husband", "grandson", "granddaughter",
		"baby", "little", "named", "called", "bishop", "father", "mother", "reverend",
	}
}

// rulesNameVerbs returns the words after a name that make it a person.
func rulesNameVerbs() []string {
	return []string{
		"said", "saw", "told", "asked", "answered", "replied", "went", "came", "was", "were",
		"had", "did", "and", "who", "loved", "built", "walked", "ran", "called", "prayed",
		"took", "gave", "got", "lived", "died", "knew", "looked", "sat", "stood", "left",
		"married", "is", "has", "will", "would", "could", "can", "played", "wants", "wanted",
		"thought", "felt", "heard", "cried", "laughed", "smiled", "whispered", "shouted",
	}
}

// rulesEnglishFollow returns the words after a book form that keep it an
// English word: "my job is", "acts that", "mark my words".
func rulesEnglishFollow() []string {
	return []string{
		"is", "was", "are", "were", "has", "had", "that", "which", "done", "well", "hunting",
		"interview", "interviews", "market", "offer", "offers", "began", "begins", "came",
		"comes", "matter", "matters", "my", "your", "his", "her", "our", "their", "me", "him",
		"us", "them", "it",
	}
}

// rulesCounters returns the nouns after a number that make it a count.
func rulesCounters() []string {
	return []string{
		"years", "year", "times", "time", "days", "day", "hours", "hour", "weeks", "week",
		"months", "month", "minutes", "seconds", "kids", "children", "people", "men", "women",
		"ways", "things", "percent", "dollars", "miles", "points", "pounds", "feet", "steps",
		"more", "less", "others", "sons", "daughters", "brothers", "sisters", "friends",
		"books", "chapters", "verses", "old", "apples", "loaves", "fish", "am", "pm", "o'clock",
	}
}

// rulesLocatives returns the words before a place name that announce it.
func rulesLocatives() []string {
	return []string{
		"in", "to", "from", "at", "near", "of", "toward", "towards", "unto", "into",
		"through", "via", "across", "beyond", "around", "outside", "inside", "within",
		"throughout", "over", "past", "leaving", "left", "reached", "entered", "visited",
		"fled", "onto", "between", "reach", "enter", "visit", "leave", "mount", "river", "on",
	}
}

// rulesPlaceNouns returns the nouns that head a place name: "the city of",
// "the road to", "mount zion".
func rulesPlaceNouns() []string {
	return []string{
		"city", "town", "village", "land", "sea", "road", "way", "region", "district",
		"country", "pool", "garden", "mount", "mountain", "mountains", "valley", "plain",
		"plains", "wilderness", "desert", "hill", "hills", "gate", "gates", "walls", "river",
		"brook", "lake", "people", "king", "queen", "men", "women", "church", "churches",
		"tribe", "province", "coast", "shore", "streets", "temple", "synagogue", "outskirts",
		"borders", "tower", "house", "daughter", "daughters", "god", "plain", "springs",
		"journey", "return", "trip", "road", "waters", "brook", "vale", "fields", "field",
	}
}

// rulesBiblicalPeople returns biblical people whose names, next to a place,
// tell that the place is the biblical one.
func rulesBiblicalPeople() []string {
	return []string{
		"jesus", "christ", "paul", "moses", "david", "abraham", "isaac", "jacob", "elijah",
		"elisha", "pharaoh", "herod", "pilate", "israelites", "disciples", "apostles", "saul",
		"solomon", "nebuchadnezzar", "samaritan", "samaritans", "pharisees", "barnabas",
		"silas", "timothy", "joshua", "gideon", "naaman", "nicodemus", "lazarus", "zacchaeus",
	}
}

// rulesStrongCues returns the words that announce a book even without a
// reference.
func rulesStrongCues() []string {
	return []string{
		"book of", "books of", "gospel of", "gospels of", "gospel according to", "according to",
		"epistle of", "epistle to", "epistles of", "epistles to", "letter of", "letter to",
		"letters of", "letters to", "prophecy of", "the book", "bibles to", "bible to",
	}
}

// rulesMediumCues returns the words that in a sermon usually announce a
// book.
func rulesMediumCues() []string {
	return []string{
		"turn to", "turning to", "turn with me to", "flip to", "open to", "go to",
		"read from", "reading from", "preach from", "preaching from", "passage in",
		"passage from", "text in", "text from", "verse in", "verses in", "writes in",
		"wrote in", "written in", "write in", "says in", "said in", "read in", "found in",
		"quote from", "quoted from", "quoting from", "we see in", "look at", "looking at",
		"study of", "series in", "series on", "chapter of", "chapters of", "verse of",
	}
}

// bookChapterCount is the number of chapters of a book, and for a book of one
// chapter its number of verses.
type bookChapterCount struct {
	name     string // lowercase canonical name
	chapters int
	verses   int
}

// rulesChapters returns the chapters of the books of the Protestant canon
// and of the deuterocanonical books whose numbering is settled.
func rulesChapters() []bookChapterCount {
	return []bookChapterCount{
		{"genesis", 50, 0}, {"exodus", 40, 0}, {"leviticus", 27, 0}, {"numbers", 36, 0},
		{"deuteronomy", 34, 0}, {"joshua", 24, 0}, {"judges", 21, 0}, {"ruth", 4, 0},
		{"1 samuel", 31, 0}, {"2 samuel", 24, 0}, {"1 kings", 22, 0}, {"2 kings", 25, 0},
		{"1 chronicles", 29, 0}, {"2 chronicles", 36, 0}, {"ezra", 10, 0}, {"nehemiah", 13, 0},
		{"esther", 10, 0}, {"job", 42, 0}, {"psalm", 150, 0}, {"psalms", 150, 0},
		{"proverbs", 31, 0}, {"ecclesiastes", 12, 0}, {"song of solomon", 8, 0},
		{"isaiah", 66, 0}, {"jeremiah", 52, 0}, {"lamentations", 5, 0}, {"ezekiel", 48, 0},
		{"daniel", 12, 0}, {"hosea", 14, 0}, {"joel", 3, 0}, {"amos", 9, 0},
		{"obadiah", 1, 21}, {"jonah", 4, 0}, {"micah", 7, 0}, {"nahum", 3, 0},
		{"habakkuk", 3, 0}, {"zephaniah", 3, 0}, {"haggai", 2, 0}, {"zechariah", 14, 0},
		{"malachi", 4, 0}, {"matthew", 28, 0}, {"mark", 16, 0}, {"luke", 24, 0},
		{"john", 21, 0}, {"acts", 28, 0}, {"romans", 16, 0}, {"1 corinthians", 16, 0},
		{"2 corinthians", 13, 0}, {"galatians", 6, 0}, {"ephesians", 6, 0},
		{"philippians", 4, 0}, {"colossians", 4, 0}, {"1 thessalonians", 5, 0},
		{"2 thessalonians", 3, 0}, {"1 timothy", 6, 0}, {"2 timothy", 4, 0}, {"titus", 3, 0},
		{"philemon", 1, 25}, {"hebrews", 13, 0}, {"james", 5, 0}, {"1 peter", 5, 0},
		{"2 peter", 3, 0}, {"1 john", 5, 0}, {"2 john", 1, 13}, {"3 john", 1, 15},
		{"jude", 1, 25}, {"revelation", 22, 0},
		{"tobit", 14, 0}, {"judith", 16, 0}, {"1 maccabees", 16, 0}, {"2 maccabees", 15, 0},
		{"wisdom of solomon", 19, 0}, {"sirach", 51, 0}, {"1 esdras", 9, 0},
		{"2 esdras", 16, 0}, {"3 maccabees", 7, 0}, {"4 maccabees", 18, 0},
		{"susanna", 1, 64}, {"bel and the dragon", 1, 42}, {"prayer of manasseh", 1, 15},
		{"prayer of azariah", 1, 68}, {"song of the three young men", 1, 68},
	}
}
