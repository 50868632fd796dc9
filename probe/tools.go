package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Role is a part a server's tool plays for the probe: the probe makes every task it
// checks with the tool mapped to a role. The names are the keys of a tools file and
// the prefixes of the command line's flags (--quick-tool, --quick-args).
type Role string

// The roles.
const (
	RoleQuick   Role = "quick"   // ends soon with a result
	RoleSlow    Role = "slow"    // works about half a second, then ends with a result
	RoleRace    Role = "race"    // ends on its own about a tenth of a second in, unless cancelled
	RoleFailing Role = "failing" // ends with a result whose isError is true
	RoleErring  Role = "erring"  // ends with a JSON-RPC error
	RoleInput   Role = "input"   // asks the client for input (form elicitation) once while its task runs
	RoleLong    Role = "long"    // works for a minute or more unless cancelled
)

// Roles are every role, in the order the help lists them.
var Roles = []Role{RoleQuick, RoleSlow, RoleRace, RoleFailing, RoleErring, RoleInput, RoleLong}

// Kind says what the tool of the role must do.
func (r Role) Kind() string {
	switch r {
	case RoleQuick:
		return "a tool that ends soon with a result"
	case RoleSlow:
		return "a tool that works about half a second, then ends with a result"
	case RoleRace:
		return "a tool that ends on its own soon (about a tenth of a second) unless cancelled"
	case RoleFailing:
		return "a tool that ends with a result whose isError is true"
	case RoleErring:
		return "a tool that ends with a JSON-RPC error"
	case RoleInput:
		return "a tool that asks the client for input (form elicitation) once while its task runs"
	case RoleLong:
		return "a tool that works for a minute or more unless cancelled"
	}
	return "no role"
}

// Tools names the server's tools the probe makes tasks with, one a role, and the
// arguments it calls each with. A role left empty gets its DefaultTools entry.
type Tools struct {
	// Quick ends soon with a result; Slow works for a while (about half a second),
	// then ends with a result.
	Quick, Slow         string
	QuickArgs, SlowArgs map[string]any
	// Race ends on its own soon (about a tenth of a second) unless cancelled: the race
	// check cancels it as it ends.
	Race     string
	RaceArgs map[string]any
	// Failing ends with a result whose isError is true; Erring ends with a JSON-RPC
	// error (V-ERROR-1).
	Failing, Erring         string
	FailingArgs, ErringArgs map[string]any
	// Input asks the client for input by form elicitation once while its task runs
	// (V-INPUT-*).
	Input     string
	InputArgs map[string]any
	// Long works for a minute or more unless cancelled: the limit check keeps many
	// running at once (V-LIMIT-1).
	Long     string
	LongArgs map[string]any
}

// DefaultTools are the tools of storecheck's reference server and of the official
// suite's fixtures.
var DefaultTools = Tools{Quick: "slow_compute", QuickArgs: map[string]any{"seconds": 0},
	Slow: "slow_compute", SlowArgs: map[string]any{"seconds": 0.5},
	Race: "slow_compute", RaceArgs: map[string]any{"seconds": 0.15},
	Failing: "failing_job", FailingArgs: map[string]any{},
	Erring: "protocol_error_job", ErringArgs: map[string]any{"seconds": 0},
	Input: "confirm_delete", InputArgs: map[string]any{"item": "storecheck-probe"},
	Long: "long_job", LongArgs: map[string]any{"seconds": 120}}

// fields are the name and arguments of role.
func (t *Tools) fields(role Role) (*string, *map[string]any) {
	switch role {
	case RoleQuick:
		return &t.Quick, &t.QuickArgs
	case RoleSlow:
		return &t.Slow, &t.SlowArgs
	case RoleRace:
		return &t.Race, &t.RaceArgs
	case RoleFailing:
		return &t.Failing, &t.FailingArgs
	case RoleErring:
		return &t.Erring, &t.ErringArgs
	case RoleInput:
		return &t.Input, &t.InputArgs
	case RoleLong:
		return &t.Long, &t.LongArgs
	}
	return new(string), new(map[string]any)
}

// Tool is the tool mapped to role and its arguments.
func (t Tools) Tool(role Role) (string, map[string]any) {
	name, args := t.fields(role)
	return *name, *args
}

// SetTool maps role to the tool name, called with args (nil: none).
func (t *Tools) SetTool(role Role, name string, args map[string]any) {
	n, a := t.fields(role)
	*n, *a = name, maps.Clone(args)
	if *a == nil {
		*a = map[string]any{}
	}
}

