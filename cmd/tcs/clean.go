package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"tcs.dev/tcs/internal/correction"
	"tcs.dev/tcs/internal/formats"
	"tcs.dev/tcs/internal/pipeline"
)

// cleanOutput is what `tcs clean --json` prints: the transcript's shape with its change list.
type cleanOutput struct {
	Object         string              `json:"object"`
	Status         string              `json:"status"`
	Title          string              `json:"title"`
	SourceFormat   formats.Format      `json:"source_format"`
	Content        string              `json:"content"`
	ChangesSummary correction.Summary  `json:"changes_summary"`
	Changes        []correction.Change `json:"changes"`
}

func newCleanCommand() *cobra.Command {
	var format string
	var asJSON, normalize bool
	cmd := &cobra.Command{
		Use:   "clean [FILE|-]",
		Short: "Correct a transcript file offline and print the result",
		Long: `clean runs the deterministic pass over FILE (or standard input) and prints the corrected
text, or with --json the transcript-shaped result with every change. It needs no cluster and
no network. Without --format the format is sniffed from the content.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var f formats.Format
			if format != "" {
				var err error
				if f, err = formats.Parse(format); err != nil {
					return fmt.Errorf("--format: %w", err)
				}
			}
			name := "-"
			if len(args) == 1 {
				name = args[0]
			}
			input, err := readInput(cmd.InOrStdin(), name)
			if err != nil {
				return err
			}
			if f != formats.DOCX && !utf8.Valid(input) && (f != "" || formats.Sniff(input) != formats.DOCX) {
				return fmt.Errorf("%s is not valid UTF-8 text", displayName(name))
			}
			engine, err := correction.NewEngine()
			if err != nil {
				return fmt.Errorf("building the correction engine: %w", err)
			}
			res, err := pipeline.New(engine, nil).Correct(input, f, correction.Options{NormalizeReferences: normalize})
			if err != nil {
				return fmt.Errorf("%s: %w", displayName(name), err)
			}
			out := cmd.OutOrStdout()
			if !asJSON {
				_, err := out.Write(res.Content)
				return err
			}
			enc := json.NewEncoder(out)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			return enc.Encode(cleanOutput{
				Object: "transcript", Status: "completed", Title: res.Title, SourceFormat: res.Format,
				Content: string(res.Content), ChangesSummary: res.Summary, Changes: res.Changes,
			})
		},
	}
	f := cmd.Flags()
	f.StringVarP(&format, "format", "f", "", "source format: txt, srt, vtt, markdown, html, json or docx (default: sniffed)")
	f.BoolVar(&asJSON, "json", false, "print the transcript-shaped result with the change list as JSON")
	f.BoolVar(&normalize, "normalize-references", false, `rewrite spoken references as "1 Corinthians 13:4"`)
	return cmd
}

func readInput(stdin io.Reader, name string) ([]byte, error) {
	if name == "-" {
		data, err := io.ReadAll(stdin)
		if err != nil {
			return nil, fmt.Errorf("reading standard input: %w", err)
		}
		return data, nil
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return data, nil
}

func displayName(name string) string {
	if name == "-" {
		return "standard input"
	}
	return name
}
