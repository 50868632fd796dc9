package wire

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/modern"
)

// parseLayers reads the version 2 keys of a hello answer: "layers" (default: the store
// only) and "facade" (the configuration the facade accepts).
func parseLayers(m map[string]any, h *Hello) error {
	h.Store = true
	if h.Protocol < 2 {
		return nil
	}
	switch x := m["layers"].(type) {
	case nil:
	case []any:
		h.Store = false
		if err := decodeListed(x, "layer", []helloFlag{{"store", &h.Store}, {"facade", &h.Facade}}); err != nil {
			return err
		}
		if !h.Store && !h.Facade {
			return errors.New("layers lists no layer")
		}
	default:
		return fmt.Errorf(`layers must be an array such as ["store", "facade"], got %s`, kindOf(x))
	}
	switch x := m["facade"].(type) {
	case nil:
	case map[string]any:
		if err := decodeFlags(x, "facade", []helloFlag{{"require_owner", &h.FacadeConfig.RequireOwner}, {"default_ttl", &h.FacadeConfig.DefaultTTL}, {"max_ttl", &h.FacadeConfig.MaxTTL}}); err != nil {
			return err
		}
	default:
		return fmt.Errorf("facade must be an object of flags, got %s", kindOf(x))
	}
	return nil
}

// helloFlag is one boolean of a hello object: its key and where its value goes.
type helloFlag struct {
	key string
	dst *bool
}

// decodeFlags sets each flag from the hello object named object: absent or null leaves
// it as it is, anything but a boolean is refused.
func decodeFlags(x map[string]any, object string, flags []helloFlag) error {
	for _, f := range flags {
		if got, ok := optional(x[f.key], f.dst); !ok {
			return fmt.Errorf("%s.%s must be a boolean, got %s", object, f.key, got)
		}
	}
	return nil
}

// decodeListed sets the flag of each name a hello array lists (what names one element
// of it) and refuses any other element, naming those it may hold.
func decodeListed(list []any, what string, names []helloFlag) error {
	for _, e := range list {
		i := slices.IndexFunc(names, func(f helloFlag) bool { return e == f.key })
		if i < 0 {
			want := make([]string, len(names))
			for j, f := range names {
				want[j] = strconv.Quote(f.key)
			}
			return fmt.Errorf("unknown %s %s (want %s)", what, jsonvalue.Describe(e), strings.Join(want, " or "))
		}
		*names[i].dst = true
	}
	return nil
}

// durationMillis is a facade duration in whole milliseconds: a positive duration is
// rounded up (so it stays positive, as the reference facade rounds), any other is
// truncated toward zero (so it stays not positive and is refused).
func durationMillis(d time.Duration) int64 {
	if d > 0 {
		return int64((d + time.Millisecond - 1) / time.Millisecond)
	}
	return int64(d / time.Millisecond)
}

// optionalMillis is a nullable duration's wire form.
func optionalMillis(d *time.Duration) any {
	if d == nil {
		return nil
	}
	return durationMillis(*d)
}

// configArg is facade.configure's args; a zero ttl is none (null).
func configArg(cfg harness.FacadeConfig) map[string]any {
	ttl := func(d time.Duration) any {
		if d == 0 {
			return nil
		}
		return durationMillis(d)
	}
	return map[string]any{"require_owner": cfg.RequireOwner, "default_ttl_ms": ttl(cfg.DefaultTTL), "max_ttl_ms": ttl(cfg.MaxTTL)}
}

func decodeConfig(args map[string]any) (harness.FacadeConfig, error) {
	var cfg harness.FacadeConfig
	if got, ok := optional(args["require_owner"], &cfg.RequireOwner); !ok {
		return cfg, fmt.Errorf("require_owner must be a boolean, got %s", got)
	}
	for _, f := range []struct {
		key string
		dst *time.Duration
	}{{"default_ttl_ms", &cfg.DefaultTTL}, {"max_ttl_ms", &cfg.MaxTTL}} {
		d, err := decodeOptionalMillis(args, f.key)
		if err != nil {
			return cfg, err
		}
		if d != nil {
			if *d <= 0 {
				return cfg, fmt.Errorf("%s must be positive or null", f.key)
			}
			*f.dst = *d
		}
	}
	return cfg, nil
}

func decodeOptionalMillis(args map[string]any, key string) (*time.Duration, error) {
	ms, err := optionalInteger(args[key], key)
	if ms == nil || err != nil {
		return nil, err
	}
	d := time.Duration(*ms) * time.Millisecond
	return &d, nil
}

// createOptionsArg is modern.tasks.create's options object; owner "" travels as "", or
// as null with nullOwner (see legacyFacade.Create).
func createOptionsArg(o modern.CreateOptions, nullOwner bool) map[string]any {
	return map[string]any{"owner": ownerArg(o.Owner, nullOwner), "ttl_ms": optionalMillis(o.TTL), "poll_interval_ms": optionalMillis(o.PollInterval), "status_message": o.StatusMessage}
}

func decodeCreateOptions(v any) (modern.CreateOptions, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return modern.CreateOptions{}, fmt.Errorf("options must be an object, got %s", kindOf(v))
	}
	var o modern.CreateOptions
	if got, ok := optional(m["owner"], &o.Owner); !ok {
		return o, fmt.Errorf("owner must be a string or null, got %s", got)
	}
	var err error
	if o.TTL, err = decodeOptionalMillis(m, "ttl_ms"); err != nil {
		return o, err
	}
	if o.PollInterval, err = decodeOptionalMillis(m, "poll_interval_ms"); err != nil {
		return o, err
	}
	if got, ok := optional(m["status_message"], &o.StatusMessage); !ok {
		return o, fmt.Errorf("status_message must be a string, got %s", got)
	}
	return o, nil
}
