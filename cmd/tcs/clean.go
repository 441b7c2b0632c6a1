package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"tcs.dev/tcs/internal/text/aipass"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/formats"
	"tcs.dev/tcs/internal/text/pipeline"
)

// cleanOutput is what `tcs clean --json` prints: the transcript's shape with its change list.
type cleanOutput struct {
	Object         string             `json:"object"`
	Status         string             `json:"status"`
	Title          string             `json:"title"`
	SourceFormat   formats.Format     `json:"source_format"`
	Content        string             `json:"content"`
	ChangesSummary correction.Summary `json:"changes_summary"`
	AIPass         *cleanAIPass       `json:"ai_pass,omitempty"`
	Changes        []pipeline.Change  `json:"changes"`
}

// cleanAIPass is the outcome of `tcs clean --ai-pass`.
type cleanAIPass struct {
	Provider  string        `json:"provider"`
	Model     string        `json:"model"`
	Apply     bool          `json:"apply"`
	Confirmed int           `json:"confirmed"`
	Rejected  int           `json:"rejected"`
	Uncertain int           `json:"uncertain"`
	Proposed  int           `json:"proposed"`
	Usage     *aipass.Usage `json:"usage"`
}

func newCleanCommand() *cobra.Command {
	var format string
	var asJSON, normalize, aiPass, aiApply bool
	var ai aiOptions
	cmd := &cobra.Command{
		Use:   "clean [FILE|-]",
		Short: "Correct a transcript file offline and print the result",
		Long: `clean runs the deterministic pass over FILE (or standard input) and prints the corrected
text, or with --json the transcript-shaped result with every change. It needs no cluster and
no network. Without --format the format is sniffed from the content.

With --ai-pass the AI validation pass reviews every change too: by default the offline rules
provider (context checks, not a language model); with --ai-base-url and --ai-model any
OpenAI-compatible endpoint, its key from env TCS_AI_API_KEY. --ai-apply writes the verdicts into
the printed text.`,
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
			processor := pipeline.New(engine, nil)
			opts := correction.Options{NormalizeReferences: normalize}
			res, err := processor.Correct(input, f, opts)
			if err != nil {
				return fmt.Errorf("%s: %w", displayName(name), err)
			}
			result := cleanOutput{
				Object: "transcript", Status: "completed", Title: res.Title, SourceFormat: res.Format,
				Content: string(res.Content), ChangesSummary: res.Summary, Changes: make([]pipeline.Change, len(res.Changes)),
			}
			for i, c := range res.Changes {
				result.Changes[i] = pipeline.Change{Change: c}
			}
			if aiPass {
				if result, err = cleanWithAIPass(cmd.Context(), processor, &ai, input, opts, aiApply, result); err != nil {
					return fmt.Errorf("%s: %w", displayName(name), err)
				}
			}
			out := cmd.OutOrStdout()
			if !asJSON {
				_, err := io.WriteString(out, result.Content)
				return err
			}
			enc := json.NewEncoder(out)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			return enc.Encode(result)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&format, "format", "f", "", "source format: txt, srt, vtt, markdown, html, json or docx (default: sniffed)")
	f.BoolVar(&asJSON, "json", false, "print the transcript-shaped result with the change list as JSON")
	f.BoolVar(&normalize, "normalize-references", false, `rewrite spoken references as "1 Corinthians 13:4"`)
	f.BoolVar(&aiPass, "ai-pass", false, "also run the AI validation pass and show its verdicts")
	f.BoolVar(&aiApply, "ai-apply", false, "with --ai-pass: revert rejected changes and apply confirmed suggestions in the text")
	ai.addFlags(f)
	for _, server := range []string{"ai-api-key-secret", "ai-workers"} {
		_ = f.MarkHidden(server) // they configure the service, not this command
	}
	return cmd
}

// cleanWithAIPass runs the AI pass over input and returns result with its verdicts.
func cleanWithAIPass(ctx context.Context, p *pipeline.Processor, ai *aiOptions, input []byte, opts correction.Options, apply bool, result cleanOutput) (cleanOutput, error) {
	ai.apiKeySecret = ""
	provider, err := ai.newProvider(nil, "", nil)
	if err != nil {
		return result, err
	}
	ctx, cancel := context.WithTimeout(ctx, ai.timeout)
	defer cancel()
	rev, content, err := p.ReviewDocument(ctx, input, pipeline.ReviewInput{Format: result.SourceFormat, Options: opts, Apply: apply}, provider)
	if err != nil {
		return result, err
	}
	result.Content, result.ChangesSummary, result.Changes = string(content), rev.Summary, rev.Changes
	result.AIPass = &cleanAIPass{Provider: provider.Name(), Model: provider.Model(), Apply: apply,
		Confirmed: rev.Confirmed, Rejected: rev.Rejected, Uncertain: rev.Uncertain, Proposed: rev.Proposed}
	if rev.Usage != (aipass.Usage{}) {
		result.AIPass.Usage = &rev.Usage
	}
	return result, nil
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
