package correction

import "strings"

// Round 14C of issue 24: a word of another language in a mixed or
// interpreted sermon ("så tills att ni vibrer precis eller hur", Swedish),
// a lowercase English word heard by its spelling alone, and a KJV name
// with an s, are suggested as no name or place. See docs/performance.md,
// "Fourteenth round C".

// nordicDutchWord reports whether lw, a word in lowercase of at most seven
// bytes, is a function word of Swedish, Norwegian, Danish or Dutch that is
// no English word (nor a name of the KJV or a modern given name: "av",
// "dina", "hos", "sina", "het" and "moet" are left out). foreignWord reads
// it as it reads Spanish's and German's.
func nordicDutchWord(lw string) bool {
	switch lw {
	// Swedish.
	case "och", "att", "det", "som", "är", "på", "för", "inte", "har", "så", "kan", "ju", "eller",
		"från", "när", "här", "där", "hur", "vad", "oss", "ett", "också", "bara", "mycket", "efter",
		"genom", "vara", "blir", "skulle", "kommer", "vill", "honom", "henne", "deras", "vår", "våra",
		"vårt", "någon", "något", "inget", "ingen", "kanske", "alltså", "liksom",
		"sånt", "ditt", "dess", "vilken", "vilket", "varför", "därför", "utan", "mellan",
		"igen", "redan", "aldrig", "alltid", "nog", "åt", "hade", "gör", "göra", "gjorde", "säger",
		"tror", "får", "fick", "måste", "kunna", "samma", "herren", "gud", "vilka", "allt", "även",
		"bli", "blev", "varit",
		// Norwegian and Danish.
		"og", "ikke", "jeg", "hvad", "hvor", "deg", "seg", "være", "skal", "noen", "hvis", "fordi",
		"dette", "denne", "nogle",
		// Dutch.
		"een", "niet", "wij", "zijn", "ook", "maar", "voor", "naar", "heb", "hebben", "zij", "deze",
		"worden", "wordt", "geen", "uit", "bij", "hij", "mij", "jij", "onze", "kunnen", "altijd",
		"omdat", "wanneer", "waar":
		return true
	}
	return false
}

// otherScriptLine reports whether the line around offset start of text
// holds a letter of Cyrillic, of the kana and Chinese characters, or of
// Hangul: a line of another language ("и abandonос и neredintе busan
// come"), where a word is not a misheard English name.
func otherScriptLine(text string, start int) bool {
	lo, hi := lineAround(text, start)
	for i := lo; i < hi; i++ {
		if c := text[i]; c >= 0xd0 && c <= 0xd4 || c >= 0xe3 && c <= 0xed {
			return true // the first byte of U+0400–U+052F, and of U+3000–U+DFFF, in UTF-8
		}
	}
	return false
}

// otherLanguageSuggestion reports whether a suggestion of a name or place
// for text[start:…] is a word of another language: the word is on a line
// of another language's function words (foreignLine), of another script
// (otherScriptLine), or on a short cue among such lines (foreignCue).
func (m *matcher) otherLanguageSuggestion(start int) bool {
	return m.foreignLine(start) || otherScriptLine(m.sc.text, start) || foreignCue(m.sc.text, start)
}

// foreignCue reports whether the line around offset start of text, a short
// cue of captions, is one of another language by its neighbours: its
// function words of another language (foreignWord) and a letter of Latin-1
// with an accent, one or more, and with those of the lines before and after
// it two or more ("från den stora delen", Swedish, is no Dilean). A line of
// 160 bytes or more is no cue; a line of English between two of another
// language, as an interpreter's, holds none.
func foreignCue(text string, start int) bool {
	lo, hi := lineAround(text, start)
	if !cueBounds(text, lo, hi) {
		return false // a long line of prose or of a recognizer's output is read by foreignLine alone
	}
	own := foreignWords(text, lo, hi)
	if strings.IndexByte(text[lo:hi], 0xc3) >= 0 {
		own++ // the first byte of à to ÿ in UTF-8: "is from berlin jesus derge bor jesus medt i mörket"
	}
	if own == 0 {
		return false
	}
	near := own
	if lo > 0 {
		plo, phi := lineAround(text, lo-1)
		near += foreignWords(text, plo, phi)
	}
	if hi < len(text) {
		nlo, nhi := lineAround(text, hi+1)
		near += foreignWords(text, nlo, nhi)
	}
	return near >= 2
}

