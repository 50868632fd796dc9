package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"

	"github.com/storecheck/storecheck/reference"
)

// cursorPos is where a page ended: the last task's creation time and id. Tasks are
// listed oldest first, so a task created while a client pages comes after every cursor
// already issued: none is skipped or repeated.
type cursorPos struct {
	Created int64  `json:"c"`
	ID      string `json:"i"`
	Caller  string `json:"p"`
}

var errCursor = errors.New("not a cursor this server issued to this caller")

// writeCursor signs pos for caller: a cursor is opaque, and one forged, altered or
// issued to another caller is refused.
func (s *Server) writeCursor(pos cursorPos, caller reference.Caller) string {
	pos.Caller = caller.String()
	return s.seal("", pos)
}

func (s *Server) readCursor(c string, caller reference.Caller) (cursorPos, error) {
	var pos cursorPos
	if !s.unseal("", c, &pos) || pos.Caller != caller.String() {
		return cursorPos{}, errCursor
	}
	return pos, nil
}

// seal encodes v as an opaque token signed by the server; domain sets one kind of token
// apart from another, so that none passes for another kind.
func (s *Server) seal(domain string, v any) string {
	body, _ := json.Marshal(v)
	enc := base64.RawURLEncoding.EncodeToString(body)
	return enc + "." + base64.RawURLEncoding.EncodeToString(s.sign(domain+enc))
}

// unseal decodes into v a token seal made with the same domain; a forged or altered one
// is false.
func (s *Server) unseal(domain, token string, v any) bool {
	enc, sig, ok := strings.Cut(token, ".")
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if !ok || err != nil || !hmac.Equal(got, s.sign(domain+enc)) {
		return false
	}
	body, err := base64.RawURLEncoding.DecodeString(enc)
	return err == nil && json.Unmarshal(body, v) == nil
}

func (s *Server) sign(enc string) []byte {
	m := hmac.New(sha256.New, s.secret[:])
	m.Write([]byte(enc))
	return m.Sum(nil)[:16]
}
