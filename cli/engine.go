package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/engineconf"
)

// engineOptions are the flags of `cortex-tui engine`.
type engineOptions struct {
	toml, markdown, article bool
	file                    string
}

func init() { subcommands = append(subcommands, newEngineCmd) }

func newEngineCmd(io streams) *cobra.Command {
	var o engineOptions
	cmd := &cobra.Command{
		Use:   "engine",
		Short: "Show the CORTEX engine's configuration, or write it as a cortex.toml file",
		Long: `engine shows the CORTEX engine's configuration, one key of its file per line: the value,
the default, the unit and range, and what the key does. Keys that differ from the defaults are
marked with *.

--toml prints it as a cortex.toml file instead (every key, commented): the defaults, the
article's parameters with --article, or the file given with --file once checked. Give the file
to run, bench, live and the dashboard with --engine, or to a Go service with
cortexhttp.ConfigFromFile; cortex-tui tune writes one tuned for your scenarios.

--file checks a file as every command reads it (strictly: every problem at once, as
file:line: key: message, with a "did you mean" for a misspelt key) and shows it.`,
		Example: `  cortex-tui engine
  cortex-tui engine --toml > cortex.toml
  cortex-tui engine --article --toml
  cortex-tui engine --file cortex.toml`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &exitError{code: 2, err: fmt.Errorf("engine takes no arguments, got %q (give a file with --file)", args)}
			}
			return nil
		},
		RunE: func(*cobra.Command, []string) error { return runEngine(io, o) },
	}
	f := cmd.Flags()
	f.BoolVar(&o.toml, "toml", false, "print the configuration as a cortex.toml file")
	f.BoolVar(&o.article, "article", false, "the article's parameters (engine.ArticleConfig) instead of the defaults")
	f.StringVar(&o.file, "file", "", "a cortex.toml file to check and show (- for the standard input)")
	f.BoolVar(&o.markdown, "markdown", false, "print every key as a markdown table: default, the article's value, unit and range (docs/engine.md)")
	return cmd
}

// runEngine prints the configuration o asks for.
func runEngine(io streams, o engineOptions) error {
	if o.toml && o.markdown {
		return &exitError{code: 2, err: fmt.Errorf("give --toml or --markdown, not both")}
	}
	if o.article && o.file != "" {
		return &exitError{code: 2, err: fmt.Errorf("give --article or --file, not both (a file says its base itself: base = \"article\")")}
	}
	if o.markdown {
		return writeEngineMarkdown(io.out)
	}
	cfg, comment := engine.DefaultConfig(), ""
	if o.article {
		cfg, comment = engine.ArticleConfig(), "The article's parameters, exactly as published (engine.ArticleConfig)."
	}
	if o.file != "" {
		var err error
		if cfg, err = loadEngine(io, o.file); err != nil {
			return err
		}
	}
	if o.toml {
		_, err := io.out.Write(engineconf.Format(cfg, comment))
		return err
	}
	return writeEngineTable(io.out, cfg)
}

// loadEngine reads the engine file at path ("-": the standard input) as every command reads
// it; its problems are a usage error (exit status 2).
func loadEngine(io streams, path string) (engine.Config, error) {
	var cfg engine.Config
	var err error
	if path == "-" {
		cfg, err = engineconf.ParseReader("-", io.in)
	} else {
		cfg, err = engineconf.ParseFile(path)
	}
	if err != nil {
		return engine.Config{}, &exitError{code: 2, err: fmt.Errorf("bad engine file:\n%w", err)}
	}
	return cfg, nil
}

// writeEngineTable prints one line per key: the key, its value in cfg (marked * when it is not
// the default), the default, the unit and range, and what it does.
func writeEngineTable(w io.Writer, cfg engine.Config) error {
	def := engine.DefaultConfig()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "key\tvalue\tdefault\tunit; range\tmeaning")
	for _, p := range engineconf.Params {
		mark := ""
		if p.Text(cfg) != p.Text(def) {
			mark = " *"
		}
		fmt.Fprintf(tw, "%s\t%s%s\t%s\t%s\t%s\n", p.Path(), unquote(p.Text(cfg)), mark, unquote(p.Text(def)), dash(p.Constraint()), p.Doc)
	}
	return tw.Flush()
}

// writeEngineMarkdown prints the table of docs/engine.md: every key with its default, the
// article's value, its unit and range, and what it does.
func writeEngineMarkdown(w io.Writer) error {
	def, art := engine.DefaultConfig(), engine.ArticleConfig()
	var b strings.Builder
	b.WriteString("| key | default | article | unit; range | meaning |\n|---|---:|---:|---|---|\n")
	for _, p := range engineconf.Params {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", p.Path(), unquote(p.Text(def)), unquote(p.Text(art)), dash(p.Constraint()), p.Doc)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// unquote drops the quotes of a duration as the file writes it, for a table.
func unquote(s string) string { return strings.Trim(s, `"`) }

// dash is s, or "-" when it is empty.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
