package dashboard

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// overviewDays and overviewMax bound what the overview counts: the transcripts added in the
// last overviewDays days of the organization's time zone, at most overviewMax of them.
const (
	overviewDays = 30
	overviewMax  = 1000
)

// overviewData is the overview page's.
type overviewData struct {
	// Days are the days counted, oldest first, with their transcripts by outcome.
	Days []dayCount
	// ByDay is Days drawn as a chart.
	ByDay barChart
	// Categories counts the changes of the transcripts by category, most first.
	Categories barChart
	// Review are the transcripts with suggestions that wait for a person, newest first, and
	// ReviewChanges counts those suggestions.
	Review        []trRow
	ReviewChanges int
	// Failed are the transcripts that failed, newest first; Reasons counts them by reason.
	Failed  []trRow
	Reasons barChart
	Recent  []trRow
	// Total counts the transcripts of the days counted; Truncated says that there were more
	// than overviewMax to read.
	Total     int
	Truncated bool
	// Empty says that the organization has no transcript yet: the page says what to do first.
	Empty bool
}

// dayCount counts the transcripts added on one day by outcome.
type dayCount struct {
	Day                           time.Time
	Completed, Failed, InProgress int
}

// Total counts the day's transcripts.
func (d dayCount) Total() int { return d.Completed + d.Failed + d.InProgress }

// The geometry of the charts, in the units of their viewBox.
const (
	chartWidth  = 480
	chartHeight = 200
	chartTop    = 10
	chartBottom = 24 // the room below the bars for the day labels
	chartLeft   = 28 // the room left of the bars for the scale
	chartRight  = 20 // the room right of the bars, for the label of the last day
	barRowH     = 28 // the height of a row of a horizontal bar chart
	barLabelW   = 170
)

// barChart is a chart drawn as inline SVG: stacked columns (by day) or horizontal bars.
type barChart struct {
	Width, Height int
	// Label is what the chart shows, for assistive technology.
	Label string
	Bars  []bar
	// Ticks are the labelled lines of the scale of a column chart.
	Ticks []tick
	Max   int
}

// bar is a column or a row of a chart: its segments stacked, its label and its total.
type bar struct {
	X, Y, W, H int
	// LabelX is where the label of a column is centred.
	LabelX int
	Label  string
	// Title is the bar in words, shown on hover and read by screen readers.
	Title    string
	Total    int
	Segments []segment
	// ShowLabel is whether the label is drawn (a column chart labels every seventh day).
	ShowLabel bool
}

// segment is one part of a bar, in a class that colours it.
type segment struct {
	X, Y, W, H int
	Class      string
}

type tick struct {
	Y     int
	Value int
}

// niceMax rounds n up to a number the scale of a chart reads well at.
func niceMax(n int) int {
	for _, m := range []int{4, 8, 12, 20, 40, 60, 100, 200, 400, 600, 1000} {
		if n <= m {
			return m
		}
	}
	return overviewMax
}

// dayChart draws days as stacked columns: completed, failed and in progress.
func dayChart(days []dayCount, loc *time.Location) barChart {
	c := barChart{Width: chartWidth, Height: chartHeight, Label: fmt.Sprintf("Transcripts added per day in the last %d days, by outcome", len(days))}
	top := 0
	for _, d := range days {
		top = max(top, d.Total())
	}
	c.Max = niceMax(top)
	plotH := chartHeight - chartTop - chartBottom
	step := (chartWidth - chartLeft - chartRight) / max(len(days), 1)
	for i := 0; i <= 4; i++ {
		v := c.Max * i / 4
		c.Ticks = append(c.Ticks, tick{Y: chartTop + plotH - plotH*v/c.Max, Value: v})
	}
	for i, d := range days {
		x := chartLeft + i*step
		b := bar{X: x, W: step - 2, LabelX: x + (step-2)/2, Label: d.Day.In(loc).Format("2 Jan"), Total: d.Total(), ShowLabel: (len(days)-1-i)%7 == 0,
			Title: fmt.Sprintf("%s: %d ready, %d could not be corrected, %d being corrected", d.Day.In(loc).Format("Mon 2 Jan"), d.Completed, d.Failed, d.InProgress)}
		y := chartTop + plotH
		for _, part := range []struct {
			n     int
			class string
		}{{d.Completed, "c-ok"}, {d.Failed, "c-bad"}, {d.InProgress, "c-busy"}} {
			if part.n == 0 {
				continue
			}
			h := max(plotH*part.n/c.Max, 1)
			y -= h
			b.Segments = append(b.Segments, segment{X: x, Y: y, W: step - 2, H: h, Class: part.class})
		}
		b.Y = y
		c.Bars = append(c.Bars, b)
	}
	return c
}

