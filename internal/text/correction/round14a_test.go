package correction

import (
	"slices"
	"strings"
	"testing"
)

func TestANameTheSermonWritesItselfIsSuggestedForAWordNearItInLetters(t *testing.T) {
	e := testEngine(t)
	amnon := "absalom hated amnon because he had forced his sister\nand amnon did not know it and david loved amnon his firstborn\n"
	tests := []struct {
		name string
		text string
		in   string
		want []string
	}{
		{"a person the sermon names three times",
			captionSermon + amnon, "couldn't he come at least now amlon is the firstborn he is the next in line to be king",
			[]string{"amlon>Amnon person.fuzzy review"}},
		{"a person of another first letter the sermon names three times",
			captionSermon + "amnon loved tamar and tamar his sister and absalom spoke to tamar\n", "absalom hated amnon because he had forced his sister hamar now your revengeful spirit",
			[]string{"hamar>Tamar place.fuzzy review"}},
		{"a person the sermon names twice",
			captionSermon + "absalom hated amnon because he had forced his sister\nand amnon did not know it\n", "couldn't he come at least now amlon is the firstborn he is the next in line to be king",
			nil},
		{"a word the sermon says as often as the name",
			captionSermon + amnon + "amlon amlon amlon\n", "couldn't he come at least now amlon is the firstborn he is the next in line to be king",
			nil},
		{"a name of many chapters",
			captionSermon + strings.Repeat("we pray to christ and we live for christ\n", 3), "i serve with pastor chast on the same board of trustees",
			nil},
		{"a word two letters from a name of five",
			captionSermon + amnon, "couldn't he come at least now amlan is the firstborn he is the next in line to be king",
			nil},
		{"a word on a line of another language",
			captionSermon + amnon, "och han sa att amlon är den förstfödde och han är nästa kung",
			nil},
		{"a word after a name of its chapters",
			captionSermon + "goliath the giant and goliath the philistine and goliath fell\n", "in the valley of elah david goloth mocked the armies of the living god",
			[]string{"goloth>Goliath person.fuzzy review"}},
		{"a word after a name that the names of a cited book read as a surname",
			captionSermon + "read with me first samuel 25 3 and goliath the giant and goliath the philistine and goliath fell\n", "in the valley of elah david goloth mocked the armies of the living god",
			[]string{"goloth>Goliath person.fuzzy review"}},
		{"a word a rule of the cited chapters reads as a name the sermon never writes",
			captionSermon + "read first kings 15 2 and absalom fled and absalom hated amnon and absalom went to talmi\n", "the soul of king david longed to go forth onto abslon for he was comforted",
			[]string{"abslon>Absalom person.fuzzy review"}},
		{"a word a rule of the cited chapters reads as a name the sermon writes",
			captionSermon + "read first kings 15 2 the daughter of abishalom and absalom fled and absalom hated amnon and absalom went to talmi\n", "the soul of king david longed to go forth onto abslon for he was comforted",
			[]string{"abslon>Abishalom person.fuzzy review"}},
		{"a word after a name of other chapters",
			captionSermon + amnon, "and the prophet jonah amlon went to nineveh",
			nil},
		{"a word after a",
			captionSermon + amnon, "now he was like a amlon in the house and he is the next in line to be king",
			nil},
		{"two names the sermon writes as often",
			captionSermon + amnon + "the children of ammon and ammon and ammon\n", "couldn't he come at least now amlon is the firstborn he is the next in line to be king",
			nil},
		{"a word after a modern given name",
			captionSermon + amnon, "i talked with alvin amlon after the service about the next in line to be king",
			nil},
		{"a name that is also an English word",
			captionSermon + "the weather was clement and clement and the judge was clement\n", "and then brother clemmet stood up in the meeting to pray",
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := compactAll(e.Correct(tt.text+tt.in, Options{Categories: []string{CategoryBible, CategoryPlace, CategoryPerson}}).Changes)
			got = slices.DeleteFunc(got, func(c string) bool {
				return !strings.HasPrefix(c, "amlon>") && !strings.HasPrefix(c, "hamar>") && !strings.HasPrefix(c, "abslon>") && !strings.HasPrefix(c, "goloth>") && !strings.HasPrefix(c, "amlan>") && !strings.HasPrefix(c, "chast>") && !strings.HasPrefix(c, "clemmet>")
			})
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
