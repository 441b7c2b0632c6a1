package metrics

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOperationsDocListsEveryMetric checks that docs/operations.md has a row for every metric
// family with its type and labels, and no row for one that does not exist.
func TestOperationsDocListsEveryMetric(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	fams, err := Families()
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, f := range fams {
		known[f.Name] = true
		labels := slices.Clone(f.Labels)
		slices.Sort(labels)
		row := "| `" + f.Name + "` | " + f.Type + " | `" + strings.Join(labels, "`, `") + "` |"
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/operations.md lacks the row %q", row)
		}
	}
	for _, line := range strings.Split(string(doc), "\n") {
		if name, ok := strings.CutPrefix(line, "| `tcs_"); ok {
			name = "tcs_" + name[:strings.Index(name, "`")]
			if !known[name] {
				t.Errorf("docs/operations.md lists %s, which tcs does not record", name)
			}
		}
	}
}
