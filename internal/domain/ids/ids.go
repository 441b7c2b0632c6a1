// Package ids makes the opaque identifiers of the API: tr_…, job_…, org_…, key_…, req_….
package ids

import (
	"crypto/rand"
	"strconv"
	"strings"
	"time"
)

// alphabet holds the characters of opaque ids: lowercase so that they fit Kubernetes names.
const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

// Length is the number of random characters of an id (about 103 bits).
const Length = 20

// New returns prefix, an underscore and Length random characters, e.g. New("tr") = "tr_k3…".
func New(prefix string) string {
	return prefix + "_" + Random(Length)
}

// Random returns n random characters of [a-z0-9].
func Random(n int) string {
	b := make([]byte, n)
	// rand.Read never fails (it crashes the program on a broken system source).
	_, _ = rand.Read(b)
	var s strings.Builder
	s.Grow(n)
	for _, c := range b {
		// 252 = 7*36: reject-free enough for ids; the small bias does not matter for opacity,
		// but keep it uniform anyway by re-drawing the rare bytes above it.
		for c >= 252 {
			var one [1]byte
			_, _ = rand.Read(one[:])
			c = one[0]
		}
		s.WriteByte(alphabet[int(c)%len(alphabet)])
	}
	return s.String()
}

// Valid reports whether id is prefix_ followed by one or more characters of [a-z0-9].
func Valid(prefix, id string) bool {
	rest, ok := strings.CutPrefix(id, prefix+"_")
	if !ok || rest == "" || len(rest) > 63-len(prefix)-1 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// sortablePrefix is the number of characters of the creation time (milliseconds, base 36) that
// start a sortable id: enough until the year 5188.
const sortablePrefix = 9

// NewSortable returns an id whose characters after the prefix sort in the order of now: the
// creation time in milliseconds (base 36, zero-padded) then random characters, Length in all.
func NewSortable(prefix string, now time.Time) string {
	ms := strconv.FormatInt(now.UnixMilli(), 36)
	if len(ms) < sortablePrefix {
		ms = strings.Repeat("0", sortablePrefix-len(ms)) + ms
	}
	return prefix + "_" + ms + Random(Length-sortablePrefix)
}
