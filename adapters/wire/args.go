package wire

import (
	"encoding/json"

	"github.com/storecheck/storecheck/reference"
)

// opArgs decodes one request's arguments; its errors name the op and the argument.
type opArgs struct {
	op   string
	args map[string]any
}

func (a opArgs) str(k string) (string, error) {
	v, ok := a.args[k].(string)
	if !ok {
		return "", errArgs(a.op, "%s must be a string, got %s", k, kindOf(a.args[k]))
	}
	return v, nil
}

func (a opArgs) object(k string, nullable bool) (map[string]any, error) {
	switch v := a.args[k].(type) {
	case map[string]any:
		return v, nil
	case nil:
		if nullable {
			return nil, nil
		}
	}
	return nil, errArgs(a.op, "%s must be an object, got %s", k, kindOf(a.args[k]))
}

func (a opArgs) caller(k string, nullable bool) (reference.Caller, error) {
	if a.args[k] == nil && nullable {
		return reference.System(), nil
	}
	c, err := decodeCaller(a.args[k])
	if err != nil {
		return reference.Caller{}, errArgs(a.op, "%s: %v", k, err)
	}
	return c, nil
}

func (a opArgs) num(k string) (int64, error) {
	n, ok := a.args[k].(json.Number)
	if !ok {
		return 0, errArgs(a.op, "%s must be an integer, got %s", k, kindOf(a.args[k]))
	}
	v, err := integer(n)
	if err != nil {
		return 0, errArgs(a.op, "%s: %v", k, err)
	}
	return v, nil
}
