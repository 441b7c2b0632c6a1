package correction

// sameOnset reports whether a name beginning with the letter a may be
// heard as a word beginning with b: the same letter, or two vowels, which
// the phonetic key does not tell apart either ("apapris" for Epaphras in
// a sermon on Colossians 4).
func sameOnset(a, b byte) bool {
	return a == b || isVowelLetter(a) && isVowelLetter(b)
}

// sameLetter reports whether a name beginning with the letter a is heard as a word
// beginning with b: only with a itself.
func sameLetter(a, b byte) bool { return a == b }

// isVowelLetter reports whether the lowercase letter c is a vowel.
func isVowelLetter(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u':
		return true
	}
	return false
}
