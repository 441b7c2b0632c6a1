package correction

import "strings"

// demonymForms returns the names of a place's people that the places'
// table leaves out, for the place of row f (name, variants, other names,
// demonyms): the singular of a plural in "-ans" it lists ("Laodiceans":
// "Laodicean", "the laodicean church"; not an English adjective in
// adjectives, such as "roman") and the King James Version's "-ites" of its
// one-word names ("Israel", another name of Zion: "Israelites"), ites
// holding that version's names in "-ites" and "-ite", in lowercase. In a
// caption's lowercase "the israelites came out of egypt" they take their
// capital as the place does, as does the singular the version writes of
// such a people (singularIte: "Israelite"). A singular the version does not
// write is left out: "jerusalemite" is no word a sermon says.
func demonymForms(f []string, ites, adjectives map[string]bool) []string {
	var out []string
	listed := func(w string) bool {
		for _, c := range f[:4] {
			for v := range strings.SplitSeq(c, "|") {
				if strings.EqualFold(strings.TrimSpace(v), w) {
					return true
				}
			}
		}
		for _, o := range out {
			if strings.EqualFold(o, w) {
				return true
			}
		}
		return false
	}
	for v := range strings.SplitSeq(f[3], "|") {
		v = strings.TrimSpace(v)
		if s := strings.TrimSuffix(v, "s"); strings.HasSuffix(v, "ans") && !adjectives[strings.ToLower(s)] && !listed(s) {
			out = append(out, s)
		}
	}
	for i, c := range f[:3] {
		if i == 1 {
			continue // the variants are spellings of the name
		}
		for n := range strings.SplitSeq(c, "|") {
			if n = strings.TrimSpace(n); n == "" || strings.ContainsAny(n, " -") {
				continue
			}
			if w := n + "ites"; ites[strings.ToLower(w)] && !listed(w) {
				out = append(out, w)
			}
			if w, ok := singularIte(n, ites); ok && !listed(w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// kjvItes reads the King James Version's proper names in "-ites" and "-ite",
// in lowercase: the peoples it names after a place or a father, and their
// singulars.
func kjvItes() (map[string]bool, error) {
	data, err := dataFS.ReadFile("data/kjv_names.txt")
	if err != nil {
		return nil, err
	}
	m := make(map[string]bool, 128)
	for line := range strings.SplitSeq(string(data), "\n") {
		if kjvIteName(line) {
			m[strings.ToLower(line)] = true
		}
	}
	return m, nil
}
