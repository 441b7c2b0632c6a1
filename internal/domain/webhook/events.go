package webhook

import (
	"fmt"
	"slices"
	"strings"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// Events returns the event types an endpoint can subscribe to, in their canonical order: those
// of the API, not EventTest. An endpoint stores its types expanded ("all" as the list of the
// moment), so a type added here reaches only the endpoints that choose it from then on.
func Events() []string {
	return []string{
		tcsv1.EventTranscriptCreated,
		tcsv1.EventTranscriptCompleted,
		tcsv1.EventTranscriptFailed,
		tcsv1.EventAIPassStarted,
		tcsv1.EventAIPassCompleted,
		tcsv1.EventAIPassFailed,
		tcsv1.EventTranscriptReviewed,
	}
}

// ParseEvents returns the event types of list without duplicates, in the order given; "all"
// stands for every one of Events. It refuses unknown types and an empty list.
func ParseEvents(list []string) ([]string, error) {
	known := Events()
	var events []string
	add := func(e string) {
		if !slices.Contains(events, e) {
			events = append(events, e)
		}
	}
	for _, e := range list {
		e = strings.TrimSpace(e)
		switch {
		case e == "":
		case e == "all":
			for _, all := range known {
				add(all)
			}
		case slices.Contains(known, e):
			add(e)
		default:
			return nil, fmt.Errorf("unknown event type %q (known: %s, or all)", e, strings.Join(known, ", "))
		}
	}
	if len(events) == 0 {
		return nil, fmt.Errorf("events is required: one or more of %s", strings.Join(known, ", "))
	}
	return events, nil
}
