package controllers

import (
	"time"

	"k8s.io/utils/clock"
)

// Each reconciler and sweep sets the defaults of its zero fields once, in a setDefaults
// method that SetupWithManager (or Start, for a sweep added as a plain runnable) calls before
// anything runs; from then on the fields hold what is used and nothing else tests for zero.
// setDefaults writes only zero fields, so a second call changes nothing.

// orDefault sets *v to def when it is zero or negative.
func orDefault[T int | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// orRealClock sets *c to the real clock when it is nil.
func orRealClock(c *clock.PassiveClock) {
	if *c == nil {
		*c = clock.RealClock{}
	}
}
