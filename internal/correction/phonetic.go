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
	emit := func(c byte) {
		if c != last {
			out = append(out, c)
		}
		last = c
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		var next byte
		if i+1 < len(w) {
			next = w[i+1]
		}
		switch c {
		case 'a', 'e', 'i', 'o', 'u', 'y', 'w':
			if i == 0 {
				emit('A')
			} else {
				last = 0 // a vowel separates repeated consonants
			}
		case 'h':
			// silent after a consonant, handled by the digraphs below
			if i == 0 {
				emit('H')
			}
		case 'b', 'p':
			if c == 'p' && next == 'h' {
				emit('F')
				i++
				continue
			}
			emit('P')
		case 'f', 'v':
			emit('F')
		case 'c', 'k', 'q', 'g', 'j':
			if c == 'c' && (next == 'e' || next == 'i' || next == 'y') {
				emit('S')
				continue
			}
			if c == 'c' && next == 'h' {
				emit('K')
				i++
				continue
			}
			if c == 'g' && next == 'h' {
				i++
			}
			emit('K')
		case 's', 'z', 'x':
			if next == 'h' {
				i++
			}
			emit('S')
		case 'd', 't':
			if next == 'h' {
				i++
			}
			emit('T')
		case 'l', 'r':
			emit('R')
		case 'm', 'n':
			emit('N')
		default:
			emit(c)
		}
	}
	return out
}

// editDistance returns the optimal string alignment distance between a
// and b (insertions, deletions, substitutions and adjacent
// transpositions), or max+1 when it exceeds max.
func editDistance(a, b string, max int) int {
	if d := len(a) - len(b); d > max || -d > max {
		return max + 1
	}
	if len(a) > 40 || len(b) > 40 {
		return max + 1
	}
	var rows [3][41]int
	prev2, prev, cur := &rows[0], &rows[1], &rows[2]
	for j := 0; j <= len(b); j++ {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
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
