package recorder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOperationsDocListsEveryReason checks that docs/operations.md explains every reason.
func TestOperationsDocListsEveryReason(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Reasons() {
		if !strings.Contains(string(doc), "| `"+r+"` |") {
			t.Errorf("docs/operations.md does not explain the %s events", r)
		}
	}
}
