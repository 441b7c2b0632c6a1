package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"tcs.dev/tcs/internal/tooling/testenv"
)

// The dashboard's guide shows every screenshot `make screenshots` takes, each page at phone
// width as well as at desktop width, and no screenshot that is not there.
func TestDashboardGuideShowsEveryScreenshot(t *testing.T) {
	root := testenv.Root()
	guide, err := os.ReadFile(filepath.Join(root, "docs", "dashboard.md"))
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]bool{}
	for _, m := range regexp.MustCompile(`!\[[^\]]*\]\(dashboard/([^)]+\.png)\)`).FindAllStringSubmatch(string(guide), -1) {
		shown[m[1]] = true
	}
	files, err := filepath.Glob(filepath.Join(root, "docs", "dashboard", "*.png"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("found %d screenshots in docs/dashboard", len(files))
	}
	taken := map[string]bool{}
	for _, f := range files {
		taken[filepath.Base(f)] = true
	}
	for name := range taken {
		if !shown[name] {
			t.Errorf("docs/dashboard.md does not show docs/dashboard/%s", name)
		}
		if base, ok := strings.CutSuffix(name, ".png"); ok && !strings.HasSuffix(base, "-phone") && !taken[base+"-phone.png"] {
			t.Errorf("docs/dashboard/%s has no phone-width screenshot %s-phone.png", name, base)
		}
	}
	for name := range shown {
		if !taken[name] {
			t.Errorf("docs/dashboard.md shows dashboard/%s, which is not there", name)
		}
	}
}
