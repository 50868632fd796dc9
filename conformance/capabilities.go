package conformance

import (
	"context"
	"fmt"
	"strings"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/sdk"
)

// Detected is what the battery knows about a store before it runs: what the harness
// declares and which optional interfaces its store implements. It heads every summary,
// so that a skipped rule reads against the reason for it.
type Detected struct {
	Store    string
	Declared harness.Capabilities
	// Legacy lists the optional legacy operations and whether the store offers each:
	// "Cancel" (legacy.Canceler), "Cleanup" (legacy.Cleaner), "UpdateIf"
	// (legacy.ConditionalUpdater), "ListAfter" (legacy.Pager). Empty when the store has
	// no legacy era.
	Legacy []Optional
	// SDK lists the optional operations of the SDK-profile store: "DeleteTask"
	// (sdk.Deleter), "Cleanup" (sdk.Cleaner), "WaitForUpdate" (sdk.Waiter). Empty when
	// the store has no SDK profile.
	SDK []Optional
	// Policy is what the SDK-profile store declares.
	Policy sdk.Policy
}

// Optional is one optional interface of a store.
type Optional struct {
	Op, Interface string
	Offered       bool
}

// Detect opens one namespace of h to see which optional interfaces its stores implement.
func Detect(ctx context.Context, h harness.Harness) (Detected, error) {
	d := Detected{Store: h.Name(), Declared: h.Capabilities()}
	if d.Declared.SDK {
		if err := d.detectSDK(ctx, h); err != nil {
			return d, err
		}
	}
	if !d.Declared.Legacy {
		return d, nil
	}
	var clock reference.Clock = reference.SystemClock{}
	if d.Declared.Clock {
		clock = reference.NewManualClock(battery.Epoch)
	}
	ns, err := h.Open(ctx, clock)
	if err != nil {
		return d, fmt.Errorf("%w: %s: open a namespace: %w", ErrBringUp, h.Name(), err)
	}
	defer ns.Close(context.WithoutCancel(ctx))
	st, err := ns.Legacy(ctx)
	if err != nil {
		return d, fmt.Errorf("%w: %s: open the legacy store: %w", ErrBringUp, h.Name(), err)
	}
	d.Legacy = []Optional{
		{"Cancel", "legacy.Canceler", implements[legacy.Canceler](st)},
		{"Cleanup", "legacy.Cleaner", implements[legacy.Cleaner](st)},
		{"UpdateIf", "legacy.ConditionalUpdater", implements[legacy.ConditionalUpdater](st)},
		{"ListAfter", "legacy.Pager", implements[legacy.Pager](st)},
	}
	return d, nil
}

func (d *Detected) detectSDK(ctx context.Context, h harness.Harness) error {
	var clock reference.Clock = reference.SystemClock{}
	if d.Declared.Clock {
		clock = reference.NewManualClock(battery.Epoch)
	}
	ns, err := h.Open(ctx, clock)
	if err != nil {
		return fmt.Errorf("%w: %s: open a namespace: %w", ErrBringUp, h.Name(), err)
	}
	defer ns.Close(context.WithoutCancel(ctx))
	st, err := harness.OpenSDK(ctx, ns)
	if err != nil {
		return fmt.Errorf("%w: %s: open the SDK-profile store: %w", ErrBringUp, h.Name(), err)
	}
	d.SDK = []Optional{
		{"DeleteTask", "sdk.Deleter", implements[sdk.Deleter](st)},
		{"Cleanup", "sdk.Cleaner", implements[sdk.Cleaner](st)},
		{"WaitForUpdate", "sdk.Waiter", implements[sdk.Waiter](st)},
	}
	d.Policy = st.Policy()
	return nil
}

// String is the summary's header: one line per fact, each saying what follows from it.
func (d Detected) String() string {
	var b strings.Builder
	var eras []string
	if d.Declared.Legacy {
		eras = append(eras, "legacy")
	}
	if d.Declared.Modern {
		eras = append(eras, "modern")
	}
	if d.Declared.SDK {
		eras = append(eras, "sdk")
	}
	fmt.Fprintf(&b, "store %s: eras %s\n", d.Store, strings.Join(eras, ", "))
	if d.Declared.Clock {
		b.WriteString("  clock control: yes (time-dependent specs use a manual clock)\n")
	} else {
		b.WriteString("  clock control: no (time-dependent specs run on the real clock; exact-millisecond specs are skipped)\n")
	}
	if d.Declared.Shared {
		b.WriteString("  shared instances: yes (S-SHARE-1 and M-CREATE-2 run across two instances)\n")
	} else {
		b.WriteString("  shared instances: no (one instance per namespace)\n")
	}
	if len(d.Legacy) > 0 {
		fmt.Fprintf(&b, "  optional legacy operations: %s\n", offered(d.Legacy))
	}
	if len(d.SDK) > 0 {
		fmt.Fprintf(&b, "  optional SDK-profile operations: %s\n", offered(d.SDK))
		fmt.Fprintf(&b, "  SDK-profile policy: sessionless callers %s, ttl counted from %s\n", d.Policy.Sessionless, d.Policy.TTLFrom)
	}
	return b.String()
}

// implements reports whether st offers the optional interface T.
func implements[T any](st any) bool {
	_, ok := st.(T)
	return ok
}

// offered lists optional operations as "Op (Interface) yes|no".
func offered(ops []Optional) string {
	var parts []string
	for _, o := range ops {
		yes := "no"
		if o.Offered {
			yes = "yes"
		}
		parts = append(parts, fmt.Sprintf("%s (%s) %s", o.Op, o.Interface, yes))
	}
	return strings.Join(parts, ", ")
}
