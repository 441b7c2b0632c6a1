package testenv

import (
	"testing"
	"time"
)

// Eventually calls cond every 50 ms until it reports true; it fails t with cond's last
// description when timeout passes first.
func Eventually(t testing.TB, timeout time.Duration, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, why := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", timeout, why)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
