package dashboard

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/apiview"
	"tcs.dev/tcs/internal/domain/transcripts"
)

// trRow is a transcript of a list, as the API's list shows it, with the name staff know it
// by and the number of its suggestions waiting for a decision.
type trRow struct {
	apiview.Transcript
	Name        string
	NeedsReview int
}

// newRow returns the list row of t.
func newRow(t *tcsv1.Transcript) trRow {
	row := trRow{Transcript: apiview.NewTranscript(t, nil), Name: displayName(t)}
	row.NeedsReview = needsReview(t)
	return row
}

// needsReview returns the number of suggestions of t that wait for a person's decision (the
// review's undecided ones once someone decided, else the pass's suggestions).
func needsReview(t *tcsv1.Transcript) int { return t.Undecided() }

// The bounds of a search of the list: a query of at most maxSearch bytes, over at most
// maxScan transcripts a page, read from the service maxScanPage at a time.
const (
	maxSearch   = 200
	maxScan     = 1000
	maxScanPage = 100
)

// dateInputLayout is the value of an <input type="date">.
const dateInputLayout = "2006-01-02"

// transcriptsData is the transcript list page's.
type transcriptsData struct {
	Items []trRow
	Next  string
	Prev  string
	// Newest is the first page of a search that is showing a later one.
	Newest string
	// Filtered says that a filter or a search is set; Empty that the organization has no
	// transcript at all.
	Filtered, Empty bool
	// Scanned is how many transcripts a search read; Capped that it stopped at maxScan.
	Scanned int
	Capped  bool
	// Review counts the transcripts that need review, ReviewMore that there may be more.
	Review     int
	ReviewMore bool
}

// listQuery is a list page's query: the API's list parameters and the page's own.
type listQuery struct {
	api    url.Values
	search string
	review bool
	// page is what the page's links carry: its filters, without cursors.
	page url.Values
}

// parseList reads the list page's query q: status, source_type, from and to (dates, or the
// API's created[gte] and created[lte]), q (a title search), review, limit and the cursors. A
// refused value is a *fieldError.
func parseList(q url.Values) (*listQuery, error) {
	lq := &listQuery{api: url.Values{}, page: url.Values{}}
	get := func(k string) string { return strings.TrimSpace(q.Get(k)) }
	for _, p := range []string{"status", "source_type", "limit", "created[gte]", "created[lte]"} {
		if v := get(p); v != "" {
			lq.api.Set(p, v)
			lq.page.Set(p, v)
		}
	}
	var from, to time.Time
	for _, f := range []struct {
		field, param, clock string
		at                  *time.Time
	}{{"from", "created[gte]", "T00:00:00Z", &from}, {"to", "created[lte]", "T23:59:59Z", &to}} {
		v := get(f.field)
		if v == "" {
			continue
		}
		day, err := time.Parse(dateInputLayout, v)
		if err != nil {
			return lq, &fieldError{f.field, "Choose a date from the calendar, such as 2026-11-23."}
		}
		*f.at = day
		lq.api.Set(f.param, v+f.clock)
		lq.page.Set(f.field, v)
	}
	if !from.IsZero() && !to.IsZero() && to.Before(from) {
		return lq, &fieldError{"to", "The end date is before the start date."}
	}
	if s := get("q"); s != "" {
		if len(s) > maxSearch {
			return lq, &fieldError{"q", "Search for at most 200 characters of a title."}
		}
		lq.search = strings.ToLower(s)
		lq.page.Set("q", s)
	}
	if get("review") != "" {
		lq.review = true
		lq.page.Set("review", "1")
		if st := lq.api.Get("status"); st == "" {
			lq.api.Set("status", string(tcsv1.PhaseCompleted))
		}
	}
	if lq.api.Get("limit") == "" {
		lq.api.Set("limit", "20")
	}
	for _, p := range []string{"starting_after", "ending_before"} {
		if v := get(p); v != "" {
			lq.api.Set(p, v)
		}
	}
	return lq, nil
}

// match reports whether row is one the page's search and review filter select.
func (lq *listQuery) match(row trRow) bool {
	if lq.review && row.NeedsReview == 0 {
		return false
	}
	return lq.search == "" || strings.Contains(strings.ToLower(row.Name), lq.search)
}

// filtered reports whether the page selects on anything.
func (lq *listQuery) filtered() bool {
	for _, k := range []string{"status", "source_type", "created[gte]", "created[lte]", "from", "to", "q", "review"} {
		if lq.page.Get(k) != "" {
			return true
		}
	}
	return false
}

// listField is the form field of a list parameter the service refused.
func listField(param string) string {
	switch param {
	case "created[gte]":
		return "from"
	case "created[lte]":
		return "to"
	}
	return param
}