// rowChart draws counts as horizontal bars, one row each, with its label and count.
func rowChart(label string, rows []labelled, class string) barChart {
	c := barChart{Width: chartWidth, Height: max(len(rows), 1) * barRowH, Label: label}
	top := 0
	for _, r := range rows {
		top = max(top, r.n)
	}
	c.Max = max(top, 1)
	room := chartWidth - barLabelW - 40
	for i, r := range rows {
		w := max(room*r.n/c.Max, 1)
		y := i * barRowH
		c.Bars = append(c.Bars, bar{X: barLabelW, Y: y + 4, W: w, H: barRowH - 8, Label: r.label, Total: r.n, ShowLabel: true,
			Title:    fmt.Sprintf("%s: %d", r.label, r.n),
			Segments: []segment{{X: barLabelW, Y: y + 4, W: w, H: barRowH - 8, Class: class}}})
	}
	return c
}

// labelled is a count with its label.
type labelled struct {
	label string
	n     int
}

// sortedCounts returns the counts of m with their labels (as say words them, kind wordKind),
// most first.
func sortedCounts(m map[string]int, kind string) []labelled {
	out := make([]labelled, 0, len(m))
	for k, n := range m {
		out = append(out, labelled{say(kind, k), n})
	}
	slices.SortFunc(out, func(a, b labelled) int {
		if a.n != b.n {
			return b.n - a.n
		}
		if a.label < b.label {
			return -1
		}
		return 1
	})
	return out
}

// overview shows what happened in the last overviewDays days of the organization's time zone:
// transcripts per day by outcome, changes by category, what waits for review and what failed
// and why.
func (d *Dashboard) overview(w http.ResponseWriter, r *http.Request, v *view) {
	loc := v.Zone
	if loc == nil {
		loc = time.UTC
	}
	now := d.o.Clock.Now().In(loc)
	from := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc).AddDate(0, 0, -(overviewDays - 1))
	data := &overviewData{}
	index := map[string]int{}
	for i := 0; i < overviewDays; i++ {
		day := time.Date(from.Year(), from.Month(), from.Day()+i, 0, 0, 0, 0, loc)
		index[day.Format(time.DateOnly)] = i
		data.Days = append(data.Days, dayCount{Day: day})
	}
	categories, reasons := map[string]int{}, map[string]int{}
	seen := 0
	q := url.Values{"limit": {"100"}, "created[gte]": {from.UTC().Format(time.RFC3339)}}
	for {
		items, hasMore, err := d.listPage(r.Context(), v.Org.OrganizationID, q)
		if err != nil {
			d.readErr(w, r, v, err)
			return
		}
		for _, t := range items {
			if len(data.Recent) < 10 {
				data.Recent = append(data.Recent, t)
			}
			created, err := time.Parse(time.RFC3339, t.CreatedAt)
			if err != nil {
				continue
			}
			i, ok := index[created.In(loc).Format(time.DateOnly)]
			if !ok {
				continue
			}
			data.Total++
			switch t.Status {
			case tcsv1.PhaseCompleted:
				data.Days[i].Completed++
			case tcsv1.PhaseFailed:
				data.Days[i].Failed++
				reason := "server_error"
				if t.Error != nil {
					reason = t.Error.Type
				}
				reasons[reason]++
				if len(data.Failed) < 10 {
					data.Failed = append(data.Failed, t)
				}
			default:
				data.Days[i].InProgress++
			}
			if s := t.ChangesSummary; s != nil {
				for c, n := range s.ByCategory {
					categories[c] += n
				}
				if s.NeedsReview > 0 {
					data.ReviewChanges += s.NeedsReview
					if len(data.Review) < 10 {
						data.Review = append(data.Review, t)
					}
				}
			}
		}
		seen += len(items)
		if !hasMore || len(items) == 0 {
			break
		}
		if seen >= overviewMax {
			data.Truncated = true
			break
		}
		q.Set("starting_after", items[len(items)-1].ID)
	}
	if seen == 0 {
		has, err := d.hasTranscripts(r.Context(), v.Org.OrganizationID)
		if err != nil {
			d.readErr(w, r, v, err)
			return
		}
		data.Empty = !has
	}
	data.ByDay = dayChart(data.Days, loc)
	data.Categories = rowChart("Changes by kind", sortedCounts(categories, wordCategory), "c-ok")
	data.Reasons = rowChart("Transcripts that could not be corrected, by reason", sortedCounts(reasons, wordReason), "c-bad")
	v.Title, v.Data = "Overview", data
	d.render(w, r, http.StatusOK, "overview", v)
}
