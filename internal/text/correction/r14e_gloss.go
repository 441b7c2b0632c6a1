package correction

// glossRareMentions bounds the mentions of a place whose name, said as a
// word of another language being explained, is taken for that word: the
// places a preacher names as places are the well-known ones.
const glossRareMentions = 20

// glossedRarePlace reports whether text[start:end], a lowercase word that is
// the name of p, a rarely named place, is said as a Hebrew or Greek word
// being explained ("drawn up from the ground, adamah in hebrew"): a word of
// another language, not the place. A well-known place explained so
// ("bethel means house of god") is still the place.
func (m *matcher) glossedRarePlace(start, end int, p *placeForm) bool {
	return p.mentions < glossRareMentions && glossed(m.sc.text, start, end)
}
