// Package docs checks the repository's documents that users and tools read: the changelog.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // America/Chicago without the system's zone files

	"tcs.dev/tcs/internal/tooling/testenv"
)

var (
	releaseHeading = regexp.MustCompile(`^## \[(\d+)\.(\d+)\.(\d+)\] - (\d{4}-\d{2}-\d{2})$`)
	appVersion     = regexp.MustCompile(`(?m)^appVersion: "?([^"\s]+)"?$`)
)

// sections are Keep a Changelog's kinds of change, and the breaking changes the spec wants
// called out at the top of an entry.
var sections = []string{"Breaking changes", "Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}

// CHANGELOG.md follows Keep a Changelog: Unreleased first, then releases newest first with
// dates in America/Chicago, known section names with breaking changes first, its newest release
// the chart's appVersion, and linked from the README and the API notes.
func TestChangelog(t *testing.T) {
	root := testenv.Root()
	data, err := os.ReadFile(filepath.Join(root, "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	chicago, err := time.LoadLocation("America/Chicago")
	if err != nil {
		t.Fatal(err)
	}
	today := time.Now().In(chicago).Format(time.DateOnly)
	lines := strings.Split(string(data), "\n")
	if lines[0] != "# Changelog" {
		t.Errorf("first line %q, want # Changelog", lines[0])
	}
	var versions [][3]int
	var dates []string
	entry, entries := "", 0
	var seen []string
	for i, line := range lines {
		switch {
		case strings.HasPrefix(line, "## "):
			entries++
			entry, seen = line, nil
			if entries == 1 {
				if line != "## [Unreleased]" {
					t.Errorf("line %d: the first entry is %q, want ## [Unreleased]", i+1, line)
				}
				continue
			}
			m := releaseHeading.FindStringSubmatch(line)
			if m == nil {
				t.Errorf("line %d: %q is not ## [X.Y.Z] - YYYY-MM-DD", i+1, line)
				continue
			}
			var v [3]int
			for k := range 3 {
				v[k], _ = strconv.Atoi(m[k+1])
			}
			if _, err := time.ParseInLocation(time.DateOnly, m[4], chicago); err != nil {
				t.Errorf("line %d: date %s: %v", i+1, m[4], err)
			}
			if m[4] > today {
				t.Errorf("line %d: date %s is after today in America/Chicago (%s)", i+1, m[4], today)
			}
			if n := len(versions); n > 0 && (slices.Compare(v[:], versions[n-1][:]) >= 0 || m[4] > dates[n-1]) {
				t.Errorf("line %d: %q is not older than the entry above it", i+1, line)
			}
			versions, dates = append(versions, v), append(dates, m[4])
		case strings.HasPrefix(line, "### "):
			name := strings.TrimPrefix(line, "### ")
			if entry == "" {
				t.Errorf("line %d: section %q outside an entry", i+1, name)
			}
			if !slices.Contains(sections, name) {
				t.Errorf("line %d: section %q is not one of %v", i+1, name, sections)
			}
			if name == sections[0] && len(seen) > 0 {
				t.Errorf("line %d: %s of %s come after %v; they belong at the top", i+1, name, entry, seen)
			}
			if slices.Contains(seen, name) {
				t.Errorf("line %d: %s twice in %s", i+1, name, entry)
			}
			seen = append(seen, name)
		}
	}
	if len(versions) == 0 {
		t.Fatal("no release entry")
	}
	chart, err := os.ReadFile(filepath.Join(root, "charts", "tcs", "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m := appVersion.FindSubmatch(chart)
	newest := versions[0]
	if want := strconv.Itoa(newest[0]) + "." + strconv.Itoa(newest[1]) + "." + strconv.Itoa(newest[2]); m == nil || string(m[1]) != want {
		t.Errorf("the chart's appVersion is %q, the newest release in the changelog %s", m, want)
	}
	for _, doc := range []string{"README.md", "docs/api.md"} {
		data, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "CHANGELOG.md)") {
			t.Errorf("%s does not link CHANGELOG.md", doc)
		}
	}
}