// cueBounds reports whether text[lo:hi], a line of lineAround, is a whole
// line of text shorter than lineAround's bound.
func cueBounds(text string, lo, hi int) bool {
	return (lo == 0 || text[lo-1] == '\n') && (hi == len(text) || text[hi] == '\n') && hi-lo < 160
}

// foreignWords counts the function words of other languages (foreignWord)
// in text[lo:hi].
func foreignWords(text string, lo, hi int) int {
	n := 0
	eachWordIn(text, lo, hi, func(i, j int) {
		if foreignWord(text[i:j]) {
			n++
		}
	})
	return n
}

// eachWordIn calls f with the bounds of each word of text[lo:hi], in order.
func eachWordIn(text string, lo, hi int, f func(i, j int)) {
	for i := lo; i < hi; {
		if !isWordByte(text[i]) {
			i++
			continue
		}
		j := i + 1
		for j < hi && isWordByte(text[j]) {
			j++
		}
		f(i, j)
		i = j
	}
}

// round14cCut reports whether add leaves out a suggestion (conf below
// autoThreshold) of rule for text[start:end]: a word of another language
// (otherLanguageCut), or an English word suggested for a name by its sound
// or spelling alone (englishWordSuggested).
func (m *matcher) round14cCut(rule ruleID, conf float64, start, end int) bool {
	return conf < autoThreshold && m.suggestionCut(rule, start, end)
}

// suggestionCut is round14cCut for a suggestion.
func (m *matcher) suggestionCut(rule ruleID, start, end int) bool {
	return m.otherLanguageCut(rule, start) || englishWordSuggested(rule, m.sc.text[start:end])
}

// personSuggestionCut reports whether mergePersons leaves out the
// suggestion of a person's or place's name for text[start:end]: a word of
// another language (otherLanguageSuggestion), or a KJV name with an s
// (nameWithS).
func (m *matcher) personSuggestionCut(start, end int) bool {
	return m.nameWithS(m.sc.text[start:end]) || m.otherLanguageSuggestion(start)
}

// nameWithS reports whether w is a name of the KJV with an s or 's after
// it: the name's plural or possessive, or a surname made of it ("as we see
// in the timothys", the two letters; "pastor chas stephens"), not another
// name heard wrong (Timotheus, Stephanas).
func (m *matcher) nameWithS(w string) bool {
	n := len(w)
	switch {
	case n > 3 && w[n-2] == '\'' && (w[n-1] == 's' || w[n-1] == 'S'):
		n -= 2
	case n > 2 && (w[n-1] == 's' || w[n-1] == 'S'):
		n--
	default:
		return false
	}
	var b [24]byte
	if n > len(b) {
		return false
	}
	_, ok := m.d.kjvNames[string(appendLower(b[:0], w[:n]))]
	return ok
}

// otherLanguageCut reports whether add leaves out a suggestion of rule at
// start for a line of another language: a place heard by its sound or
// spelling on a line of another script or on a short cue among lines of
// another language (foreignCue), and a lowercase place's name on a line
// with an accented letter and of another language (otherLanguageSuggestion;
// Swedish "silla" is no Silla). The lines of other languages in a sermon
// keep their automatic capitals ("gå över jordan").
func (m *matcher) otherLanguageCut(rule ruleID, start int) bool {
	switch rule {
	case rulePlaceFuzzy, rulePlaceRealWord, rulePlaceVariant, ruleBookFuzzy:
		return otherScriptLine(m.sc.text, start) || foreignCue(m.sc.text, start)
	case rulePlaceLowercase:
		// A sermon suggests many lowercase places: only a text with an
		// accented letter near the word is read further.
		text := m.sc.text
		return strings.IndexByte(text[max(0, start-160):min(len(text), start+160)], 0xc3) >= 0 && m.otherLanguageSuggestion(start)
	}
	return false
}

// englishWordSuggested reports whether w, suggested by rule, is a lowercase English word (SCOWL's, isEnglishWord)
// suggested as a place or person by its sound or spelling: "learn how to
// be a berean and search the scriptures" is no Salcah. An ordinary word
// needs more than its spelling; the rule of real words (rulePlaceRealWord)
// reads its own evidence and is not cut.
func englishWordSuggested(rule ruleID, w string) bool {
	return (rule == rulePlaceFuzzy || rule == rulePersonFuzzy) &&
		len(w) > 0 && w[0] >= 'a' && w[0] <= 'z' && isEnglishWord(w)
}
