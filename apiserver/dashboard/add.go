package dashboard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/audit"
	"tcs.dev/tcs/internal/domain/glossary"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/domain/limits"
	"tcs.dev/tcs/internal/domain/transcripts"
	"tcs.dev/tcs/internal/platform/ratelimit"
	"tcs.dev/tcs/internal/platform/sources"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/formats"
	"tcs.dev/tcs/internal/text/pipeline"
)

// Corrector runs the deterministic pass over a pasted document and stores its results, as the
// API's paste does (*pipeline.Processor).
type Corrector interface {
	CorrectWithin(content []byte, format formats.Format, opts correction.Options, lim formats.Limits) (*pipeline.Result, error)
	Save(ctx context.Context, keys pipeline.Keys, input []byte, res *pipeline.Result) error
}

// Files stores the file of an upload where its ingest job reads it (the object store).
type Files interface {
	Put(ctx context.Context, key string, data []byte, contentType string) error
}

// AddOptions is what adding a transcript from the dashboard needs beyond Options.Transcripts.
type AddOptions struct {
	// Corrector corrects a paste at once; nil refuses pastes.
	Corrector Corrector
	// Files stores uploaded files; nil refuses uploads.
	Files Files
	// OutboundAllow lists the private networks url sources may reach (the API's allow-list).
	OutboundAllow []netip.Prefix
	// Resolver, when set, looks up the host of a url source before it is queued, as the API does.
	Resolver *net.Resolver
	// AIPass says that the service has an AI provider: the form offers the AI check.
	AIPass bool
	// Glossaries gives a paste the organization's compiled glossary, as the API's paste pass
	// has it; nil corrects pastes without the glossary.
	Glossaries *glossary.Compiler
}

// addPath is the path, below an organization, of the form that adds a transcript.
const addPath = "/transcripts/new"

// maxAddBody bounds the body of the add form: a paste and a file at their limits, and the
// rest of the form.
const maxAddBody = limits.MaxPasteContent + limits.MaxRemoteFile + maxForm

// bodyLimit returns the largest body a request to path may send.
func bodyLimit(p string) int64 {
	if strings.HasPrefix(p, Prefix+"o/") && strings.HasSuffix(p, addPath) {
		return maxAddBody
	}
	if strings.HasPrefix(p, Prefix+"o/") && strings.HasSuffix(p, glossaryImportPath) {
		return maxGlossaryImportBody
	}
	return maxForm
}

// uploadGrantFor is how long the upload grant the dashboard makes for a file it stores is
// valid: it is confirmed in the same request.
const uploadGrantFor = 10 * time.Minute

// The kinds of source the form offers, by the value of its source field.
const (
	sourcePaste   = "paste"
	sourceFile    = "file"
	sourceURL     = "url"
	sourceYouTube = "youtube"
)

// category is a kind of name the engine corrects, as the form offers it.
type category struct {
	Value, Label string
	// Default says whether the engine corrects it when no category is chosen.
	Default bool
}

// categories are the categories the form offers, in its order.
var categories = []category{
	{"bible", "Bible books and references", true},
	{"place", "Places", true},
	{"person", "Biblical people", false},
}

// addData is the add form's.
type addData struct {
	AIPass     bool
	Formats    []formatChoice
	Categories []category
	// MaxFileBytes is the limit of a file, MaxFile the same in words.
	MaxFileBytes int
	MaxFile      string
}

// formatChoice is a format of the form's list.
type formatChoice struct{ Value, Label string }

var formatLabels = map[formats.Format]string{formats.TXT: "Plain text", formats.SRT: "Captions (SRT)", formats.VTT: "Captions (WebVTT)",
	formats.Markdown: "Markdown", formats.HTML: "Web page (HTML)", formats.JSON: "JSON", formats.DOCX: "Word document (DOCX)"}

