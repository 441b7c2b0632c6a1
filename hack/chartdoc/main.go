// Command chartdoc writes the table of the chart's values into charts/tcs/README.md from
// values.schema.json and values.yaml; with -check it only fails when the README is not current.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"tcs.dev/tcs/internal/tooling/chartdoc"
)

func main() {
	dir := flag.String("chart", "charts/tcs", "the chart's directory")
	check := flag.Bool("check", false, "fail when the README is not current instead of writing it")
	flag.Parse()
	if err := run(*dir, *check); err != nil {
		fmt.Fprintln(os.Stderr, "chartdoc:", err)
		os.Exit(1)
	}
}

func run(dir string, check bool) error {
	read := func(name string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, name)) }
	schema, err := read("values.schema.json")
	if err != nil {
		return err
	}
	values, err := read("values.yaml")
	if err != nil {
		return err
	}
	readme, err := read("README.md")
	if err != nil {
		return err
	}
	vs, err := chartdoc.Values(schema, values)
	if err != nil {
		return err
	}
	out, err := chartdoc.Update(readme, chartdoc.Table(vs))
	if err != nil {
		return err
	}
	if bytes.Equal(out, readme) {
		return nil
	}
	if check {
		return fmt.Errorf("%s/README.md is not current; run `make chart-docs`", dir)
	}
	return os.WriteFile(filepath.Join(dir, "README.md"), out, 0o644)
}