func (d *Dashboard) transcripts(w http.ResponseWriter, r *http.Request, v *view) {
	v.Title = "Transcripts"
	lq, err := parseList(r.URL.Query())
	v.Form = cloneValues(lq.page)
	v.Form.Set("limit", lq.api.Get("limit"))
	data := &transcriptsData{Filtered: lq.filtered()}
	v.Data = data
	var fe *fieldError
	if errors.As(err, &fe) {
		v.Errors = map[string]string{fe.field: fe.message}
		d.render(w, r, http.StatusBadRequest, "transcripts", v)
		return
	}
	ctx, org := r.Context(), v.Org.OrganizationID
	if lq.search != "" || lq.review {
		err = d.searchPage(ctx, org, lq, data)
	} else {
		err = d.plainPage(ctx, org, lq, data)
	}
	var pe *transcripts.ParamError
	if errors.As(err, &pe) {
		// The service's message goes next to the field it names; nothing is listed.
		v.Errors = map[string]string{listField(pe.Param): pe.Message}
		data.Items = nil
		d.render(w, r, http.StatusBadRequest, "transcripts", v)
		return
	}
	if err != nil {
		d.readErr(w, r, v, err)
		return
	}
	if data.Review, data.ReviewMore, err = d.countReview(ctx, org); err != nil {
		d.readErr(w, r, v, err)
		return
	}
	data.Empty = len(data.Items) == 0 && !data.Filtered && lq.api.Get("starting_after") == "" && lq.api.Get("ending_before") == ""
	d.render(w, r, http.StatusOK, "transcripts", v)
}

// plainPage fills data with the page of the service's list that lq selects, with links to
// the pages either side.
func (d *Dashboard) plainPage(ctx context.Context, org string, lq *listQuery, data *transcriptsData) error {
	items, hasMore, err := d.listPage(ctx, org, lq.api)
	if err != nil {
		return err
	}
	data.Items = items
	n := len(items)
	if n == 0 {
		return nil
	}
	base := cloneValues(lq.page)
	base.Set("limit", lq.api.Get("limit"))
	backwards := lq.api.Get("ending_before") != ""
	if hasMore || backwards {
		nq := cloneValues(base)
		nq.Set("starting_after", items[n-1].ID)
		data.Next = "?" + nq.Encode()
	}
	if lq.api.Get("starting_after") != "" || (backwards && hasMore) {
		pq := cloneValues(base)
		pq.Set("ending_before", items[0].ID)
		data.Prev = "?" + pq.Encode()
	}
	return nil
}

// searchPage fills data with the transcripts that match lq's search and review filter, read
// from the service's list (with lq's other filters) newest first, from lq's cursor on: at most
// a page of them, over at most maxScan transcripts. The next page starts after the last one
// read.
func (d *Dashboard) searchPage(ctx context.Context, org string, lq *listQuery, data *transcriptsData) error {
	limit, _ := strconv.Atoi(lq.api.Get("limit"))
	q := cloneValues(lq.api)
	q.Del("ending_before")
	q.Set("limit", strconv.Itoa(maxScanPage))
	last := ""
	for {
		items, hasMore, err := d.listPage(ctx, org, q)
		if err != nil {
			return err
		}
		for _, row := range items {
			data.Scanned++
			last = row.ID
			if lq.match(row) {
				data.Items = append(data.Items, row)
			}
			if len(data.Items) == limit || data.Scanned >= maxScan {
				break
			}
		}
		if len(items) == 0 || !hasMore && last == items[len(items)-1].ID {
			break // the list ends here
		}
		if len(data.Items) == limit || data.Scanned >= maxScan {
			data.Capped = len(data.Items) < limit
			nq := cloneValues(lq.page)
			nq.Set("limit", strconv.Itoa(limit))
			nq.Set("starting_after", last)
			data.Next = "?" + nq.Encode()
			break
		}
		q.Set("starting_after", last)
	}
	if lq.api.Get("starting_after") != "" {
		nq := cloneValues(lq.page)
		nq.Set("limit", strconv.Itoa(limit))
		data.Newest = "?" + nq.Encode()
	}
	return nil
}

// countReview counts the organization's transcripts that need review, over its newest
// maxScan completed ones; more says that there are older ones it did not read.
func (d *Dashboard) countReview(ctx context.Context, org string) (n int, more bool, err error) {
	q := url.Values{"status": {string(tcsv1.PhaseCompleted)}, "limit": {strconv.Itoa(maxScanPage)}}
	for seen := 0; ; {
		items, hasMore, err := d.listPage(ctx, org, q)
		if err != nil {
			return 0, false, err
		}
		for _, row := range items {
			if row.NeedsReview > 0 {
				n++
			}
		}
		seen += len(items)
		if !hasMore || len(items) == 0 {
			return n, false, nil
		}
		if seen >= maxScan {
			return n, true, nil
		}
		q.Set("starting_after", items[len(items)-1].ID)
	}
}

// hasTranscripts reports whether the organization has any transcript.
func (d *Dashboard) hasTranscripts(ctx context.Context, org string) (bool, error) {
	items, _, err := d.listPage(ctx, org, url.Values{"limit": {"1"}})
	return len(items) > 0, err
}

func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}
