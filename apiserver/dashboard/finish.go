package dashboard

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode"

	"github.com/gorilla/mux"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/apiview"
	"tcs.dev/tcs/internal/text/formats"
)

// extensions are the file extensions of the source formats.
var extensions = map[string]string{"txt": "txt", "srt": "srt", "vtt": "vtt", "markdown": "md", "md": "md", "html": "html", "json": "json", "docx": "docx"}

// contentTypes are the types a download of each extension is sent as; HTML as text, so that a
// transcript never runs as a page of the dashboard's origin.
var contentTypes = map[string]string{"txt": "text/plain", "srt": "application/x-subrip", "vtt": "text/vtt", "md": "text/markdown", "html": "text/plain", "json": "application/json",
	"docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document"}

// displayName is what a transcript is called on staff pages: its title; else the name of its
// file, its address or when it was added; never its id alone.
func displayName(t *tcsv1.Transcript) string {
	for _, s := range []string{t.Status.Title, t.Spec.Source.Title, t.Spec.Source.Filename, t.Spec.Source.URL} {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return "Untitled, added " + t.Created().UTC().Format("2 Jan 2006 15:04")
}

// maxFileNameRunes bounds the name part of a downloaded file's name.
const maxFileNameRunes = 80

// fileName returns a safe file name made of title: its letters and digits, with a hyphen for
// each run of anything else but apostrophes (so no path, quote or control character), at most
// maxFileNameRunes of them, "transcript" when nothing is left.
func fileName(title string) string {
	var b strings.Builder
	n, gap := 0, false
	for _, r := range title {
		if n >= maxFileNameRunes {
			break
		}
		if r == '\'' || r == '’' {
			continue // "God's love" is Gods-love, not God-s-love
		}
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			gap = true
			continue
		}
		if gap && b.Len() > 0 {
			b.WriteByte('-')
			n++
		}
		gap = false
		b.WriteRune(r)
		n++
	}
	if b.Len() == 0 {
		return "transcript"
	}
	return b.String()
}

// asciiFileName is name without its non-ASCII characters, for browsers that do not read
// filename*; "transcript" when nothing is left but the extension.
func asciiFileName(name, ext string) string {
	var b strings.Builder
	for _, r := range name {
		if r < unicode.MaxASCII {
			b.WriteRune(r)
		}
	}
	s := strings.Trim(strings.ReplaceAll(b.String(), "--", "-"), "-")
	if s == "" {
		s = "transcript"
	}
	return s + "." + ext
}

// contentDisposition is the Content-Disposition of a download named name.ext (RFC 6266): the
// name in ASCII, and in UTF-8 as filename* when it has other characters.
func contentDisposition(name, ext string) string {
	full, ascii := name+"."+ext, asciiFileName(name, ext)
	v := `attachment; filename="` + ascii + `"`
	if ascii != full {
		// fileName leaves letters, digits and hyphens, which PathEscape writes as RFC 5987's
		// attr-chars or percent-encoded UTF-8.
		v += "; filename*=UTF-8''" + url.PathEscape(full)
	}
	return v
}

// plainText returns the text of content, a document in format: the words people read,
// without timings, markup or cue numbers.
func plainText(content []byte, format string) (string, error) {
	f := formats.Format(format)
	if f == "" || f == formats.TXT {
		return string(content), nil
	}
	view, err := formats.Extract(content, f)
	if err != nil {
		return "", fmt.Errorf("reading the %s content: %w", format, err)
	}
	return view.Text, nil
}

// download sends the corrected file of a completed transcript named after its title: in its
// own format (the API's content, byte for byte; a DOCX as the stored corrected document), or
// with ?as=text as plain text.
func (d *Dashboard) download(w http.ResponseWriter, r *http.Request, v *view) {
	raw, t, err := d.readTranscript(r.Context(), v.Org.OrganizationID, mux.Vars(r)["id"])
	if err != nil {
		d.readErr(w, r, v, err)
		return
	}
	if t.Content == nil {
		v.Title, v.Data = "Not ready", "This transcript is not corrected yet, so there is nothing to download. Try again once it is."
		d.render(w, r, http.StatusConflict, "error", v)
		return
	}
	body := []byte(*t.Content)
	ext := extensions[t.SourceFormat]
	if ext == "" {
		ext = "txt"
	}
	if r.URL.Query().Get("as") == "text" {
		text, err := plainText(body, t.SourceFormat)
		if err != nil {
			d.serverError(w, r, err)
			return
		}
		body, ext = []byte(text), "txt"
	}
	ct := contentTypes[ext]
	if ext != "docx" {
		ct += "; charset=utf-8"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Disposition", contentDisposition(fileName(displayName(raw)), ext))
	_, _ = w.Write(body)
}

// finishData is what the transcript page shows to finish a transcript: its plain text, and
// whether its corrected file is text to show.
type finishData struct {
	Name      string
	PlainText string
	// ShowFile says that the corrected file differs from the plain text and is text (not DOCX).
	ShowFile bool
	// Ext is the extension of the download in its own format.
	Ext string
}

// finishing returns the finishing data of t as the API shows it, with raw its resource.
func finishing(raw *tcsv1.Transcript, t apiview.Transcript) *finishData {
	f := &finishData{Name: displayName(raw), Ext: extensions[t.SourceFormat]}
	if f.Ext == "" {
		f.Ext = "txt"
	}
	if t.Content == nil {
		return f
	}
	text, err := plainText([]byte(*t.Content), t.SourceFormat)
	if err != nil {
		text = ""
	}
	f.PlainText = text
	f.ShowFile = f.Ext != "docx" && f.Ext != "txt"
	return f
}
