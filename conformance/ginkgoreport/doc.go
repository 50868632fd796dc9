// Package ginkgoreport translates Ginkgo's report of a battery run into a
// report.Report: which specs ran, the outcome each one's entries say (battery's entry
// names), and each rule's result per era.
package ginkgoreport
