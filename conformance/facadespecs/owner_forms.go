package facadespecs

import (
	"fmt"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference/modern"
)

// "No owner" has one form in process (a Go facade's owner is a string: "") and two over
// the wire ("" and null, docs/wire.md "Values"), which a shim may decode on two paths.
// The truth-table walks create each none row's task in every form the facade can send,
// so a facade whose null path differs from its "" path fails the row's rule.

// noOwnerAsNull is a facade that can send "no owner" as null: the wire client's facades
// (adapters/wire), which send "" otherwise.
type noOwnerAsNull[F any] interface{ NoOwnerAsNull() F }

// ownerForm is one encoding of "no owner" with the facade that sends it.
type ownerForm[F any] struct {
	fac F
	// null: the form is null, walked for the none rows only (an owned row's owner is a
	// string in every form).
	null bool
}

// skips reports whether the walk leaves a row out in this form: an owned row in the
// null form.
func (o ownerForm[F]) skips(owned bool) bool { return o.null && owned }

// note is what input lines add for the form: nothing for "", which every walk has
// always sent.
func (o ownerForm[F]) note() string {
	if o.null {
		return `, "no owner" sent as null`
	}
	return ""
}

// ownerForms is fac in each form of "no owner" it can send: fac itself, then its
// null-sending twin when it has one.
func ownerForms[F any](fac F) []ownerForm[F] {
	forms := []ownerForm[F]{{fac: fac}}
	if n, ok := any(fac).(noOwnerAsNull[F]); ok {
		forms = append(forms, ownerForm[F]{fac: n.NoOwnerAsNull(), null: true})
	}
	return forms
}

// create runs a walk's create (call, described by input without the form) and reports
// whether it made the task. In the "" form a refusal stops the spec as a failed setup,
// as it always has; in the null form it is a fault of the spec's rule, which the walk
// goes on past: null is "no owner" as much as "" is.
func (o ownerForm[F]) create(e *battery.Env, input string, call func() error) bool {
	err := call()
	if !o.null {
		e.RequireErr(err, nil, "setup: "+input)
		return true
	}
	return e.CheckErr(err, nil, input+o.note()+`: a create without an owner ("" and null alike)`)
}

// createModern creates a task with opts through form's modern facade (see create).
func createModern(e *battery.Env, form ownerForm[modern.Facade], opts modern.CreateOptions) (modern.Task, bool) {
	var t modern.Task
	ok := form.create(e, fmt.Sprintf("facade Create(%s)", createOpts(opts)), func() (err error) {
		t, err = form.fac.Create(e.Ctx, opts, nil)
		return err
	})
	return t, ok
}