func (d *Dashboard) addPageWith(w http.ResponseWriter, r *http.Request, v *view, status int) {
	data := &addData{AIPass: d.o.Add.AIPass, Categories: categories, MaxFileBytes: limits.MaxRemoteFile, MaxFile: sizeWords(limits.MaxRemoteFile)}
	for _, f := range transcripts.FileFormats() {
		data.Formats = append(data.Formats, formatChoice{string(f), formatLabels[f]})
	}
	if v.Form == nil {
		v.Form = url.Values{"source": {sourcePaste}, "category": {"bible", "place"}}
	}
	v.Title, v.Data = "Add a transcript", data
	d.render(w, r, status, "add", v)
}

func (d *Dashboard) addPage(w http.ResponseWriter, r *http.Request, v *view) {
	d.addPageWith(w, r, v, http.StatusOK)
}

// addRequest is a validated add form.
type addRequest struct {
	source   string
	title    string
	content  string
	format   formats.Format
	url      string
	file     []byte
	filename string
	options  tcsv1.TranscriptOptions
}

// fieldError is a refused field of the add form.
type fieldError struct{ field, message string }

func (e *fieldError) Error() string { return e.field + ": " + e.message }

// parseAdd validates the add form of r.
func (d *Dashboard) parseAdd(r *http.Request) (*addRequest, error) {
	req := &addRequest{source: r.PostFormValue("source")}
	title := strings.TrimSpace(r.PostFormValue("title"))
	if len(title) > limits.MaxTitle {
		return nil, &fieldError{"title", fmt.Sprintf("The title is longer than %d characters; shorten it.", limits.MaxTitle)}
	}
	req.title = title
	if f := r.PostFormValue("format"); f != "" {
		allowed := transcripts.FileFormats()
		if req.source == sourcePaste {
			allowed = transcripts.PasteFormats()
		}
		if !slices.Contains(allowed, formats.Format(f)) {
			return nil, &fieldError{"format", "Choose one of the formats of the list."}
		}
		req.format = formats.Format(f)
	}
	switch req.source {
	case sourcePaste:
		req.content = r.PostFormValue("content")
		switch {
		case strings.TrimSpace(req.content) == "":
			return nil, &fieldError{"content", "Paste the text of the transcript."}
		case len(req.content) > limits.MaxPasteContent:
			return nil, &fieldError{"content", fmt.Sprintf("The text is %s; the most that can be pasted is %s. Upload it as a file instead.", sizeWords(len(req.content)), sizeWords(limits.MaxPasteContent))}
		}
	case sourceFile:
		if err := req.readFile(r); err != nil {
			return nil, err
		}
	case sourceURL:
		req.url = strings.TrimSpace(r.PostFormValue("url"))
		if err := d.checkURL(r.Context(), req.url); err != nil {
			return nil, err
		}
		if req.format == "" {
			u, _ := url.Parse(req.url)
			req.format = formats.ByFilename(u.Path)
		}
		if req.format == "" {
			return nil, &fieldError{"format", "The address does not end in a file name such as sermon.srt: choose the file's format."}
		}
	case sourceYouTube:
		req.url = strings.TrimSpace(r.PostFormValue("youtube"))
		if req.url == "" {
			return nil, &fieldError{"youtube", "Paste the link of the YouTube video."}
		}
		if len(req.url) > limits.MaxURL {
			return nil, &fieldError{"youtube", fmt.Sprintf("The link is longer than %d characters.", limits.MaxURL)}
		}
		if _, err := sources.ParseYouTubeURL(req.url); err != nil {
			return nil, &fieldError{"youtube", sourceMessage(err)}
		}
		req.format = formats.VTT
	default:
		return nil, &fieldError{"source", "Choose where the transcript comes from."}
	}
	opts, err := d.addOptions(r)
	if err != nil {
		return nil, err
	}
	req.options = opts
	return req, nil
}

