package correction

import "strings"

// The forms of issue 24's fourteenth round (D), found on the homilies of a
// Catholic parish priest in the caption shape that no earlier round read (see
// docs/performance.md, "Fourteenth round D").

// singularIte returns the singular of the people the King James Version
// names after the one-word place n in "-ites", where that version writes the
// singular too ("Israel": "Israelite", "an Israelite indeed"; "Moab":
// "Moabite"; "Ammon": "Ammonite"), and whether it does; ites holds the
// version's names in "-ites" and "-ite", in lowercase. In a homily's "the
// israelite religion" the singular takes its capital as the plural does.
// The singular of a people the version never names in the plural
// ("Bethlehemite", "Jezreelite", "Carmelite") is left out: it names one man
// of a town, which a sermon says as the town.
func singularIte(n string, ites map[string]bool) (string, bool) {
	w := n + "ite"
	l := strings.ToLower(w)
	return w, ites[l] && ites[l+"s"]
}

// kjvIteName reports whether line, one name of the King James Version's
// list, is a people's name in "-ites" or its singular in "-ite".
func kjvIteName(line string) bool {
	return line != "" && line[0] != '#' && (strings.HasSuffix(line, "ites") || strings.HasSuffix(line, "ite"))
}