// ToolSpec is one role of a tools file: the tool, and its arguments when given.
type ToolSpec struct {
	Tool string         // "" when the file names none (the role's tool stays as it was)
	Args map[string]any // nil when the file gives none
}

// DecodeTools reads a tools file: a JSON object whose keys are roles, each
// {"tool": NAME, "args": {...}} (either may be left out). An unknown key, a value of the
// wrong type or args that are not an object is ErrConfig, its place named.
func DecodeTools(data []byte) (map[Role]ToolSpec, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil || raw == nil {
		if err == nil {
			err = fmt.Errorf("null")
		}
		return nil, fmt.Errorf("%w: the tools file is not a JSON object (%v): want {\"quick\": {\"tool\": NAME, \"args\": {...}}, ...}", ErrConfig, err)
	}
	out := map[Role]ToolSpec{}
	for _, key := range slices.Sorted(maps.Keys(raw)) {
		role := Role(key)
		if !slices.Contains(Roles, role) {
			return nil, fmt.Errorf("%w: the tools file: unknown role %q (the roles: %s)", ErrConfig, key, roleList())
		}
		dec := json.NewDecoder(bytes.NewReader(raw[key]))
		dec.DisallowUnknownFields()
		var entry struct {
			Tool *string         `json:"tool"`
			Args json.RawMessage `json:"args"`
		}
		if err := dec.Decode(&entry); err != nil {
			return nil, fmt.Errorf("%w: the tools file: %q: %v (want {\"tool\": NAME, \"args\": {...}})", ErrConfig, key, err)
		}
		var spec ToolSpec
		if entry.Tool != nil {
			if *entry.Tool == "" {
				return nil, fmt.Errorf("%w: the tools file: %q: an empty tool name", ErrConfig, key)
			}
			spec.Tool = *entry.Tool
		}
		if entry.Args != nil {
			args, err := ArgsObject(entry.Args)
			if err != nil {
				return nil, fmt.Errorf("%w: the tools file: %q: args: %v", ErrConfig, key, err)
			}
			spec.Args = args
		}
		out[role] = spec
	}
	return out, nil
}

// ArgsObject decodes a tool's arguments: a JSON object, nothing else.
func ArgsObject(raw []byte) (map[string]any, error) {
	var args map[string]any
	if trimmed := bytes.TrimSpace(raw); len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, fmt.Errorf("not a JSON object: %s", clip(string(trimmed), 60))
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	return args, nil
}

func roleList() string {
	names := make([]string, len(Roles))
	for i, r := range Roles {
		names[i] = string(r)
	}
	return strings.Join(names, ", ")
}

// serves reports whether the server lists tool (tools/list, every page). A server whose
// tools/list does not answer is given the benefit: the tool is tried.
func (r *eraRun) serves(ctx context.Context, tool string) (bool, error) {
	if r.toolNames == nil {
		names := []string{}
		params := map[string]any{}
		for range 100 {
			res, err := r.owner.call(ctx, "tools/list", params, true)
			if err != nil {
				return false, err
			}
			var out struct {
				Tools      []struct{ Name string } `json:"tools"`
				NextCursor string                  `json:"nextCursor"`
			}
			if res.Error != nil || json.Unmarshal(res.Result, &out) != nil {
				return true, nil
			}
			for _, t := range out.Tools {
				names = append(names, t.Name)
			}
			if out.NextCursor == "" {
				break
			}
			params = map[string]any{"cursor": out.NextCursor}
		}
		r.toolNames = names
	}
	return slices.Contains(r.toolNames, tool), nil
}

// needTools is nil when the server lists the tool of every role. A missing tool leaves
// the check not exercised when it is the reference server's (this server has no such
// tool), and refuses its setup when it was mapped to another name (a mapping that names
// a tool the server does not offer is one to fix); either way the reason names it.
func (r *eraRun) needTools(ctx context.Context, roles []Role) error {
	for _, role := range roles {
		name, _ := r.tools.Tool(role)
		ok, err := r.serves(ctx, name)
		switch {
		case err != nil:
			return err
		case ok:
			continue
		}
		why := fmt.Sprintf("the server lists no tool %q, the %s tool (%s)", name, role, role.Kind())
		if def, _ := DefaultTools.Tool(role); name == def {
			return fmt.Errorf("%w: %s: map one it offers with --%s-tool or %q in --tools", errNone, why, role, role)
		}
		return fmt.Errorf("%w: %s, as mapped: tools/list does not offer it", errSetup, why)
	}
	return nil
}