// readFile reads the uploaded file of the form, within the API's limits of an upload.
func (req *addRequest) readFile(r *http.Request) error {
	f, h, err := r.FormFile("file")
	switch {
	case errors.Is(err, http.ErrMissingFile):
		return &fieldError{"file", "Choose a file to upload."}
	case err != nil:
		return &fieldError{"file", "The file could not be read; choose it again."}
	}
	defer func(f multipart.File) { _ = f.Close() }(f)
	name := path.Base(strings.ReplaceAll(h.Filename, "\\", "/"))
	if name == "." || name == "/" || len(name) > limits.MaxFilename || strings.ContainsRune(name, 0) || !utf8.ValidString(name) {
		return &fieldError{"file", fmt.Sprintf("The file's name must be at most %d characters; rename it.", limits.MaxFilename)}
	}
	data, err := io.ReadAll(io.LimitReader(f, limits.MaxRemoteFile+1))
	if err != nil {
		return &fieldError{"file", "The file could not be read; choose it again."}
	}
	if len(data) > limits.MaxRemoteFile {
		return &fieldError{"file", fmt.Sprintf("The file is larger than %s, the most that can be uploaded.", sizeWords(limits.MaxRemoteFile))}
	}
	if len(data) == 0 {
		return &fieldError{"file", "The file is empty."}
	}
	if req.format == "" {
		req.format = formats.ByFilename(name)
	}
	req.file, req.filename = data, name
	return nil
}

// checkURL applies the API's checks of a url source to raw.
func (d *Dashboard) checkURL(ctx context.Context, raw string) error {
	switch {
	case raw == "":
		return &fieldError{"url", "Type the web address of the transcript file."}
	case len(raw) > limits.MaxURL:
		return &fieldError{"url", fmt.Sprintf("The address is longer than %d characters.", limits.MaxURL)}
	}
	if err := sources.CheckURL(raw, d.o.Add.OutboundAllow); err != nil {
		return &fieldError{"url", sourceMessage(err)}
	}
	if d.o.Add.Resolver != nil {
		if err := sources.CheckHost(ctx, d.o.Add.Resolver, raw); err != nil {
			return &fieldError{"url", sourceMessage(err)}
		}
	}
	return nil
}

// sourceMessage is the message of a refused source address.
func sourceMessage(err error) string {
	var ue *sources.UserError
	if errors.As(err, &ue) {
		return ue.Message
	}
	return err.Error()
}

// addOptions reads the options of the form.
func (d *Dashboard) addOptions(r *http.Request) (tcsv1.TranscriptOptions, error) {
	var o tcsv1.TranscriptOptions
	o.NormalizeReferences = r.PostFormValue("normalize_references") == "on"
	if d.o.Add.AIPass {
		o.AIPass.Enabled = r.PostFormValue("ai_pass") == "on"
	}
	chosen := r.PostForm["category"]
	var picked []string
	same := true
	for _, c := range categories {
		on := slices.Contains(chosen, c.Value)
		if on {
			picked = append(picked, c.Value)
		}
		same = same && on == c.Default
	}
	switch {
	case len(picked) == 0:
		return o, &fieldError{"category", "Choose at least one kind of name to correct."}
	case !same:
		// The engine's own choice, which the organization's glossary joins, is left unset.
		o.Categories = picked
	}
	return o, nil
}

// allowAdd counts a transcript added by v's organization from the dashboard, at most
// limits.CreatePerMinute a minute as the API allows a key.
func (d *Dashboard) allowAdd(w http.ResponseWriter, r *http.Request, v *view) bool {
	limit := ratelimit.PerMinute(limits.CreatePerMinute)
	res, err := d.o.Limiter.Allow(r.Context(), v.Org.OrganizationID+":dashboard_add", limit)
	if err != nil {
		d.o.Log.Error(err, "rate limiter unavailable; transcript added without counting", "organization", v.Org.OrganizationID)
		return true
	}
	res.Headers(w.Header())
	if !res.Allowed {
		d.fail(w, r, http.StatusTooManyRequests, fmt.Sprintf("This organization added %d transcripts in the last minute, the most allowed; try again in %d seconds.", limit.Rate, res.RetryAfterSeconds()))
		return false
	}
	return true
}

