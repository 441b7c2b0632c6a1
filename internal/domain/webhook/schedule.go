package webhook

import (
	"math/rand/v2"
	"time"
)

// RetryDelays are the delays before each retry of a failed delivery: after the first attempt
// fails the second comes RetryDelays[0] later, and so on; a delivery whose last retry fails has
// failed. The --webhook-retry-delays flag replaces them.
var RetryDelays = [...]time.Duration{10 * time.Second, time.Minute, 10 * time.Minute, time.Hour, 6 * time.Hour}

// NextRetry returns how long after the attempts-th failed attempt of a round the next one is
// made, on the schedule delays: delays[attempts-1] and up to a tenth more at random, so that the
// deliveries that failed together are not all retried at once. It returns false when the
// schedule has no more retries: the delivery has failed.
func NextRetry(delays []time.Duration, attempts int) (time.Duration, bool) {
	if attempts < 1 || attempts > len(delays) {
		return 0, false
	}
	delay := delays[attempts-1]
	if tenth := int64(delay / 10); tenth > 0 {
		delay += time.Duration(rand.Int64N(tenth + 1))
	}
	return delay, true
}
