package correction

// commonNounUse reports whether the English word at token i that may stand
// for a place is used as the common noun: after "a" or "an", or before "of"
// ("like a cavalry of the invading army"), where a place's name stands
// without an article and heads no "of".
func (m *matcher) commonNounUse(i int) bool {
	return m.sc.isAny(i-1, "a", "an") || m.sc.is(i+1, "of")
}
