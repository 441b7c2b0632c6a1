package correction

// phoneticKey returns a sound-alike key of a lowercase ASCII word: its
// consonant skeleton after folding letters that sound alike, so that
// "capernum" and "capernaum" or "gethsemene" and "gethsemane" share a key.
func phoneticKey(w string) string {
	return string(appendPhoneticKey(nil, []byte(w)))
}

// appendPhoneticKey appends the phonetic key of the lowercase ASCII word
// w to out.
func appendPhoneticKey(out, w []byte) []byte {
	var last byte
	for i := 0; i < len(w); i++ {
		c := w[i]
		var next byte
		if i+1 < len(w) {
			next = w[i+1]
		}
		k := c
		switch c {
		case 'a', 'e', 'i', 'o', 'u', 'y', 'w':
			if i != 0 {
				last = 0 // a vowel separates repeated consonants
				continue
			}
			k = 'A'
		case 'h':
			// silent after a consonant, handled by the digraphs below
			if i != 0 {
				continue
			}
			k = 'H'
		case 'b', 'p':
			k = 'P'
			if c == 'p' && next == 'h' {
				k = 'F'
				i++
			}
		case 'f', 'v':
			k = 'F'
		case 'c', 'k', 'q', 'g', 'j':
			k = 'K'
			switch {
			case c == 'c' && (next == 'e' || next == 'i' || next == 'y'):
				k = 'S'
			case (c == 'c' || c == 'g') && next == 'h':
				i++
			}
		case 's', 'z', 'x':
			if next == 'h' {
				i++
			}
			k = 'S'
		case 'd', 't':
			if next == 'h' {
				i++
			}
			k = 'T'
		case 'l', 'r':
			k = 'R'
		case 'm', 'n':
			k = 'N'
		}
		if k != last {
			out = append(out, k)
		}
		last = k
	}
	return out
}

// fuzzyKeyBits returns the two filter bits of a phonetic key.
func fuzzyKeyBits(key []byte) (uint64, uint64) {
	var h uint64
	for _, c := range key {
		h = (h<<5 | h>>59) ^ uint64(c)
	}
	h = (h ^ uint64(len(key))) * 0x9e3779b97f4a7c15
	return h >> 51, (h >> 38) & 0x1fff
}

func (d *dict) addFuzzyKey(key string) {
	a, b := fuzzyKeyBits([]byte(key))
	d.fuzzyKeys[a>>6] |= 1 << (a & 63)
	d.fuzzyKeys[b>>6] |= 1 << (b & 63)
}

// maybeFuzzyKey reports whether some fuzzy target may have the phonetic
// key key.
func (d *dict) maybeFuzzyKey(key []byte) bool {
	a, b := fuzzyKeyBits(key)
	return d.fuzzyKeys[a>>6]&(1<<(a&63)) != 0 && d.fuzzyKeys[b>>6]&(1<<(b&63)) != 0
}

// EditDistance returns the optimal string alignment distance between a and b, in bytes
// (insertions, deletions, substitutions and adjacent transpositions), or max+1 when it
// exceeds max or either string is longer than 40 bytes.
func EditDistance(a, b string, max int) int {
	return editDistance([]byte(a), b, max)
}

// editDistance returns the optimal string alignment distance between a
// and b (insertions, deletions, substitutions and adjacent
// transpositions), or max+1 when it exceeds max.
func editDistance(a []byte, b string, max int) int {
	if d := len(a) - len(b); d > max || -d > max {
		return max + 1
	}
	if len(a) > 40 || len(b) > 40 {
		return max + 1
	}
	// Only the cells within max of the diagonal are computed: any other
	// is more than max away. The cells just outside the band are set to
	// max+1, so that a value read from them stays above max.
	over := max + 1
	var rows [3][41]int
	prev2, prev, cur := &rows[0], &rows[1], &rows[2]
	for j := 0; j <= len(b); j++ {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := 1, len(b)
		if i-max > lo {
			lo = i - max
			cur[lo-1] = over
		}
		if i+max < hi {
			hi = i + max
		}
		cur[0] = i
		best := cur[0]
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			best = min(best, v)
		}
		if hi < len(b) {
			cur[hi+1] = over
		}
		if best > max {
			return max + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	if prev[len(b)] > max {
		return max + 1
	}
	return prev[len(b)]
}
