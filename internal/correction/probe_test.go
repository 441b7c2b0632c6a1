package correction

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestProbe(t *testing.T) {
	e := testEngine(t)
	b, _ := os.ReadFile("/tmp/probe.txt")
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		fmt.Printf("%-60s %v\n", l, compactAll(e.Find(l, Options{})))
	}
}
