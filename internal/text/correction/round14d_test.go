package correction

import (
	"testing"
)

// The tests of issue 24's fourteenth round (D): a Catholic parish priest's
// homilies in the caption shape (see docs/performance.md, "Fourteenth round
// D").

func TestTheSingularOfAPeopleTheKJVNamesInThePluralIsTheirName(t *testing.T) {
	e := testEngine(t)
	tests := []changeCase{
		{"the israelite religion", "images of god were forbidden in\nisraelite religion with the exception of the ark",
			[]string{"israelite>Israelite place.lowercase auto"}},
		{"an israelite indeed", "jesus saw nathanael and called him an israelite\nindeed in whom is no guile",
			[]string{"israelite>Israelite place.lowercase auto"}},
		{"the plural as before", "the israelites came out of egypt",
			[]string{"israelites>Israelites place.lowercase auto", "egypt>Egypt place.lowercase auto"}},
		{"eliphaz the temanite", "then came eliphaz the temanite to comfort job",
			[]string{"temanite>Temanite place.lowercase auto"}},
		{"a singular the KJV never writes in the plural", "david was the son of that ephrathite of bethlehem",
			[]string{"bethlehem>Bethlehem place.lowercase auto"}},
	}
	checkCaptionCases(t, e, Options{}, tests)
	ites, err := kjvItes()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		place string
		want  string
		ok    bool
	}{
		{"Israel", "Israelite", true},
		{"Moab", "Moabite", true},
		{"Ephrath", "Ephrathite", false},     // one man of a town: "that Ephrathite of Bethlehemjudah"
		{"Jerusalem", "Jerusalemite", false}, // no name of the KJV
	} {
		if got, ok := singularIte(tt.place, ites); got != tt.want || ok != tt.ok {
			t.Errorf("singularIte(%q) = %q, %v, want %q, %v", tt.place, got, ok, tt.want, tt.ok)
		}
	}
}
