package dashboard

import (
	"strings"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/text/aipass"
	"tcs.dev/tcs/internal/text/correction"
)

// The kinds of internal values that staff pages put in words (the first argument of say).
const (
	wordStatus   = "status"   // a transcript's status
	wordAIPass   = "ai"       // the state of a transcript's AI check
	wordChange   = "change"   // the status of a change
	wordVerdict  = "verdict"  // the AI check's verdict on a change
	wordCategory = "category" // the category of a change
	wordSource   = "source"   // where a transcript comes from
	wordJob      = "job"      // the type of a background job
	wordJobState = "jobstate" // the state of a background job
	wordDelivery = "delivery" // the state of a webhook delivery
	wordError    = "error"    // what to do about a transcript that failed, by its error type
	wordEvent    = "event"    // a webhook event
	wordReason   = "reason"   // why a transcript failed, in a few words, by its error type
	wordDecision = "decision" // a person's decision on a change (review.go's decisionKind)
)

// staffWords is the one table of the internal values the dashboard shows and the words staff
// read for them, by kind: what happened, and for errors what to do next. The internal value
// itself is shown only in a page's technical details (<details>); TestNoInternalWordsOnStaffPages
// renders every page and fails when one is seen outside them.
func staffWords() map[string]map[string]string {
	return map[string]map[string]string{
		wordStatus: {
			string(tcsv1.PhasePending):   "Being corrected",
			string(tcsv1.PhaseCompleted): "Ready",
			string(tcsv1.PhaseFailed):    "Could not be corrected",
		},
		wordAIPass: {
			"":                            "Not asked for",
			string(tcsv1.AIPassIdle):      "Not asked for",
			string(tcsv1.AIPassQueued):    "Waiting to start",
			string(tcsv1.AIPassRunning):   "Checking now",
			string(tcsv1.AIPassCompleted): "Checked",
			string(tcsv1.AIPassFailed):    "Could not check",
		},
		wordChange: {
			string(correction.StatusAutoApplied): "Applied",
			string(correction.StatusNeedsReview): "Suggested: needs your review",
			"accepted":                           "Accepted by a person",
			"rejected":                           "Rejected by a person",
		},
		wordVerdict: {
			string(aipass.Confirmed): "AI agrees",
			string(aipass.Rejected):  "AI disagrees",
			string(aipass.Uncertain): "AI is not sure",
		},
		wordCategory: {
			correction.CategoryBible:    "Bible reference",
			correction.CategoryPlace:    "Place name",
			correction.CategoryPerson:   "Name of a person",
			aipass.CategoryAI:           "Found by the AI check",
			"custom":                    "Added by a person",
			correction.CategoryGlossary: "From your glossary",
		},
		wordSource: {
			string(tcsv1.SourcePaste):   "Pasted text",
			string(tcsv1.SourceYouTube): "YouTube video",
			string(tcsv1.SourceURL):     "Web address",
			string(tcsv1.SourceUpload):  "Uploaded file",
		},
		wordJob: {
			tcsv1.JobYouTubeFetch: "Getting the YouTube captions",
			tcsv1.JobURLFetch:     "Downloading from the web address",
			tcsv1.JobUploadIngest: "Reading the uploaded file",
			tcsv1.JobCorrection:   "Correcting the text",
			tcsv1.JobAIPass:       "AI check",
		},
		wordJobState: {
			string(tcsv1.JobQueued):    "Waiting",
			string(tcsv1.JobRunning):   "Working",
			string(tcsv1.JobSucceeded): "Done",
			string(tcsv1.JobFailed):    "Did not work",
		},
		wordDelivery: {
			"":                              "Sending",
			string(tcsv1.DeliveryPending):   "Sending",
			string(tcsv1.DeliverySucceeded): "Delivered",
			string(tcsv1.DeliveryFailed):    "Not delivered",
			string(tcsv1.DeliverySkipped):   "Not sent: the endpoint was paused",
			string(tcsv1.DeliveryCanceled):  "Not sent: canceled",
		},
		wordError: {
			"unprocessable":   "The file or page could not be read as a transcript. Check that it is the right one and add it again, or delete this transcript.",
			"invalid_request": "Something about the source was not accepted. Check the link or file and add it again, or delete this transcript.",
			"not_found":       "The source could not be found: the video or page may be private or removed. Check the link and add it again, or delete this transcript.",
			"forbidden":       "The source refused access: the video or page may be private. Make it public or upload the file instead, or delete this transcript.",
			"timeout":         "The source took too long to answer. Try adding it again later, or delete this transcript.",
			"rate_limited":    "Too many were added at once. Try adding it again in a few minutes, or delete this transcript.",
			"conflict":        "It was deleted while it was being corrected.",
			"server_error":    "Something went wrong on our side. Try adding it again; if it keeps happening, tell the person who looks after tcs for you. You can also delete this transcript.",
		},
		wordReason: {
			"unprocessable":   "Could not be read",
			"invalid_request": "Source not accepted",
			"not_found":       "Source not found",
			"forbidden":       "Source refused access",
			"timeout":         "Source too slow",
			"rate_limited":    "Too many at once",
			"conflict":        "Deleted while working",
			"server_error":    "Problem on our side",
		},
		wordDecision: {
			"accept":  "Accepted",
			"keep":    "Kept",
			"reject":  "Rejected",
			"undo":    "Undone",
			"replace": "Replaced with",
			"add":     "Added",
		},
		wordEvent: {
			tcsv1.EventTranscriptCreated:   "A transcript was added",
			tcsv1.EventTranscriptCompleted: "A transcript is corrected and ready",
			tcsv1.EventTranscriptFailed:    "A transcript could not be corrected",
			tcsv1.EventAIPassStarted:       "The AI check of a transcript started",
			tcsv1.EventAIPassCompleted:     "The AI check of a transcript finished",
			tcsv1.EventAIPassFailed:        "The AI check of a transcript could not finish",
			tcsv1.EventTranscriptReviewed:  "Someone reviewed changes of a transcript",
		},
	}
}

// fallbackWords returns what say shows for a value of kind its table does not know: never the
// value itself, which the technical details show.
func fallbackWords(kind string) string {
	switch kind {
	case wordError:
		return "Something went wrong. Try adding it again, or delete this transcript."
	case wordCategory, wordReason:
		return "Other"
	case wordEvent:
		return "An event"
	case wordDecision:
		return "Decided"
	}
	return "Unknown"
}

// say returns the staff wording of the internal value v of kind (a string or a named string
// type): see staffWords.
func say(kind string, v any) string {
	s := stringOf(v)
	if w, ok := staffWords()[kind][s]; ok {
		return w
	}
	if kind == wordCategory && s != "" {
		// A category of the organization's glossary: a name its people chose.
		return strings.ReplaceAll(s, "_", " ")
	}
	return fallbackWords(kind)
}

// stringOf returns the text of a string-like value.
func stringOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case tcsv1.Phase:
		return string(x)
	case tcsv1.AIPassStatus:
		return string(x)
	case tcsv1.SourceType:
		return string(x)
	case tcsv1.JobState:
		return string(x)
	case tcsv1.DeliveryState:
		return string(x)
	case correction.Status:
		return string(x)
	case aipass.Verdict:
		return string(x)
	case *string:
		if x != nil {
			return *x
		}
	case interface{ String() string }:
		return x.String()
	}
	return ""
}
