package mutants

import (
	"context"
	"strings"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/reference/legacy"
)

// Defects of the legacy List (L-LIST-*): layers that ask the honest List with other
// options than the caller's and filter what it returns.

// listMutants are the List defects.
var listMutants = []mutant.Mutant[Build]{
	{Name: "limit-ignores-owner", Breaks: []string{"L-LIST-4", "L-LIST-2"}, Defect: "List honours Limit but ignores the Owner scope", Build: Build{legacyOnly, listed(anyOwner, nil)}},
	{Name: "limit-zero-unbounded", Breaks: []string{"L-LIST-2"}, Defect: "a Limit of 0 or less means no limit (if limit > 0 { LIMIT n })", Build: Build{legacyOnly, listed(zeroUnbounded, nil)}},
	{Name: "status-prefix", Breaks: []string{"L-LIST-1"}, Defect: "the status filter matches by prefix", Build: Build{legacyOnly, listed(noStatus, statusPrefix)}},
	{Name: "limit-int32", Breaks: []string{"L-LIST-2"}, Defect: "Limit goes through a 32-bit integer: 2^31 becomes negative (no rows), 2^32+1 becomes 1", Build: Build{legacyOnly, listed(limitInt32, nil)}},
	{Name: "owner-first-12-bytes", Breaks: []string{"L-LIST-3", "S-OWN-1", "S-OWN-3", "L-LIST-4"}, Defect: "List compares owners on their first 12 bytes (a CHAR(12) index column): tenant-acme-corp-1 sees tenant-acme-corp-2's rows", Build: Build{legacyOnly, listed(principalsAny, ownerFirst12)}},
	{Name: "principals-ignore-scope", Breaks: []string{"L-LIST-3", "S-OWN-1", "L-LIST-4", "L-LIST-2"}, Defect: "List ignores Owner and Limit for principals only, and scopes anonymous callers", Build: Build{legacyOnly, listed(principalsAny, nil)}},
}

// listing is a List over the honest one: it asks with the options ask makes of the
// caller's; when keep gives a filter for the caller's options, only the rows it admits
// stay, then the caller's Limit applies.
type listing struct {
	legacyStore
	ask  func(legacy.ListOptions) legacy.ListOptions
	keep func(legacy.ListOptions) func(legacy.Task) bool
}

func listed(ask func(legacy.ListOptions) legacy.ListOptions, keep func(legacy.ListOptions) func(legacy.Task) bool) *wrapper {
	return legacyLayer(func(st legacyStore) legacy.Store { return listing{st, ask, keep} })
}

func (s listing) List(ctx context.Context, opts legacy.ListOptions) ([]legacy.Task, error) {
	rows, err := s.legacyStore.List(ctx, s.ask(opts))
	if err != nil || s.keep == nil {
		return rows, err
	}
	admit := s.keep(opts)
	if admit == nil {
		return rows, nil
	}
	out := []legacy.Task{}
	for _, t := range rows {
		if opts.Limit != nil && len(out) >= *opts.Limit {
			break
		}
		if admit(t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// anyOwner ignores the Owner scope and honours the Limit.
func anyOwner(o legacy.ListOptions) legacy.ListOptions {
	o.Owner, o.RequireOwner = legacy.AnyOwner(), false
	return o
}

// anyOwnerNoLimit leaves Owner and Limit to the facade (L-LIST-4), for every caller.
func anyOwnerNoLimit(o legacy.ListOptions) legacy.ListOptions {
	o = anyOwner(o)
	o.Limit = nil
	return o
}

// principalsAny is anyOwnerNoLimit for principals only; anonymous callers are scoped.
func principalsAny(o legacy.ListOptions) legacy.ListOptions {
	if _, ok := o.Owner.Principal(); ok {
		return anyOwnerNoLimit(o)
	}
	return o
}

// zeroUnbounded reads a Limit of 0 or less as no limit (if limit > 0 { LIMIT n }).
func zeroUnbounded(o legacy.ListOptions) legacy.ListOptions {
	if o.Limit != nil && *o.Limit <= 0 {
		o.Limit = nil
	}
	return o
}

// limitInt32 passes the Limit through an INT column or a 32-bit parameter.
func limitInt32(o legacy.ListOptions) legacy.ListOptions {
	if o.Limit != nil {
		o.Limit = new(int(int32(*o.Limit)))
	}
	return o
}

// noStatus asks for every status and every row: statusPrefix filters.
func noStatus(o legacy.ListOptions) legacy.ListOptions {
	o.Status, o.Limit = nil, nil
	return o
}

// statusPrefix matches the status filter by prefix.
func statusPrefix(o legacy.ListOptions) func(legacy.Task) bool {
	return func(t legacy.Task) bool {
		return o.Status == nil || strings.HasPrefix(string(t.Status()), *o.Status)
	}
}

// ownerFirst12 compares a principal with a row's owner on their first 12 bytes (a
// CHAR(12) index column); unowned rows are the caller's unless RequireOwner.
func ownerFirst12(o legacy.ListOptions) func(legacy.Task) bool {
	p, ok := o.Owner.Principal()
	if !ok {
		return nil
	}
	return func(t legacy.Task) bool {
		if owner := t.Owner(); owner != "" {
			return prefix12(owner) == prefix12(p)
		}
		return !o.RequireOwner
	}
}

// prefix12 is an owner as a CHAR(12) index column holds it: its first 12 bytes.
func prefix12(o string) string { return o[:min(len(o), 12)] }
