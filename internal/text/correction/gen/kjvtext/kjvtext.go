// Package kjvtext reads what the generators of the engine's KJV data read: the KJV text and
// lists of one word a line.
package kjvtext

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Read returns the KJV text of file, one verse a line as `bible -f Gen1:1-Rev22:21` prints it
// (Debian's bible-kjv-text, public domain); with no file it runs that program.
func Read(file string) ([]byte, error) {
	var text []byte
	var err error
	if file == "" {
		text, err = exec.Command("bible", "-f", "Gen1:1-Rev22:21").Output()
	} else {
		text, err = os.ReadFile(file)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the KJV text: %w", err)
	}
	return text, nil
}

// AddList adds to set the lines of file, a list of one word a line; blank lines and lines
// starting with # are left out.
func AddList(file string, set map[string]bool) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("reading %s: %w", file, err)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			set[line] = true
		}
	}
	return nil
}
