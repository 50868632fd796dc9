package probe

import (
	"context"
	"errors"
	"fmt"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/probe/client"
)

// unknownToken is a bearer token no server issued.
const unknownToken = "storecheck-probe-unknown-token"

// checkAuth (V-AUTH-1, Streamable HTTP): a connection with a bearer token the server never
// issued is refused with HTTP 401 (authorization, Token Handling: "Invalid or expired
// tokens MUST receive a HTTP 401 response"; 403 is for "Invalid scopes or insufficient
// permissions"). A server that accepts any token is judged by whether tokens tell its
// callers apart: when a new connection with the first principal's token reads its task
// and another principal's does not, tokens are principals to it, and one it never issued
// must be refused; otherwise (tasks bound to the session, or to nothing) there is no
// token to refuse and the rule is not exercised. What the server binds tasks to is noted.
func checkAuth(ctx context.Context, r *eraRun) error {
	if r.stdio {
		return fmt.Errorf("%w: stdio carries no credentials (authorization: \"Implementations using an STDIO transport SHOULD NOT follow this specification\")", errNone)
	}
	id, _, err := r.finished(ctx)
	if err != nil {
		return err
	}
	fresh, err := dial(ctx, r.cfg, r.cfg.Principals[0], r.era)
	if err != nil {
		return fmt.Errorf("%w: a new connection as %s: %w", errSetup, r.owner.name, err)
	}
	_, ownErr, err := fresh.task(ctx, id)
	if err != nil {
		return err
	}
	_, otherErr, err := r.others[0].task(ctx, id)
	if err != nil {
		return err
	}
	byToken := ownErr == nil && otherErr != nil
	switch {
	case ownErr == nil && otherErr == nil:
		r.note(fmt.Sprintf("the server binds tasks to nothing: %s reads %s's task", r.others[0].name, r.owner.name))
	case byToken:
		r.note(fmt.Sprintf("the server binds tasks to the principal: a new connection with %s's token reads its task, %s's does not", r.owner.name, r.others[0].name))
	default:
		r.note(fmt.Sprintf("the server binds tasks to the session: a new connection with %s's token does not read its task", r.owner.name))
	}
	method := "initialize"
	if r.era == conformance.EraModern {
		method = "server/discover"
	}
	in := fmt.Sprintf("%s with the bearer token %q, never issued", method, unknownToken)
	var refused *client.HTTPError
	switch {
	case errors.As(r.strangerErr, &refused) && refused.StatusCode == 401:
		return nil
	case errors.As(r.strangerErr, &refused):
		return faultf(in, `HTTP 401 ("Invalid or expired tokens MUST receive a HTTP 401 response")`, fmt.Sprintf("HTTP %d: %s", refused.StatusCode, clip(refused.Body, 120)))
	case errors.Is(r.strangerErr, ErrNoAnswer):
		return r.strangerErr
	case r.strangerErr != nil:
		return faultf(in, `HTTP 401 ("Invalid or expired tokens MUST receive a HTTP 401 response")`, r.strangerErr)
	case byToken:
		return faultf(in, fmt.Sprintf(`HTTP 401: the server tells callers apart by their tokens (a new connection with %s's reads its task, %s's does not), so a token it never issued is invalid ("Invalid or expired tokens MUST receive a HTTP 401 response")`, r.owner.name, r.others[0].name),
			"the connection accepted")
	}
	return fmt.Errorf("%w: the server accepts a bearer token it never issued and does not tell callers apart by token: no token to refuse", errNone)
}
