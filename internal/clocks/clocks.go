// Package clocks defaults the clock the service reads the time from.
//
// Every time the service stores or compares with stored times (status transitions, expiries,
// retention, sessions, secret rotation) is read from one injected clock.PassiveClock, a field
// named Clock, so tests can set the time with k8s.io/utils/clock/testing. Measurements of
// elapsed time for metrics, logs and wait deadlines (start := time.Now(); time.Since(start))
// use time.Now directly.
package clocks

import "k8s.io/utils/clock"

// Or returns c, or the real clock when c is nil.
func Or(c clock.PassiveClock) clock.PassiveClock {
	if c == nil {
		return clock.RealClock{}
	}
	return c
}
