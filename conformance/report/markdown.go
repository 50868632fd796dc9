package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Limits of the Markdown rendering, so that a pull request comment (GitHub takes 65536
// characters) holds the failures; the JSON report has everything.
const (
	markdownRulesInFull = 20 // rules shown with their messages
	markdownSpecsInFull = 3  // messages of one rule shown
	markdownLines       = 30 // lines of one message shown
)

// Markdown writes the report for a pull request comment or a job summary: a headline
// (verdict, subject, eras, seed, the storecheck that wrote it), the rules that broke or
// could not be checked first with their messages (what was sent, expected and got), then
// every other rule in a table.
func (f *File) Markdown(w io.Writer) error {
	r := f.Report
	var b strings.Builder
	fmt.Fprintf(&b, "## storecheck %s: %s\n\n", r.verdictWord(), mdText(r.Store))
	f.writeMarkdownHead(&b)
	first, rest := r.splitForMarkdown()
	if len(first) > 0 {
		fmt.Fprintf(&b, "\n### Rules that failed or could not be checked (%d)\n", len(first))
		for i, rr := range first {
			if i == markdownRulesInFull {
				fmt.Fprintf(&b, "\n… and %d more: see the JSON report.\n", len(first)-i)
				break
			}
			r.writeMarkdownRule(&b, rr)
		}
	}
	r.writeMarkdownTable(&b, rest, len(first) > 0)
	r.writeMarkdownRun(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeMarkdownHead writes the headline's table: the verdict's counts, the subject, the
// eras, the seed, when, and the storecheck that wrote the report.
func (f *File) writeMarkdownHead(b *strings.Builder) {
	r := f.Report
	mode := ""
	if r.Strict {
		mode = " · strict"
	}
	if r.LabelFilter != "" {
		mode += " · selection `" + mdCode(r.LabelFilter) + "`"
	}
	b.WriteString("| | |\n|---|---|\n")
	fmt.Fprintf(b, "| Verdict | **%s** · %s |\n", r.verdictWord(), mdCell(r.ClosingCounts()))
	fmt.Fprintf(b, "| Subject | %s (%s) |\n", mdCell(r.Store), r.subjectWord())
	fmt.Fprintf(b, "| Eras | %s |\n", mdCell(strings.Join(r.eraNames(), ", ")))
	fmt.Fprintf(b, "| Seed | %d%s |\n", r.Seed, mode)
	fmt.Fprintf(b, "| Run | %s, %d specs in %s |\n", r.Started.UTC().Format(time.RFC3339), r.Totals.Specs, r.Duration.Round(time.Millisecond))
	v := f.Storecheck
	fmt.Fprintf(b, "| storecheck | %s · %s · %d rules %s |\n", mdCell(v.String()), mdCell(v.Go), v.Rules.Count, mdCell(v.Rules.Digest))
}

// splitForMarkdown splits the rules judged into those shown in full (failed, aborted,
// setup refused, warned, and what fails the run under Strict), in that order, and the
// rest.
func (r *Report) splitForMarkdown() (first, rest []RuleResult) {
	order := []Outcome{Failed, Aborted, SetupRefused, Warned}
	if r.Strict {
		order = append(order, PartlyVerified, Inconclusive)
	}
	for _, o := range order {
		for _, rr := range r.Rules {
			if rr.Outcome == o {
				first = append(first, rr)
			}
		}
	}
	for _, rr := range r.Rules {
		if !slices.Contains(order, rr.Outcome) {
			rest = append(rest, rr)
		}
	}
	return first, rest
}

// writeMarkdownRule writes one rule that broke: its line, then the messages of its specs
// with that outcome (the rule's reasons when it has none), each where it was checked.
func (r *Report) writeMarkdownRule(b *strings.Builder, rr RuleResult) {
	fmt.Fprintf(b, "\n#### %s · %s · %s era · %s\n\n%s\n", rr.ID, strings.ToUpper(string(rr.Level)), rr.Era, strings.ToUpper(string(rr.Outcome)), mdText(rr.Text))
	var specs []SpecResult
	for _, s := range r.Specs {
		if s.RuleID == rr.ID && s.Era == rr.Era && s.Outcome == rr.Outcome {
			specs = append(specs, s)
		}
	}
	if len(specs) == 0 {
		for _, reason := range rr.Reasons {
			specs = append(specs, SpecResult{Message: reason})
		}
	}
	for i, s := range specs {
		if i == markdownSpecsInFull {
			fmt.Fprintf(b, "\n… and %d more specs: see the JSON report.\n", len(specs)-i)
			break
		}
		msg := s.Message
		if msg == "" {
			msg = s.Cause
		}
		if s.Name != "" && !strings.HasPrefix(s.Name, "["+rr.ID+"] ") {
			fmt.Fprintf(b, "\n%s\n", mdText(s.Name))
		}
		fmt.Fprintf(b, "\n%s\n", mdFence(headLines(msg, markdownLines)))
		if s.Location != "" {
			fmt.Fprintf(b, "at `%s`\n", mdCode(s.Location))
		}
	}
}

// writeMarkdownTable writes the rules not shown in full (others: some were), one row
// each, the rules not covered in one line.
func (r *Report) writeMarkdownTable(b *strings.Builder, rest []RuleResult, others bool) {
	var notCovered []string
	var rows strings.Builder
	for _, rr := range rest {
		if rr.Outcome == NotCovered {
			notCovered = append(notCovered, rr.ID+" ("+string(rr.Era)+")")
			continue
		}
		fmt.Fprintf(&rows, "| %s | %s | %s | %s | %s | %s |\n", rr.ID, rr.Subject, strings.ToUpper(string(rr.Level)), rr.Era, rr.Outcome, mdCell(ruleNote(rr)))
	}
	if rows.Len() > 0 {
		title := "Rules"
		if others {
			title = "Every other rule"
		}
		fmt.Fprintf(b, "\n### %s\n\n| Rule | Of | Level | Era | Outcome | Note |\n|---|---|---|---|---|---|\n", title)
		b.WriteString(rows.String())
	}
	if len(notCovered) > 0 {
		fmt.Fprintf(b, "\nNot covered (the battery has no spec for these yet): %s\n", strings.Join(notCovered, ", "))
	}
}

// writeMarkdownRun writes what the run found outside the rules: findings, suite
// failures, and why no rule was exercised.
func (r *Report) writeMarkdownRun(b *strings.Builder) {
	if len(r.Findings) > 0 {
		b.WriteString("\n### Findings\n\n")
		for _, f := range r.Findings {
			fmt.Fprintf(b, "- %s\n", mdText(f))
		}
	}
	if len(r.SuiteFailures) > 0 {
		b.WriteString("\n### Suite failures\n")
		for _, f := range r.SuiteFailures {
			fmt.Fprintf(b, "\n%s\n", mdFence(headLines(f, markdownLines)))
		}
	}
	if cause, none := r.NoneExercised(); none {
		allowed := ""
		if r.AllowEmpty {
			allowed = " (allowed)"
		}
		fmt.Fprintf(b, "\n**No rule exercised%s:** %s\n", allowed, mdText(cause))
	}
}

// mdText escapes what Markdown would read as markup or HTML in running text.
func mdText(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "<", "&lt;", ">", "&gt;", "[", `\[`, "]", `\]`, "|", `\|`, "#", `\#`).Replace(s)
}

// mdCell is s in one table cell: one line, its pipes and markup escaped.
func mdCell(s string) string {
	return mdText(strings.Join(strings.Fields(s), " "))
}

// mdCode is s inside an inline code span, which cannot hold a backtick.
func mdCode(s string) string {
	return strings.ReplaceAll(FirstLine(s), "`", "'")
}

// mdFence is s in a fenced code block whose fence is longer than any run of backticks
// in s.
func mdFence(s string) string {
	fence := "```"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	return fence + "\n" + strings.TrimRight(s, "\n") + "\n" + fence
}
