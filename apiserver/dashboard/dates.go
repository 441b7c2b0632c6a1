package dashboard

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The layouts of a date as people read it: the weekday, day, month and time, with the year
// when it is not the current one.
const (
	dateLayout         = "Mon 2 Jan, 15:04"
	dateLayoutWithYear = "Mon 2 Jan 2006, 15:04"
)

// readableTime returns t in zone loc as people read it ("Sun 23 Nov, 10:42"), with the year
// when it is not the year of now in loc; "never" for the zero time.
func readableTime(t time.Time, loc *time.Location, now time.Time) string {
	if t.IsZero() {
		return "never"
	}
	if loc == nil {
		loc = time.UTC
	}
	t = t.In(loc)
	if t.Year() != now.In(loc).Year() {
		return t.Format(dateLayoutWithYear)
	}
	return t.Format(dateLayout)
}

// timeOf returns the time of a value templates hold: a time.Time, a metav1.Time (or a pointer
// to one) or an RFC 3339 string; false for anything else.
func timeOf(v any) (time.Time, bool) {
	switch x := v.(type) {
	case time.Time:
		return x, true
	case *time.Time:
		if x != nil {
			return *x, true
		}
		return time.Time{}, true
	case metav1.Time:
		return x.Time, true
	case *metav1.Time:
		if x != nil {
			return x.Time, true
		}
		return time.Time{}, true
	case string:
		if x == "" {
			return time.Time{}, true
		}
		t, err := time.Parse(time.RFC3339Nano, x)
		return t, err == nil
	}
	return time.Time{}, false
}

// when is the one template function that shows a date: v's time in the time zone of the
// organization of the page (UTC outside one), as readableTime words it. A value that is not a
// time is shown as it is.
func when(v *view, t any) string {
	tt, ok := timeOf(t)
	if !ok {
		return stringOf(t)
	}
	var loc *time.Location
	now := time.Now()
	if v != nil {
		loc = v.Zone
		if !v.Now.IsZero() {
			now = v.Now
		}
	}
	return readableTime(tt, loc, now)
}
