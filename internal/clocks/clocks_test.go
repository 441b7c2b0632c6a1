package clocks

import (
	"testing"
	"time"

	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
)

func TestOr(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		in   clock.PassiveClock
		want func(time.Time) bool
	}{
		{"nil is the real clock", nil, func(got time.Time) bool { return time.Since(got).Abs() < time.Minute }},
		{"a set clock is kept", clocktesting.NewFakePassiveClock(t0), func(got time.Time) bool { return got.Equal(t0) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Or(tc.in).Now(); !tc.want(got) {
				t.Errorf("Or(%v).Now() = %v", tc.in, got)
			}
		})
	}
}
