package formats

import (
	"errors"
	"fmt"

	"tcs.dev/tcs/internal/domain/limits"
)

// Limits bounds the cost of Extract: the memory and time one document may take, however it
// is built. A zero field means its default from package limits.
type Limits struct {
	// MaxText is the most bytes of View.Text; the default is limits.MaxRemoteFile.
	MaxText int
	// MaxRuns is the most text runs, VTT copies included; the default is limits.MaxTextRuns.
	MaxRuns int
	// MaxEscapes is the most decoded character references and JSON escapes; the default is
	// limits.MaxEscapes.
	MaxEscapes int
	// MaxTokens is the most HTML tokens or DOCX tags; the default is limits.MaxMarkupTokens.
	MaxTokens int
	// MaxMarkdownTokens is the most lines and inline delimiters of a markdown document; the
	// default is limits.MaxMarkdownTokens.
	MaxMarkdownTokens int
	// MaxMarkdownLinkCost bounds the link openings of a markdown document times the bytes of
	// their paragraphs; the default is limits.MaxMarkdownLinkCost.
	MaxMarkdownLinkCost int
	// MaxDepth is the deepest nesting of JSON values and of markdown containers on a line;
	// the default is limits.MaxNesting.
	MaxDepth int
	// MaxDocxXML is the most bytes word/document.xml may inflate to; the default is
	// limits.MaxDocxXML.
	MaxDocxXML int
	// MaxEntries is the most entries of a DOCX archive; the default is limits.MaxZipEntries.
	MaxEntries int
}

// withDefaults returns l with its zero fields set to their defaults.
func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.MaxText, limits.MaxRemoteFile)
	def(&l.MaxRuns, limits.MaxTextRuns)
	def(&l.MaxEscapes, limits.MaxEscapes)
	def(&l.MaxTokens, limits.MaxMarkupTokens)
	def(&l.MaxMarkdownTokens, limits.MaxMarkdownTokens)
	def(&l.MaxMarkdownLinkCost, limits.MaxMarkdownLinkCost)
	def(&l.MaxDepth, limits.MaxNesting)
	def(&l.MaxDocxXML, limits.MaxDocxXML)
	def(&l.MaxEntries, limits.MaxZipEntries)
	return l
}

// ErrTooLarge is matched (errors.Is) by the errors of Extract for a document beyond its
// Limits.
var ErrTooLarge = errors.New("formats: the document is beyond the limits")

// LimitError says which limit a document went beyond.
type LimitError struct {
	// Format is the format the document was read as.
	Format Format
	// Reason says what went beyond which limit, such as "word/document.xml inflates to more
	// than 5000000 bytes".
	Reason string
}

func (e *LimitError) Error() string { return fmt.Sprintf("formats: %s: %s", e.Format, e.Reason) }

// Is makes a LimitError match ErrTooLarge.
func (e *LimitError) Is(target error) bool { return target == ErrTooLarge }

func tooLarge(f Format, format string, args ...any) *LimitError {
	return &LimitError{Format: f, Reason: fmt.Sprintf(format, args...)}
}
