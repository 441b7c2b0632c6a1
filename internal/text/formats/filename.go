package formats

import (
	"path"
	"strings"
)

// ByFilename returns the format a file name's extension names, or "" when it names none (the
// content is then sniffed).
func ByFilename(name string) Format {
	switch strings.ToLower(path.Ext(name)) {
	case ".txt", ".text":
		return TXT
	case ".srt":
		return SRT
	case ".vtt":
		return VTT
	case ".md", ".markdown":
		return Markdown
	case ".html", ".htm":
		return HTML
	case ".json", ".json3":
		return JSON
	case ".docx":
		return DOCX
	}
	return ""
}
