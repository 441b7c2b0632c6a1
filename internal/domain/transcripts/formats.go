package transcripts

import "tcs.dev/tcs/internal/text/formats"

// PasteFormats returns the source formats a paste may be read as.
func PasteFormats() []formats.Format {
	return []formats.Format{formats.TXT, formats.SRT, formats.VTT, formats.Markdown, formats.HTML, formats.JSON}
}

// FileFormats returns the source formats of a file, fetched from a url source or uploaded: a
// paste's and DOCX.
func FileFormats() []formats.Format {
	return append(PasteFormats(), formats.DOCX)
}
