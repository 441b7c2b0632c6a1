package correction

import "strings"

// demonymForms returns the names of a place's people that the places'
// table leaves out, for the place of row f (name, variants, other names,
// demonyms): the singular of a plural in "-ans" it lists ("Laodiceans":
// "Laodicean", "the laodicean church"; not an English adjective such as
// "roman") and the King James Version's "-ites" of its one-word names
// ("Israel", another name of Zion: "Israelites"), kjv holding that
// version's names in lowercase. In a caption's lowercase "the israelites
// came out of egypt" they take their capital as the place does. A
// singular in "-ite" is left out: "jerusalemite" is no word a sermon says.
func demonymForms(f []string, kjv map[string]bool) []string {
	var out []string
	have := map[string]bool{}
	for _, c := range f[:4] {
		for v := range strings.SplitSeq(c, "|") {
			have[strings.ToLower(strings.TrimSpace(v))] = true
		}
	}
	add := func(w string) {
		if lw := strings.ToLower(w); w != "" && !have[lw] {
			have[lw] = true
			out = append(out, w)
		}
	}
	adjectives := toSet(bookAdjectiveWords())
	for v := range strings.SplitSeq(f[3], "|") {
		if v = strings.TrimSpace(v); strings.HasSuffix(v, "ans") && !adjectives[strings.ToLower(v[:len(v)-1])] {
			add(v[:len(v)-1])
		}
	}
	names := []string{f[0]}
	for v := range strings.SplitSeq(f[2], "|") {
		names = append(names, strings.TrimSpace(v))
	}
	for _, n := range names {
		if n == "" || strings.ContainsAny(n, " -") {
			continue
		}
		if kjv[strings.ToLower(n+"ites")] {
			add(n + "ites")
		}
	}
	return out
}

// kjvNameSet reads the King James Version's proper names, in lowercase.
func kjvNameSet() (map[string]bool, error) {
	data, err := dataFS.ReadFile("data/kjv_names.txt")
	if err != nil {
		return nil, err
	}
	m := make(map[string]bool, 3500)
	for line := range strings.SplitSeq(string(data), "\n") {
		if line != "" && line[0] != '#' {
			m[strings.ToLower(line)] = true
		}
	}
	return m, nil
}
