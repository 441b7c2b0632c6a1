package correction

import "strings"

// owned reports whether the word at offset start of text follows a
// possessive determiner with nothing but spaces between them: "your
// cardia, your heart" names a thing someone has, not a person of the
// cited chapters heard wrong.
func owned(text string, start int) bool {
	i := start
	for i > 0 && text[i-1] == ' ' {
		i--
	}
	if i == start {
		return false // a line break or punctuation before the word
	}
	w := text[wordStartBefore(text, i):i]
	for _, d := range [...]string{"my", "your", "his", "her", "its", "our", "their"} {
		if strings.EqualFold(w, d) {
			return true
		}
	}
	return false
}
