package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Tool returns the executable of name, a server the tests run that a hack/ script builds: the
// path in envVar when it is set (it must be an executable file), else the newest
// bin/name-VERSION that `make makeTarget` linked below the repository root.
func Tool(envVar, name, makeTarget string) (string, error) {
	if p := os.Getenv(envVar); p != "" {
		if !executable(p) {
			return "", fmt.Errorf("%s=%q is not an executable %s; run `make %s`", envVar, p, name, makeTarget)
		}
		return p, nil
	}
	bin := filepath.Join(Root(), "bin")
	matches, _ := filepath.Glob(filepath.Join(bin, name+"-*"))
	slices.Sort(matches)
	for _, p := range slices.Backward(matches) {
		if !strings.HasSuffix(p, ".tmp") && !strings.HasSuffix(p, ".lock") && executable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found: run `make %s` (it builds it once and links it into %s) or set %s", name, makeTarget, bin, envVar)
}

// executable reports whether p is a file (or a link to one) that may be executed.
func executable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}
