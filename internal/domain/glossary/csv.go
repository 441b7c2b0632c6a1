package glossary

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// The CSV format of a glossary: a header line, then one entry a line.
const (
	// CSVHeader names the columns, in their order.
	CSVHeader = "term,forms,sounds_like,auto,category"
	// MaxCSVBytes bounds an imported file: twice the serialized glossary it may hold.
	MaxCSVBytes = 2 * tcsv1.MaxGlossaryBytes
	// formSeparator parts the forms of the forms column.
	formSeparator = "|"
)

// csvColumns are the columns of CSVHeader.
var csvColumns = strings.Split(CSVHeader, ",")

// CSVError is a CSV file refused: Line and Column (both from 1) say where, Name names the
// column ("forms"), when known.
type CSVError struct {
	Line, Column int
	Name         string
	Message      string
}

func (e *CSVError) Error() string {
	switch {
	case e.Column == 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Message)
	case e.Name == "":
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Message)
	}
	return fmt.Sprintf("line %d, column %d (%s): %s", e.Line, e.Column, e.Name, e.Message)
}

// A spreadsheet reads a cell that begins with one of formulaStarts as a formula. WriteCSV
// writes such a cell after an apostrophe, which the spreadsheet shows as text, and ReadCSV
// takes it away; a cell that begins with an apostrophe followed by one of formulaStarts or
// another apostrophe gets one more, so that ReadCSV gives back every cell as it was.
const formulaStarts = "=+-@\t\r"

// escapeCell returns s as WriteCSV writes it.
func escapeCell(s string) string {
	if s != "" && (strings.IndexByte(formulaStarts, s[0]) >= 0 || escaped(s)) {
		return "'" + s
	}
	return s
}

// escaped reports whether s is a cell escapeCell escaped.
func escaped(s string) bool {
	return len(s) > 1 && s[0] == '\'' && (s[1] == '\'' || strings.IndexByte(formulaStarts, s[1]) >= 0)
}

// unescapeCell returns the cell s of a file as ReadCSV reads it.
func unescapeCell(s string) string {
	if escaped(s) {
		return s[1:]
	}
	return s
}

// WriteCSV writes entries in the CSV format, formulas escaped (see ReadCSV).
func WriteCSV(w io.Writer, entries []tcsv1.GlossaryEntry) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvColumns); err != nil {
		return fmt.Errorf("writing the glossary as CSV: %w", err)
	}
	for _, e := range entries {
		row := []string{e.Term, strings.Join(e.Forms, formSeparator), strconv.FormatBool(e.SoundsLike), strconv.FormatBool(e.Auto), e.Category}
		for i := range row {
			row[i] = escapeCell(row[i])
		}
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("writing the glossary as CSV: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("writing the glossary as CSV: %w", err)
	}
	return nil
}

// csvPos is where an entry's cells begin in a file.
type csvPos [5]struct{ line, column int }

// ReadCSV reads entries in the CSV format: the header line CSVHeader (a UTF-8 byte-order mark
// before it is skipped), then one entry a line; forms parted by "|"; sounds_like and auto
// true, false (also 1, 0, yes, no in any case) or empty for false. A cell that WriteCSV
// escaped as a formula is read as it was. At most MaxCSVBytes are read. Its error is a
// *CSVError naming the line and column.
func ReadCSV(r io.Reader) ([]Input, error) {
	ins, _, err := readCSV(r)
	return ins, err
}