func (d *Dashboard) add(w http.ResponseWriter, r *http.Request, v *view) {
	req, err := d.parseAdd(r)
	var fe *fieldError
	if errors.As(err, &fe) {
		d.refuseAdd(w, r, v, fe)
		return
	}
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	if !d.allowAdd(w, r, v) {
		return
	}
	t, err := d.create(r.Context(), v.Org.OrganizationID, req)
	if errors.As(err, &fe) {
		d.refuseAdd(w, r, v, fe)
		return
	}
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	d.auditf(r.Context(), v.Org.OrganizationID, v.Session.Email, audit.TranscriptAdded, "%s added transcript %s (%s, %q)", v.Session.Email, t.Spec.ID, t.Spec.Source.Type, displayName(t))
	msg := "Transcript added. It is being corrected; this page shows its progress."
	if t.Status.Phase == tcsv1.PhaseCompleted {
		msg = "Transcript added and corrected."
	}
	d.redirect(w, r, v, "/transcripts/"+t.Spec.ID, msg)
}

// refuseAdd shows the add form again with fe next to its field. The file of a refused upload
// is not kept: the browser asks for it again.
func (d *Dashboard) refuseAdd(w http.ResponseWriter, r *http.Request, v *view, fe *fieldError) {
	v.Errors, v.Form = map[string]string{fe.field: fe.message}, r.PostForm
	d.addPageWith(w, r, v, http.StatusBadRequest)
}

// pasteOptions returns the options of the deterministic pass of a paste of org: the
// transcript's options and the organization's compiled glossary.
func (d *Dashboard) pasteOptions(ctx context.Context, org string, o tcsv1.TranscriptOptions) (correction.Options, error) {
	opts := pipeline.CorrectionOptions(o)
	if d.o.Add.Glossaries == nil {
		return opts, nil
	}
	g, err := d.o.Add.Glossaries.Compiled(ctx, org)
	var invalid *glossary.InvalidError
	switch {
	case errors.As(err, &invalid):
		return opts, &fieldError{"source", "The organization's glossary cannot be used as it is (" + invalid.Err.Error() + "): fix it on the Glossary page, then add the transcript again."}
	case err != nil:
		return opts, fmt.Errorf("reading the glossary of %s: %w", org, err)
	}
	opts.Glossary = g
	return opts, nil
}

// create makes the transcript of req for org through the service's methods of the API's
// create and upload paths: a paste is corrected and completed at once, a web address or a
// YouTube link queued for its fetch, a file stored and confirmed as an upload.
func (d *Dashboard) create(ctx context.Context, org string, req *addRequest) (*tcsv1.Transcript, error) {
	now := metav1.NewTime(d.o.Clock.Now())
	id := ids.NewSortable("tr", now.Time)
	switch req.source {
	case sourcePaste:
		if d.o.Add.Corrector == nil {
			return nil, &fieldError{"source", "Pasting is not available on this server; upload a file instead."}
		}
		input := []byte(req.content)
		copts, err := d.pasteOptions(ctx, org, req.options)
		if err != nil {
			return nil, err
		}
		res, err := d.o.Add.Corrector.CorrectWithin(input, req.format, copts, formats.Limits{MaxText: limits.MaxPasteContent})
		var ce *pipeline.ContentError
		if errors.As(err, &ce) {
			return nil, &fieldError{"content", "The text could not be read as " + formatName(ce.Format) + ": " + ce.Error() + ". Choose another format, or Detect automatically."}
		}
		if err != nil {
			return nil, fmt.Errorf("correcting a paste: %w", err)
		}
		if err := d.o.Add.Corrector.Save(ctx, pipeline.KeysFor(org, id), input, res); err != nil {
			return nil, fmt.Errorf("storing paste %s: %w", id, err)
		}
		t, err := d.o.Transcripts.Make(ctx, org, transcripts.Draft{ID: id, Options: req.options,
			Source: tcsv1.TranscriptSource{Type: tcsv1.SourcePaste, Format: string(req.format), Title: req.title}})
		if err != nil {
			return nil, fmt.Errorf("creating transcript %s: %w", id, err)
		}
		if _, err := d.o.Transcripts.Complete(ctx, org, t, res, now); err != nil {
			// The resource exists and the reconciler completes it from the stored input.
			return nil, fmt.Errorf("completing transcript %s: %w", id, err)
		}
		return t, nil
	case sourceURL, sourceYouTube:
		typ := tcsv1.SourceURL
		if req.source == sourceYouTube {
			typ = tcsv1.SourceYouTube
		}
		t, err := d.o.Transcripts.Make(ctx, org, transcripts.Draft{ID: id, Options: req.options,
			Source: tcsv1.TranscriptSource{Type: typ, URL: req.url, Format: string(req.format), Title: req.title}})
		if err != nil {
			return nil, fmt.Errorf("creating transcript %s: %w", id, err)
		}
		if err := d.o.Transcripts.Queue(ctx, org, t, "", now); err != nil {
			return nil, fmt.Errorf("queueing transcript %s: %w", id, err)
		}
		return t, nil
	case sourceFile:
		return d.upload(ctx, org, id, req, now)
	}
	return nil, fmt.Errorf("adding a transcript: source %q", req.source)
}

