// Package rules is the rule catalogue of docs/spec.md: every rule's ID, level, era, area
// and one-line text, the labels a spec of it carries, and whose code its verdict judges.
package rules
