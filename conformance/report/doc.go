// Package report is a run's result as plain data: outcomes, rule and spec results, the
// totals, and the JSON, JUnit and summary renderings. It knows nothing of Ginkgo;
// package ginkgoreport builds a Report from Ginkgo's.
package report
