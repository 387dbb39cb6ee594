package report

import (
	"fmt"
	"io"
	"strings"
)

// KnowledgeColumns are the bounds of a KnowledgeRow, in order: the oracle, then the oracle
// with one piece of omniscience removed at a time (sim.NoCapacityNow, sim.NoFaultEnd,
// sim.NoCoordination), then with all three removed (sim.ClientKnowable).
var KnowledgeColumns = []string{"oracle", "no capacity now", "no fault end", "no coordination", "client-knowable"}

// KnowledgeRow is one scenario of the oracle-knowledge table: the mean over its seeds of each
// bound of KnowledgeColumns and of the strategy's success rate.
type KnowledgeRow struct {
	Scenario string
	Seeds    int
	Bounds   []float64 // by KnowledgeColumns
	Strategy float64
}

// WriteKnowledgeMarkdown writes the rows as a markdown table: each bound, the strategy's
// success, its ratio to the oracle and to the client-knowable bound, and the gap between the
// two bounds shared among the pieces of knowledge (each piece's own loss, in points, removed
// alone).
func WriteKnowledgeMarkdown(w io.Writer, strategy string, rows []KnowledgeRow) error {
	var b strings.Builder
	b.WriteString("| scenario |")
	for _, c := range KnowledgeColumns {
		b.WriteString(" " + c + " |")
	}
	fmt.Fprintf(&b, " %s | %s/oracle | %s/client-knowable | points lost: capacity now / fault end / coordination |\n", strategy, strategy, strategy)
	b.WriteString("|---|" + strings.Repeat("---:|", len(KnowledgeColumns)+3) + "---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s |", r.Scenario)
		for _, x := range r.Bounds {
			b.WriteString(" " + percent(x) + " |")
		}
		o, c := r.Bounds[0], r.Bounds[len(r.Bounds)-1]
		fmt.Fprintf(&b, " %s | %s | %s |", percent(r.Strategy), ratio(r.Strategy, o), ratio(r.Strategy, c))
		var lost []string
		for _, x := range r.Bounds[1 : len(r.Bounds)-1] {
			lost = append(lost, fmt.Sprintf("%.1f", 100*(o-x)))
		}
		fmt.Fprintf(&b, " %s |\n", strings.Join(lost, " / "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ratio is a/b with two decimals, "-" when b is 0.
func ratio(a, b float64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", a/b)
}