func readCSV(r io.Reader) ([]Input, []csvPos, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxCSVBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("reading the CSV file: %w", err)
	}
	if len(data) > MaxCSVBytes {
		return nil, nil, &CSVError{Line: 1, Message: fmt.Sprintf("the file is larger than %d bytes (%d KiB)", MaxCSVBytes, MaxCSVBytes>>10)}
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = len(csvColumns)
	cr.ReuseRecord = true
	header, err := cr.Read()
	switch {
	case errors.Is(err, io.EOF):
		return nil, nil, &CSVError{Line: 1, Message: "the file is empty; its first line must be " + CSVHeader}
	case err != nil:
		return nil, nil, csvParseError(err)
	}
	for i, name := range csvColumns {
		if got := strings.ToLower(strings.TrimSpace(header[i])); got != name {
			return nil, nil, &CSVError{Line: 1, Column: i + 1, Message: fmt.Sprintf("the header is %q, want %q: the first line must be %s", got, name, CSVHeader)}
		}
	}
	var (
		ins []Input
		pos []csvPos
	)
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return ins, pos, nil
		}
		if err != nil {
			return nil, nil, csvParseError(err)
		}
		var p csvPos
		for i := range p {
			p[i].line, p[i].column = cr.FieldPos(i)
		}
		if len(ins) == tcsv1.MaxGlossaryEntries {
			return nil, nil, &CSVError{Line: p[0].line, Message: fmt.Sprintf("a glossary holds at most %d entries", tcsv1.MaxGlossaryEntries)}
		}
		in := Input{Term: unescapeCell(row[0]), Category: unescapeCell(row[4])}
		if forms := unescapeCell(row[1]); forms != "" {
			in.Forms = strings.Split(forms, formSeparator)
		}
		for i, b := range []*bool{&in.SoundsLike, &in.Auto} {
			v, ok := parseBool(unescapeCell(row[2+i]))
			if !ok {
				return nil, nil, &CSVError{Line: p[2+i].line, Column: 3 + i, Name: csvColumns[2+i], Message: fmt.Sprintf("%q is not true or false", row[2+i])}
			}
			*b = v
		}
		ins, pos = append(ins, in), append(pos, p)
	}
}

// parseBool reads a boolean cell.
func parseBool(s string) (v, ok bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "false", "0", "no", "n", "f":
		return false, true
	case "true", "1", "yes", "y", "t":
		return true, true
	}
	return false, false
}

// csvParseError returns err of encoding/csv as a *CSVError.
func csvParseError(err error) error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return fmt.Errorf("reading the CSV file: %w", err)
	}
	msg := pe.Err.Error()
	if errors.Is(pe.Err, csv.ErrFieldCount) {
		msg = fmt.Sprintf("wrong number of cells: each line has the %d of %s", len(csvColumns), CSVHeader)
	}
	return &CSVError{Line: pe.Line, Column: pe.Column, Message: msg}
}

// csvField matches the field of a *FieldError of Validate for an entry: entries[3].forms[1].
var csvField = regexp.MustCompile(`^entries\[(\d+)\]\.([a-z_]+)(?:\[(\d+)\])?$`)

// csvFieldError returns a *FieldError of Validate for entries read by readCSV at pos as a
// *CSVError naming the line and column of the cell at fault.
func csvFieldError(err error, pos []csvPos) error {
	var fe *FieldError
	if !errors.As(err, &fe) {
		return err
	}
	m := csvField.FindStringSubmatch(fe.Field)
	if m == nil {
		return err
	}
	i, err2 := strconv.Atoi(m[1])
	if err2 != nil || i >= len(pos) {
		return err
	}
	col := map[string]int{"term": 0, "forms": 1, "sounds_like": 2, "auto": 3, "category": 4}[m[2]]
	msg := fe.Message
	if m[3] != "" {
		k, _ := strconv.Atoi(m[3])
		msg = fmt.Sprintf("form %d: %s", k+1, msg)
	}
	// Other entries named in the message are named by their lines.
	msg = entryField.ReplaceAllStringFunc(msg, func(s string) string {
		sm := entryField.FindStringSubmatch(s)
		n, err := strconv.Atoi(sm[1])
		if err != nil || n >= len(pos) {
			return s
		}
		if sm[2] != "" {
			return fmt.Sprintf("the %s on line %d", sm[2], pos[n][0].line)
		}
		return fmt.Sprintf("line %d", pos[n][0].line)
	})
	return &CSVError{Line: pos[i][col].line, Column: col + 1, Name: csvColumns[col], Message: msg}
}

// Export writes org's glossary in the CSV format (see WriteCSV).
func (m *Manager) Export(ctx context.Context, org string, w io.Writer) error {
	g, err := m.Get(ctx, org)
	if err != nil {
		return err
	}
	return WriteCSV(w, g.Entries)
}

// Import replaces the entries of org's glossary by those of the CSV file r (see ReadCSV and
// Replace), changed by actor; ifMatch as for Add. A file refused is a *CSVError naming the
// line and column at fault.
func (m *Manager) Import(ctx context.Context, org, actor string, r io.Reader, ifMatch string) (*Glossary, error) {
	if err := checkOrg(org); err != nil {
		return nil, err
	}
	ins, pos, err := readCSV(r)
	if err != nil {
		return nil, err
	}
	g, err := m.Replace(ctx, org, actor, ins, ifMatch)
	if err != nil {
		return nil, csvFieldError(err, pos)
	}
	return g, nil
}
