package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/storecheck/storecheck/conformance/report"
)

func init() {
	addCommand(&command{
		name:    "report",
		summary: "render a JSON report of run or probe: the summary, or Markdown for a pull request or a job summary",
		run:     renderReport,
	})
}

func renderReport(c *app, args []string) int {
	var markdown bool
	fs := newFlagSet("report", "storecheck report FILE.json [--markdown]", func(w io.Writer) {
		fmt.Fprint(w, `Renders a JSON report that storecheck run or storecheck probe wrote (--json FILE; - reads
stdin), without running anything: the summary those commands print, or with --markdown
a Markdown page for a pull request comment or $GITHUB_STEP_SUMMARY: the verdict, the
subject, eras, seed and the storecheck version, the rules that failed or could not be
checked first with their messages (what was sent, what was expected, what came back),
then every other rule in a table.

  storecheck report storecheck.json --markdown >> "$GITHUB_STEP_SUMMARY"

Exit status: 0 the report was rendered (whatever its verdict); 2 usage error, or the file
is not a JSON report of a schema this storecheck reads (docs/reports.md).

`)
	})
	fs.BoolVar(&markdown, "markdown", false, "render Markdown instead of the plain summary")
	path, code, ok := c.parseWithFile(fs, args)
	if !ok {
		return code
	}
	f, err := readReportFile(path)
	if err != nil {
		fmt.Fprintf(c.stderr, "storecheck report: %s: %v\n", path, err)
		return exitUsage
	}
	if markdown {
		err = f.Markdown(c.stdout)
	} else {
		f.DetailsPath = path
		err = f.Summary(c.stdout)
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "storecheck report: %v\n", err)
		return exitUsage
	}
	return exitOK
}

// parseWithFile parses args holding one file argument before or after the flags (the
// flags are all boolean, so no value is taken for a file): "-" is stdin.
func (c *app) parseWithFile(fs *flag.FlagSet, args []string) (path string, code int, ok bool) {
	var files, flags []string
	for _, a := range args {
		if a == "-" || !strings.HasPrefix(a, "-") {
			files = append(files, a)
		} else {
			flags = append(flags, a)
		}
	}
	if code, ok := c.parse(fs, flags); !ok {
		return "", code, false
	}
	if len(files) != 1 {
		code, _ := c.usageError(fs, fmt.Sprintf("want one report file, got %d: %q", len(files), files))
		return "", code, false
	}
	return files[0], 0, true
}

// readReportFile reads the report at path, "-" for stdin.
func readReportFile(path string) (*report.File, error) {
	if path == "-" {
		return report.Read(os.Stdin)
	}
	in, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	return report.Read(in)
}