// upload makes an upload grant of req's file, stores the file where the grant says and
// confirms it, as an API client does in three requests.
func (d *Dashboard) upload(ctx context.Context, org, id string, req *addRequest, now metav1.Time) (*tcsv1.Transcript, error) {
	if d.o.Add.Files == nil {
		return nil, &fieldError{"source", "Uploading is not available on this server; paste the text instead."}
	}
	title := req.title
	if title == "" {
		// The file's name stands for the title it was not given.
		title = strings.TrimSpace(strings.TrimSuffix(req.filename, path.Ext(req.filename)))
	}
	expires := metav1.NewTime(now.Add(uploadGrantFor).Truncate(time.Second))
	grant, err := d.o.Transcripts.Make(ctx, org, transcripts.Draft{ID: id, Options: req.options,
		Source: tcsv1.TranscriptSource{Type: tcsv1.SourceUpload, Format: string(req.format), Title: title, Filename: req.filename, UploadExpiresAt: &expires}})
	if err != nil {
		return nil, fmt.Errorf("creating the upload grant %s: %w", id, err)
	}
	contentType := "application/octet-stream"
	if req.format == formats.DOCX {
		contentType = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
	}
	if err := d.o.Add.Files.Put(ctx, grant.Spec.Source.InputRef, req.file, contentType); err != nil {
		return nil, fmt.Errorf("storing the file of upload %s: %w", id, err)
	}
	t, err := d.o.Transcripts.ConfirmUpload(ctx, org, id, transcripts.Confirmation{Options: req.options, Now: now})
	var (
		pe *transcripts.ParamError
		ce *transcripts.ConflictError
		ue *transcripts.UnprocessableError
	)
	switch {
	case errors.As(err, &pe):
		return nil, &fieldError{"file", pe.Message}
	case errors.As(err, &ce):
		return nil, &fieldError{"file", ce.Message}
	case errors.As(err, &ue):
		return nil, &fieldError{"file", ue.Message}
	case err != nil:
		return nil, fmt.Errorf("confirming upload %s: %w", id, err)
	}
	return t, nil
}

// formatName is a format in the form's words.
func formatName(f formats.Format) string {
	if l, ok := formatLabels[f]; ok {
		return l
	}
	return string(f)
}

// sizeWords is a size in bytes as people say it.
func sizeWords(n int) string {
	if n >= 1_000_000 {
		return fmt.Sprintf("%.1f MB", float64(n)/1_000_000)
	}
	return fmt.Sprintf("%d KB", (n+999)/1000)
}
