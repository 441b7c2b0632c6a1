// Package apikey makes and checks API keys: sk_live_ followed by a random secret part.
package apikey

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"strings"

	"tcs.dev/tcs/internal/domain/ids"
)

// Prefix starts every live API key.
const Prefix = "sk_live_"

// secretLength is the number of random characters after the prefix (about 165 bits).
const secretLength = 32

// New returns a new random API key.
func New() string {
	return Prefix + ids.Random(secretLength)
}

// WellFormed reports whether key has the shape of an API key: the prefix and a secret part of
// [a-z0-9]. It says nothing of whether the key exists.
func WellFormed(key string) bool {
	rest, ok := strings.CutPrefix(key, Prefix)
	if !ok || len(rest) < 16 || len(rest) > 128 {
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

// LookupHash returns the hash under which a key is found: lowercase base32 of its SHA-256,
// 52 characters, fit for a Kubernetes label value.
func LookupHash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:]))
}

// Equal compares two keys in constant time.
func Equal(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
